/**
 * Client ID metadata documents (a URL as client_id): fetched without following redirects, within a
 * time and size bound, and accepted only when the document names itself and is a valid public
 * client. Served here by a real HTTP server on loopback (allowed on the local host only). Hosts on
 * private, loopback or link-local addresses are never fetched otherwise.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientLabel,
  fetchMetadataDocumentClient,
  isMetadataDocumentUrl,
  isPublicAddress,
  METADATA_DOCUMENT_LIMITS,
  redirectTarget,
} from '../../functions/oauth/clients';

let server: Server;
let base: string;
const runtime = process.env.SERVICE_RUNTIME;

beforeAll(async () => {
  process.env.SERVICE_RUNTIME = 'local';
  server = createServer((request, response) => {
    const self = `${base}${request.url}`;
    const document = { client_id: self, client_name: 'Doc client', redirect_uris: ['http://127.0.0.1:9/cb'] };
    switch (request.url) {
      case '/good.json':
        response.end(JSON.stringify(document));
        return;
      case '/other-id.json':
        response.end(JSON.stringify({ ...document, client_id: `${base}/good.json` }));
        return;
      case '/huge.json':
        response.end(JSON.stringify({ ...document, padding: 'x'.repeat(METADATA_DOCUMENT_LIMITS.maxBytes) }));
        return;
      case '/not-json':
        response.end('<html>hello</html>');
        return;
      case '/redirect.json':
        response.writeHead(302, { location: `${base}/good.json` }).end();
        return;
      case '/secret-client.json':
        response.end(JSON.stringify({ ...document, token_endpoint_auth_method: 'client_secret_basic' }));
        return;
      case '/slow.json':
        setTimeout(() => response.end(JSON.stringify(document)), METADATA_DOCUMENT_LIMITS.timeoutMs + 1000);
        return;
      default:
        response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.closeAllConnections();
  server?.close();
  process.env.SERVICE_RUNTIME = runtime;
});

describe('client ID metadata documents', () => {
  it('recognises document URLs: https with a path, loopback http only on the local host', () => {
    expect(isMetadataDocumentUrl('https://client.example.com/oauth/client.json')).toBe(true);
    expect(isMetadataDocumentUrl('https://client.example.com/')).toBe(false);
    expect(isMetadataDocumentUrl('https://user:pw@client.example.com/c.json')).toBe(false);
    expect(isMetadataDocumentUrl(`${base}/good.json`)).toBe(true);
    expect(isMetadataDocumentUrl('http://example.com/c.json')).toBe(false);
    expect(isMetadataDocumentUrl('mcp_abc')).toBe(false);
  });

  it('accepts a document that names itself, as a public client with its name and redirect URIs', async () => {
    const client = await fetchMetadataDocumentClient(`${base}/good.json`);
    expect(client).toMatchObject({ clientId: `${base}/good.json`, clientName: 'Doc client' });
    // The pages name it with the host that publishes it, not as an unverified name.
    expect(clientLabel(client)).toEqual({ name: 'Doc client', publishedBy: new URL(base).host });
    expect(clientLabel({ ...client, clientId: 'mcp_registered' })).toEqual({ name: 'Doc client' });
  });

  it('the consent page names where a redirect goes: a web host, or an application on this computer', () => {
    expect(redirectTarget('https://claude.ai/api/mcp/auth_callback')).toEqual({
      host: 'claude.ai',
      onThisComputer: false,
    });
    expect(redirectTarget('http://127.0.0.1:33418/callback')).toEqual({
      host: '127.0.0.1:33418',
      onThisComputer: true,
    });
    expect(redirectTarget('cursor://anysphere.cursor-retrieval/oauth/user-MCP/callback')).toEqual({
      host: 'cursor://anysphere.cursor-retrieval',
      onThisComputer: true,
    });
    expect(redirectTarget('com.example.app:/oauth2redirect')).toEqual({
      host: 'com.example.app:',
      onThisComputer: true,
    });
  });

  it.each([
    ['a document for another client_id', '/other-id.json', /client_id must be its own URL/],
    ['a document over the size cap', '/huge.json', /larger than 65536 bytes/],
    ['a document that is not JSON', '/not-json', /is not JSON/],
    ['a redirect (never followed)', '/redirect.json', /could not be fetched/],
    ['a confidential client', '/secret-client.json', /Only public clients/],
    ['a missing document', '/missing.json', /HTTP 404/],
  ])('refuses %s', async (_case, path, message) => {
    await expect(fetchMetadataDocumentClient(`${base}${path}`)).rejects.toThrow(message);
  });

  it('gives up on a document that does not arrive within the time bound', async () => {
    const started = Date.now();
    await expect(fetchMetadataDocumentClient(`${base}/slow.json`)).rejects.toThrow(/could not be fetched/);
    expect(Date.now() - started).toBeLessThan(METADATA_DOCUMENT_LIMITS.timeoutMs + 900);
  }, 15_000);

  describe('only public addresses are fetched', () => {
    it('tells public addresses from private, loopback, link-local and reserved ones', () => {
      for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::6810:84e5', '172.32.0.1'])
        expect(isPublicAddress(address), address).toBe(true);
      for (const address of [
        '10.1.2.3',
        '127.0.0.1',
        '169.254.169.254',
        '172.16.5.4',
        '192.168.1.5',
        '100.64.0.1',
        '0.0.0.0',
        '224.0.0.1',
        '255.255.255.255',
        '::1',
        '::',
        'fe80::1',
        'fd00::1',
        '::ffff:10.0.0.1',
        '::ffff:a00:1',
        '64:ff9b::a00:1',
        'not-an-address',
      ])
        expect(isPublicAddress(address), address).toBe(false);
    });

    it.each([
      ['a private IPv4 literal', 'https://10.1.2.3/client.json', '10.1.2.3'],
      ['the instance metadata address', 'https://169.254.169.254/latest/client.json', '169.254.169.254'],
      ['a unique-local IPv6 literal', 'https://[fd00::1]/client.json', 'fd00::1'],
      ['an IPv4-mapped private address', 'https://[::ffff:10.0.0.1]/client.json', '::ffff:a00:1'],
      ['a name that resolves to loopback', 'https://localhost/client.json', /127\.0\.0\.1|::1/],
      ['a loopback literal', 'https://127.0.0.1/client.json', '127.0.0.1'],
    ])('refuses %s outside the local host, before connecting', async (_case, url, address) => {
      process.env.SERVICE_RUNTIME = 'aws';
      try {
        const refusal = await fetchMetadataDocumentClient(url).then(
          () => undefined,
          (error: Error) => error,
        );
        expect(refusal?.message).toMatch(
          /is not fetched: its host is at .*, a private, loopback or link-local address/,
        );
        expect(refusal?.message).toMatch(address);
      } finally {
        process.env.SERVICE_RUNTIME = 'local';
      }
    });

    it('on the local host too, except loopback (its own documents)', async () => {
      await expect(fetchMetadataDocumentClient('https://192.168.1.5/client.json')).rejects.toThrow(
        /its host is at 192\.168\.1\.5, a private, loopback or link-local address/,
      );
      await expect(fetchMetadataDocumentClient(`${base}/good.json`)).resolves.toMatchObject({
        clientName: 'Doc client',
      });
    });
  });
});
