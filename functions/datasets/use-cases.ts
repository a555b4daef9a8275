import type { Account } from '../core/accounts';
import type { CatalogEntry } from '../core/catalog';
import type { CatalogFilter, CatalogService, RankedEntry } from './catalog-service';
import type { ContractSearch, TableSearch } from './schemas';

/** One page of the tables the caller may read, and how many there are. */
export async function listDatasets(
  catalog: CatalogService,
  account: Account,
  filter: CatalogFilter,
  page: { limit: number; offset: number },
): Promise<{ entries: CatalogEntry[]; total: number }> {
  const entries = await catalog.list(account, filter);
  return { entries: entries.slice(page.offset, page.offset + page.limit), total: entries.length };
}

export function getDataset(
  catalog: CatalogService,
  account: Account,
  fullName: string,
): Promise<CatalogEntry> {
  return catalog.get(account, fullName);
}

/**
 * A page of ranked matches, best first, how many tables match, and the query's words no table
 * matched when the tables match only some of them.
 */
export async function searchDatasets(
  catalog: CatalogService,
  account: Account,
  search: TableSearch,
): Promise<{ ranked: RankedEntry[]; total: number; unmatchedWords: string[] }> {
  const { ranked, unmatchedWords } = await catalog.search(account, search.query, {
    categories: search.categories,
    blockchains: search.blockchains,
    schemas: search.schemas,
  });
  return {
    ranked: ranked.slice(search.offset, search.offset + search.limit),
    total: ranked.length,
    unmatchedWords,
  };
}

/** A page of the decoded tables that hold a contract's events. */
export async function searchDatasetsByContract(
  catalog: CatalogService,
  account: Account,
  search: ContractSearch,
): Promise<{ entries: CatalogEntry[]; total: number }> {
  const entries = await catalog.byContract(account, search.contractAddress, {
    blockchains: search.blockchains,
  });
  return { entries: entries.slice(search.offset, search.offset + search.limit), total: entries.length };
}
