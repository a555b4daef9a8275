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
  /**
   * Public routes answer without credentials: the OAuth endpoints (they are how a client gets
   * credentials), their well-known metadata, the dashboard page (it checks its share token), the
   * landing page, the OpenAPI document and its rendered reference.
   * Every other route goes through the one authorizer (functions/auth) on both hosts.
   */
  public?: boolean;
  /**
   * A path Dune has deprecated, kept for the SDKs that still call it: `METHOD /path` of the route
   * that replaces it (listed before it), whose handler this route runs under another export name
   * (its own OpenAPI operation, marked deprecated; on AWS, the successor's Lambda function).
   */
  supersededBy?: string;
  /**
   * Browsers on other origins may call the route (functions/http/cors.ts): `public` for the OAuth
   * and discovery endpoints a browser-based client registers and gets tokens at (any origin: they
   * take no ambient credentials), `mcp` for the MCP endpoint (the origins MCP_ALLOWED_ORIGINS
   * lists). Both hosts answer the path's `OPTIONS` preflight (the local HTTP server; in AWS a MOCK
   * OPTIONS method, lib/constructs/api.ts).
   */
  cors?: 'public' | 'mcp';
}

const DATASETS = 'functions/datasets/handlers.ts';
const QUERIES = 'functions/queries/handlers.ts';
const EXECUTIONS = 'functions/executions/handlers.ts';
const MATVIEWS = 'functions/matviews/handlers.ts';
const PIPELINES = 'functions/pipelines/handlers.ts';
const UPLOADS = 'functions/uploads/handlers.ts';
const MCP = 'functions/mcp/handler.ts';
const VISUALIZATIONS = 'functions/visualizations/handlers.ts';
const DASHBOARDS = 'functions/dashboards/handlers.ts';
const HOME = 'functions/home/handlers.ts';
const OAUTH = 'functions/oauth/handlers.ts';
const OPENAPI = 'functions/openapi/handlers.ts';
const API_DOCS = 'functions/apidocs/handlers.ts';
const PUBLIC = { public: true } as const;
/** A public endpoint a browser-based OAuth client calls with fetch (CORS, any origin). */
const PUBLIC_CORS = { public: true, cors: 'public' } as const;
const MCP_CORS = { cors: 'mcp' } as const;

/** One route; the Lambda's logical id is the handler name in PascalCase. */
/**
 * Result reads may scan a whole stored result for `filters`/`sort_by` on AWS: give them one full
 * vCPU (Lambda allots CPU in proportion to memory; 1,769 MB is one vCPU, docs/aws.md).
 */
const RESULT_READS: Partial<RouteDefinition> = { memoryMb: 1769 };

function route(
  method: HttpMethod,
  path: string,
  entry: string,
  handler: string,
  extra: Partial<RouteDefinition> = {},
): RouteDefinition {
  return {
    method,
    path,
    entry,
    handler,
    functionName: handler[0]!.toUpperCase() + handler.slice(1),
    ...extra,
  };
}

