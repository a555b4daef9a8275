import { randomBytes } from 'node:crypto';
import { type LookupAddress, lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { OAuthClient } from '../core/oauth';
import type { Services } from '../services';

/** A registration or metadata-document problem, in RFC 7591's terms. */
export class ClientMetadataError extends Error {
  constructor(
    readonly code: 'invalid_redirect_uri' | 'invalid_client_metadata',
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** Schemes a redirect must never use (they run or read something in the browser itself). */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'about:', 'blob:']);

export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * What one registration may hold: every registration is stored (DynamoDB items stop at 400 KB)
 * and shown on the consent page, and no real client needs more.
 */
export const REGISTRATION_LIMITS = {
  maxBodyBytes: 64 * 1024,
  maxRedirectUris: 10,
  maxRedirectUriLength: 2000,
  maxClientNameLength: 200,
  /** Other string metadata (client_uri, logo_uri, scope, software_id…): not stored, still bounded. */
  maxMetadataStringLength: 2000,
} as const;

/** RFC 7591 string metadata this server reads nothing from but bounds like the rest. */
const OTHER_STRING_METADATA = [
  'client_uri',
  'logo_uri',
  'tos_uri',
  'policy_uri',
  'jwks_uri',
  'scope',
  'software_id',
  'software_version',
] as const;

/** Control characters, and the bidi controls that make a name read differently from its text. */
const UNSAFE_NAME_CHARACTERS = /[\p{Cc}\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** A redirect URI quoted in an error, shortened so that the error stays readable. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}

/**
 * Redirect URIs: https, loopback http (any port, RFC 8252 §7.3), or a native app's private-use
 * scheme (RFC 8252 §7.1, e.g. `cursor://`); never plain http elsewhere, never a fragment, never
 * user information (`https://user:pw@host`), never whitespace or control characters (the URI is
 * matched exactly, so one with a stray space could never be used).
 */
export function checkRedirectUri(value: unknown): string {
  if (typeof value !== 'string' || !value) {
    throw new ClientMetadataError('invalid_redirect_uri', 'Each redirect URI must be a non-empty string.');
  }
  if (value.length > REGISTRATION_LIMITS.maxRedirectUriLength) {
    throw new ClientMetadataError(
      'invalid_redirect_uri',
      `Redirect URI ${quoted(value)} has ${value.length} characters; at most ${REGISTRATION_LIMITS.maxRedirectUriLength} are allowed.`,
    );
  }
  if (/[\s\p{Cc}]/u.test(value)) {
    throw new ClientMetadataError(
      'invalid_redirect_uri',
      `Redirect URI ${quoted(value)} contains whitespace or control characters (leading or trailing spaces included); send the URI exactly as the client will use it.`,
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ClientMetadataError('invalid_redirect_uri', `Redirect URI ${value} is not an absolute URL.`);
  }
  if (url.username || url.password) {
    throw new ClientMetadataError(
      'invalid_redirect_uri',
      `Redirect URI ${quoted(value)} must not contain user information (user:password@).`,
    );
  }
  if (value.includes('#')) {
    throw new ClientMetadataError('invalid_redirect_uri', `Redirect URI ${value} must not have a fragment.`);
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) {
    throw new ClientMetadataError('invalid_redirect_uri', `Redirect URI ${value} uses a forbidden scheme.`);
  }
  if (url.protocol === 'http:' && !isLoopbackHttp(url)) {
    throw new ClientMetadataError(
      'invalid_redirect_uri',
      `Redirect URI ${value} must use https (plain http only on a loopback address such as http://127.0.0.1:<port>/callback).`,
    );
  }
  return value;
}

/** Exact match, except that a loopback http redirect may use any port (RFC 8252 §7.3). */
export function redirectUriMatches(registered: string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  let url: URL;
  try {
    url = new URL(presented);
  } catch {
    return false;
  }
  if (!isLoopbackHttp(url)) return false;
  return registered.some((candidate) => {
    const allowed = new URL(candidate);
    return (
      isLoopbackHttp(allowed) &&
      allowed.hostname === url.hostname &&
      allowed.pathname === url.pathname &&
      allowed.search === url.search
    );
  });
}

/** Validates RFC 7591 client metadata for a public client and returns what is stored. */
export function clientFromMetadata(metadata: unknown, clientId: string, now: Date): OAuthClient {
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw new ClientMetadataError(
      'invalid_client_metadata',
      'The body must be a JSON object of client metadata.',
    );
  }
  const m = metadata as Record<string, unknown>;
  if (!Array.isArray(m.redirect_uris) || m.redirect_uris.length === 0) {
    throw new ClientMetadataError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URLs.');
  }
  if (m.redirect_uris.length > REGISTRATION_LIMITS.maxRedirectUris) {
    throw new ClientMetadataError(
      'invalid_redirect_uri',
      `redirect_uris has ${m.redirect_uris.length} entries; at most ${REGISTRATION_LIMITS.maxRedirectUris} redirect URIs of at most ${REGISTRATION_LIMITS.maxRedirectUriLength} characters each are allowed.`,
    );
  }
  const redirectUris = [...new Set(m.redirect_uris.map(checkRedirectUri))];
  if (m.token_endpoint_auth_method !== undefined && m.token_endpoint_auth_method !== 'none') {
    throw new ClientMetadataError(
      'invalid_client_metadata',
      'Only public clients are supported: token_endpoint_auth_method must be "none" (PKCE replaces the secret).',
    );
  }
  const grants = m.grant_types ?? ['authorization_code'];
  if (
    !Array.isArray(grants) ||
    grants.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token')
  ) {
    throw new ClientMetadataError(
      'invalid_client_metadata',
      'grant_types may hold only "authorization_code" and "refresh_token".',
    );
  }
  const responseTypes = m.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.some((type) => type !== 'code')) {
    throw new ClientMetadataError('invalid_client_metadata', 'response_types may hold only "code".');
  }
  if (
    m.client_name !== undefined &&
    (typeof m.client_name !== 'string' || m.client_name.length > REGISTRATION_LIMITS.maxClientNameLength)
  ) {
    throw new ClientMetadataError(
      'invalid_client_metadata',
      `client_name must be a string of at most ${REGISTRATION_LIMITS.maxClientNameLength} characters.`,
    );
  }
  if (typeof m.client_name === 'string' && UNSAFE_NAME_CHARACTERS.test(m.client_name)) {
    throw new ClientMetadataError(
      'invalid_client_metadata',
      'client_name must not contain control characters or bidirectional-text controls (U+202A–U+202E, U+2066–U+2069 and the like): the sign-in page shows the name as it is.',
    );
  }
  for (const name of OTHER_STRING_METADATA) {
    const value = m[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.length > REGISTRATION_LIMITS.maxMetadataStringLength) {
      throw new ClientMetadataError(
        'invalid_client_metadata',
        `${name} must be a string of at most ${REGISTRATION_LIMITS.maxMetadataStringLength} characters.`,
      );
    }
  }
  const clientName =
    typeof m.client_name === 'string' && m.client_name.trim() ? m.client_name.trim() : clientId;
  return { clientId, clientName, redirectUris, createdAt: now.toISOString() };
}

