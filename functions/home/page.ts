import type { TableStats } from '../core/catalog';
import { escapeHtml } from '../http/html';

/** The span of time the data covers: earliest and latest partition-column value over all tables. */
export function dataDateRange(stats: readonly TableStats[]): { from: string; to: string } | undefined {
  const ranges = stats.flatMap((table) => (table.timeRange ? [table.timeRange] : []));
  if (ranges.length === 0) return undefined;
  // ISO-8601 text sorts in time order.
  const starts = ranges.map((range) => range.min).sort();
  const ends = ranges.map((range) => range.max).sort();
  return { from: starts[0]!, to: ends[ends.length - 1]! };
}

export const HOME_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;max-width:860px;margin:32px auto;padding:0 20px;color:#1f2933;line-height:1.5}
h1{font-size:26px;margin-bottom:4px}h2{font-size:18px;margin-top:28px}.lead{color:#52606d;margin-top:0}
pre{background:#f0f2f5;padding:10px 12px;border-radius:6px;overflow:auto;font-size:13px}code{background:#f0f2f5;padding:0 3px;border-radius:3px}
table{border-collapse:collapse}td{padding:3px 12px 3px 0;vertical-align:top}a{color:#0b57d0}
`;

/**
 * The landing page at `GET /`: where a newcomer who opens the base URL in a browser learns how to
 * call the API and connect an MCP client. No secrets: the key is shown as a placeholder.
 */
export function homePageHtml(baseUrl: string, range: { from: string; to: string } | undefined): string {
  const base = escapeHtml(baseUrl);
  const mcpUrl = `${base}/mcp/v1`;
  const dataLine = range
    ? `The data covers <b>${escapeHtml(range.from)}</b> to <b>${escapeHtml(range.to)}</b> (UTC).`
    : 'No table statistics yet: the data has not been loaded.';
  const cursorConfig = escapeHtml(
    JSON.stringify(
      { mcpServers: { service: { url: `${baseUrl}/mcp/v1`, headers: { 'x-service-api-key': 'osk_...' } } } },
      null,
      2,
    ),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Onchain SQL service</title><style>${STYLE}</style></head><body>
<h1>Onchain SQL service</h1>
<p class="lead">SQL over onchain data (DuneSQL) through a REST API and a remote MCP server.</p>
<table>
<tr><td>Base URL</td><td><code>${base}</code></td></tr>
<tr><td>REST API</td><td><code>${base}/v1</code> — <a href="${base}/docs">API reference</a> (try requests in the browser), <a href="${base}/v1/openapi.json">OpenAPI 3.1 document</a> for client generators</td></tr>
<tr><td>MCP server</td><td><code>${mcpUrl}</code> (Streamable HTTP)</td></tr>
<tr><td>Sample data</td><td>${dataLine}</td></tr>
</table>
<h2>Authenticate</h2>
<p>Send your API key in the <code>x-service-api-key</code> header (or <code>?api_key=</code> for clients that cannot set headers). Locally, <code>npm start</code> prints the key; create more with <code>npm run admin -- create-key</code>.</p>
<pre>curl -s -H "x-service-api-key: $KEY" ${base}/v1/sql/execute -d '{"sql":"select blockchain, count(*) as trades from dex.trades group by 1"}'</pre>
<h2>Connect an MCP client</h2>
<pre># Claude Code
claude mcp add --transport http service ${mcpUrl} --header "x-service-api-key: $KEY"
# Codex
codex mcp add service --url "${mcpUrl}?api_key=$KEY"
# MCP Inspector
npx @modelcontextprotocol/inspector --cli ${mcpUrl} --transport http --header "x-service-api-key: $KEY" --method tools/list</pre>
<p>Cursor (<code>.cursor/mcp.json</code>):</p>
<pre>${cursorConfig}</pre>
</body></html>`;
}
