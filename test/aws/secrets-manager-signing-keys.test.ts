import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { SecretsManagerSigningKeyStore } from '../../functions/aws/secrets-manager-signing-keys';
import { issueAccessToken, verifyAccessToken } from '../../functions/oauth/access-tokens';
import { DEFAULT_KEY_POLICY, SigningKeys } from '../../functions/oauth/signing-keys';

const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:SigningKeys-AbCdEf';
const secrets = mockClient(SecretsManagerClient);

/** Secrets Manager as it behaves: the last PutSecretValue becomes AWSCURRENT and GetSecretValue returns it. */
function fakeSecret(initial: string | undefined) {
  let current = initial;
  secrets.reset();
  secrets.on(GetSecretValueCommand, { SecretId: SECRET }).callsFake(() => {
    if (current === undefined) {
      throw new ResourceNotFoundException({
        message: "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
        $metadata: {},
      });
    }
    return { ARN: SECRET, Name: 'SigningKeys', SecretString: current, VersionStages: ['AWSCURRENT'] };
  });
  secrets.on(PutSecretValueCommand, { SecretId: SECRET }).callsFake((input: { SecretString: string }) => {
    current = input.SecretString;
    return { ARN: SECRET, Name: 'SigningKeys', VersionId: 'v2', VersionStages: ['AWSCURRENT'] };
  });
}

describe('signing keys in Secrets Manager', () => {
  beforeEach(() => fakeSecret('a generated placeholder password, not JSON'));

  it('replaces the placeholder with a key set on first use and signs verifiable ES256 tokens', async () => {
    const keys = new SigningKeys(new SecretsManagerSigningKeyStore(new SecretsManagerClient({}), SECRET));
    const { token } = await issueAccessToken(keys, {
      issuer: 'https://sql.example.com/oauth/mcp',
      audience: 'https://sql.example.com',
      sub: 'acct',
      client_id: 'mcp_x',
      scope: 'mcp:service:full',
      sid: 'fam',
    });
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(1);
    const stored = JSON.parse(secrets.commandCalls(PutSecretValueCommand)[0]!.args[0].input.SecretString!);
    expect(stored.keys).toHaveLength(1);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', kid: stored.keys[0].kid });
    const { payload } = await jwtVerify(token, createLocalJWKSet(await keys.jwks()), {
      issuer: 'https://sql.example.com/oauth/mcp',
      audience: 'https://sql.example.com',
    });
    expect(payload.sub).toBe('acct');
  });

  it('treats a secret without a current version as empty', async () => {
    fakeSecret(undefined);
    const store = new SecretsManagerSigningKeyStore(new SecretsManagerClient({}), SECRET);
    expect(await store.load()).toBeUndefined();
  });

  it('rotates: the new key signs, the old one stays published until its tokens expired, then goes', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = new SecretsManagerSigningKeyStore(new SecretsManagerClient({}), SECRET);
    const keys = new SigningKeys(store, { ...DEFAULT_KEY_POLICY, reloadAfterMs: 0 }, () => now);
    const claims = {
      issuer: 'https://s/oauth/mcp',
      audience: 'https://s',
      sub: 'a',
      client_id: 'c',
      scope: 'mcp:service:full',
      sid: 'f',
    };
    const old = await issueAccessToken(keys, claims, now);
    now += DEFAULT_KEY_POLICY.rotateAfterMs; // the key is due: the next signature rotates
    const fresh = await issueAccessToken(keys, claims, now);
    const oldKid = decodeProtectedHeader(old.token).kid;
    expect(decodeProtectedHeader(fresh.token).kid).not.toBe(oldKid);
    expect((await keys.jwks()).keys.map((key) => key.kid)).toContain(oldKid);
    await expect(verifyAccessToken(keys, fresh.token, claims, now)).resolves.toMatchObject({ sub: 'a' });
    now += DEFAULT_KEY_POLICY.publishRetiredForMs;
    expect((await keys.jwks()).keys.map((key) => key.kid)).not.toContain(oldKid);
    await expect(verifyAccessToken(keys, old.token, claims, now)).rejects.toThrow(/unknown signing key/);
  });
});