export function newClientId(): string {
  return `mcp_${randomBytes(16).toString('base64url')}`;
}

/** Client ID metadata documents: fetched with these bounds (the URL is chosen by whoever calls). */
export const METADATA_DOCUMENT_LIMITS = { timeoutMs: 5000, maxBytes: 64 * 1024, cacheMs: 5 * 60 * 1000 };

/** True when `clientId` names a client metadata document (a URL) rather than a registered client. */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!/^https?:\/\//.test(clientId)) return false;
  try {
    const url = new URL(clientId);
    if (url.hash || url.username || url.password) return false;
    if (url.protocol === 'https:') return url.pathname !== '/';
    // Plain http only for loopback documents on the local host (tests, local clients).
    return process.env.SERVICE_RUNTIME === 'local' && isLoopbackHttp(url);
  } catch {
    return false;
  }
}

/**
 * Addresses a metadata-document fetch never connects to: private, loopback, link-local, shared
 * (CGNAT), documentation, benchmarking, multicast and reserved ranges, IPv4 and IPv6. An
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d) is checked against the IPv4 ranges (BlockList does
 * that itself; a ::ffff:0:0/96 rule would match every IPv4 address), and NAT64 is refused. The URL is chosen by whoever calls, so without this the
 * server could be made to reach hosts on its own network (instance metadata, internal services).
 */
const NON_PUBLIC = (() => {
  const list = new BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const)
    list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['64:ff9b::', 96],
    ['64:ff9b:1::', 48],
    ['100::', 64],
    ['2001::', 23],
    ['2001:db8::', 32],
    ['2002::', 16],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
  ] as const)
    list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

const LOOPBACK = (() => {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  return list;
})();

/** True for an address on the public internet (see NON_PUBLIC). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Refused before connecting: the document's host is (or resolves to) a non-public address. */
class NonPublicAddressError extends Error {
  constructor(readonly address: string) {
    super(`${address} is not a public address`);
  }
}

/**
 * Whether the fetch may connect to `address`: public addresses, and loopback ones on the local
 * host (its tests and local clients serve documents from 127.0.0.1).
 */
