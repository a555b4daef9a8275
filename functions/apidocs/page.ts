import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { escapeHtml } from '../http/html';

/** The vendored RapiDoc bundle (vendor/rapidoc/README.md says which release and how to update it). */
export const RAPIDOC_FILE = 'vendor/rapidoc/rapidoc-min.js';
export const API_REFERENCE_SCRIPT_PATH = '/docs/rapidoc.js';

/**
 * Where the bundle is: under the repository root seen from this module (functions/apidocs/), or,
 * in a Lambda bundle, beside index.mjs (the stack copies it there with the same relative path).
 */
const SCRIPT_CANDIDATES = [
  new URL(`../../${RAPIDOC_FILE}`, import.meta.url),
  new URL(`./${RAPIDOC_FILE}`, import.meta.url),
];

let script: Promise<string> | undefined;

/** The bundle's text, read once per process (it is 843 KiB; 213 KiB gzip-compressed). */
export function apiReferenceScript(): Promise<string> {
  script ??= readFirst(SCRIPT_CANDIDATES).catch((error: unknown) => {
    script = undefined;
    throw error;
  });
  return script;
}

async function readFirst(candidates: readonly URL[]): Promise<string> {
  let lastError: unknown;
  for (const url of candidates) {
    try {
      return await readFile(fileURLToPath(url), 'utf8');
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** The script never changes within a deployment: browsers may keep it for a day. */
export const API_REFERENCE_SCRIPT_HEADERS: Record<string, string> = {
  'content-type': 'text/javascript; charset=utf-8',
  'cache-control': 'public, max-age=86400',
  'x-content-type-options': 'nosniff',
};

/**
 * The page runs only our own script and talks only to this host ("try it" requests and the
 * OpenAPI document). RapiDoc would fetch its web fonts from a CDN: the page turns that off
 * (`load-fonts="false"`) and uses the system fonts; the CSP would refuse them anyway.
 */
export const API_REFERENCE_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

const FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';

/** `GET /docs`: the rendered reference of `GET /v1/openapi.json`, with "try it" against this host. */
export function apiReferenceHtml(baseUrl: string): string {
  const base = escapeHtml(baseUrl);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>API reference · Onchain SQL service</title>
<script type="module" src="${base}${API_REFERENCE_SCRIPT_PATH}"></script></head><body style="margin:0">
<rapi-doc spec-url="${base}/v1/openapi.json" render-style="read" theme="light" load-fonts="false" show-header="false" allow-server-selection="false" allow-authentication="true" allow-try="true" schema-style="table" regular-font='${FONTS}' mono-font="ui-monospace, monospace" primary-color="#0b57d0">
<p slot="overview">Authenticate with your API key: <b>Authentication</b> below, or the <code>x-service-api-key</code> header. The machine-readable document is <a href="${base}/v1/openapi.json">/v1/openapi.json</a>; the landing page is <a href="${base}/">/</a>.</p>
</rapi-doc></body></html>`;
}
