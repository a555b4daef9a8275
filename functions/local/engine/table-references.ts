import {
  normalizeTableName,
  type SqlTableReferenceParser,
  type TableReference,
  unreadableSqlError,
} from '../../core/lineage';
import { parseDuckDbError, positionToLineColumn } from './duckdb-errors';
import { openSandbox, type Sandbox } from './sandbox';

/** How deep `query('... query(...) ...')` may nest before the SQL is refused. */
const MAX_QUERY_NESTING = 8;
/** Bytes of SQL read at a table's position to recover its name as written. */
const NAME_WINDOW_BYTES = 2048;
/** `query_location` of nodes DuckDB made up itself (u64 INVALID_INDEX, as a JSON number). */
const UNKNOWN_LOCATION = Number.MAX_SAFE_INTEGER;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Names that mean a CTE, not a table, at some point of the statement (lower case). */
interface Scope {
  ctes: ReadonlySet<string>;
  /** CTEs whose working table `recurring.<name>` is visible (right side of a recursive CTE). */
  recurring: ReadonlySet<string>;
}

const EMPTY_SCOPE: Scope = { ctes: new Set(), recurring: new Set() };

interface Found {
  ref: TableReference;
  /** Position in the SQL (outer call's position first for refs inside `query(...)`), for ordering. */
  order: number[];
}

/** A `query(...)`/`query_table(...)` table function: DuckDB turns its string argument into SQL at bind time. */
interface NestedCall {
  name: 'query' | 'query_table';
  args: Json[];
  scope: Scope;
  /** Byte offset of the call in its SQL. */
  location: number;
}

/** Where the SQL being parsed came from, for error messages. */
interface Origin {
  /** Byte offsets of the enclosing `query(...)` calls, outermost first, each in its own SQL. */
  order: number[];
  /** E.g. `the SQL given to query() at line 2, column 8`; absent for the query's own SQL. */
  label?: string;
}

/**
 * Finds the tables a SELECT reads with DuckDB's own parser: `json_serialize_sql(sql)` gives the
 * statement's syntax tree as JSON (no binding, no catalog, no data), which is walked for
 * `BASE_TABLE` nodes. Runs on a private in-memory DuckDB instance locked down like the query
 * sandbox (no file or network access, no extensions), opened on first use and reused.
 *
 * Scoping follows DuckDB's binder: a CTE is visible in the statement after its WITH clause and in
 * the bodies of the CTEs defined after it, not in its own body (there `FROM trades` in
 * `WITH trades AS (SELECT * FROM trades)` is the table) except in the recursive part of a
 * recursive CTE; only unqualified names refer to CTEs; an inner WITH shadows outer names in its
 * own query only. Table functions are not tables, but their arguments are searched, and the
 * string arguments of `query('<sql>')` and `query_table('<name>')` are read as SQL and table names,
 * as DuckDB does when it binds them.
 */
export class DuckDbTableReferenceParser implements SqlTableReferenceParser {
  private sandbox?: Promise<Sandbox>;
  /** One statement at a time on the shared connection. */
  private queue: Promise<unknown> = Promise.resolve();

  async tablesReadBy(sql: string): Promise<TableReference[]> {
    const found = await this.collect(sql, EMPTY_SCOPE, { order: [] }, 0);
    found.sort((a, b) => compareOrder(a.order, b.order));
    const seen = new Set<string>();
    const tables: TableReference[] = [];
    for (const { ref } of found) {
      const key = normalizeTableName(ref);
      if (seen.has(key)) continue;
      seen.add(key);
      tables.push(ref);
    }
    return tables;
  }

  /** Closes the private instance; a later call opens a new one. */
  async close(): Promise<void> {
    const sandbox = this.sandbox;
    this.sandbox = undefined;
    if (!sandbox) return;
    await this.queue.catch(() => undefined);
    try {
      (await sandbox).close();
    } catch {
      // never opened: nothing to close
    }
  }

