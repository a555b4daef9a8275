import type { Account } from '../core/accounts';
import type { PerformanceTier } from '../core/engine';
import { BadRequestError } from '../core/errors';
import { normalizeTableName, type TableReference } from '../core/lineage';
import { MATERIALIZED_VIEW_CATALOG, type MaterializedView } from '../core/materialized-views';
import type { ParameterOverrides } from '../core/parameters';
import type { PipelineGraph, PipelineNode } from '../core/pipeline-graph';
import type { SavedQuery } from '../core/queries';
import { UPLOAD_CATALOG } from '../core/uploads';
import { BASE_TABLES } from '../datasets/base-tables';
import { expandQueryViews } from '../queries/query-views';
import { readableQuery } from '../queries/use-cases';
import type { Services } from '../services';

const BASE_TABLE_NAMES = new Set(BASE_TABLES.map((table) => table.fullName.toLowerCase()));

export interface LineageNode {
  key: string;
  kind: 'query_execution' | 'materialized_view_refresh';
  queryId: number;
  materializedViewName?: string;
  /** Keys of the lineage nodes this one reads. */
  reads: string[];
  /** Base tables it reads (for the scan estimate). */
  baseTables: string[];
}

/**
 * The lineage of a query: the tables its SQL reads (found by the engine's own parser), where a
 * table that is one of the caller's materialized views brings in that view's query, recursively.
 * Another account's public view is read as it is (it cannot be refreshed by this caller). A cycle
 * is a 400 that names it; so is a table that does not exist.
 */
export async function resolveLineage(
  services: Services,
  account: Account,
  queryId: number,
  /** When the root is itself a view (a scheduled refresh), it becomes a refresh node. */
  rootView?: MaterializedView,
): Promise<LineageNode[]> {
  const nodes = new Map<string, LineageNode>();
  const visiting: string[] = [];
  const readable = new Map(
    (await services.materializedViews.listReadableBy(account.accountId)).map((view) => [
      view.fullName.toLowerCase(),
      view,
    ]),
  );

  // A query is read and parsed once, and the views a query reads are loaded together ahead of
  // the (sequential, cycle-checking) walk: a deep lineage costs a round trip per level, not per view.
  const loads = new Map<number, Promise<{ query: SavedQuery; references: TableReference[] }>>();
  const load = (id: number) => {
    let loading = loads.get(id);
    if (!loading) {
      loading = readableQuery(services.queries, account, id).then(async (query) => {
        // Parameters only stand for values, never for tables: any literal does for finding tables.
        const sql = query.querySql.replace(/\{\{[^}]*\}\}/g, 'NULL');
        // A query view's tables are the calling query's: its SQL runs inside the caller's.
        const expanded = await expandQueryViews(services, account, sql, id);
        return { query, references: await services.sqlParser.tablesReadBy(expanded) };
      });
      loading.catch(() => undefined); // awaited (and thrown) when the walk gets there
      loads.set(id, loading);
    }
    return loading;
  };
  // Uploaded tables are sources, as base tables are: listed once, and only if the SQL names one.
  let uploads: Promise<Set<string>> | undefined;
  const isReadableUpload = async (reference: TableReference) => {
    if (reference.catalog?.toLowerCase() !== UPLOAD_CATALOG) return false;
    uploads ??= services.uploads
      .listReadableBy(account.accountId)
      .then((tables) => new Set(tables.map((table) => table.fullName.toLowerCase())));
    return (await uploads).has(normalizeTableName(reference));
  };
  const viewNamed = (reference: TableReference) =>
    reference.catalog?.toLowerCase() === MATERIALIZED_VIEW_CATALOG
      ? readable.get(normalizeTableName(reference))
      : undefined;

  const visit = async (key: string, queryIdToRead: number, view?: MaterializedView): Promise<void> => {
    if (nodes.has(key)) return;
    if (visiting.includes(key)) {
      const cycle = [...visiting.slice(visiting.indexOf(key)), key].map(lineageNodeName).join(' → ');
      throw new BadRequestError(
        `The lineage has a cycle: ${cycle}. A materialized view cannot depend on itself.`,
      );
    }
    visiting.push(key);
    const { query, references } = await load(queryIdToRead);
    for (const reference of references) {
      const matview = viewNamed(reference);
      if (matview?.accountId === account.accountId) load(matview.queryId);
    }
    const reads: string[] = [];
    const baseTables: string[] = [];
    for (const reference of references) {
      const name = normalizeTableName(reference);
      if (BASE_TABLE_NAMES.has(name) || (await isReadableUpload(reference))) {
        baseTables.push(name);
        continue;
      }
      const matview = viewNamed(reference);
      if (!matview) {
        throw new BadRequestError(
          `Query ${query.queryId} reads ${reference.text}, which is not a table, a materialized view or an uploaded table you can read. Search tables with POST /v1/datasets/search.`,
        );
      }
      if (matview.accountId !== account.accountId) continue; // someone else's public view: read as is
      const dependencyKey = `mv:${matview.fullName}`;
      await visit(dependencyKey, matview.queryId, matview);
      reads.push(dependencyKey);
    }
    visiting.pop();
    nodes.set(key, {
      key,
      kind: view ? 'materialized_view_refresh' : 'query_execution',
      queryId: query.queryId,
      ...(view ? { materializedViewName: view.fullName } : {}),
      reads: [...new Set(reads)],
      baseTables: [...new Set(baseTables)],
    });
  };

  await visit(rootView ? `mv:${rootView.fullName}` : `query:${queryId}`, queryId, rootView);
  return [...nodes.values()];
}

/** A lineage node as users know it: the view's full name, or `query <id>`. */
function lineageNodeName(key: string): string {
  return key.startsWith('mv:') ? key.slice('mv:'.length) : `query ${key.slice('query:'.length)}`;
}

/** Numbers lineage nodes 1..n in dependency order (the root query last) and builds the graph. */
export function lineageGraph(
  lineage: readonly LineageNode[],
  options: { tier: PerformanceTier; parameters?: ParameterOverrides },
): { graph: PipelineGraph; nodeKeys: Map<number, LineageNode> } {
  // resolveLineage adds a node after everything it reads: its order is already topological.
  const idOf = new Map(lineage.map((node, i) => [node.key, i + 1]));
  const nodeKeys = new Map<number, LineageNode>();
  const nodes: PipelineNode[] = lineage.map((node) => {
    const id = idOf.get(node.key)!;
    nodeKeys.set(id, node);
    const dependencies = node.reads.map((key) => idOf.get(key)!).sort((a, b) => a - b);
    return node.kind === 'materialized_view_refresh'
      ? {
          id,
          dependencies,
          materializedViewRefresh: { name: node.materializedViewName!, performance: options.tier },
        }
      : {
          id,
          dependencies,
          queryExecution: {
            queryId: node.queryId,
            performance: options.tier,
            ...(options.parameters && Object.keys(options.parameters).length
              ? { queryParameters: options.parameters }
              : {}),
          },
        };
  });
  return { graph: { nodes }, nodeKeys };
}