function mayConnect(address: string): boolean {
  if (isPublicAddress(address)) return true;
  const family = isIP(address);
  return (
    process.env.SERVICE_RUNTIME === 'local' &&
    family !== 0 &&
    LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6')
  );
}

/**
 * A DNS lookup that refuses non-public answers. It runs when the socket connects, so the address
 * checked is the address used (a second lookup cannot answer differently, as in DNS rebinding).
 */
function checkedLookup(
  hostname: string,
  options: { all?: boolean; family?: number },
  callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const refused = addresses.find((entry) => !mayConnect(entry.address));
    if (refused) return callback(new NonPublicAddressError(refused.address), '');
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first) return callback(new Error(`${hostname} has no address`), '');
    callback(null, first.address, first.family);
  });
}

/** GET `url` with the bounds and address checks above; the body as text. */
function fetchDocument(url: URL): Promise<string> {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !mayConnect(literal)) return Promise.reject(new NonPublicAddressError(literal));
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: checkedLookup as unknown as typeof lookup,
        // A fresh connection each time, so every one goes through the lookup's check.
        agent: false,
        signal: AbortSignal.timeout(METADATA_DOCUMENT_LIMITS.timeoutMs),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status > 299) {
          response.resume();
          const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
          return reject(new Error(`it answered HTTP ${status}${redirect}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > METADATA_DOCUMENT_LIMITS.maxBytes) {
            request.destroy();
            reject(new Error(`it is larger than ${METADATA_DOCUMENT_LIMITS.maxBytes} bytes`));
          } else chunks.push(chunk);
        });
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

const documents = new Map<string, { client: OAuthClient; fetchedAt: number }>();

/**
 * The client a metadata document describes: fetched (no redirects, bounded time and size, public
 * addresses only), checked like a registration, and cached for a few minutes.
 */
export async function fetchMetadataDocumentClient(url: string, now = Date.now()): Promise<OAuthClient> {
  const cached = documents.get(url);
  if (cached && now - cached.fetchedAt < METADATA_DOCUMENT_LIMITS.cacheMs) return cached.client;
  let text: string;
  try {
    text = await fetchDocument(new URL(url));
  } catch (error) {
    if (error instanceof NonPublicAddressError) {
      throw new ClientMetadataError(
        'invalid_client_metadata',
        `The client metadata document ${url} is not fetched: its host is at ${error.address}, a private, loopback or link-local address. Client metadata documents must be on a public host.`,
      );
    }
    throw new ClientMetadataError(
      'invalid_client_metadata',
      `The client metadata document ${url} could not be fetched: ${(error as Error).message}.`,
    );
  }
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ClientMetadataError(
      'invalid_client_metadata',
      `The client metadata document ${url} is not JSON.`,
    );
  }
  if (metadata?.client_id !== url) {
    throw new ClientMetadataError(
      'invalid_client_metadata',
      `The client metadata document's client_id must be its own URL (${url}).`,
    );
  }
  const client = clientFromMetadata(metadata, url, new Date(now));
  documents.set(url, { client, fetchedAt: now });
  return client;
}

/** A registered client that was not deleted, or the client a metadata-document URL describes. */
export async function resolveClient(
  services: Pick<Services, 'oauth'>,
  clientId: string,
): Promise<OAuthClient | undefined> {
  if (isMetadataDocumentUrl(clientId)) return fetchMetadataDocumentClient(clientId);
  const client = await services.oauth.getClient(clientId);
  return client && !client.deletedAt ? client : undefined;
}

/**
 * How the sign-in and consent pages name a client. A registered client's name is whatever it
 * sent to the open registration endpoint, so anyone can call theirs "Claude": it is marked
 * unverified. A client named by its metadata document URL is vouched for by that URL's host.
 */
export interface ClientLabel {
  name: string;
  /** The host serving the client's metadata document; absent: a self-asserted (registered) name. */
  publishedBy?: string;
}

export function clientLabel(client: OAuthClient): ClientLabel {
  if (!isMetadataDocumentUrl(client.clientId)) return { name: client.clientName };
  return { name: client.clientName, publishedBy: new URL(client.clientId).host };
}

/**
 * Where a redirect URI sends the browser, as the consent page says it: the host of a web page, or
 * an application on this computer (loopback http; a private-use scheme such as `cursor://`, shown
 * with its scheme, which is what names the application).
 */
export function redirectTarget(redirectUri: string): { host: string; onThisComputer: boolean } {
  const url = new URL(redirectUri);
  if (url.protocol === 'https:' || url.protocol === 'http:') {
    return { host: url.host, onThisComputer: isLoopbackHttp(url) };
  }
  return { host: url.host ? `${url.protocol}//${url.host}` : url.protocol, onThisComputer: true };
}
