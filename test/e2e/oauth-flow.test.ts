/**
 * The whole OAuth flow with a real client library (oauth4webapi), as an MCP client that opens a
 * browser does it: discovery from the 401 of /mcp/v1 → protected resource metadata → authorization
 * server metadata → dynamic registration → authorization (login form submitted, consent given)
 * → token → MCP tools/list and a REST call with the bearer → refresh rotation → the replaced
 * refresh token replayed revokes the family (refresh and access tokens alike).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../support/mcp-tools';
import { authorizeInBrowser } from '../support/oauth-browser';
import { startTestHost, type TestHost } from '../support/test-host';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('OAuth flow with oauth4webapi', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  it('discovers, registers, authorizes, calls MCP and REST, rotates, and revokes on replay', async () => {
    // 1. The 401 names the protected resource metadata (without credentials, and with a bad token
    //    as oauth4webapi parses it).
    const refused = await fetch(`${host.baseUrl}/mcp/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${host.baseUrl}/.well-known/oauth-protected-resource/mcp/v1", scope="mcp:service:full"`,
    );
    const challenge = await oauth
      .protectedResourceRequest(
        'not-a-token',
        'POST',
        new URL(`${host.baseUrl}/mcp/v1`),
        undefined,
        undefined,
        insecure,
      )
      .then(
        () => undefined,
        (error: unknown) => error as oauth.WWWAuthenticateChallengeError,
      );
    expect(challenge).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect(challenge!.status).toBe(401);
    const parameters = challenge!.cause[0]!.parameters;
    expect(challenge!.cause[0]!.scheme).toBe('bearer');
    expect(parameters.error).toBe('invalid_token');
    expect(parameters.scope).toBe('mcp:service:full');
    const metadataUrl = parameters.resource_metadata!;
    expect(metadataUrl).toBe(`${host.baseUrl}/.well-known/oauth-protected-resource/mcp/v1`);

    // 2. Protected resource metadata (RFC 9728) → authorization server metadata (RFC 8414).
    const resource = await oauth.processResourceDiscoveryResponse(
      new URL(`${host.baseUrl}/mcp/v1`),
      await fetch(metadataUrl),
    );
    const issuer = new URL(resource.authorization_servers![0]!);
    expect(issuer.href).toBe(`${host.baseUrl}/oauth/mcp`);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    expect(as.code_challenge_methods_supported).toEqual(['S256']);

    // 3. Dynamic client registration (RFC 7591), public client.
    const redirectUri = 'http://127.0.0.1:33418/callback';
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { redirect_uris: [redirectUri], client_name: 'Flow test client', token_endpoint_auth_method: 'none' },
        insecure,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };

    // 4. Authorization with PKCE; the login and consent forms are submitted.
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: host.baseUrl,
      scope: 'mcp:service:full',
    }).toString();
    const callback = await authorizeInBrowser(authorizationUrl.href, host.login);
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    const params = oauth.validateAuthResponse(as, client, callback, state);

    // 5. Token.
    const tokenResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      { additionalParameters: { resource: host.baseUrl }, ...insecure },
    );
    expect(tokenResponse.headers.get('cache-control')).toBe('no-store');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('mcp:service:full');
    expect(tokens.expires_in).toBe(900);

    // 6. The bearer works on MCP and on REST: one audience, the base URL.
    const bearer = { Authorization: `Bearer ${tokens.access_token}` };
    const mcp = new Client({ name: 'oauth-flow-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${host.baseUrl}/mcp/v1`), {
        requestInit: { headers: bearer },
      }),
    );
    const tools = await mcp.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS);
    await mcp.close();
    const rest = await fetch(`${host.baseUrl}/v1/datasets?limit=1`, { headers: bearer });
    expect(rest.status).toBe(200);

    // 7. Refresh rotates: a new refresh token, a new access token that works.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).toBeDefined();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const afterRefresh = await fetch(`${host.baseUrl}/v1/queries?limit=1`, {
      headers: { Authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(afterRefresh.status).toBe(200);

    // 8. The old refresh token, replayed after the grace window, revokes the family.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const family = await host.services.oauth.listFamilies(host.accountId, client.client_id);
    const familyId = family[0]!.familyId;
    // Move the rotation out of the grace window (10 s) instead of waiting for it.
    const stored = (await host.services.oauth.getFamily(familyId))!;
    await ageRotation(host, familyId, stored.rotatedAt - 60_000);
    const replay = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      tokens.refresh_token!,
      insecure,
    );
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/revoked/),
    });
    // Everything of the family is dead: the newest refresh token and the access token.
    const newest = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      refreshed.refresh_token!,
      insecure,
    );
    expect(((await newest.json()) as { error: string }).error).toBe('invalid_grant');
    const revoked = await fetch(`${host.baseUrl}/v1/queries?limit=1`, {
      headers: { Authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });
});

/** Sets a family's last rotation time (what the grace window is measured from). */
async function ageRotation(host: TestHost, familyId: string, rotatedAt: number) {
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { localDynamoClient } = await import('../../functions/aws/dynamo/client');
  const { SERVICE_TABLE } = await import('../../functions/aws/dynamo/table-definitions');
  const { doc, client } = localDynamoClient(host.dynamoEndpoint);
  await doc.send(
    new UpdateCommand({
      TableName: SERVICE_TABLE.localName,
      Key: { pk: `OAUTHFAMILY#${familyId}`, sk: 'FAMILY' },
      UpdateExpression: 'SET rotatedAt = :at',
      ExpressionAttributeValues: { ':at': rotatedAt },
    }),
  );
  client.destroy();
}