  private async collect(sql: string, scope: Scope, origin: Origin, depth: number): Promise<Found[]> {
    const statement = await this.parseSelect(sql, origin);
    const walker = new AstWalker(sql, origin.order);
    walker.walk(statement, scope);
    const found = walker.found;
    for (const call of walker.nested) {
      const order = [...origin.order, call.location];
      const position = positionToLineColumn(sql, call.location);
      const where = `${call.name}() at line ${position.line}, column ${position.column}`;
      const argument = call.args[0];
      if (call.name === 'query') {
        const inner = argument === undefined ? undefined : constantStrings(argument);
        if (inner?.kind !== 'string') {
          throw unreadableSqlError(
            `the argument of ${where} is not a constant string, so the tables it reads are unknown`,
          );
        }
        if (depth + 1 > MAX_QUERY_NESTING) {
          throw unreadableSqlError(`query() calls are nested more than ${MAX_QUERY_NESTING} deep`);
        }
        found.push(
          ...(await this.collect(
            inner.values[0]!,
            call.scope,
            { order, label: `the SQL given to ${where}` },
            depth + 1,
          )),
        );
      } else {
        const names = argument === undefined ? undefined : constantStrings(argument);
        if (!names || names.values.length === 0) {
          throw unreadableSqlError(
            `the argument of ${where} is not a constant table name or list of names, so the tables it reads are unknown`,
          );
        }
        names.values.forEach((name, index) => {
          const ref = queryTableReference(name);
          if (!ref) throw unreadableSqlError(`${where} names no table that can be read: "${name}"`);
          if (!isCte(ref, call.scope)) found.push({ ref, order: [...order, index] });
        });
      }
    }
    return found;
  }

  /** The single SELECT statement of `sql` as DuckDB's syntax tree; BadRequestError otherwise. */
  private async parseSelect(sql: string, origin: Origin): Promise<Json> {
    // DuckDB's parser errors count characters (code points), unlike query_location (bytes).
    const fail = (detail: string, characterOffset?: number) => {
      const position = characterOffset === undefined ? undefined : characterLineColumn(sql, characterOffset);
      if (!origin.label) return unreadableSqlError(detail, position);
      const inner = position ? ` (line ${position.line}, column ${position.column} of that SQL)` : '';
      return unreadableSqlError(`${origin.label} cannot be read: ${detail}${inner}`);
    };
    if (sql.trim() === '') throw fail('the SQL is empty');

    let text: string;
    try {
      text = await this.exclusive((connection) => serializeSql(connection, sql));
    } catch (error) {
      const info = parseDuckDbError(error);
      if (!/^(Parser|Syntax|Invalid Input|Not implemented)$/i.test(info.type)) throw error;
      throw fail(`${info.type} Error: ${info.message}`, info.position);
    }
    const tree = JSON.parse(text) as JsonObject;

    if (tree.error === true) {
      const message = typeof tree.error_message === 'string' ? tree.error_message : 'unknown error';
      const type = typeof tree.error_type === 'string' ? tree.error_type : 'unknown';
      if (/^not implemented$/i.test(type) && /only select statements/i.test(message)) {
        // Either several statements (one of them not a SELECT) or one statement that is not a SELECT.
        const count = await this.statementCount(sql);
        if (count !== undefined && count > 1) {
          // DuckDB also expands a PIVOT without an IN (...) list into several statements (CREATE TYPE + SELECT).
          throw fail(
            `${severalStatements(count)} (a PIVOT without an explicit IN (...) list of values counts as ` +
              'several: list the values)',
          );
        }
        throw fail(
          'it is not a SELECT query; only a single SELECT (WITH, VALUES, FROM-first, PIVOT, DESCRIBE, ' +
            'SUMMARIZE ...) can be read',
        );
      }
      const position = Number(tree.position);
      throw fail(
        `${displayErrorType(type)} Error: ${message}`,
        tree.position !== undefined && Number.isInteger(position) ? position : undefined,
      );
    }

    const statements = Array.isArray(tree.statements) ? tree.statements : [];
    if (statements.length === 0) throw fail('it holds no SQL statement (only comments or semicolons)');
    if (statements.length > 1) throw fail(severalStatements(statements.length));
    return statements[0]!;
  }

  private async statementCount(sql: string): Promise<number | undefined> {
    try {
      return await this.exclusive(async (connection) => (await connection.extractStatements(sql)).count);
    } catch {
      return undefined;
    }
  }

