import { functionCall, rewrite } from './ast';
import { UnsupportedConstruct } from './errors';
import type { AstNode } from './polyglot';

/**
 * DuckDB's own catalog and introspection functions are not DuneSQL, and they describe the host the
 * engine runs on (its paths, settings and databases) rather than the data. The sandbox keeps them
 * harmless; refusing them keeps the dialect honest and the host's layout out of query results.
 */
const INTERNAL_FUNCTIONS = new Set([
  'current_setting',
  'getenv',
  'which_secret',
  'test_all_types',
  'test_vector_types',
  'enable_profiling',
]);
const INTERNAL_PREFIXES = ['duckdb_', 'pragma_', 'sqlite_'];
/** DuckDB's built-in catalogs and schemas (`system.main.duckdb_settings`, `pg_catalog.*`). */
const INTERNAL_NAMESPACES = new Set(['system', 'temp', 'pg_catalog']);

const isInternalName = (name: string) =>
  INTERNAL_FUNCTIONS.has(name) || INTERNAL_PREFIXES.some((prefix) => name.startsWith(prefix));

/** Throws UnsupportedConstruct at the first engine-internal function or relation the query names. */
export function refuseEngineInternals(statement: AstNode): void {
  rewrite(statement, (node, type) => {
    const call = functionCall(node);
    if (call && isInternalName(call.name)) throw refusal(call.name);
    if (type === 'table') {
      const table = node.table;
      const name = String(table.name?.name ?? '').toLowerCase();
      if (isInternalName(name)) throw refusal(table.name.name);
      for (const part of [table.catalog, table.schema]) {
        if (part && INTERNAL_NAMESPACES.has(String(part.name).toLowerCase())) throw refusal(part.name);
      }
    }
    return undefined;
  });
}

function refusal(construct: string): UnsupportedConstruct {
  return new UnsupportedConstruct(
    construct,
    `${construct} is an engine-internal name, not part of DuneSQL. To explore the data, use information_schema.tables and information_schema.columns, SHOW TABLES FROM <schema> and DESCRIBE <table> (or the catalog endpoints / searchTables).`,
  );
}
