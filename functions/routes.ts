/**
 * The route table: the single source of truth for HTTP endpoints. The local HTTP host routes with
 * it and the CDK stack builds one API Gateway method + one Lambda function per entry from it, so
 * the two hosts cannot drift.
 *
 * `entry` is relative to the repository root; `handler` is the exported function's name.
 */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RouteDefinition {
  method: HttpMethod;
  /** API Gateway resource path; `{name}` marks a path parameter. */
  path: string;
  entry: string;
  handler: string;
  /** Logical id used for the Lambda function in CDK (PascalCase, unique). */
  functionName: string;
  /** Lambda timeout in seconds (API Gateway cuts requests at 29 s anyway). */
  timeoutSeconds?: number;
  memoryMb?: number;
}

const DATASETS = 'functions/datasets/handlers.ts';

export const routes: readonly RouteDefinition[] = [
  {
    method: 'GET',
    path: '/v1/datasets',
    entry: DATASETS,
    handler: 'listDatasets',
    functionName: 'ListDatasets',
  },
  {
    method: 'GET',
    path: '/v1/datasets/{full_name}',
    entry: DATASETS,
    handler: 'getDataset',
    functionName: 'GetDataset',
  },
  {
    method: 'POST',
    path: '/v1/datasets/search',
    entry: DATASETS,
    handler: 'searchDatasets',
    functionName: 'SearchDatasets',
  },
  {
    method: 'POST',
    path: '/v1/datasets/search-by-contract',
    entry: DATASETS,
    handler: 'searchDatasetsByContract',
    functionName: 'SearchDatasetsByContract',
  },
];
