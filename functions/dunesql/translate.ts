import { missingRelationMessage } from '../core/stored-relations';
import { filtersIntoInputs } from './aggregate-filters';
import { findAll, functionCall, instantiate, nodeType, rewrite, someNode } from './ast';
import { ATHENA_RULES, ATHENA_TYPES, textColumnAs } from './athena-target';
import { varbinaryCastsAsHex } from './athena-varbinary-casts';
import { wideIntegerArithmetic } from './athena-wide-integers';
import { columnAliasPlaceholders, quoteColumnAliases, restoreColumnAliases } from './column-aliases';
import {
  bindAggregateArguments,
  DUCKDB_RULES,
  DUCKDB_TYPES,
  HELPER_PREFIX,
  sessionSetupFor,
  userFacingMessage,
} from './duckdb-target';
import { refuseEngineInternals } from './engine-internals';
import { DuneSqlError, type DuneSqlErrorKind, UnsupportedConstruct } from './errors';
import { localFunctionMessage, refuseUnknownFunctions, refuseUnnestCalls } from './function-names';
import {
  catalogStatementQuery,
  dropPublicCatalog,
  type ListedTable,
  readInformationSchema,
} from './information-schema';
import { unparsedJsonClause } from './json-paths';
import { compactLiteralRows } from './literal-rows';
import { RefusedOperation, refuseMistypedOperands } from './mistyped-operands';
import { quoteIdentifier as quote } from './nested-json';
import { type NestedOutput, nestedOutputsAsJson, type TableSchema } from './nested-outputs';
import { foreignConstruct } from './other-dialects';
import { type OutputTypes, outputTypes, type TypeHintedTable } from './output-types';
import { type AstNode, loadPolyglot, polyglotForOneTranslation } from './polyglot';
import { rowLimitsForDuckDb } from './row-limits';
import { type RuleContext, type RuleSet, ruleArguments } from './rules';
import { showFunctionsQuery } from './show-functions';
import {
  byteToCharOffset,
  lineColumnAt,
  type PreparedSource,
  prepareSource,
  userOffset,
} from './source-text';
import { typedRewrites } from './typed-rewrites';
import { unresolvedTables } from './unresolved-names';

/** Where translated DuneSQL runs: DuckDB on the local host, Trino on Athena. */
export type TranslationTarget = 'duckdb' | 'athena';

export interface Translation {
  target: TranslationTarget;
  /** The SQL to run on the target engine. */
  sql: string;
  /**
   * What the session must run first, on the same connection (DuckDB: settings and the helper
   * macros this statement calls, as one multi-statement string; Athena: empty).
   */
  sessionSetup: string;
  /**
   * Where an offset in `sql` (as the target engine reports it) lies in the user's SQL: 1-based line
   * and column, found by matching the token at the offset back to what the user wrote.
   */
  userPosition(
    offset: number,
    unit: 'bytes' | 'characters',
  ): Promise<{ line: number; column: number } | undefined>;
  /** The engine's error message with translation helpers named as the user wrote them. */
  userMessage(message: string): string;
  /** The stored relations (`TranslateOptions.relations`) the SQL reads: what the run may access. */
  relationsRead: TextStoredRelation[];
  /**
   * Whether the statement gives the same answer over the same data: false when it calls a clock,
   * random or uuid function (a cached earlier result would then be wrong).
   */
  deterministic: boolean;
  /**
   * Athena only: the output columns holding arrays, maps or rows, which the translation returns as
   * JSON text, with their types (the engine reports such a column as varchar).
   */
  nestedColumns: NestedOutput[];
  /**
   * DuckDB only: output column types DuckDB's own cannot tell, by position (output-types.ts), as
   * engine type names; undefined where DuckDB's type is right.
   */
  outputTypes: (string | undefined)[];
}

/** Calls whose value changes from one run to the next (polyglot node types or function names). */
const VOLATILE_CALLS = new Set([
  'now',
  'current_timestamp',
  'current_date',
  'current_time',
  'localtime',
  'localtimestamp',
  'current_timezone',
  'rand',
  'random',
  'uuid',
  'shuffle',
]);

function isDeterministic(statement: AstNode): boolean {
  let volatile = false;
  rewrite(statement, (node, type) => {
    if (VOLATILE_CALLS.has(type) || VOLATILE_CALLS.has(functionCall(node)?.name ?? '')) volatile = true;
    return undefined;
  });
  return !volatile;
}

