import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import type { Account } from '../core/accounts';
import { BadRequestError, ServiceError } from '../core/errors';
import { logger } from '../http/logger';
import { canonicalBaseUrl } from '../http/request-url';
import { getServices } from '../services';
import {
  AuthenticationError,
  authenticateCredentials,
  InsufficientScopeAccessError,
  type Principal,
} from './authenticate';
import { AUTHORIZATION_ONLY_VARIABLE, presentedCredentials } from './credentials';

/**
 * The authorizer's verdict as API Gateway passes it to the route's handler
 * (`event.requestContext.authorizer`: string values only). The authorizer always allows the call
 * and reports either the principal or the refusal, so that the handler answers refusals in the
 * same shape on both hosts (401 with `WWW-Authenticate`, 403, or 400 for ambiguous credentials).
 */
export type AuthorizerContext = Record<string, string>;

type Refusal = 'unauthorized' | 'invalid_token' | 'insufficient_scope' | 'bad_request';

/**
 * Runs the one authentication on a request and encodes the outcome for the handler.
 * `authorizationOnly`: the verdict may depend on the Authorization header alone (API Gateway's
 * result cache is keyed on it).
 */
export async function authorizeRequest(
  event: APIGatewayProxyEvent,
  options: { authorizationOnly?: boolean } = {},
): Promise<AuthorizerContext> {
  const services = await getServices();
  try {
    const principal = await authenticateCredentials(
      services,
      presentedCredentials(event, options),
      canonicalBaseUrl(event),
    );
    return {
      accountId: principal.account.accountId,
      handle: principal.account.handle,
      name: principal.account.name,
      createdAt: principal.account.createdAt,
      via: principal.via,
      scope: principal.scope,
      ...(principal.clientId ? { clientId: principal.clientId } : {}),
    };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const refusal: Refusal =
      error instanceof InsufficientScopeAccessError
        ? 'insufficient_scope'
        : error instanceof AuthenticationError && error.bearerError
          ? 'invalid_token'
          : error.kind === 'bad_request'
            ? 'bad_request'
            : 'unauthorized';
    return { refusal, message: error.message };
  }
}

/** The principal the authorizer found, or the refusal it reported, thrown as the error to answer. */
export function principalFromContext(context: AuthorizerContext): Principal {
  switch (context.refusal as Refusal | undefined) {
    case undefined:
      break;
    case 'bad_request':
      throw new BadRequestError(String(context.message));
    case 'insufficient_scope':
      throw new InsufficientScopeAccessError(String(context.message));
    case 'invalid_token':
      throw new AuthenticationError(String(context.message), 'invalid_token');
    default:
      throw new AuthenticationError(String(context.message));
  }
  const account: Account = {
    accountId: String(context.accountId),
    handle: String(context.handle),
    name: String(context.name),
    createdAt: String(context.createdAt),
  };
  return {
    account,
    via: context.via === 'oauth' ? 'oauth' : 'api_key',
    scope: String(context.scope),
    ...(context.clientId ? { clientId: String(context.clientId) } : {}),
  };
}

/** True when API Gateway (or the local router) already ran the authorizer for this event. */
export function hasAuthorizerContext(event: APIGatewayProxyEvent): boolean {
  const context = event.requestContext?.authorizer as AuthorizerContext | null | undefined;
  return Boolean(context && (context.accountId || context.refusal));
}

/**
 * The principal of a handler's request: from the authorizer context when the front door ran the
 * authorizer (always in AWS and on the local host), else by running it here (direct invocation).
 */
export async function requestPrincipal(event: APIGatewayProxyEvent): Promise<Principal> {
  const context = hasAuthorizerContext(event)
    ? (event.requestContext.authorizer as AuthorizerContext)
    : await authorizeRequest(event);
  return principalFromContext(context);
}

/**
 * The Lambda REQUEST authorizer of the deployed API. It allows every call to the method and
 * passes its verdict in the context (see `AuthorizerContext`).
 */
export async function lambdaAuthorizer(
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  const proxyLike = { ...event, body: null, isBase64Encoded: false } as unknown as APIGatewayProxyEvent;
  const context = await authorizeRequest(proxyLike, {
    authorizationOnly: process.env[AUTHORIZATION_ONLY_VARIABLE] === 'true',
  });
  logger.info('authorized', { outcome: context.refusal ?? context.via, accountId: context.accountId });
  return {
    principalId: context.accountId ?? 'anonymous',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
    },
    context,
  };
}
