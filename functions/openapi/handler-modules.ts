import * as dashboards from '../dashboards/handlers';
import * as datasets from '../datasets/handlers';
import * as executions from '../executions/handlers';
import * as matviews from '../matviews/handlers';
import * as pipelines from '../pipelines/handlers';
import * as queries from '../queries/handlers';
import * as uploads from '../uploads/handlers';
import * as visualizations from '../visualizations/handlers';
import * as openapi from './handlers';

/**
 * The handler modules of the `/v1` routes by their route-table `entry`: the OpenAPI document reads
 * each route's schemas from its handler. Read lazily (at request time), so the import cycle through
 * ./handlers is harmless.
 */
export const HANDLER_MODULES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'functions/dashboards/handlers.ts': dashboards,
  'functions/datasets/handlers.ts': datasets,
  'functions/executions/handlers.ts': executions,
  'functions/matviews/handlers.ts': matviews,
  'functions/openapi/handlers.ts': openapi,
  'functions/pipelines/handlers.ts': pipelines,
  'functions/queries/handlers.ts': queries,
  'functions/uploads/handlers.ts': uploads,
  'functions/visualizations/handlers.ts': visualizations,
};