/**
 * A stored relation (a materialized view version) that Athena reads from a table holding each
 * column as text (`c0`, `c1`, … in column order): SQL naming `<catalog>.<schema>.<name>` reads a
 * derived table that casts the text back to the columns' types.
 */
export interface TextStoredRelation {
  catalog: string;
  schema: string;
  name: string;
  columns: { name: string; type: string }[];
  table: { database: string; name: string };
}

export interface TranslateOptions {
  /** Athena only: the stored relations the SQL may name, read through their text tables. */
  relations?: readonly TextStoredRelation[];
  /**
   * The catalogs of stored relations, each with what it holds (`{ mv: 'materialized view' }`):
   * naming one of their tables that is not among `relations` fails here, saying so, instead of as
   * Athena's unknown-catalog error.
   */
  relationCatalogs?: Readonly<Record<string, string>>;
  /**
   * Athena databases SQL may not name directly (the view versions' tables, read only through
   * `relations`): a reference fails as an unknown table. Defence in depth; the run's IAM session
   * policy is what enforces it.
   */
  hiddenDatabases?: readonly string[];
  /**
   * The base tables with their Athena column types, for typing: on Athena the output columns
   * (arrays, maps and rows are returned as JSON text; see nested-outputs.ts); on both, the
   * comparisons Trino refuses, e.g. varbinary or a timestamp with text (mistyped-operands.ts).
   */
  tables?: readonly TableSchema[];
  /**
   * The uploaded tables the SQL may read, `<namespace>.<table>` with their declared types: typed
   * like the base tables, to refuse their text columns compared with varbinary.
   */
  uploads?: readonly TableSchema[];
  /**
   * DuckDB only: the views the SQL may read with the engine types their columns were stored with,
   * so a zone-moved timestamp or a year-to-month interval read from one keeps its type
   * (output-types.ts).
   */
  storedTypes?: readonly TypeHintedTable[];
  /**
   * What information_schema and the SHOW statements list (`listedTables`: the public tables with
   * their DuneSQL types and descriptions, and the stored relations the account may read). Without
   * it they list nothing.
   */
  catalog?: readonly ListedTable[];
  /**
   * DuckDB only, and only the engine's own tests set it: DuckDB's function names pass (to observe
   * a sandbox from inside a DuneSQL run, e.g. `txid_current()`); users' SQL never gets it.
   */
  duckDbFunctionsForEngineTests?: boolean;
  /**
   * Translate long lists of literal rows whole rather than by the rows that type them
   * (literal-rows.ts): the tests compare the two.
   */
  wholeLiteralRows?: boolean;
}

type Polyglot = Awaited<ReturnType<typeof loadPolyglot>>;

/** A statement that exercises every step of a translation (rules, macros, transpile, positions). */
const WARM_UP_SQL = `WITH t AS (SELECT date_trunc('day', block_time) AS day, to_hex(0x01) AS h, count(*)
  FROM dex.trades WHERE block_time > now() - interval '7' day GROUP BY 1, 2)
SELECT day, h, sum(cast(1 AS uint256)) AS n FROM t GROUP BY 1, 2 ORDER BY 1`;

/**
 * Loads the translator and runs one translation, so a process's first user statement pays neither
 * the WASM load (~240 ms idle) nor the first calls' lazy compilation (another ~250 ms).
 */
export async function warmUpTranslator(): Promise<void> {
  const translation = await translate(WARM_UP_SQL, 'duckdb');
  await translation.userPosition(translation.sql.indexOf('dex.trades'), 'characters');
}

const TARGETS = {
  duckdb: { rules: DUCKDB_RULES, types: DUCKDB_TYPES },
  athena: { rules: ATHENA_RULES, types: ATHENA_TYPES },
} satisfies Record<TranslationTarget, { rules: RuleSet; types: Record<string, string> }>;

/**
 * Translates one DuneSQL statement (Trino SQL plus Dune's onchain extensions) for a target engine.
 * The statement is parsed with polyglot's Trino dialect (so what runs here parses on Athena), the
 * rules of the target rewrite what Trino or DuckDB lack, and for DuckDB polyglot's own Trino→DuckDB
 * transpiler does the rest. Throws DuneSqlError (syntax or unsupported), positioned in the user's SQL.
 */
