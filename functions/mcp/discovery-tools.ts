import { z } from 'zod';
import type { Account } from '../core/accounts';
import { BLOCKCHAINS, type CatalogEntry } from '../core/catalog';
import { contractAddressSchema, tableSearchSchema } from '../datasets/schemas';
import { searchDatasets, searchDatasetsByContract } from '../datasets/use-cases';
import type { Services } from '../services';
import { searchDocs } from './docs-search';
import type { ToolRegistrar } from './server';
import {
  annotate,
  formatBytes,
  guarded,
  nullable,
  nullableNumber,
  ok,
  toolError,
  trimText,
} from './tool-results';

const tableSummary = z.object({
  fullName: z.string(),
  category: z.string(),
  blockchains: z.array(z.string()),
  description: z.string(),
  partitionColumn: z.string(),
  rowCount: nullableNumber(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })).optional(),
});
type TableSummary = z.infer<typeof tableSummary>;

const paging = { total: z.number(), nextOffset: nullableNumber() };

interface Context {
  services: Services;
  account: Account;
}

function summaryLine(t: TableSummary): string {
  const rows = t.rowCount === null ? '' : `, ${t.rowCount} rows`;
  const cols = t.columns ? `\n    columns: ${t.columns.map((c) => `${c.name} ${c.type}`).join(', ')}` : '';
  return `- ${t.fullName} [${t.category}; ${t.blockchains.join(',')}; filter on ${t.partitionColumn}${rows}] ${t.description}${cols}`;
}

/** Short descriptions by table definition: a definition never changes, and trimming is per call. */
const shortDescriptions = new WeakMap<CatalogEntry['definition'], string>();

function shortDescription(definition: CatalogEntry['definition']): string {
  let short = shortDescriptions.get(definition);
  if (short === undefined) {
    short = trimText(definition.description, 160);
    shortDescriptions.set(definition, short);
  }
  return short;
}

function summaryOf(entry: CatalogEntry, includeSchema: boolean): TableSummary {
  const { definition, stats } = entry;
  return {
    fullName: definition.fullName,
    category: definition.category,
    blockchains: definition.blockchains,
    description: shortDescription(definition),
    partitionColumn: definition.partitionColumn,
    rowCount: stats?.rowCount ?? null,
    ...(includeSchema ? { columns: definition.columns.map(({ name, type }) => ({ name, type })) } : {}),
  };
}

// The arguments are the catalog search operations' own field schemas (functions/datasets/schemas.ts).
const tableSearch = tableSearchSchema.shape;

