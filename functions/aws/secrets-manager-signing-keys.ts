import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SigningKeySet, SigningKeyStore } from '../oauth/signing-keys';

/**
 * Signing keys in AWS: one Secrets Manager secret whose current version (AWSCURRENT) is the key
 * set as JSON. The stack creates the secret empty; the first request that needs a key writes the
 * first set. PutSecretValue makes the new version AWSCURRENT (docs/aws.md).
 */
export class SecretsManagerSigningKeyStore implements SigningKeyStore {
  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
  ) {}

  async load(): Promise<SigningKeySet | undefined> {
    try {
      const { SecretString } = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId }));
      if (!SecretString) return undefined;
      const parsed = JSON.parse(SecretString) as Partial<SigningKeySet>;
      return Array.isArray(parsed.keys) ? { keys: parsed.keys } : undefined;
    } catch (error) {
      // A secret created without a value has no AWSCURRENT version yet.
      if (error instanceof ResourceNotFoundException) return undefined;
      if (error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  async save(set: SigningKeySet): Promise<void> {
    await this.client.send(
      new PutSecretValueCommand({ SecretId: this.secretId, SecretString: JSON.stringify(set) }),
    );
  }
}