export async function translate(
  sql: string,
  target: TranslationTarget,
  options: TranslateOptions = {},
): Promise<Translation> {
  const polyglot = polyglotForOneTranslation(await loadPolyglot());
  const source = prepareSource(sql);
  // Long lists of literal rows are translated by the rows that type them (literal-rows.ts).
  const compacted = options.wholeLiteralRows ? undefined : compactLiteralRows(source);
  if (compacted) {
    const translation = await translateSource(polyglot, sql, compacted.source, target, options, {
      restore: (output) => compacted.restore(output, target),
      whole: source,
    });
    if (translation) return translation;
  }
  return (await translateSource(polyglot, sql, source, target, options))!;
}

/**
 * Translates the prepared `source` of `sql`. With `rows`, `source` is `rows.whole` with its long
 * literal lists cut: the output gets them back, or the answer is undefined when it cannot.
 */
async function translateSource(
  polyglot: Polyglot,
  sql: string,
  source: PreparedSource,
  target: TranslationTarget,
  options: TranslateOptions,
  rows?: { restore(output: string): string | undefined; whole: PreparedSource },
): Promise<Translation | undefined> {
  if (source.unterminatedComment !== undefined) {
    throw new DuneSqlError(
      'syntax',
      'Syntax error: unterminated /* comment',
      lineColumnAt(sql, source.unterminatedComment),
    );
  }
  // Answered from the function catalog, before parsing: polyglot does not parse its ESCAPE.
  // Its query is SQL both engines run as written (literals only): not translated again.
  const functionListing = showFunctionsQuery(source.withoutComments, target);
  if (functionListing !== undefined) return listingTranslation(functionListing, target);
  const parsed = polyglot.parse(source.text, polyglot.Dialect.Trino);
  if (!parsed.success && /^[\s;]*$/.test(source.withoutComments)) {
    throw new DuneSqlError('syntax', 'The query contains no SQL statement.');
  }
  if (!parsed.success || !parsed.ast) {
    const offset = parsed.errorStart;
    // A SQL/JSON clause the parser lacks: say so, not "Expected RParen".
    const jsonClause = offset === undefined ? undefined : unparsedJsonClause(source.text, offset);
    if (jsonClause) {
      throw new DuneSqlError('unsupported', jsonClause, lineColumnAt(sql, source.toUserOffset(offset!)));
    }
    // Another dialect's form is often why: say what to write instead.
    refuseOtherDialects(polyglot, sql, source, true);
    throw new DuneSqlError(
      'syntax',
      `Syntax error: ${stripPosition(parsed.error ?? 'the query cannot be parsed')}`,
      offset === undefined ? undefined : lineColumnAt(sql, source.toUserOffset(offset)),
    );
  }
  if (parsed.ast.length !== 1) {
    throw new DuneSqlError(
      'syntax',
      parsed.ast.length === 0
        ? 'The query contains no SQL statement.'
        : `Only one statement can run per query, but this SQL has ${parsed.ast.length} statements separated by ";". Run them as separate queries (a single trailing ";" is fine).`,
    );
  }
  refuseOtherDialects(polyglot, sql, source);
  let statement = parsed.ast[0];
  const kind = nodeType(statement) ?? 'unknown';
  // polyglot reads any two words (`selec nothing`) as an aliased name.
  if (kind === 'alias') {
    throw new DuneSqlError(
      'syntax',
      `Syntax error: a query starts with SELECT, WITH or VALUES, not ${statementName(sql)}`,
      lineColumnAt(sql, firstWordOffset(sql)),
    );
  }
  if (kind === 'show' || kind === 'describe') {
    const query = catalogStatementQuery(source.withoutComments, options.catalog ?? []);
    if (query !== undefined) return translate(query, target, options);
  }
  if (!QUERY_NODES.has(kind)) {
    throw new DuneSqlError(
      'not_a_query',
      `Only read-only queries can run here (SELECT, WITH ... SELECT, VALUES, set operations); ${statementName(sql)} statements are not allowed.`,
    );
  }
  const { rules, types } = TARGETS[target];
  const deterministic = isDeterministic(statement);
  let typesOut: OutputTypes | undefined;
  quoteColumnAliases(statement);
  let changed = dropPublicCatalog(statement);
  const refuseAt = (kind: DuneSqlErrorKind, found: { offset: number | undefined; message: string }) => {
    const at = found.offset === undefined ? undefined : lineColumnAt(sql, userOffset(source, found.offset));
    throw new DuneSqlError(kind, found.message, at);
  };
  const repeatedCte = duplicateCte(statement);
  if (repeatedCte) refuseAt('syntax', repeatedCte);
  // A table that does not exist is refused first, as Trino's analysis does (and before the
  // typing below spends time on a query that cannot run).
  const missingTable = options.catalog && unresolvedTables(statement, options.catalog)[0];
  if (missingTable) refuseAt('unresolved', missingTable);
  try {
    refuseMistypedOperands(polyglot, statement, options.tables ?? [], options.uploads);
  } catch (error) {
    if (!(error instanceof RefusedOperation)) throw error;
    if (error.offset === undefined && error.construct) {
      throw new DuneSqlError(
        'syntax',
        error.message,
        await findConstruct(polyglot, sql, source, error.construct),
      );
    }
    refuseAt('syntax', error);
  }
  try {
    refuseEngineInternals(statement);
    refuseUnnestCalls(statement);
    if (target === 'duckdb' && !options.duckDbFunctionsForEngineTests) refuseUnknownFunctions(statement);
    changed =
      readInformationSchema(statement, options.catalog ?? [], (query, table) =>
        derivedTableNode(polyglot, query, table),
      ) || changed;
    if (target === 'duckdb') changed = nameUnaliasedInnerColumns(polyglot, statement) || changed;
    // Read before the rewrites and rules change the expressions it recognises (and after the
    // naming, which rebuilds the items it names: the casts it finds are the ones rewritten).
    typesOut = outputTypes(
      statement,
      target === 'duckdb'
        ? [...(options.storedTypes ?? []), ...(options.tables ?? []), ...(options.uploads ?? [])]
        : [...(options.tables ?? []), ...(options.uploads ?? []), ...(options.relations ?? [])],
    );
    // DuckDB would read these as the aliases, and resolve columns in its own words; Athena would
    // refuse both only once it runs. Both hosts refuse them now, in Trino's words.
    const alias = typesOut.aliasReferences[0];
    if (alias) refuseAt('syntax', alias);
    const missingColumn = typesOut.unresolvedColumns[0];
    if (missingColumn) refuseAt('unresolved', missingColumn);
    if (target === 'duckdb') {
      changed = filtersIntoInputs(polyglot, statement) || changed;
      changed = typedRewrites(polyglot, statement, options.tables ?? [], typesOut.zoned) || changed;
    }
    changed = applyRules(polyglot, statement, rules, types) || changed;
  } catch (error) {
    if (error instanceof UnsupportedConstruct) {
      throw new DuneSqlError(
        error.kind,
        error.message,
        await findConstruct(polyglot, sql, source, error.construct),
      );
    }
    throw error;
  }
  if (target === 'duckdb') {
    changed =
      bindAggregateArguments(statement, (expression, args) => instantiate(polyglot, expression, args)) ||
      changed;
    const limited = rowLimitsForDuckDb(polyglot, statement, (select) =>
      nameUnaliasedColumns(polyglot, select),
    );
    if (limited) {
      statement = limited;
      changed = true;
    }
    changed = nameUnaliasedColumns(polyglot, statement) || changed;
  }
  const relationsRead = new Set<TextStoredRelation>();
  if (
    target === 'athena' &&
    (options.relations?.length || options.relationCatalogs || options.hiddenDatabases)
  ) {
    try {
      changed = readStoredRelations(polyglot, statement, options, relationsRead) || changed;
    } catch (error) {
      if (!(error instanceof UnknownRelation)) throw error;
      const catalog = error.text.split('.')[0]!.toLowerCase();
      const holds = options.relationCatalogs?.[catalog];
      const readable = (options.relations ?? [])
        .filter((relation) => relation.catalog.toLowerCase() === catalog)
        .map((relation) => `${relation.catalog}.${relation.schema}.${relation.name}`);
      throw new DuneSqlError(
        'unsupported',
        holds
          ? missingRelationMessage(error.text, holds, readable)
          : `Table ${error.text} does not exist. Read materialized views by their names, mv.<owner>.result_<name>, and uploaded tables as dune.<namespace>.<table>.`,
        await findConstruct(polyglot, sql, source, error.relationName),
      );
    }
  }

  if (target === 'athena') {
    changed = varbinaryCastsAsHex(polyglot, statement, options.tables ?? []) || changed;
    changed = wideIntegerArithmetic(polyglot, statement, options.tables ?? []) || changed;
  }
  const nestedColumns =
    target === 'athena' && options.tables ? nestedOutputsAsJson(polyglot, statement, options.tables) : [];
  if (nestedColumns.length) changed = true;

  const aliasPlaceholders = target === 'duckdb' ? columnAliasPlaceholders(statement) : new Map();
  if (aliasPlaceholders.size) changed = true;
  // Untouched statements skip a generate round trip through the WASM module.
  let trino = source.text;
  if (changed) {
    const generated = polyglot.generate([statement], polyglot.Dialect.Trino);
    if (!generated.success || !generated.sql?.[0]) throw internalError(generated.error);
    trino = generated.sql[0];
  }
  let output = trino;
  if (target === 'duckdb') {
    const transpiled = polyglot.transpile(trino, polyglot.Dialect.Trino, polyglot.Dialect.DuckDB);
    if (!transpiled.success || !transpiled.sql?.[0]) throw internalError(transpiled.error);
    output = restoreColumnAliases(transpiled.sql[0], aliasPlaceholders);
  }
  if (rows) {
    const whole = rows.restore(output);
    if (whole === undefined) return undefined;
    output = whole;
  }
  const positionSource = rows?.whole ?? source;
  return {
    target,
    sql: output,
    sessionSetup: target === 'duckdb' ? sessionSetupFor(output) : '',
    userPosition: (offset, unit) =>
      mapPosition(
        polyglot,
        sql,
        positionSource,
        output,
        unit === 'bytes' ? byteToCharOffset(output, offset) : offset,
      ),
    userMessage:
      target === 'duckdb'
        ? (message) => localFunctionMessage(userFacingMessage(message))
        : (message) => message,
    relationsRead: [...relationsRead],
    deterministic,
    nestedColumns,
    outputTypes: target === 'duckdb' ? (typesOut?.hints ?? []) : [],
  };
}