  private exclusive<T>(work: (connection: Sandbox['connection']) => Promise<T>): Promise<T> {
    // The instance is taken when the work is queued, so close() closes the one that work runs on.
    const sandbox = this.open();
    const run = this.queue.then(async () => work((await sandbox).connection));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private open(): Promise<Sandbox> {
    if (!this.sandbox) {
      const opening = openSandbox({ limits: { threads: 1, memoryLimit: '128MB' }, errorsAsJson: true });
      this.sandbox = opening;
      opening.catch(() => {
        if (this.sandbox === opening) this.sandbox = undefined;
      });
    }
    return this.sandbox;
  }
}

async function serializeSql(connection: Sandbox['connection'], sql: string): Promise<string> {
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql(?::VARCHAR)', [sql]);
  const value = reader.getRows()[0]?.[0];
  if (typeof value !== 'string') throw new Error('json_serialize_sql returned no text');
  return value;
}

/** 1-based line and column of a character offset (in code points, as DuckDB's parser errors give it). */
function characterLineColumn(sql: string, offset: number): { line: number; column: number } {
  const lines = [...sql]
    .slice(0, Math.max(0, offset))
    .join('')
    .split(/\r\n|\r|\n/);
  return { line: lines.length, column: [...(lines[lines.length - 1] ?? '')].length + 1 };
}

function severalStatements(count: number): string {
  return `it holds ${count} statements; a query must be exactly one SELECT statement`;
}

/** DuckDB's error type as it prints it: `parser` → `Parser`, `not implemented` → `Not implemented`. */
function displayErrorType(type: string): string {
  return type.charAt(0).toUpperCase() + type.slice(1);
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: Json | undefined): string {
  return typeof value === 'string' ? value : '';
}

function isCte(ref: Pick<TableReference, 'catalog' | 'schema' | 'table'>, scope: Scope): boolean {
  const table = ref.table.toLowerCase();
  if (!ref.catalog && !ref.schema) return scope.ctes.has(table);
  return !ref.catalog && ref.schema?.toLowerCase() === 'recurring' && scope.recurring.has(table);
}

function compareOrder(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** Walks DuckDB's JSON syntax tree generically, keeping CTE scopes, and collects BASE_TABLE nodes. */
class AstWalker {
  readonly found: Found[] = [];
  readonly nested: NestedCall[] = [];
  private readonly bytes: Buffer;
  private sequence = 0;

  constructor(
    sql: string,
    private readonly prefix: number[],
  ) {
    this.bytes = Buffer.from(sql, 'utf8');
  }

  walk(value: Json | undefined, scope: Scope): void {
    if (Array.isArray(value)) {
      for (const item of value) this.walk(item, scope);
      return;
    }
    if (!isObject(value)) return;

    // A query node (SELECT_NODE, SET_OPERATION_NODE, RECURSIVE_CTE_NODE ...) with a WITH clause:
    // each CTE body sees the CTEs before it; the rest of the node sees them all.
    let inner = scope;
    const cteMap = value.cte_map;
    if (isObject(cteMap) && Array.isArray(cteMap.map)) {
      for (const entry of cteMap.map) {
        if (!isObject(entry)) continue;
        this.walk(entry.value, inner);
        const name = text(entry.key).toLowerCase();
        if (name) inner = { ...inner, ctes: new Set([...inner.ctes, name]) };
      }
    }

    switch (value.type) {
      case 'BASE_TABLE':
        if (typeof value.table_name === 'string') this.baseTable(value, inner);
        break;
      case 'TABLE_FUNCTION':
        this.tableFunction(value, inner);
        break;
      case 'RECURSIVE_CTE_NODE': {
        // WITH RECURSIVE t AS (<anchor> UNION [ALL] <recursive part>): only the recursive part sees t.
        const name = text(value.cte_name).toLowerCase();
        for (const [key, child] of Object.entries(value)) {
          if (key === 'cte_map') continue;
          const self =
            key === 'right' && name
              ? { ctes: new Set([...inner.ctes, name]), recurring: new Set([...inner.recurring, name]) }
              : inner;
          this.walk(child, self);
        }
        return;
      }
    }
    for (const [key, child] of Object.entries(value)) {
      if (key !== 'cte_map') this.walk(child, inner);
    }
  }

  private baseTable(node: JsonObject, scope: Scope): void {
    const parts = {
      catalog: text(node.catalog_name),
      schema: text(node.schema_name),
      table: text(node.table_name),
    };
    if (isCte(parts, scope)) return;
    const location = this.location(node);
    const ref: TableReference = { table: parts.table, text: this.writtenName(location, parts) };
    if (parts.catalog) ref.catalog = parts.catalog;
    if (parts.schema) ref.schema = parts.schema;
    this.found.push({ ref, order: [...this.prefix, location ?? UNKNOWN_LOCATION, this.sequence++] });
  }

  private tableFunction(node: JsonObject, scope: Scope): void {
    const fn = node.function;
    if (!isObject(fn) || text(fn.schema) || text(fn.catalog)) return;
    const name = text(fn.function_name).toLowerCase();
    if (name !== 'query' && name !== 'query_table') return;
    this.nested.push({
      name,
      args: Array.isArray(fn.children) ? fn.children : [],
      scope,
      location: this.location(node) ?? this.location(fn) ?? 0,
    });
  }

  private location(node: JsonObject): number | undefined {
    const location = node.query_location;
    return typeof location === 'number' && location >= 0 && location < this.bytes.length
      ? location
      : undefined;
  }

  /** The name as written at `location` (`dex.trades`, `"Dex"."Trades"`), or rebuilt from its parts. */
  private writtenName(
    location: number | undefined,
    parts: { catalog: string; schema: string; table: string },
  ) {
    const expected = [parts.catalog, parts.schema, parts.table].filter((part) => part !== '');
    if (location !== undefined) {
      const window = this.bytes.subarray(location, location + NAME_WINDOW_BYTES).toString('utf8');
      const written = QUALIFIED_NAME.exec(window);
      if (written) {
        const pieces = [...written[0].matchAll(NAME_PART)].map((match) => match[0]);
        if (
          pieces.length === expected.length &&
          pieces.every((piece, i) => unquote(piece).toLowerCase() === expected[i]!.toLowerCase())
        ) {
          return pieces.join('.');
        }
      }
    }
    return expected.map(quoteIfNeeded).join('.');
  }
}

const NAME_PART = /"(?:[^"]|"")*"|'(?:[^']|'')*'|[\p{L}_][\p{L}\p{N}_$]*/gu;
const QUALIFIED_NAME = new RegExp(`^(?:${NAME_PART.source})(?:\\s*\\.\\s*(?:${NAME_PART.source}))*`, 'u');

