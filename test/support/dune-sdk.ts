/**
 * The official Dune TypeScript SDK, unchanged, against the local host. Its only adaptation is the
 * `fetch` it finds: Dune's base URL points at the host and its key header is renamed to ours.
 */
const DUNE_BASE_URL = 'https://api.dune.com/api';
const DUNE_KEY_HEADER = 'x-dune-api-key';

export function fetchPointedAt(baseUrl: string, realFetch: typeof fetch): typeof fetch {
  return (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const headers = new Headers(init?.headers);
    const key = headers.get(DUNE_KEY_HEADER);
    if (key !== null) {
      headers.delete(DUNE_KEY_HEADER);
      headers.set('x-service-api-key', key);
    }
    return realFetch(url.startsWith(DUNE_BASE_URL) ? baseUrl + url.slice(DUNE_BASE_URL.length) : url, {
      ...init,
      headers,
    });
  };
}