/** A statement generated here in SQL both engines run as written (SHOW FUNCTIONS' listing). */
function listingTranslation(sql: string, target: TranslationTarget): Translation {
  return {
    target,
    sql,
    sessionSetup: target === 'duckdb' ? sessionSetupFor(sql) : '',
    userPosition: async () => undefined,
    userMessage: (message) => message,
    relationsRead: [],
    deterministic: true,
    nestedColumns: [],
    outputTypes: [],
  };
}

/**
 * Refuses forms of other SQL dialects that polyglot parses and DuckDB would run (other-dialects.ts),
 * on both targets, so what runs on one host runs on the other and on Dune.
 */
function refuseOtherDialects(
  polyglot: Polyglot,
  sql: string,
  source: PreparedSource,
  unparsed = false,
): void {
  const foreign = foreignConstruct(polyglot, source.text, unparsed);
  if (foreign) {
    throw new DuneSqlError('syntax', foreign.message, lineColumnAt(sql, userOffset(source, foreign.offset)));
  }
}

/**
 * A WITH naming two queries alike (names compare in lower case, as Trino's do), which Trino refuses
 * in its words (StatementAnalyzer: "WITH query name 'a' specified more than once") and DuckDB as a
 * bare "Duplicate CTE name": at the second name.
 */
