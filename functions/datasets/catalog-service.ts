import MiniSearch from 'minisearch';
import type { Account } from '../core/accounts';
import type { Blockchain, CatalogEntry, DatasetCategory, TableDefinition, TableStats } from '../core/catalog';
import type { CatalogStatsStore } from '../core/catalog-ports';
import { NotFoundError } from '../core/errors';
import { didYouMean } from '../core/name-suggestions';

export interface CatalogFilter {
  categories?: readonly DatasetCategory[];
  blockchains?: readonly Blockchain[];
  /** Schema names, case-insensitive (e.g. `dex`, `uniswap_v3_ethereum`). */
  schemas?: readonly string[];
}

export interface RankedEntry {
  entry: CatalogEntry;
  score: number;
}

/** Ranked matches, best first, and the query's words no table matched (when some did). */
export interface RankedSearch {
  ranked: RankedEntry[];
  /**
   * Empty when every word matched one table; otherwise the tables match only some words, and
   * these matched none (`nft trades` here: no NFT tables, only trades of tokens).
   */
  unmatchedWords: string[];
}

interface SearchDocument {
  id: string;
  fullName: string;
  schema: string;
  table: string;
  project: string;
  contractName: string;
  eventName: string;
  description: string;
  columns: string;
  blockchains: string;
  category: string;
}

const STATS_CACHE_MS = 60_000;

/** Tables users create (materialized views, uploaded tables): read on every call, never cached. */
export interface UserTableSource {
  entriesFor(account: Account | undefined): Promise<CatalogEntry[]>;
}

/**
 * The table registry: base table definitions joined with measured statistics (and, later, the
 * caller's own materialized views). Statistics are cached per process for a minute; a Lambda
 * instance re-reads them after that.
 */
export class CatalogService {
  private cached?: { at: number; entries: CatalogEntry[]; index: MiniSearch<SearchDocument> };

  constructor(
    private readonly statsStore: CatalogStatsStore,
    private readonly baseTables: readonly TableDefinition[],
    private readonly userTables: readonly UserTableSource[] = [],
    private readonly now: () => number = Date.now,
  ) {}

  /** Drops the cache, e.g. after new statistics were written. */
  invalidate(): void {
    this.cached = undefined;
  }

  /** Every entry the account may see, most central first. */
  async list(account: Account | undefined, filter: CatalogFilter = {}): Promise<CatalogEntry[]> {
    const entries = await this.allEntries(account);
    return entries.filter((entry) => isVisible(entry, account) && matchesFilter(entry, filter));
  }

  /**
   * One entry the account may see, or a NotFoundError naming the closest names and `findWith`,
   * how the caller finds tables (the REST routes by default; an MCP tool names its own tool).
   */
  async get(
    account: Account | undefined,
    fullName: string,
    findWith = 'Search tables with POST /v1/datasets/search or list them with GET /v1/datasets.',
  ): Promise<CatalogEntry> {
    const entries = await this.allEntries(account);
    const wanted = fullName.toLowerCase();
    const entry = entries.find((candidate) => candidate.definition.fullName.toLowerCase() === wanted);
    if (!entry || !isVisible(entry, account)) {
      const names = entries
        .filter((candidate) => isVisible(candidate, account))
        .map((candidate) => candidate.definition.fullName);
      throw new NotFoundError(`Dataset "${fullName}" not found.${didYouMean(wanted, [], names)} ${findWith}`);
    }
    return entry;
  }

  /**
   * Ranked full-text search over names, descriptions and columns. All words must match (with
   * prefix and light fuzzy matching); if no table matches them all, any word may, and the words
   * no table matched are named. An empty query or `*` browses.
   */
  async search(
    account: Account | undefined,
    text: string,
    filter: CatalogFilter = {},
  ): Promise<RankedSearch> {
    const { entries: base, index } = await this.load();
    const user = await this.userEntries(account);
    const visible = new Map(
      [...base, ...user]
        .filter((entry) => isVisible(entry, account) && matchesFilter(entry, filter))
        .map((e) => [key(e), e]),
    );
    const indexes = user.length ? [index, buildIndex(user)] : [index];
    const query = text.trim();
    if (query === '' || query === '*') {
      const ranked = [...visible.values()].map((entry) => ({
        entry,
        score: entry.definition.popularity ?? 0,
      }));
      return { ranked, unmatchedWords: [] };
    }
    const options = {
      prefix: (term: string) => term.length >= 3,
      fuzzy: (term: string) => (term.length >= 5 ? 0.2 : false),
      filter: (result: { id: string }) => visible.has(result.id),
      boostDocument: (id: string) => 1 + (visible.get(id)?.definition.popularity ?? 0),
    };
    const searchAll = (combineWith: 'AND' | 'OR') =>
      indexes
        .flatMap((idx) => idx.search(query, { ...options, combineWith }))
        .sort((a, b) => b.score - a.score);
    let hits = searchAll('AND');
    let unmatchedWords: string[] = [];
    if (hits.length === 0) {
      hits = searchAll('OR');
      const matched = new Set(hits.flatMap((hit) => hit.queryTerms));
      unmatchedWords = [...new Set(tokenize(query).map((word) => word.toLowerCase()))].filter(
        (word) => !matched.has(word),
      );
    }
    // A query that spells (part of) a table's name wins over matches spread across its text.
    const spelled = `_${query.toLowerCase().replace(/[\s.]+/g, '_')}_`;
    const ranked = hits
      .map((hit) => {
        const entry = visible.get(hit.id)!;
        const named = `_${entry.definition.fullName.toLowerCase().replace(/\./g, '_')}_`.includes(spelled);
        return { entry, score: named ? hit.score * 2 + 10 : hit.score };
      })
      .sort((a, b) => b.score - a.score);
    return { ranked, unmatchedWords };
  }