export const routes: readonly RouteDefinition[] = [
  // Landing page for a browser (public)
  route('GET', '/', HOME, 'homePage', PUBLIC),
  // This API's OpenAPI 3.1 document, generated from the handlers' schemas (public)
  route('GET', '/v1/openapi.json', OPENAPI, 'getOpenApiDocument', PUBLIC),
  // The rendered API reference of that document and its renderer's script (public)
  route('GET', '/docs', API_DOCS, 'apiReferencePage', PUBLIC),
  route('GET', '/docs/rapidoc.js', API_DOCS, 'apiReferenceRenderer', PUBLIC),
  // Table catalog
  route('GET', '/v1/datasets', DATASETS, 'listDatasets'),
  route('GET', '/v1/datasets/{full_name}', DATASETS, 'getDataset'),
  route('POST', '/v1/datasets/search', DATASETS, 'searchDatasets'),
  route('POST', '/v1/datasets/search-by-contract', DATASETS, 'searchDatasetsByContract'),
  // Saved queries
  route('POST', '/v1/query', QUERIES, 'createQuery'),
  route('GET', '/v1/query/{query_id}', QUERIES, 'getQuery'),
  route('PATCH', '/v1/query/{query_id}', QUERIES, 'updateQuery'),
  route('POST', '/v1/query/{query_id}/archive', QUERIES, 'archiveQuery'),
  route('POST', '/v1/query/{query_id}/unarchive', QUERIES, 'unarchiveQuery'),
  route('POST', '/v1/query/{query_id}/private', QUERIES, 'makeQueryPrivate'),
  route('POST', '/v1/query/{query_id}/unprivate', QUERIES, 'makeQueryPublic'),
  route('GET', '/v1/queries', QUERIES, 'listQueries'),
  // Executions and results
  route('POST', '/v1/query/{query_id}/execute', EXECUTIONS, 'executeQuery'),
  route('POST', '/v1/sql/execute', EXECUTIONS, 'executeSql'),
  route('GET', '/v1/execution/{execution_id}/status', EXECUTIONS, 'getExecutionStatus'),
  route('POST', '/v1/execution/{execution_id}/cancel', EXECUTIONS, 'cancelExecution'),
  route('GET', '/v1/execution/{execution_id}/results', EXECUTIONS, 'getExecutionResults', RESULT_READS),
  route(
    'GET',
    '/v1/execution/{execution_id}/results/csv',
    EXECUTIONS,
    'getExecutionResultsCsv',
    RESULT_READS,
  ),
  route('GET', '/v1/query/{query_id}/results', EXECUTIONS, 'getQueryResults', RESULT_READS),
  route('GET', '/v1/query/{query_id}/results/csv', EXECUTIONS, 'getQueryResultsCsv', RESULT_READS),
  route('GET', '/v1/endpoints/{handle}/{slug}/results', EXECUTIONS, 'getEndpointResults', RESULT_READS),
  route('POST', '/v1/usage', EXECUTIONS, 'getUsage'),
  // Materialized views
  route('POST', '/v1/materialized-views', MATVIEWS, 'upsertMaterializedView'),
  route('GET', '/v1/materialized-views', MATVIEWS, 'listMaterializedViews'),
  route('GET', '/v1/materialized-views/{full_name}', MATVIEWS, 'getMaterializedView'),
  route('POST', '/v1/materialized-views/{full_name}/refresh', MATVIEWS, 'refreshMaterializedView'),
  route('DELETE', '/v1/materialized-views/{full_name}', MATVIEWS, 'deleteMaterializedView'),

  route('POST', '/v1/uploads', UPLOADS, 'createUpload'),
  route('GET', '/v1/uploads', UPLOADS, 'listUploads'),
  route('POST', '/v1/uploads/csv', UPLOADS, 'uploadCsv'),
  route('POST', '/v1/uploads/{namespace}/{table_name}/insert', UPLOADS, 'insertIntoUpload'),
  route('POST', '/v1/uploads/{namespace}/{table_name}/clear', UPLOADS, 'clearUpload'),
  route('DELETE', '/v1/uploads/{namespace}/{table_name}', UPLOADS, 'deleteUpload'),
  // Dune's deprecated paths of the same operations (the Dune SDK's `client.table.*`)
  route('POST', '/v1/table/create', UPLOADS, 'createTable', { supersededBy: 'POST /v1/uploads' }),
  route('POST', '/v1/table/upload/csv', UPLOADS, 'uploadTableCsv', { supersededBy: 'POST /v1/uploads/csv' }),
  route('POST', '/v1/table/{namespace}/{table_name}/insert', UPLOADS, 'insertIntoTable', {
    supersededBy: 'POST /v1/uploads/{namespace}/{table_name}/insert',
  }),
  route('DELETE', '/v1/table/{namespace}/{table_name}', UPLOADS, 'deleteTable', {
    supersededBy: 'DELETE /v1/uploads/{namespace}/{table_name}',
  }),
  // Pipelines
  route('GET', '/v1/query/{query_id}/pipeline', PIPELINES, 'getQueryPipeline'),
  route('POST', '/v1/query/{query_id}/pipeline/execute', PIPELINES, 'executeQueryPipeline'),
  route('POST', '/v1/pipelines/execute', PIPELINES, 'executePipeline'),
  route(
    'GET',
    '/v1/pipelines/executions/{pipeline_execution_id}/status',
    PIPELINES,
    'getPipelineExecutionStatus',
  ),
  route(
    'POST',
    '/v1/pipelines/executions/{pipeline_execution_id}/cancel',
    PIPELINES,
    'cancelPipelineExecution',
  ),
  route(
    'POST',
    '/v1/pipelines/executions/{pipeline_execution_id}/retry',
    PIPELINES,
    'retryPipelineExecution',
  ),
  // Remote MCP server (Streamable HTTP)
  route('POST', '/mcp/v1', MCP, 'mcpPost', MCP_CORS),
  route('GET', '/mcp/v1', MCP, 'mcpGet', MCP_CORS),
  // Visualizations
  route('POST', '/v1/query/{query_id}/visualizations', VISUALIZATIONS, 'createVisualization'),
  route('GET', '/v1/query/{query_id}/visualizations', VISUALIZATIONS, 'listQueryVisualizations'),
  route('GET', '/v1/visualizations/{visualization_id}', VISUALIZATIONS, 'getVisualization'),
  route('PATCH', '/v1/visualizations/{visualization_id}', VISUALIZATIONS, 'updateVisualization'),
  route('DELETE', '/v1/visualizations/{visualization_id}', VISUALIZATIONS, 'deleteVisualization'),
  route('GET', '/v1/visualizations/{visualization_id}/image.svg', VISUALIZATIONS, 'getVisualizationSvg'),
  route('GET', '/v1/visualizations/{visualization_id}/image.png', VISUALIZATIONS, 'getVisualizationPng'),
  // Dashboards (the page at /dashboards/{id} authenticates with its share token, not an API key)
  route('POST', '/v1/dashboards', DASHBOARDS, 'createDashboard'),
  route('GET', '/v1/dashboards/{dashboard_id}', DASHBOARDS, 'getDashboard'),
  route('PATCH', '/v1/dashboards/{dashboard_id}', DASHBOARDS, 'updateDashboard'),
  route('POST', '/v1/dashboards/{dashboard_id}/archive', DASHBOARDS, 'archiveDashboard'),
  route('GET', '/dashboards/{dashboard_id}', DASHBOARDS, 'dashboardPage', PUBLIC),
  // OAuth 2.0 authorization server for MCP clients, and the metadata clients discover it by
  route('GET', '/.well-known/oauth-protected-resource', OAUTH, 'protectedResourceMetadata', PUBLIC_CORS),
  route(
    'GET',
    '/.well-known/oauth-protected-resource/{resource_path+}',
    OAUTH,
    'protectedResourceMetadataForPath',
    PUBLIC_CORS,
  ),
  route(
    'GET',
    '/.well-known/oauth-authorization-server/oauth/mcp',
    OAUTH,
    'authorizationServerMetadata',
    PUBLIC_CORS,
  ),
  route('GET', '/oauth/mcp/jwks.json', OAUTH, 'jwks', PUBLIC_CORS),
  route('POST', '/oauth/mcp/register', OAUTH, 'registerClient', PUBLIC_CORS),
  route('GET', '/oauth/mcp/authorize', OAUTH, 'authorizePage', PUBLIC),
  route('POST', '/oauth/mcp/authorize', OAUTH, 'authorizeSubmit', PUBLIC),
  route('POST', '/oauth/mcp/token', OAUTH, 'token', PUBLIC_CORS),
  route('POST', '/oauth/mcp/revoke', OAUTH, 'revoke', PUBLIC_CORS),
];
