import { routeHandler } from '../http/route-handler';
import { getDatasetPath, listDatasetsQuery, searchByContractBody, searchDatasetsBody } from './schemas';
import * as datasets from './use-cases';

export const listDatasets = routeHandler({ query: listDatasetsQuery }, ({ services, account, query }) =>
  datasets.listDatasets(services.catalog, account, query),
);

export const getDataset = routeHandler({ path: getDatasetPath }, ({ services, account, path }) =>
  datasets.getDataset(services.catalog, account, path.full_name),
);

export const searchDatasets = routeHandler({ body: searchDatasetsBody }, ({ services, account, body }) =>
  datasets.searchDatasets(services.catalog, account, body),
);

export const searchDatasetsByContract = routeHandler(
  { body: searchByContractBody },
  ({ services, account, body }) => datasets.searchDatasetsByContract(services.catalog, account, body),
);