export function registerDiscoveryTools(server: ToolRegistrar, { services, account }: Context): void {
  server.registerTool(
    'searchTables',
    {
      title: 'Search tables',
      description:
        'Ranked search of the table catalog (raw chain tables, decoded contract events, curated tables such as dex.trades and prices.usd, and the materialized views and uploaded tables, dune.<namespace>.<table>, you may read) by protocol, event, contract, description or column names. Use it first to find which table holds the data you need; query "*" browses. Results are compact; pass includeSchema: true for column names and types. Next: write SQL with createServiceQuery, filtering on each table\'s partitionColumn; use getTableSize to estimate the scan.',
      inputSchema: {
        query: tableSearch.query
          .unwrap()
          .describe('Words to search for, e.g. "uniswap swap" or "erc20 transfer"; "*" lists all.'),
        blockchains: tableSearch.blockchains.describe(
          `Only tables on these chains: ${BLOCKCHAINS.join(', ')}.`,
        ),
        categories: tableSearch.categories.describe(
          'canonical (raw), decoded (contract events), spell (curated), materialized_view, uploaded_table (CSV uploads).',
        ),
        schemas: tableSearch.schemas.describe('Schema names, e.g. ["dex", "uniswap_v3_ethereum"].'),
        includeSchema: z.boolean().default(false).describe("Include each table's columns (name and type)."),
        // Smaller pages than REST allows: an answer has to fit an agent's context.
        limit: tableSearch.limit.unwrap().max(50).default(10),
        offset: tableSearch.offset,
      },
      outputSchema: {
        tables: z.array(tableSummary),
        ...paging,
        unmatchedWords: z
          .array(z.string())
          .optional()
          .describe('Words of the query no table matched; the tables shown match the others.'),
      },
      annotations: annotate('Search tables', { readOnly: true, idempotent: true }),
    },
    (args) =>
      guarded(async () => {
        const { includeSchema, ...search } = args;
        const found = await searchDatasets(services.catalog, account, search);
        const tables = found.ranked.map(({ entry }) => summaryOf(entry, includeSchema));
        const next = args.offset + tables.length;
        const nextOffset = next < found.total ? next : null;
        const partial = tables.length > 0 && found.unmatchedWords.length > 0;
        // Said first: an agent must not take trades of tokens for the NFT trades it asked for.
        const caveat = partial
          ? `No table matches every word of "${args.query}": nothing matches ${found.unmatchedWords.map((word) => `"${word}"`).join(', ')}, so these tables hold other data that matches the other words. `
          : '';
        const text =
          tables.length === 0
            ? `No tables match "${args.query}". Try fewer or broader words, or "*" to browse.`
            : `${caveat}${found.total} tables match; showing ${tables.length} from offset ${args.offset}${nextOffset !== null ? ` (more with offset ${nextOffset})` : ''}:\n${tables.map(summaryLine).join('\n')}`;
        return ok(
          {
            tables,
            total: found.total,
            nextOffset,
            ...(partial ? { unmatchedWords: found.unmatchedWords } : {}),
          },
          text,
        );
      }),
  );

  server.registerTool(
    'listBlockchains',
    {
      title: 'List blockchains',
      description:
        'Lists the blockchains this service indexes, with how many tables each has. Use it to learn valid values for the blockchains filter of searchTables and searchTablesByContractAddress.',
      inputSchema: {},
      outputSchema: { blockchains: z.array(z.object({ name: z.string(), tableCount: z.number() })) },
      annotations: annotate('List blockchains', { readOnly: true, idempotent: true }),
    },
    () =>
      guarded(async () => {
        const entries = await services.catalog.list(account);
        const counts = new Map<string, number>();
        for (const entry of entries) {
          for (const chain of entry.definition.blockchains) counts.set(chain, (counts.get(chain) ?? 0) + 1);
        }
        const blockchains = [...counts]
          .map(([name, tableCount]) => ({ name, tableCount }))
          .sort((a, b) => b.tableCount - a.tableCount || a.name.localeCompare(b.name));
        return ok(
          { blockchains },
          `${blockchains.length} blockchains: ${blockchains.map((b) => `${b.name} (${b.tableCount} tables)`).join(', ')}`,
        );
      }),
  );

  server.registerTool(
    'searchTablesByContractAddress',
    {
      title: 'Find tables for a contract',
      description:
        "Lists the decoded event tables that hold events emitted by one contract address (e.g. a token or a pool). Use it when the user gives you an address. Next: read the table's columns with searchTables (includeSchema: true) and query it filtered by contract_address.",
      inputSchema: {
        // Checked in the tool, so a malformed address gets an answer that says what an address looks like.
        contractAddress: z.string().describe('EVM address: 0x followed by 40 hex characters (any case).'),
        blockchains: tableSearch.blockchains,
      },
      outputSchema: { contractAddress: z.string(), tables: z.array(tableSummary), total: z.number() },
      annotations: annotate('Find tables for a contract', { readOnly: true, idempotent: true }),
    },
    (args) =>
      guarded(async () => {
        const address = contractAddressSchema.safeParse(args.contractAddress);
        if (!address.success) {
          return toolError(
            `"${args.contractAddress}" is not a contract address: expected a 20-byte EVM address, 0x followed by 40 hex characters, e.g. 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2.`,
          );
        }
        const contractAddress = address.data;
        const found = await searchDatasetsByContract(services.catalog, account, {
          contractAddress,
          blockchains: args.blockchains,
          limit: 100,
          offset: 0,
        });
        const tables = found.entries.map((entry) => summaryOf(entry, false));
        const text = tables.length
          ? `${found.total} decoded tables hold events of ${contractAddress}:\n${tables.map(summaryLine).join('\n')}`
          : `No decoded tables know ${contractAddress}. It may not be decoded in this service; try searchTables with the protocol's name.`;
        return ok({ contractAddress, tables, total: found.total }, text);
      }),
  );

  server.registerTool(
    'getTableSize',
    {
      title: 'Estimate bytes scanned',
      description:
        "Estimates how many bytes a query reads from one or more tables, from the catalog's statistics: whole tables, or only some columns, optionally limited to a time range on the partition column. Use it before running a query on a large table to choose columns and a time filter. The figures are estimates, not measurements.",
      inputSchema: {
        tables: z
          .array(z.string().min(3).max(300))
          .min(1)
          .max(20)
          .describe('Full table names, e.g. ["dex.trades"].'),
        columns: z
          .array(z.string().min(1))
          .max(200)
          .optional()
          .describe('Only these columns (applies to every table that has them).'),
        startTime: timeBound('startTime').describe(
          'Inclusive start of the time range: an ISO-8601 date (2026-11-01) or datetime (2026-11-01T12:00:00Z); without a zone it is UTC.',
        ),
        endTime: timeBound('endTime').describe(
          'Exclusive end of the time range, in the same forms as startTime.',
        ),
      },
      outputSchema: {
        tables: z.array(
          z.object({
            fullName: z.string(),
            estimatedBytes: z.number(),
            tableBytes: z.number(),
            rowCount: z.number(),
            columns: nullable(z.array(z.string())),
            timeFraction: z.number(),
            timeRange: nullable(z.object({ min: z.string(), max: z.string() })),
          }),
        ),
        totalEstimatedBytes: z.number(),
        note: z.string(),
      },
      annotations: annotate('Estimate bytes scanned', { readOnly: true, idempotent: true }),
    },
    (args) =>
      guarded(async () => {
        const start = args.startTime ? utcMillis(args.startTime) : undefined;
        const end = args.endTime ? utcMillis(args.endTime) : undefined;
        if (start !== undefined && end !== undefined && start >= end) {
          return toolError('startTime must be before endTime.');
        }
        const tables = [];
        for (const name of args.tables) {
          const entry = await services.catalog.get(account, name, 'Find tables with searchTables.');
          const estimate = estimateScan(entry, args.columns, start, end);
          if (typeof estimate === 'string') return toolError(estimate);
          tables.push(estimate);
        }
        const totalEstimatedBytes = tables.reduce((sum, t) => sum + t.estimatedBytes, 0);
        const note =
          "Estimates from table statistics (uncompressed column widths × rows, scaled by the share of the table's time range covered); the engine may read less.";
        const text = [
          `Estimated scan: ${formatBytes(totalEstimatedBytes)} in total (estimate).`,
          ...tables.map(
            (t) =>
              `- ${t.fullName}: ${formatBytes(t.estimatedBytes)} of ${formatBytes(t.tableBytes)}${t.columns ? ` (${t.columns.length} columns)` : ''}${t.timeFraction < 1 ? `, ${(t.timeFraction * 100).toFixed(1)}% of its time range` : ''}${t.timeRange ? `; data from ${t.timeRange.min} to ${t.timeRange.max}` : ''}`,
          ),
          note,
        ].join('\n');
        return ok({ tables, totalEstimatedBytes, note }, text);
      }),
  );

  server.registerTool(
    'searchDocs',
    {
      title: 'Search the service docs',
      description:
        'Full-text search over this service\'s own documentation (README, docs/, the DuneSQL query-writing guide and the DuneSQL function reference, one entry per function): API endpoints, SQL sandbox rules, parameters, materialized views, pipelines, credits, and any function by name (e.g. "to_hex", "date_trunc", "uint256") with its signature and whether the local engine runs it. Returns titles, paths and snippets; read a whole resource with resources/read.',
      inputSchema: {
        query: z.string().min(1).max(500).describe('Words to search for, e.g. "pipeline retry".'),
        limit: z.number().int().min(1).max(20).default(5),
      },
      outputSchema: {
        results: z.array(
          z.object({ title: z.string(), path: z.string(), snippet: z.string(), score: z.number() }),
        ),
      },
      annotations: annotate('Search the service docs', { readOnly: true, idempotent: true }),
    },
    (args) =>
      guarded(async () => {
        const results = await searchDocs(args.query, args.limit);
        const text = results.length
          ? results.map((r) => `- ${r.title} (${r.path})\n  ${r.snippet}`).join('\n')
          : `Nothing in the docs matches "${args.query}"; try other words.`;
        return ok({ results }, text);
      }),
  );
}

