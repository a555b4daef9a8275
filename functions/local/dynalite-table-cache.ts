import { createRequire } from 'node:module';

/**
 * dynalite reads a table's description from LevelDB on every item request (`getTable`): a trip
 * through libuv's thread pool and a JSON decode before each get, put, update or query, for a
 * record that changes only when a table is created, updated or deleted. Here active tables'
 * descriptions are kept in memory: item requests read them from there, and any write of a table
 * record (the table actions are its only writers) empties the cache. The table actions themselves
 * (`getTable(name, false)`: describe, update, delete) always read the store, as before.
 */

type Callback = (error: unknown, table?: TableDescription) => void;

interface TableDescription {
  TableStatus?: string;
  [field: string]: unknown;
}

interface Store {
  tableDb: {
    put(...args: unknown[]): unknown;
    del(...args: unknown[]): unknown;
  };
  getTable(name: string, checkStatus: boolean | Callback, callback?: Callback): void;
}

interface DbModule {
  create(options: unknown): Store;
}

/** Marks the module patched (it is shared by every importer in a thread). */
const PATCHED = Symbol.for('service.dynalite-table-cache');

/** Caches active tables' descriptions in every dynalite store this thread creates from now on. */
export function cacheDynaliteTableDescriptions(): void {
  const db = createRequire(import.meta.url)('dynalite/db') as DbModule & { [PATCHED]?: true };
  if (db[PATCHED]) return;
  db[PATCHED] = true;
  const create = db.create;
  db.create = (options) => withTableCache(create(options));
}

/** The store with its `getTable` served from memory for active tables (exported for the tests). */
export function withTableCache(store: Store): Store {
  const active = new Map<string, TableDescription>();
  /** Counts table writes: a read that overlapped one is not cached (it may predate it). */
  let writes = 0;
  const { tableDb } = store;
  for (const method of ['put', 'del'] as const) {
    const write = tableDb[method].bind(tableDb);
    tableDb[method] = (...args: unknown[]) => {
      writes++;
      active.clear();
      return write(...args);
    };
  }
  const getTable = store.getTable.bind(store);
  store.getTable = (name, checkStatus, callback) => {
    const done = (typeof checkStatus === 'function' ? checkStatus : callback)!;
    // dynalite's default (no flag): only an active table answers, as for every item request.
    if (typeof checkStatus === 'function' || checkStatus) {
      const cached = active.get(name);
      // Answered asynchronously, as a store read is: callers may rely on it.
      if (cached) return void setImmediate(done, null, cached);
      const writesBefore = writes;
      return getTable(name, (error: unknown, table?: TableDescription) => {
        if (!error && table?.TableStatus === 'ACTIVE' && writes === writesBefore) active.set(name, table);
        done(error, table);
      });
    }
    getTable(name, checkStatus, done);
  };
  return store;
}
