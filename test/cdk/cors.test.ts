/**
 * CORS in AWS: a Lambda proxy integration cannot answer a preflight, so every path the route table
 * marks `cors` gets a MOCK `OPTIONS` method answering with the values the local host uses
 * (functions/http/cors.ts); the functions add `Access-Control-Allow-Origin` to the real answers.
 */
import { describe, expect, it } from 'vitest';
import {
  corsMethodsOf,
  MCP_CORS_ALLOW_HEADERS,
  PREFLIGHT_MAX_AGE_SECONDS,
  PUBLIC_CORS_ALLOW_HEADERS,
} from '../../functions/http/cors';
import { routes } from '../../functions/routes';
import { logicalIdOf, synthServiceStack } from './helpers';

/** CloudFormation JSON, walked loosely on purpose. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary template JSON
type Cfn = any;
type CfnResource = { Type: string; Properties: Record<string, Cfn> };

const PUBLIC_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/{resource_path+}',
  '/.well-known/oauth-authorization-server/oauth/mcp',
  '/oauth/mcp/jwks.json',
  '/oauth/mcp/register',
  '/oauth/mcp/token',
  '/oauth/mcp/revoke',
];

/** Each OPTIONS method of a synthesized stack, by its resource path. */
function preflights(props: Parameters<typeof synthServiceStack>[0] = {}) {
  const { stack, template } = synthServiceStack(props);
  const resources = template.toJSON().Resources as Record<string, CfnResource>;
  const pathOf = (resourceId: Cfn): string => {
    const ref = resourceId?.Ref as string | undefined;
    if (!ref) return '';
    const { ParentId, PathPart } = resources[ref]!.Properties;
    return `${pathOf(ParentId)}/${PathPart}`;
  };
  const byPath = new Map<string, Record<string, Cfn>>();
  for (const resource of Object.values(resources)) {
    if (resource.Type === 'AWS::ApiGateway::Method' && resource.Properties.HttpMethod === 'OPTIONS') {
      byPath.set(pathOf(resource.Properties.ResourceId), resource.Properties);
    }
  }
  return { stack, resources, byPath };
}

const headerOf = (method: Record<string, Cfn>, name: string) =>
  method.Integration.IntegrationResponses[0].ResponseParameters[`method.response.header.${name}`];

describe('CORS preflights in AWS', () => {
  const { stack, resources, byPath } = preflights();

  it('answers OPTIONS on the public OAuth and discovery paths and /mcp/v1, and nowhere else', () => {
    expect([...byPath.keys()].sort()).toEqual([...PUBLIC_PATHS, '/mcp/v1'].sort());
    expect(
      routes
        .filter((r) => r.cors === 'public')
        .map((r) => r.path)
        .sort(),
    ).toEqual([...PUBLIC_PATHS].sort());
    for (const method of byPath.values()) {
      expect(method).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
    }
  });

  it('lets any origin call the public paths, with the headers the local host allows', () => {
    for (const path of PUBLIC_PATHS) {
      const method = byPath.get(path)!;
      expect(method.Integration.IntegrationResponses[0].StatusCode).toBe('204');
      expect(headerOf(method, 'Access-Control-Allow-Origin')).toBe("'*'");
      expect(headerOf(method, 'Access-Control-Allow-Methods')).toBe(`'${corsMethodsOf(path).join(',')}'`);
      expect(headerOf(method, 'Access-Control-Allow-Headers')).toBe(
        `'${PUBLIC_CORS_ALLOW_HEADERS.join(',')}'`,
      );
      expect(headerOf(method, 'Access-Control-Max-Age')).toBe(`'${PREFLIGHT_MAX_AGE_SECONDS}'`);
    }
    expect(headerOf(byPath.get('/oauth/mcp/register')!, 'Access-Control-Allow-Methods')).toBe(
      "'POST,OPTIONS'",
    );
  });

  it('refuses the /mcp/v1 preflight with 403 when no origin is configured, and sets no MCP_ALLOWED_ORIGINS', () => {
    const method = byPath.get('/mcp/v1')!;
    const response = method.Integration.IntegrationResponses[0];
    expect(response.StatusCode).toBe('403');
    expect(JSON.parse(response.ResponseTemplates['application/json']).error).toMatch(
      /no browser origin may call \/mcp\/v1 \(deploy with -c mcpAllowedOrigins=/,
    );
    const mcpPost = resources[logicalIdOf(stack, stack.api.functions.get('McpPost')!)]!;
    expect(mcpPost.Properties.Environment.Variables.MCP_ALLOWED_ORIGINS).toBeUndefined();
  });

  it('with -c mcpAllowedOrigins, the MCP functions allow those origins and the preflight echoes them', () => {
    const configured = preflights({ mcpAllowedOrigins: ['https://app.example', 'localhost:6274'] });
    const method = configured.byPath.get('/mcp/v1')!;
    const response = method.Integration.IntegrationResponses[0];
    expect(response.StatusCode).toBe('204');
    expect(headerOf(method, 'Access-Control-Allow-Headers')).toBe(`'${MCP_CORS_ALLOW_HEADERS.join(',')}'`);
    expect(headerOf(method, 'Access-Control-Allow-Methods')).toBe("'POST,GET,OPTIONS'");
    expect(headerOf(method, 'Vary')).toBe("'Origin'");
    // The first origin is the default; the template echoes any other listed one (a host stands for both schemes).
    expect(headerOf(method, 'Access-Control-Allow-Origin')).toBe("'https://app.example'");
    const template = response.ResponseTemplates['application/json'] as string;
    for (const origin of ['https://localhost:6274', 'http://localhost:6274'])
      expect(template).toContain(`"${origin}"`);
    for (const name of ['McpPost', 'McpGet']) {
      const fn =
        configured.resources[logicalIdOf(configured.stack, configured.stack.api.functions.get(name)!)]!;
      expect(fn.Properties.Environment.Variables.MCP_ALLOWED_ORIGINS).toBe(
        'https://app.example,localhost:6274',
      );
    }
    const other =
      configured.resources[logicalIdOf(configured.stack, configured.stack.api.functions.get('Token')!)]!;
    expect(other.Properties.Environment.Variables.MCP_ALLOWED_ORIGINS).toBeUndefined();
  });
});
