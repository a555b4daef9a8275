import { OAUTH_SCOPE } from '../core/oauth';
import { PROTECTED_RESOURCE_METADATA_PATH } from '../oauth/config';

/**
 * The protected resource metadata (RFC 9728) that describes a request path: the MCP endpoint
 * and the REST API each have their own, at the path-aware well-known URL (the well-known segment
 * goes right after the host, then the resource's path).
 */
export function resourceMetadataUrl(baseUrl: string, path: string): string {
  if (path === '/mcp/v1' || path.startsWith('/mcp/'))
    return `${baseUrl}${PROTECTED_RESOURCE_METADATA_PATH}/mcp/v1`;
  if (path === '/v1' || path.startsWith('/v1/')) return `${baseUrl}${PROTECTED_RESOURCE_METADATA_PATH}/v1`;
  return `${baseUrl}${PROTECTED_RESOURCE_METADATA_PATH}`;
}

/** `WWW-Authenticate` of a 401/403: where to discover the authorization server, and what went wrong. */
export function bearerChallenge(
  baseUrl: string,
  path: string,
  failure?: { error: 'invalid_token' | 'insufficient_scope'; description?: string },
): string {
  const parts = [`resource_metadata="${resourceMetadataUrl(baseUrl, path)}"`, `scope="${OAUTH_SCOPE}"`];
  if (failure) {
    parts.push(`error="${failure.error}"`);
    if (failure.description) parts.push(`error_description="${failure.description.replace(/["\\]/g, "'")}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}