function duplicateCte(statement: AstNode): { offset: number | undefined; message: string } | undefined {
  let found: { offset: number | undefined; message: string } | undefined;
  someNode(statement, (node, type) => {
    const names = new Set<string>();
    for (const cte of node[type]?.with?.ctes ?? []) {
      const name = String(cte.alias?.name ?? '').toLowerCase();
      if (names.has(name)) {
        found = {
          offset: cte.alias?.span?.start,
          message: `WITH query name '${name}' specified more than once: give each query of the WITH its own name.`,
        };
        return true;
      }
      names.add(name);
    }
    return false;
  });
  return found;
}

/** Statement nodes that are queries. */
const QUERY_NODES = new Set(['select', 'union', 'intersect', 'except', 'values', 'subquery']);

/** Where the first word of the statement starts, past whitespace and comments. */
function firstWordOffset(sql: string): number {
  return /^(?:\s|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/.exec(sql)?.[0].length ?? 0;
}

function statementName(sql: string): string {
  const word = /^[A-Za-z]+/.exec(sql.slice(firstWordOffset(sql)))?.[0];
  return word ? word.toUpperCase() : 'these';
}

function applyRules(
  polyglot: Polyglot,
  statement: AstNode,
  rules: RuleSet,
  types: Record<string, string>,
): boolean {
  let changed = false;
  const context: RuleContext = { template: (expression, args) => instantiate(polyglot, expression, args) };
  // A macro expansion cannot carry an OVER clause: the aggregate inside a window is left alone here
  // and rewritten, if at all, by the target's rule for the whole window_function node.
  const windowed = new Set(findAll(statement, 'window_function').map((w: AstNode) => w.window_function.this));
  rewrite(statement, (node, type) => {
    if (type === 'cast' || type === 'try_cast') {
      const to = node[type].to;
      const replacement = to?.data_type === 'custom' ? types[String(to.name).toUpperCase()] : undefined;
      if (replacement) {
        node[type].to = dataType(polyglot, replacement);
        changed = true;
      }
    }
    if (windowed.has(node)) return undefined;
    const name = functionCall(node)?.name ?? type;
    const rule = Object.hasOwn(rules, name) ? rules[name] : undefined;
    if (!rule) return undefined;
    const replaced = rule(ruleArguments(node, type), context, node);
    if (replaced) changed = true;
    return replaced;
  });
  return changed;
}

/**
 * Trino names an unaliased expression column `_col<N>` (its position); DuckDB names it after the
 * expression text (`count_star()`). Aliases the outermost select list the way Trino names it.
 */
function nameUnaliasedColumns(polyglot: Polyglot, statement: AstNode): boolean {
  let select = statement;
  while (select && !select.select) {
    const type = nodeType(select);
    if (!type) return false;
    select = select[type]?.left ?? select[type]?.this;
  }
  const expressions: AstNode[] | undefined = select?.select?.expressions;
  if (!expressions) return false;
  let changed = false;
  expressions.forEach((expression, i) => {
    const type = nodeType(expression);
    if (!type || ['alias', 'column', 'star', 'dot'].includes(type)) return;
    expressions[i] = instantiate(polyglot, `__1 AS _col${i}`, [expression]);
    changed = true;
  });
  return changed;
}

/**
 * The same for every derived table and CTE the user wrote (a query view is one): `select *` over
 * them then names their unaliased columns `_col<N>`, as Trino's output does, not after DuckDB's
 * expression text. Run before the rules, so it names only what the user wrote.
 */
function nameUnaliasedInnerColumns(polyglot: Polyglot, statement: AstNode): boolean {
  let changed = false;
  for (const subquery of findAll(statement, 'subquery')) {
    changed = nameUnaliasedColumns(polyglot, subquery.subquery.this) || changed;
  }
  for (const select of findAll(statement, 'select')) {
    for (const cte of select.select?.with?.ctes ?? [])
      changed = nameUnaliasedColumns(polyglot, cte.this) || changed;
  }
  return changed;
}

/**
 * Replaces each table reference naming a stored relation (`mv.alice.result_x [AS t]`) with a
 * derived table over its text table, aliased as the reference was (or by the relation's own name,
 * so `result_x.col` still resolves). Names compare case-insensitively, as Trino's do.
 */
function readStoredRelations(
  polyglot: Polyglot,
  statement: AstNode,
  { relations = [], relationCatalogs = {}, hiddenDatabases = [] }: TranslateOptions,
  read: Set<TextStoredRelation>,
): boolean {
  const key = (...parts: string[]) => parts.map((part) => part.toLowerCase()).join('.');
  const byName = new Map(relations.map((r) => [key(r.catalog, r.schema, r.name), r]));
  const hidden = new Set(hiddenDatabases.map((database) => key(database)));
  let changed = false;
  rewrite(statement, (node, type) => {
    if (type !== 'table') return undefined;
    const table = node.table;
    if (table.schema && hidden.has(key(table.schema.name))) {
      const parts = [table.catalog?.name, table.schema.name, table.name.name].filter(Boolean);
      throw new UnknownRelation(parts.join('.'), table.name.name);
    }
    if (!table.catalog || !table.schema) return undefined;
    const parts = [table.catalog.name, table.schema.name, table.name.name];
    const relation = byName.get(key(...parts));
    if (!relation) {
      if (Object.hasOwn(relationCatalogs, key(parts[0]))) {
        throw new UnknownRelation(parts.join('.'), parts[2]);
      }
      return undefined;
    }
    read.add(relation);
    changed = true;
    return derivedTableNode(polyglot, textRelationQuery(relation), table);
  });
  return changed;
}

/** A stored-relation name the run may not read (absent, or another account's private view). */
class UnknownRelation extends Error {
  constructor(
    readonly text: string,
    readonly relationName: string,
  ) {
    super(`unknown relation ${text}`);
  }
}

/** `SELECT <typed c0> AS "<name>", … FROM "<database>"."<table>"`: a stored relation read from its text table. */
function textRelationQuery(relation: TextStoredRelation): string {
  const columns = relation.columns.length
    ? relation.columns.map((column, i) => `${textColumnAs(`c${i}`, column.type)} AS ${quote(column.name)}`)
    : ['*'];
  return `SELECT ${columns.join(', ')} FROM ${quote(relation.table.database)}.${quote(relation.table.name)}`;
}

/** `(<query>) AS <the table's alias or name>(<its column aliases>)`: a FROM item node in the table's place. */
function derivedTableNode(polyglot: Polyglot, query: string, table: AstNode): AstNode {
  const parsed = polyglot.parse(`SELECT * FROM (${query}) AS t`, polyglot.Dialect.Trino);
  if (!parsed.success || !parsed.ast) throw internalError(`derived table: ${parsed.error}`);
  const derived = (parsed.ast[0] as AstNode).select.from.expressions[0];
  derived.subquery.alias = structuredClone(table.alias ?? table.name);
  derived.subquery.column_aliases = structuredClone(table.column_aliases ?? []);
  return derived;
}

function dataType(polyglot: Polyglot, sqlType: string): AstNode {
  return instantiate(polyglot, `CAST(NULL AS ${sqlType})`, []).cast.to;
}

/** Lower-case identifier text for matching tokens across the user's and the generated SQL. */
function tokenKey(text: string): string {
  return text.toLowerCase().replace(new RegExp(`^${HELPER_PREFIX}`), '');
}

interface Token {
  key: string;
  start: number;
  end: number;
}

function tokensOf(polyglot: Polyglot, text: string, dialect: 'Trino' | 'DuckDB'): Token[] {
  const result = polyglot.tokenize(text, polyglot.Dialect[dialect]);
  if (!result.success || !result.tokens) return [];
  return result.tokens
    .filter((token) => /^[\p{L}_"`0-9]/u.test(token.text))
    .map((token) => ({ key: tokenKey(token.text), start: token.span.start, end: token.span.end }));
}

/**
 * Maps an offset in the generated SQL to the user's SQL: the token there (or the nearest one before
 * it that the user also wrote) is matched to the same occurrence of the same word in the user's text.
 */
async function mapPosition(
  polyglot: Polyglot,
  sql: string,
  source: PreparedSource,
  output: string,
  offset: number,
): Promise<{ line: number; column: number } | undefined> {
  const generated = tokensOf(polyglot, output, 'DuckDB');
  const user = tokensOf(polyglot, source.text, 'Trino');
  let index = generated.findIndex((token) => token.end > offset);
  if (index < 0) index = generated.length - 1;
  // The token at the offset, then the next few (DuckDB points at a CAST or call the user spelled
  // differently), then back towards the start.
  const candidates = [index, index + 1, index + 2, ...Array.from({ length: index }, (_, k) => index - 1 - k)];
  for (const i of candidates) {
    const token = generated[i];
    if (!token) continue;
    const occurrence = generated.slice(0, i).filter((t) => t.key === token.key).length;
    const match = user.filter((t) => t.key === token.key)[occurrence];
    if (match) return lineColumnAt(sql, source.toUserOffset(match.start));
  }
  return undefined;
}

async function findConstruct(polyglot: Polyglot, sql: string, source: PreparedSource, construct: string) {
  const token = tokensOf(polyglot, source.text, 'Trino').find((t) => t.key === construct.toLowerCase());
  return token ? lineColumnAt(sql, source.toUserOffset(token.start)) : undefined;
}

function stripPosition(message: string): string {
  return message.replace(/^(Parse|Tokenization) error at line \d+, column \d+:\s*/, '');
}

function internalError(detail: string | undefined): Error {
  return new Error(`DuneSQL translation failed: ${detail ?? 'unknown error'}`);
}