function unquote(piece: string): string {
  const quote = piece[0];
  if (quote !== '"' && quote !== "'") return piece;
  return piece.slice(1, -1).replaceAll(quote + quote, quote);
}

function quoteIfNeeded(part: string): string {
  return /^[\p{L}_][\p{L}\p{N}_$]*$/u.test(part) ? part : `"${part.replaceAll('"', '""')}"`;
}

/** A constant string (possibly cast) or a list of them, as `query`/`query_table` require. */
function constantStrings(expr: Json): { kind: 'string' | 'list'; values: string[] } | undefined {
  if (!isObject(expr)) return undefined;
  if (expr.class === 'CONSTANT' && isObject(expr.value)) {
    const value = expr.value.value;
    return expr.value.is_null !== true && typeof value === 'string'
      ? { kind: 'string', values: [value] }
      : undefined;
  }
  if (expr.class === 'CAST') return expr.child === undefined ? undefined : constantStrings(expr.child);
  const name = text(expr.function_name).toLowerCase();
  if (
    expr.class === 'FUNCTION' &&
    (name === 'list_value' || name === 'list_pack') &&
    Array.isArray(expr.children)
  ) {
    const values: string[] = [];
    for (const child of expr.children) {
      const item = constantStrings(child);
      if (item?.kind !== 'string') return undefined;
      values.push(item.values[0]!);
    }
    return { kind: 'list', values };
  }
  return undefined;
}

/**
 * The table `query_table('<name>')` reads. DuckDB splits the name at dots outside double quotes
 * (QualifiedName::Parse) into [[catalog.]schema.]table; a name with a path separator is a file
 * path (read like `FROM 'file.parquet'`).
 */
function queryTableReference(name: string): TableReference | undefined {
  if (isFilePath(name)) return { table: name, text: name };
  const entries: string[] = [];
  let entry = '';
  let quoted = false;
  for (const char of name) {
    if (char === '"') quoted = !quoted;
    else if (char === '.' && !quoted) {
      entries.push(entry);
      entry = '';
    } else entry += char;
  }
  if (quoted) return undefined;
  entries.push(entry);
  if (entries.length > 3 || entry === '') return undefined;
  const [table, schema, catalog] = entries.reverse();
  const ref: TableReference = { table: table!, text: name };
  if (schema) ref.schema = schema;
  if (catalog) ref.catalog = catalog;
  return ref;
}

function isFilePath(name: string): boolean {
  let quoted = false;
  for (const char of name) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '/' || char === '\\')) return true;
  }
  return false;
}
