import { routeHandler } from '../http/route-handler';
import {
  contractSearchResponse,
  contractSearchResponseOf,
  datasetListResponse,
  datasetListResponseOf,
  datasetResponse,
  datasetResponseOf,
  datasetSearchResponse,
  datasetSearchResponseOf,
} from './presenter';
import { getDatasetPath, listDatasetsQuery, searchByContractBody, searchDatasetsBody } from './schemas';
import * as datasets from './use-cases';

export const listDatasets = routeHandler(
  { query: listDatasetsQuery, docs: { summary: 'The tables you can query', response: datasetListResponse } },
  async ({ services, account, query }) =>
    datasetListResponseOf(
      await datasets.listDatasets(services.catalog, account, query.filter, query),
      query.limit,
      query.offset,
    ),
);

export const getDataset = routeHandler(
  {
    path: getDatasetPath,
    docs: { summary: "A table's columns, partition column and statistics", response: datasetResponse },
  },
  async ({ services, account, path }) =>
    datasetResponseOf(await datasets.getDataset(services.catalog, account, path.full_name)),
);

export const searchDatasets = routeHandler(
  {
    rateClass: 'read',
    body: searchDatasetsBody,
    docs: { summary: 'Ranked search of the table catalog', response: datasetSearchResponse },
  },
  async ({ services, account, body }) =>
    datasetSearchResponseOf(
      await datasets.searchDatasets(services.catalog, account, body.search),
      body.detail,
      body.search,
    ),
);

export const searchDatasetsByContract = routeHandler(
  {
    rateClass: 'read',
    body: searchByContractBody,
    docs: { summary: "The decoded tables that hold a contract's events", response: contractSearchResponse },
  },
  async ({ services, account, body }) =>
    contractSearchResponseOf(
      await datasets.searchDatasetsByContract(services.catalog, account, body.search),
      body.detail,
      body.search,
    ),
);
