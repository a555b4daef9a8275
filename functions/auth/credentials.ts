import { BadRequestError } from '../core/errors';

export const API_KEY_HEADER = 'x-service-api-key';
export const API_KEY_QUERY_PARAMETER = 'api_key';
/**
 * Set (to `true`) on the deployed authorizer when API Gateway caches its verdicts by the
 * Authorization header: it then reads that header alone (`presentedCredentials`).
 */
export const AUTHORIZATION_ONLY_VARIABLE = 'AUTHORIZER_AUTHORIZATION_ONLY';

/** The parts of a request that may carry credentials (API Gateway proxy and authorizer events have them). */
export interface CredentialCarrier {
  headers?: Record<string, string | undefined> | null;
  multiValueHeaders?: Record<string, string[] | undefined> | null;
  queryStringParameters?: Record<string, string | undefined> | null;
  multiValueQueryStringParameters?: Record<string, string[] | undefined> | null;
}

export type PresentedCredential =
  | { kind: 'apiKey'; value: string; source: 'header' | 'query' }
  | { kind: 'bearer'; value: string }
  /** An Authorization scheme other than Bearer (`Basic …`, as `curl -u` sends): refused, saying what to send. */
  | { kind: 'otherScheme'; scheme: string };

/**
 * The credentials a request carries: an API key (`x-service-api-key` header or `?api_key=`), a
 * bearer token (`Authorization: Bearer …`), or one of each — a client configured with a key
 * header that then signed in over OAuth sends both, and `authenticateCredentials` uses whichever
 * verifies. A repeated header or parameter, or a key in both the header and the URL, is refused
 * with 400 saying what to send, instead of silently picking one.
 *
 * `authorizationOnly` reads the Authorization header alone, as API Gateway's authorizer result
 * cache does (it is keyed on that header): a verdict that depended on another header would be
 * served from the cache to requests that lack it.
 */
export function presentedCredentials(
  request: CredentialCarrier,
  options: { authorizationOnly?: boolean } = {},
): PresentedCredential[] {
  const authorizations = headerValues(request, 'authorization');
  if (authorizations.length > 1) {
    throw new BadRequestError('Ambiguous credentials: send exactly one Authorization header.');
  }
  const authorization = authorizations[0];
  const apiKey = options.authorizationOnly ? undefined : presentedApiKey(request);
  return [
    ...(apiKey ? [apiKey] : []),
    ...(authorization === undefined ? [] : [authorizationCredential(authorization)]),
  ];
}

function presentedApiKey(request: CredentialCarrier): PresentedCredential | undefined {
  const headerKeys = headerValues(request, API_KEY_HEADER);
  const queryKeys = queryValues(request, API_KEY_QUERY_PARAMETER);
  if (headerKeys.length > 1) {
    throw new BadRequestError(
      `Ambiguous credentials: the request has ${headerKeys.length} ${API_KEY_HEADER} headers; send exactly one.`,
    );
  }
  if (queryKeys.length > 1) {
    throw new BadRequestError(
      `Ambiguous credentials: the URL has ${queryKeys.length} ${API_KEY_QUERY_PARAMETER} parameters; send exactly one.`,
    );
  }
  if (headerKeys.length && queryKeys.length) {
    throw new BadRequestError(
      `Ambiguous credentials: send the API key once, either in the ${API_KEY_HEADER} header or as ?${API_KEY_QUERY_PARAMETER}=, not both.`,
    );
  }
  const apiKey = headerKeys[0] ?? queryKeys[0];
  if (apiKey === undefined) return undefined;
  return { kind: 'apiKey', value: apiKey.trim(), source: headerKeys.length ? 'header' : 'query' };
}

function authorizationCredential(authorization: string): PresentedCredential {
  const bearer = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(authorization);
  if (bearer) return { kind: 'bearer', value: bearer[1]! };
  const scheme = /^([A-Za-z][\w.+-]*)[ ]+\S/.exec(authorization)?.[1];
  if (scheme && scheme.toLowerCase() !== 'bearer') return { kind: 'otherScheme', scheme };
  // A bare value (an API key without "Bearer ") is tried as a token: a key works, anything else does not verify.
  return { kind: 'bearer', value: authorization.trim() };
}

/** Every value of a header, case-insensitively; a comma-joined value (a proxy merged repeats) counts as several. */
function headerValues(request: CredentialCarrier, name: string): string[] {
  const values: string[] = [];
  const multi = request.multiValueHeaders ?? {};
  const multiKeys = Object.keys(multi).filter((key) => key.toLowerCase() === name);
  if (multiKeys.length) {
    for (const key of multiKeys) values.push(...(multi[key] ?? []));
  } else {
    for (const [key, value] of Object.entries(request.headers ?? {})) {
      if (key.toLowerCase() === name && value !== undefined) values.push(value);
    }
  }
  return values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
}

function queryValues(request: CredentialCarrier, name: string): string[] {
  const multi = request.multiValueQueryStringParameters?.[name];
  if (multi) return multi;
  const single = request.queryStringParameters?.[name];
  return single === undefined ? [] : [single];
}
