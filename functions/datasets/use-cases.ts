import type { z } from 'zod';
import type { Account } from '../core/accounts';
import type { DatasetCategory } from '../core/catalog';
import { pagination } from '../http/pagination';
import type { CatalogService } from './catalog-service';
import { datasetResponse, searchResult } from './presenter';
import {
  DATASET_TYPE_BY_CATEGORY,
  type listDatasetsQuery,
  type SearchDatasetsBody,
  type searchByContractBody,
} from './schemas';

const CATEGORY_BY_TYPE = Object.fromEntries(
  Object.entries(DATASET_TYPE_BY_CATEGORY).map(([category, type]) => [type, category as DatasetCategory]),
) as Record<string, DatasetCategory>;

/** Category names and dataset_type names both select a category. */
function categoriesOf(names: readonly string[] | undefined): DatasetCategory[] | undefined {
  if (!names?.length) return undefined;
  return [...new Set(names.map((name) => CATEGORY_BY_TYPE[name] ?? (name as DatasetCategory)))];
}

export async function listDatasets(
  catalog: CatalogService,
  account: Account,
  query: z.output<typeof listDatasetsQuery>,
) {
  const entries = await catalog.list(account, {
    categories: categoriesOf(query.type),
    blockchains: query.blockchain,
    schemas: query.schema,
  });
  const page = entries.slice(query.offset, query.offset + query.limit);
  return {
    datasets: page.map(datasetResponse),
    total: entries.length,
    ...pagination(entries.length, query.limit, query.offset),
  };
}

export async function getDataset(catalog: CatalogService, account: Account, fullName: string) {
  return datasetResponse(await catalog.get(account, fullName));
}

export async function searchDatasets(catalog: CatalogService, account: Account, body: SearchDatasetsBody) {
  const ranked = await catalog.search(account, body.query, {
    categories: categoriesOf([...(body.categories ?? []), ...(body.dataset_types ?? [])]),
    blockchains: body.blockchains,
    schemas: body.schemas,
  });
  const page = ranked.slice(body.offset, body.offset + body.limit);
  return {
    total: ranked.length,
    results: page.map(({ entry, score }) =>
      searchResult(entry, {
        includeSchema: body.include_schema,
        includeMetadata: body.include_metadata,
        score,
      }),
    ),
    pagination: pagination(ranked.length, body.limit, body.offset),
  };
}

export async function searchDatasetsByContract(
  catalog: CatalogService,
  account: Account,
  body: z.output<typeof searchByContractBody>,
) {
  const entries = await catalog.byContract(account, body.contract_address, { blockchains: body.blockchains });
  const page = entries.slice(body.offset, body.offset + body.limit);
  return {
    total: entries.length,
    contract_address: body.contract_address,
    results: page.map((entry) =>
      searchResult(entry, { includeSchema: body.include_schema, includeMetadata: body.include_metadata }),
    ),
    pagination: pagination(entries.length, body.limit, body.offset),
  };
}