/** Bytes for the chosen columns, scaled by the share of the table's time range the window covers. */
function estimateScan(
  entry: CatalogEntry,
  columns: string[] | undefined,
  start: number | undefined,
  end: number | undefined,
) {
  const { definition, stats } = entry;
  if (!stats) {
    return `No statistics for ${definition.fullName} yet, so its size cannot be estimated.`;
  }
  let chosen: string[] | null = null;
  let bytes = stats.sizeBytes;
  if (columns?.length) {
    const byLower = new Map(
      Object.entries(stats.columnBytes).map(([name, b]) => [name.toLowerCase(), { name, b }]),
    );
    const missing = columns.filter((c) => !byLower.has(c.toLowerCase()));
    if (missing.length) {
      return `${definition.fullName} has no column ${missing.join(', ')}. Its columns: ${definition.columns.map((c) => c.name).join(', ')}.`;
    }
    chosen = columns.map((c) => byLower.get(c.toLowerCase())!.name);
    bytes = chosen.reduce((sum, c) => sum + (stats.columnBytes[c] ?? 0), 0);
  }
  let timeFraction = 1;
  if ((start !== undefined || end !== undefined) && stats.timeRange) {
    const min = Date.parse(stats.timeRange.min);
    const max = Date.parse(stats.timeRange.max);
    const from = Math.max(min, start ?? min);
    const to = Math.min(max, end ?? max);
    timeFraction = max > min ? Math.max(0, Math.min(1, (to - from) / (max - min))) : from <= to ? 1 : 0;
  }
  return {
    fullName: definition.fullName,
    estimatedBytes: Math.round(bytes * timeFraction),
    tableBytes: stats.sizeBytes,
    rowCount: stats.rowCount,
    columns: chosen,
    timeFraction: Math.round(timeFraction * 10_000) / 10_000,
    timeRange: stats.timeRange ?? null,
  };
}

/**
 * A time bound as agents write them: a date, or a datetime with or without a zone (the model's
 * most common form has none); anything else gets a message with the forms that work.
 */
function timeBound(name: string) {
  return z
    .union([z.iso.datetime({ offset: true, local: true }), z.iso.date()], {
      error: `${name} must be an ISO-8601 date (2026-11-01) or datetime (2026-11-01T12:00:00Z, or without a zone for UTC).`,
    })
    .optional();
}

/** Milliseconds of an ISO date or datetime, a datetime without a zone read as UTC (not local time). */
function utcMillis(text: string): number {
  return Date.parse(/T[^Z+-]*$/i.test(text) ? `${text}Z` : text);
}