  /** Decoded tables whose events were emitted by the contract (from definitions and from the data). */
  async byContract(
    account: Account | undefined,
    address: string,
    filter: CatalogFilter = {},
  ): Promise<CatalogEntry[]> {
    const wanted = address.toLowerCase();
    const entries = await this.list(account, filter);
    return entries.filter((entry) => contractAddressesOf(entry).includes(wanted));
  }

  private async allEntries(account: Account | undefined): Promise<CatalogEntry[]> {
    const { entries } = await this.load();
    const user = await this.userEntries(account);
    return [...entries, ...user];
  }

  private async userEntries(account: Account | undefined): Promise<CatalogEntry[]> {
    return (await Promise.all(this.userTables.map((source) => source.entriesFor(account)))).flat();
  }

  private async load() {
    const now = this.now();
    if (this.cached && now - this.cached.at < STATS_CACHE_MS) return this.cached;
    const stats = new Map((await this.statsStore.listStats()).map((s) => [s.fullName.toLowerCase(), s]));
    const entries = this.baseTables
      .map((definition): CatalogEntry => {
        const tableStats: TableStats | undefined = stats.get(definition.fullName.toLowerCase());
        return { definition, isPrivate: false, ...(tableStats ? { stats: tableStats } : {}) };
      })
      .sort(
        (a, b) =>
          (b.definition.popularity ?? 0) - (a.definition.popularity ?? 0) ||
          a.definition.fullName.localeCompare(b.definition.fullName),
      );
    this.cached = { at: now, entries, index: buildIndex(entries) };
    return this.cached;
  }
}

export function contractAddressesOf(entry: CatalogEntry): string[] {
  const all = [...(entry.definition.contractAddresses ?? []), ...(entry.stats?.contractAddresses ?? [])];
  return [...new Set(all.map((address) => address.toLowerCase()))];
}

function key(entry: CatalogEntry): string {
  return entry.definition.fullName.toLowerCase();
}

function isVisible(entry: CatalogEntry, account: Account | undefined): boolean {
  return !entry.isPrivate || (account !== undefined && entry.ownerAccountId === account.accountId);
}

function matchesFilter(entry: CatalogEntry, filter: CatalogFilter): boolean {
  const { definition } = entry;
  if (filter.categories?.length && !filter.categories.includes(definition.category)) return false;
  if (
    filter.blockchains?.length &&
    !definition.blockchains.some((chain) => filter.blockchains!.includes(chain))
  ) {
    return false;
  }
  if (filter.schemas?.length) {
    const schemas = filter.schemas.map((schema) => schema.toLowerCase());
    if (!schemas.includes(definition.schema.toLowerCase())) return false;
  }
  return true;
}

/** Splits `Pair_evt_Swap` / `PoolCreated` into words as well as keeping the whole token. */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const token of text.split(/[\s\p{P}\p{S}]+/u)) {
    if (!token) continue;
    tokens.push(token);
    const parts = token.split(/(?<=[a-z0-9])(?=[A-Z])/);
    if (parts.length > 1) tokens.push(...parts);
  }
  return tokens;
}

function buildIndex(entries: CatalogEntry[]): MiniSearch<SearchDocument> {
  const index = new MiniSearch<SearchDocument>({
    fields: [
      'fullName',
      'schema',
      'table',
      'project',
      'contractName',
      'eventName',
      'description',
      'columns',
      'blockchains',
      'category',
    ],
    storeFields: [],
    tokenize,
    processTerm: (term) => term.toLowerCase(),
    searchOptions: {
      boost: {
        table: 4,
        eventName: 3,
        fullName: 3,
        contractName: 2,
        project: 2,
        schema: 2,
        category: 1.5,
        description: 1,
        blockchains: 1,
        columns: 0.5,
      },
    },
  });
  index.addAll(
    entries.map(({ definition }) => ({
      id: definition.fullName.toLowerCase(),
      fullName: definition.fullName,
      schema: definition.schema,
      table: definition.table,
      project: definition.project ?? '',
      contractName: definition.contractName ?? '',
      eventName: definition.eventName ?? '',
      description: definition.description,
      columns: definition.columns.map((column) => column.name).join(' '),
      blockchains: definition.blockchains.join(' '),
      category: definition.category,
    })),
  );
  return index;
}
