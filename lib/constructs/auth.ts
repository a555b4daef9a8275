import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { IdentitySource, RequestAuthorizer } from 'aws-cdk-lib/aws-apigateway';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { AUTHORIZATION_ONLY_VARIABLE } from '../../functions/auth/credentials';
import { createServiceFunction } from './service-function';

export interface AuthProps {
  /** The authorizer's own role (function group `authorizer`): it may read the signing keys. */
  readonly role: IRole;
  readonly environment: Readonly<Record<string, string>>;
  /**
   * API Gateway's authorizer result cache, in seconds (0 = off, the default). A cache needs every
   * identity source on every request, or API Gateway answers 401 without asking the authorizer
   * (docs/aws.md). Requests carry their credential in one of three places, so with the cache on
   * the identity source is the Authorization header and every client must send its credential
   * there (an API key works as `Authorization: Bearer osk_…`); the header and query forms of the
   * API key then stop working. See docs/aws.md for what a revocation costs either way.
   */
  readonly resultCacheSeconds?: number;
}

/**
 * The one authorizer of the API (functions/auth/authorizer.ts, `lambdaAuthorizer`) and the
 * secret holding the access-token signing keys. The authorizer allows every call and passes its
 * verdict (the account, or the refusal) to the route's handler, which answers refusals in the
 * same shape as the local host.
 */
export class Auth extends Construct {
  readonly authorizer: RequestAuthorizer;
  readonly function: NodejsFunction;
  readonly signingKeys: Secret;
  /** Variables every API function needs to verify and sign tokens. */
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: AuthProps) {
    super(scope, id);
    // Created with a random placeholder value; the first token request replaces it with a key set.
    this.signingKeys = new Secret(this, 'SigningKeys', {
      description:
        'ES256 keys that sign OAuth access tokens (JSON key set; rotate: npm run admin -- --aws rotate-signing-key)',
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.signingKeys).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotated by the service (npm run admin -- --aws rotate-signing-key keeps the old key for verification)',
    });
    // The authorizer verifies tokens; only the OAuth endpoints sign them (see service-stack.ts).
    this.signingKeys.grantRead(props.role);
    this.environment = { SIGNING_KEYS_SECRET_ID: this.signingKeys.secretArn };

    const cacheSeconds = props.resultCacheSeconds ?? 0;
    this.function = createServiceFunction(this, {
      id: 'Authorizer',
      description: 'Lambda REQUEST authorizer: API key or OAuth bearer token',
      entry: 'functions/auth/authorizer.ts',
      handler: 'lambdaAuthorizer',
      timeoutSeconds: 10,
      role: props.role,
      environment: {
        ...props.environment,
        ...this.environment,
        // A cached verdict is served to every request with the same Authorization header, so it
        // must not depend on any other (an x-service-api-key sent alongside a token).
        ...(cacheSeconds > 0 ? { [AUTHORIZATION_ONLY_VARIABLE]: 'true' } : {}),
      },
    });
    const handler = this.function;
    this.authorizer = new RequestAuthorizer(this, 'RequestAuthorizer', {
      handler,
      identitySources: cacheSeconds > 0 ? [IdentitySource.header('Authorization')] : [],
      resultsCacheTtl: Duration.seconds(cacheSeconds),
    });
  }
}
