import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { FUNCTIONS_URI, functionReferenceMarkdown } from './function-reference';

export const EFFICIENT_QUERIES_URI = 'service://docs/query-engine-writing-efficient-queries';

/** Guidance for the engine this deployment runs locally (DuckDB over the sample warehouse). */
export const EFFICIENT_QUERIES_MARKDOWN = `# Writing efficient queries (DuckDB engine)

The local deployment runs SQL on DuckDB over a read-only warehouse. Every execution costs credits
for its engine time (1 credit per engine-second on \`medium\`, 2 on \`large\`), so cheap queries
are fast queries.

## Filter on the partition (time) column
Each table has a \`partition_column\` (shown by \`searchTables\`): \`block_time\`, \`evt_block_time\`,
\`minute\`, … Filter on it first (the sample data ends at the day the warehouse was built, so
relative ranges such as the last 7 days find rows):

\`\`\`sql
select block_date, sum(amount_usd) as volume
from dex.trades
where block_time >= now() - interval '7' day
group by 1 order by 1
\`\`\`

Avoid wrapping the column in a function (\`date(block_time) = …\`); compare the column itself.

## Select only the columns you need
The engine is columnar: a query reads only the columns it names. \`select *\` on a big table
(\`<chain>.logs\`, \`<chain>.transactions\`, \`erc20_<chain>.evt_Transfer\`) reads every column.
Use \`getTableSize\` with \`columns\` and a time range to estimate what a query scans.

## Look before you aggregate
- Explore with \`limit 10\`, or \`using sample 1000 rows\` / \`tablesample 1%\` for a rough picture.
- Aggregate in SQL (\`group by\`, \`count\`, \`approx_count_distinct\`) instead of fetching raw rows.
- Join on keys (\`tx_hash\`, \`block_number\`, \`contract_address\`) after filtering both sides by time.
- Addresses, hashes, topics and calldata are \`varbinary\` (shown as \`0x…\` in results): compare
  them with varbinary values such as \`from_hex('c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2')\` or
  another column, never with \`'0x…'\` strings.
- Raw amounts (\`value\`, \`amount_raw\`, \`*_amount_raw\`) are exact \`uint256\` (\`int256\` when
  signed); divide by \`power(10, decimals)\` from \`tokens.erc20\` as a double. The local engine
  holds them in 128 bits, so values of 2^128 and above (e.g. unlimited approvals) are not
  representable there.

## The sandbox
One statement per execution; read-only data; no files or network (\`read_csv\`, \`COPY\`,
\`ATTACH\`, extension installs), no \`SET\`/\`PRAGMA\` that loosens limits. Each tier has a
wall-clock limit; a runaway query ends \`QUERY_STATE_FAILED\` with type \`timeout\`.

## Reading results
\`getExecutionResults\` returns a first page capped by rows and characters, with \`totalRowCount\`
and \`nextOffset\`. Page on with \`offset\`, or download everything as CSV from
\`GET /v1/execution/{execution_id}/results/csv\` (\`limit\`/\`offset\` in the query string). Prefer
an aggregate query over paging through millions of rows.
`;

export function registerResources(server: McpServer): void {
  server.registerResource(
    'query-engine-writing-efficient-queries',
    EFFICIENT_QUERIES_URI,
    {
      title: 'Writing efficient queries',
      description:
        'How to write fast, cheap SQL for this service: partition filters, column selection, sampling, sandbox rules and result paging.',
      mimeType: 'text/markdown',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/markdown', text: EFFICIENT_QUERIES_MARKDOWN }],
    }),
  );
  server.registerResource(
    'query-engine-functions-and-operators',
    FUNCTIONS_URI,
    {
      title: 'Functions and operators',
      description:
        "Every function and operator the SQL engine offers, with signatures, descriptions and examples, generated from the engine's own catalog.",
      mimeType: 'text/markdown',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await functionReferenceMarkdown() }],
    }),
  );
}
