import { BadRequestError } from '../core/errors';

export const API_KEY_HEADER = 'x-service-api-key';
export const API_KEY_QUERY_PARAMETER = 'api_key';

/** The parts of a request that may carry credentials (API Gateway proxy and authorizer events have them). */
export interface CredentialCarrier {
  headers?: Record<string, string | undefined> | null;
  multiValueHeaders?: Record<string, string[] | undefined> | null;
  queryStringParameters?: Record<string, string | undefined> | null;
  multiValueQueryStringParameters?: Record<string, string[] | undefined> | null;
}

export type PresentedCredential =
  | { kind: 'apiKey'; value: string; source: 'header' | 'query' }
  | { kind: 'bearer'; value: string };

/**
 * The one credential a request carries: an API key (`x-service-api-key` header or `?api_key=`)
 * or a bearer token (`Authorization: Bearer …`). More than one — a repeated header or
 * parameter, a key in both places, a key and a token — is refused with 400 saying what to
 * send, instead of silently picking one.
 */
export function presentedCredential(request: CredentialCarrier): PresentedCredential | undefined {
  const headerKeys = headerValues(request, API_KEY_HEADER);
  const queryKeys = queryValues(request, API_KEY_QUERY_PARAMETER);
  const authorizations = headerValues(request, 'authorization');
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
  if (authorizations.length > 1) {
    throw new BadRequestError('Ambiguous credentials: send exactly one Authorization header.');
  }
  if (headerKeys.length && queryKeys.length) {
    throw new BadRequestError(
      `Ambiguous credentials: send the API key once, either in the ${API_KEY_HEADER} header or as ?${API_KEY_QUERY_PARAMETER}=, not both.`,
    );
  }
  const apiKey = headerKeys[0] ?? queryKeys[0];
  if (apiKey !== undefined && authorizations.length) {
    throw new BadRequestError(
      'Ambiguous credentials: send either an API key or an Authorization bearer token, not both.',
    );
  }
  if (apiKey !== undefined) {
    return { kind: 'apiKey', value: apiKey.trim(), source: headerKeys.length ? 'header' : 'query' };
  }
  const authorization = authorizations[0];
  if (authorization === undefined) return undefined;
  const bearer = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(authorization);
  // Any other scheme (Basic, a bare token) is treated as a bearer token that does not verify.
  return { kind: 'bearer', value: bearer ? bearer[1]! : authorization.trim() };
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
