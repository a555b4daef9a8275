import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { FUNCTIONS_URI, functionReferenceMarkdown } from './function-reference';

export const EFFICIENT_QUERIES_URI = 'service://docs/query-engine-writing-efficient-queries';

/** How to write DuneSQL that is fast and cheap here, and what differs on the local engine. */
export const EFFICIENT_QUERIES_MARKDOWN = `# Writing efficient DuneSQL queries

Queries are written in **DuneSQL**: Trino SQL plus Dune's onchain extensions, the dialect of Dune
queries and Spellbook models, so they run here unchanged. In AWS they run on Athena (Trino); the
local host translates them to DuckDB over a sample warehouse. Every execution costs credits for its
engine time (1 credit per engine-second on \`medium\`, 2 on \`large\`), so cheap queries are fast
queries. Every function, and where it runs: ${FUNCTIONS_URI}.

## Filter on the partition (time) column
Each table has a \`partition_column\` (shown by \`searchTables\`): \`block_time\`, \`evt_block_time\`,
\`minute\`, … and raw and curated tables also carry \`block_date\`. Filter on it first, with a range
on the column itself, so the engine skips whole partitions (Athena) or row groups (DuckDB):

\`\`\`sql
select block_date, sum(amount_usd) as volume
from dex.trades
where block_time >= now() - interval '7' day
group by 1
order by 1
\`\`\`

- Compare the column, do not wrap it: \`block_time >= timestamp '2024-01-01'\`, not
  \`date(block_time) = …\` or \`date_trunc('day', block_time) = …\` (a function on the column
  defeats pruning).
- Put the time filter on **every** side of a join, not only on one table:
  \`on t.hash = l.tx_hash and t.block_time = l.block_time\` plus a range on both.
- The sample data ends on the day the local warehouse was built, so ranges relative to \`now()\`
  find rows locally too.

## Addresses, hashes and amounts
- Addresses, hashes, topics and calldata are \`varbinary\`. Write them as \`0x…\` literals:
  \`where "to" = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2\`, never as \`'0x…'\` strings (a
  string never equals a varbinary). Quote \`"from"\` and \`"to"\`: they are keywords.
- Decode raw logs with Dune's byte functions: \`varbinary_substring(data, 33, 32)\` is the second
  32-byte word, \`varbinary_to_uint256(…)\` its amount, \`varbinary_ltrim(topic1)\` an address
  left-padded in a topic. Positions count bytes from 1.
- Raw amounts (\`value\`, \`amount_raw\`, \`*_amount_raw\`) are exact \`uint256\` (\`int256\` when
  signed): \`sum(value)\` is exact. Divide by \`power(10, decimals)\` from \`tokens.erc20\` for
  token units (a double).
- Show an address as text with \`'0x' || lower(to_hex(address))\`; results already render
  varbinary as \`0x…\`.

## Select only the columns you need
The engines are columnar: a query reads only the columns it names. \`select *\` on a big table
(\`<chain>.logs\`, \`<chain>.transactions\`, \`<chain>.traces\`, \`erc20_<chain>.evt_Transfer\`)
reads every column, calldata included. Name the columns; use \`getTableSize\` with \`columns\` and
a time range to estimate what a query scans.

## Look before you aggregate
- A table's columns, their types and what they hold: \`searchTables\` with \`includeSchema\`, or
  in SQL \`describe ethereum.transactions\` (also \`show tables from dex\`, \`show schemas\`, and
  \`information_schema.columns\`; \`dune.\` and \`mv.\` for uploaded tables and views). They read no
  data, so they cost the minimum.
- Explore with \`limit 10\` (with a time filter: a limit alone does not stop a scan with a
  sort or aggregate above it). \`tablesample bernoulli (1)\` reads a 1% sample.
- Aggregate in SQL (\`group by\`, \`count\`, \`sum\`) instead of fetching raw rows.
- \`approx_distinct(x)\` is far cheaper than \`count(distinct x)\` (about 2% error);
  \`approx_percentile(x, 0.5)\` for medians.
- Use \`union all\` unless you need duplicates removed; sort only the final, small result.
- Window functions (\`lag\`, \`row_number() over (partition by … order by …)\`) beat self-joins for
  "previous row" and "latest per key"; \`max_by(x, block_time)\` gets the latest value per group.

## Reuse work: materialized views
A query many dashboards read, or an expensive base aggregation, belongs in a **materialized view**
(\`POST /v1/materialized-views\` with its \`query_id\`, optionally on a cron schedule). Later
queries read the small stored result as \`mv.<owner>.result_<name>\` instead of the raw tables;
\`GET /v1/query/{query_id}/pipeline\` shows which views a query depends on, and a pipeline
refreshes them in order.
Reading a saved query as a table, \`select * from query_<id>\` (or
\`"query_<id>(name='value')"\` with parameter values), is a **query view**: handy for reuse, but
it runs the called query again inside yours every time; materialize it when it is expensive.

## Write Trino, not another dialect
DuneSQL is Trino SQL. Forms of MySQL, Postgres, DuckDB, BigQuery or Spark are refused with the
DuneSQL to write: \`interval '7' day\` (not \`interval 7 day\` or \`interval '7 days'\`),
\`cast(x as varchar)\` (not \`x::varchar\`, nor \`string\`, \`text\`, \`int64\`), \`OFFSET n LIMIT m\`
(in that order), no \`ILIKE\`, \`TOP\`, \`GROUP BY ALL\`, \`SELECT * EXCLUDE\`, backquotes or
\`[1, 2]\` literals (\`array[1, 2]\`); \`date_format\` not \`strftime\`, \`date_diff\` not \`datediff\`,
\`length\` not \`len\`, \`coalesce\` not \`ifnull\`, \`array_join(array_agg(x), ',')\` not \`string_agg\`,
\`approx_percentile(x, 0.5)\` not \`median\`, \`max_by\` not \`arg_max\`; UNNEST in FROM
(\`cross join unnest(arr) as u(value)\`), never as a function in the select list. GROUP BY, HAVING, WHERE and the
select list cannot name the select list's aliases (\`group by 1\`, or repeat the expression);
ORDER BY can. A function that is neither Trino's nor Dune's is refused ("Function 'x' not
registered"): the functions resource lists what there is, and in SQL
\`show functions like 'varbinary%'\` lists what runs on this host. A table or column that does not exist is
refused before it runs with the closest names ("Column 'amount' cannot be resolved. Did you mean
amount_usd, …?"); \`searchTables\` with \`includeSchema\` shows a table's columns first.

## Values are never converted between types
Trino converts no value between text and numbers or dates, and adds intervals, not numbers, to
dates. Each of these is refused before it runs (on Athena with "Cannot apply operator"), with the fix:
- \`block_time >= timestamp '2024-01-01'\`, not \`block_time >= '2024-01-01'\`; \`block_date = date '2024-01-01'\`.
- \`block_number = 123\` unquoted; a text column with quoted text: \`version = '3'\`.
- \`current_date - interval '7' day\` (or \`date_add('day', -7, current_date)\`), not \`current_date - 7\`.
- \`'#' || cast(rank as varchar)\`, not \`'#' || rank\`.

Division keeps the operands' kind: \`7 / 2\` is 3 (integers), and a decimal literal such as
\`1.0\` makes it a decimal division that keeps the larger scale of the two, rounded: \`1.0 / 3\`
is 0.3 and \`count(*) * 100.0 / total\` has one decimal place. For a ratio, write a double:
\`cast(x as double) / y\` or \`x * 1e0 / y\`. A uint256 amount divided by an integer truncates
(\`amount / 1000000\`); divide by \`1e6\` or \`power(10, decimals)\` for a fraction. A uint256 is
never negative: write a balance change as \`-cast(amount as int256)\` (minus a uint256 fails, as
does a uint256 with a negative integer); with an integer column it stays an exact uint256.

## What differs on the local engine
The local host runs DuneSQL through a translator to DuckDB. Where it differs from Trino/Athena:
- \`uint256\`/\`int256\` are 128-bit locally (values from 2^128 fail with an error, never wrap);
  Athena holds them as \`decimal(38,0)\` (below 10^38).
- \`keccak()\` runs locally but not on Athena (it has no Keccak-256): there, compare with
  precomputed hashes (e.g. the topic0 of decoded event tables).
- \`try()\` of an expression with \`now()\` or \`random()\` fails locally.
- \`format_datetime\`, \`parse_datetime\`, \`date_format\` and \`date_parse\` need a literal pattern
  with the common letters.
- A few Trino functions are not available locally, among them \`checksum\` and
  \`numeric_histogram\`; the function reference marks each one and says what to write instead.
  HyperLogLog sketches (\`approx_set\`, \`merge\`, \`cardinality\`) and digests (\`tdigest_agg\`,
  \`qdigest_agg\`, \`value_at_quantile\`) run, exactly.
- Statements other than one read-only query are refused.

## The sandbox
One statement per execution; read-only data; no files or network (\`read_csv\`, \`COPY\`,
\`ATTACH\`, extension installs), no \`SET\`/\`PRAGMA\` that loosens limits. Each tier has a
wall-clock limit; a runaway query ends \`QUERY_STATE_FAILED\` with type \`timeout\`. Errors point
at the line and column of the SQL you wrote.

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
      title: 'Writing efficient DuneSQL queries',
      description:
        'How to write fast, cheap DuneSQL (Trino) here: partition filters on block_time/block_date, 0x varbinary literals, column selection, approx_distinct, limits, materialized views, and what differs on the local engine.',
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
      title: 'DuneSQL functions and operators',
      description:
        "The DuneSQL functions and operators: Trino's plus Dune's varbinary, uint256 and bytearray extensions, by category, each with its signature, a description, an example with Trino's answer, and whether the local engine and Athena run it.",
      mimeType: 'text/markdown',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/markdown', text: functionReferenceMarkdown() }],
    }),
  );
}
