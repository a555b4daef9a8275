import type { APIGatewayProxyEvent } from 'aws-lambda';
import { resourceBaseUrl } from '../http/request-url';
import { AuthenticationError, InsufficientScopeAccessError } from './authenticate';
import { bearerChallenge } from './challenge';

/**
 * The `WWW-Authenticate` header of an authentication refusal, identical on every route: MCP
 * clients discover the authorization server from it (RFC 9728 §5.1).
 */
export function challengeHeaders(error: unknown, event: APIGatewayProxyEvent): Record<string, string> {
  const baseUrl = resourceBaseUrl(event);
  if (error instanceof InsufficientScopeAccessError) {
    return {
      'www-authenticate': bearerChallenge(baseUrl, event.path, {
        error: 'insufficient_scope',
        description: error.message,
      }),
    };
  }
  if (error instanceof AuthenticationError) {
    return {
      'www-authenticate': bearerChallenge(
        baseUrl,
        event.path,
        error.bearerError ? { error: error.bearerError, description: error.message } : undefined,
      ),
    };
  }
  return {};
}
