import { describe, expect, it } from 'vitest';
import { AUTHORIZATION_ONLY_VARIABLE } from '../../functions/auth/credentials';
import { routes } from '../../functions/routes';
import { logicalIdOf, roleStatements, synthServiceStack } from './helpers';

type CfnResource = { Type: string; Properties: Record<string, unknown> };

describe('the one authorizer in AWS', () => {
  const { stack, template } = synthServiceStack();
  const resources = template.toJSON().Resources as Record<string, CfnResource>;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const authorizers = ofType('AWS::ApiGateway::Authorizer');

  it('is a Lambda REQUEST authorizer running functions/auth/authorizer.ts, uncached by default', () => {
    expect(authorizers).toHaveLength(1);
    const [authorizerId, authorizer] = authorizers[0]!;
    expect(authorizer.Properties).toMatchObject({ Type: 'REQUEST', AuthorizerResultTtlInSeconds: 0 });
    expect(authorizer.Properties.IdentitySource ?? '').toBe('');
    const fn = resources[logicalIdOf(stack, stack.api.auth.function)]!;
    expect(fn.Properties.Handler).toBe('index.lambdaAuthorizer');
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(
      logicalIdOf(stack, stack.api.auth.function),
    );
    expect(authorizerId).toBeTruthy();
  });

  it('guards every route that is not public, and no public one', () => {
    const [authorizerId] = authorizers[0]!;
    const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => m.Properties);
    // The CORS preflights (MOCK OPTIONS, one per CORS path) are public too.
    const preflights = methods.filter((m) => m.HttpMethod === 'OPTIONS');
    expect(preflights).toHaveLength(new Set(routes.filter((r) => r.cors).map((r) => r.path)).size);
    for (const preflight of preflights) expect(preflight.AuthorizationType).toBe('NONE');
    expect(methods).toHaveLength(routes.length + preflights.length);
    const guarded = methods.filter((m) => m.AuthorizationType === 'CUSTOM');
    const open = methods.filter((m) => m.AuthorizationType === 'NONE');
    expect(guarded).toHaveLength(routes.filter((r) => !r.public).length);
    expect(open).toHaveLength(routes.filter((r) => r.public).length + preflights.length);
    for (const method of guarded) expect(method.AuthorizerId).toEqual({ Ref: authorizerId });
  });

  it('keeps the signing keys in Secrets Manager: the authorizer reads them, OAuth and the runner (webhooks) sign', () => {
    expect(ofType('AWS::SecretsManager::Secret')).toHaveLength(1);
    const secretId = logicalIdOf(stack, stack.api.auth.signingKeys);
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      if (variables.SIGNING_KEYS_SECRET_ID)
        expect(variables.SIGNING_KEYS_SECRET_ID).toEqual({ Ref: secretId });
    }
    const actionsOf = (group: 'authorizer' | 'oauth' | 'writer' | 'runner' | 'reader') =>
      roleStatements(template, logicalIdOf(stack, stack.roles.all.get(group)!)).flatMap((st) =>
        [st.Action].flat(),
      );
    expect(actionsOf('authorizer')).toContain('secretsmanager:GetSecretValue');
    expect(actionsOf('authorizer')).not.toContain('secretsmanager:PutSecretValue');
    expect(actionsOf('oauth')).toContain('secretsmanager:PutSecretValue');
    expect(actionsOf('runner')).toEqual(
      expect.arrayContaining(['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']),
    );
    for (const group of ['writer', 'reader'] as const) {
      expect(actionsOf(group).filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
    }
    const runner = template.toJSON().Resources[logicalIdOf(stack, stack.executions.runner)];
    expect(runner.Properties.Environment.Variables.SIGNING_KEYS_SECRET_ID).toEqual({ Ref: secretId });
  });

  it('with a result cache, keys the cache on the Authorization header, and the authorizer reads only that', () => {
    const withCache = synthServiceStack({ authorizerCacheSeconds: 300 });
    const cached = withCache.template.toJSON().Resources as Record<string, CfnResource>;
    const authorizer = Object.values(cached).find((r) => r.Type === 'AWS::ApiGateway::Authorizer')!;
    expect(authorizer.Properties).toMatchObject({
      AuthorizerResultTtlInSeconds: 300,
      IdentitySource: 'method.request.header.Authorization',
    });
    // A cached verdict must not depend on an API key sent next to the token.
    const variablesOf = (resources: Record<string, CfnResource>, id: string) =>
      (resources[id]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(
      variablesOf(cached, logicalIdOf(withCache.stack, withCache.stack.api.auth.function))[
        AUTHORIZATION_ONLY_VARIABLE
      ],
    ).toBe('true');
    expect(
      variablesOf(resources, logicalIdOf(stack, stack.api.auth.function))[AUTHORIZATION_ONLY_VARIABLE],
    ).toBeUndefined();
  });

  it('offers a custom domain mapped at the root (no stage prefix), for OAuth discovery', () => {
    const { template: withDomain } = synthServiceStack({
      domain: {
        domainName: 'sql.example.com',
        certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
      },
    });
    withDomain.hasResourceProperties('AWS::ApiGateway::DomainName', { DomainName: 'sql.example.com' });
    const mapping = Object.values(withDomain.toJSON().Resources as Record<string, CfnResource>).find(
      (r) => r.Type === 'AWS::ApiGateway::BasePathMapping',
    )!;
    expect(mapping.Properties.BasePath ?? '').toBe('');
    withDomain.hasOutput('BaseUrl', { Value: 'https://sql.example.com' });
    // Every API function (the authorizer too) gets the domain as the public base URL.
    const withDomainFunctions = Object.values(
      withDomain.toJSON().Resources as Record<string, CfnResource>,
    ).filter((r) => r.Type === 'AWS::Lambda::Function');
    const baseUrls = new Set(
      withDomainFunctions
        .map(
          (fn) =>
            (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.PUBLIC_BASE_URL,
        )
        .filter(Boolean),
    );
    expect([...baseUrls]).toEqual(['https://sql.example.com']);
  });

  it("without a domain, the API functions and the authorizer get the API's stage URL as the public base URL (issuer, audience)", () => {
    const apiFunctions = [...stack.api.functions.values(), stack.api.auth.function];
    for (const fn of apiFunctions) {
      const variables = (
        resources[logicalIdOf(stack, fn)]!.Properties.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      expect(variables.PUBLIC_BASE_URL).toEqual({
        'Fn::Join': [
          '',
          [
            'https://',
            { Ref: logicalIdOf(stack, stack.api.restApi) },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
            '/prod',
          ],
        ],
      });
    }
  });
});
