/**
 * The paging client of result-paging-rss.ts, in a process of its own so the host's RSS is the
 * service's memory alone (a real client runs elsewhere). Pages through an execution's results and
 * prints one JSON line per page: `{"ms": …, "rows": …, "next": …}`.
 *
 *   node --import tsx test/bench/page-client.ts <BASE_URL> <API_KEY> <EXECUTION_ID> <PAGE_ROWS> <MAX_PAGES> <BUDGET_MS>
 */
export {};

const [baseUrl, apiKey, executionId, pageRows, maxPages, budgetMs] = process.argv.slice(2);
if (!budgetMs)
  throw new Error(
    'usage: page-client <BASE_URL> <API_KEY> <EXECUTION_ID> <PAGE_ROWS> <MAX_PAGES> <BUDGET_MS>',
  );

const deadline = Date.now() + Number(budgetMs);
let offset: number | undefined = 0;
for (let pages = 0; offset !== undefined && pages < Number(maxPages) && Date.now() < deadline; pages++) {
  const started = performance.now();
  const response = await fetch(
    `${baseUrl}/v1/execution/${executionId}/results?limit=${pageRows}&offset=${offset}`,
    { headers: { 'x-service-api-key': apiKey! } },
  );
  const text = await response.text();
  if (!response.ok) throw new Error(`page at offset ${offset} → ${response.status}: ${text.slice(0, 500)}`);
  const page = JSON.parse(text) as { result: { rows: unknown[] }; next_offset?: number };
  offset = page.next_offset;
  const line = { ms: performance.now() - started, rows: page.result.rows.length, next: offset ?? null };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
