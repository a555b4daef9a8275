import type { loadPolyglot } from './polyglot';

/**
 * Constructs of other SQL dialects that DuneSQL (Trino) refuses but the local engine would run:
 * polyglot parses many dialects' forms permissively and DuckDB executes them, so `interval 7 day`,
 * `x::varchar`, `group by all` or `strftime(…)` worked locally and then failed on Athena and on Dune.
 * They are refused on both hosts with what to write instead. Found in the token stream: the AST
 * forgets how a thing was written (`interval 7 day` and `interval '7' day` parse alike).
 *
 * Not done with a full Trino grammar: dt-sql-parser's (ANTLR) accepts every corpus query and
 * refuses these forms, but costs ~25 MB to load and ~70 MB more per process as it warms, and up to
 * ~100 ms per new statement (measured 2026-11-28 over test/dunesql/corpus).
 */

type Polyglot = Awaited<ReturnType<typeof loadPolyglot>>;

/** Where (a code-point offset in the text checked) and why the SQL is another dialect's. */
export interface ForeignConstruct {
  offset: number;
  message: string;
}

type TokenKind = 'word' | 'string' | 'quoted' | 'backquoted' | 'number' | 'symbol';

interface Token {
  kind: TokenKind;
  /** Lower-case for words; as written otherwise (a string's or quoted name's content). */
  text: string;
  start: number;
  end: number;
}

/** Functions of other dialects users often write, with what DuneSQL calls them. */
export const FOREIGN_FUNCTIONS: Readonly<Record<string, string>> = {
  strftime: "date_format(x, '%Y-%m-%d') or format_datetime(x, 'yyyy-MM-dd')",
  strptime: "date_parse(s, '%Y-%m-%d') or parse_datetime(s, 'yyyy-MM-dd')",
  format_date: "date_format(x, '%Y-%m-%d')",
  format_timestamp: "date_format(x, '%Y-%m-%d %H:%i:%s')",
  parse_date: "date_parse(s, '%Y-%m-%d') or from_iso8601_date(s)",
  parse_timestamp: "date_parse(s, '%Y-%m-%d %H:%i:%s') or from_iso8601_timestamp(s)",
  epoch: 'to_unixtime(x)',
  epoch_ms: 'to_unixtime(x) * 1000',
  epoch_us: 'to_unixtime(x) * 1e6',
  epoch_ns: 'to_unixtime(x) * 1e9',
  make_date: "from_iso8601_date(format('%04d-%02d-%02d', y, m, d))",
  unix_timestamp: 'to_unixtime(x)',
  unix_seconds: 'to_unixtime(x)',
  date_part: 'extract(day from x), or year(x), month(x), day(x), hour(x)',
  datepart: 'extract(day from x), or year(x), month(x), day(x), hour(x)',
  datediff: "date_diff('day', start, end)",
  timestampdiff: "date_diff('second', start, end)",
  timestamp_diff: "date_diff('second', start, end)",
  date_sub: "date_add('day', -7, x) or x - interval '7' day",
  dateadd: "date_add('day', 7, x) or x + interval '7' day",
  timestamp_trunc: "date_trunc('day', x)",
  datetime_trunc: "date_trunc('day', x)",
  trunc: "truncate(x) for a number, date_trunc('day', x) for a date or timestamp",
  last_day: 'last_day_of_month(x)',
  dayname: "date_format(x, '%W')",
  monthname: "date_format(x, '%M')",
  today: 'current_date',
  getdate: 'now()',
  len: 'length(s)',
  char_length: 'length(s)',
  character_length: 'length(s)',
  lcase: 'lower(s)',
  ucase: 'upper(s)',
  instr: 'strpos(s, sub)',
  printf: "format('%d', x)",
  regexp_matches: 'regexp_like(s, pattern)',
  regexp_substr: 'regexp_extract(s, pattern)',
  string_split: "split(s, ',')",
  str_split: "split(s, ',')",
  string_to_array: "split(s, ',')",
  regexp_split_to_array: 'regexp_split(s, pattern)',
  ifnull: 'coalesce(x, y)',
  nvl: 'coalesce(x, y)',
  iif: 'if(condition, a, b)',
  iff: 'if(condition, a, b)',
  isnan: 'is_nan(x)',
  isinf: 'is_infinite(x)',
  safe_cast: 'try_cast(x as type)',
  safe_divide: 'try(x / y), or x / nullif(y, 0)',
  string_agg: "array_join(array_agg(x), ',') or listagg(x, ',') within group (order by x)",
  group_concat: "array_join(array_agg(x), ',') or listagg(x, ',') within group (order by x)",
  list: 'array_agg(x)',
  collect_list: 'array_agg(x)',
  collect_set: 'array_agg(distinct x)',
  array_length: 'cardinality(array)',
  array_size: 'cardinality(array)',
  size: 'cardinality(array)',
  array_to_string: "array_join(array, ',')",
  array_contains: 'contains(array, x)',
  array_has: 'contains(array, x)',
  list_contains: 'contains(array, x)',
  list_distinct: 'array_distinct(array)',
  list_sort: 'array_sort(array)',
  array_filter: 'filter(array, x -> condition)',
  list_filter: 'filter(array, x -> condition)',
  array_transform: 'transform(array, x -> expression)',
  list_transform: 'transform(array, x -> expression)',
  generate_series: 'unnest(sequence(1, 10))',
  generate_array: 'sequence(1, 10)',
  list_value: 'array[1, 2, 3]',
  list_pack: 'array[1, 2, 3]',
  list_concat: 'concat(a, b) or a || b',
  list_cat: 'concat(a, b) or a || b',
  array_cat: 'concat(a, b) or a || b',
  array_concat: 'concat(a, b) or a || b',
  list_append: 'concat(array, array[x]) or array || x',
  array_append: 'concat(array, array[x]) or array || x',
  array_push_back: 'concat(array, array[x]) or array || x',
  list_prepend: 'concat(array[x], array) or x || array',
  array_prepend: 'concat(array[x], array) or x || array',
  array_push_front: 'concat(array[x], array) or x || array',
  list_extract: 'element_at(array, i) or array[i] (counted from 1)',
  list_element: 'element_at(array, i) or array[i] (counted from 1)',
  array_extract: 'element_at(array, i) or array[i] (counted from 1)',
  list_slice: 'slice(array, start, length)',
  array_slice: 'slice(array, start, length)',
  list_reverse: 'reverse(array)',
  array_reverse: 'reverse(array)',
  list_unique: 'cardinality(array_distinct(array))',
  list_has_any: 'arrays_overlap(a, b)',
  array_has_any: 'arrays_overlap(a, b)',
  list_has_all: 'cardinality(array_except(b, a)) = 0',
  array_has_all: 'cardinality(array_except(b, a)) = 0',
  list_position: 'array_position(array, x)',
  list_indexof: 'array_position(array, x)',
  array_indexof: 'array_position(array, x)',
  list_min: 'array_min(array)',
  list_max: 'array_max(array)',
  list_sum: 'reduce(array, 0, (s, x) -> s + x, s -> s)',
  array_sum: 'reduce(array, 0, (s, x) -> s + x, s -> s)',
  list_reduce: 'reduce(array, 0, (s, x) -> s + x, s -> s)',
  array_reduce: 'reduce(array, 0, (s, x) -> s + x, s -> s)',
  list_zip: 'zip(a, b)',
  array_zip: 'zip(a, b)',
  struct_extract: 'x.field, a row field by its name',
  struct_pack: 'row(…), or cast(row(…) as row(name type, …))',
  json_extract_string: "json_extract_scalar(json, '$.key')",
  json_extract_path_text: "json_extract_scalar(json, '$.key')",
  json_extract_path: "json_extract(json, '$.a.b')",
  jsonb_extract_path: "json_extract(json, '$.a.b')",
  to_json: 'cast(x as json)',
  median: 'approx_percentile(x, 0.5)',
  quantile: 'approx_percentile(x, 0.9)',
  quantile_cont: 'approx_percentile(x, 0.9)',
  quantile_disc: 'approx_percentile(x, 0.9)',
  percentile_cont: 'approx_percentile(x, 0.9)',
  percentile_disc: 'approx_percentile(x, 0.9)',
  mode: 'the most frequent value: approx_most_frequent(1, x, 1000), or group by x order by count(*) desc limit 1',
  arg_max: 'max_by(x, y)',
  argmax: 'max_by(x, y)',
  arg_min: 'min_by(x, y)',
  argmin: 'min_by(x, y)',
  first: 'arbitrary(x), or min_by(x, ordering column)',
  last: 'max_by(x, ordering column)',
  countif: 'count_if(condition)',
  logical_and: 'bool_and(x)',
  logical_or: 'bool_or(x)',
  approx_count_distinct: 'approx_distinct(x)',
};

/** Type names of other dialects users often cast to, with DuneSQL's. */
const FOREIGN_TYPES: Readonly<Record<string, string>> = {
  string: 'varchar',
  text: 'varchar',
  int64: 'bigint',
  int32: 'integer',
  int16: 'smallint',
  int8: 'bigint',
  int4: 'integer',
  int2: 'smallint',
  float64: 'double',
  float32: 'real',
  float8: 'double',
  float4: 'real',
};

const PLURAL_UNITS = new Set(['years', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds']);
/** What may follow `GROUP BY ALL` when ALL is the whole grouping (Trino's ALL quantifies a list). */
const AFTER_GROUPING = new Set([
  'having',
  'order',
  'limit',
  'offset',
  'fetch',
  'window',
  'union',
  'intersect',
  'except',
]);

/**
 * Reserved words of Trino that can follow a list but never start an item of one (a trailing comma
 * before them ends the list). LIMIT, OFFSET, FETCH and WINDOW are not reserved: they may name columns.
 */
const AFTER_LIST = new Set(['from', 'where', 'group', 'having', 'order', 'union', 'intersect', 'except']);

/** A number or a name as written, to show in what to write instead; else `otherwise`. */
const operand = (token: Token | undefined, otherwise: string) =>
  token && (token.kind === 'number' || token.kind === 'word') ? token.text : otherwise;

/**
 * The first construct of another dialect in the (prepared) DuneSQL text, if any. `unparsed`: the
 * text does not parse, so a word that can only be another dialect's clause there (QUALIFY) is why.
 */
export function foreignConstruct(
  polyglot: Polyglot,
  text: string,
  unparsed = false,
): ForeignConstruct | undefined {
  const tokens = tokensOf(polyglot, text);
  if (!tokens) return undefined; // polyglot parsed it; a tokenizer failure is no reason to refuse it
  /** For each open parenthesis, whether it is a CAST's (whose `AS` names a type). */
  const castParens: boolean[] = [];
  // FIRST and LAST are Trino's navigation functions inside MATCH_RECOGNIZE (Athena runs it).
  const navigates = tokens.some((token) => token.kind === 'word' && token.text === 'match_recognize');
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const found =
      token.kind === 'backquoted'
        ? {
            at: token,
            message: `Backquotes do not quote names in DuneSQL: write "${token.text}" (double quotes) or the name alone.`,
          }
        : token.kind === 'symbol'
          ? foreignSymbol(tokens, i, castParens)
          : token.kind === 'word'
            ? foreignWord(tokens, i, castParens.at(-1) === true, navigates, unparsed)
            : undefined;
    if (found) return { offset: found.at.start, message: found.message };
  }
  return undefined;
}

type Found = { at: Token; message: string } | undefined;

/** Another dialect's operator, literal or star modifier at `tokens[i]`; tracks CAST parentheses. */
function foreignSymbol(tokens: readonly Token[], i: number, castParens: boolean[]): Found {
  const [previous, token, next, after] = [tokens[i - 1], tokens[i]!, tokens[i + 1], tokens[i + 2]];
  const here = (message: string, at = token) => ({ at, message });
  switch (token.text) {
    case '::':
      return here('DuneSQL has no :: cast: write cast(x as varchar).');
    case '**':
      return here(
        `DuneSQL has no ** operator: write power(${operand(previous, 'x')}, ${operand(next, 'y')}).`,
      );
    case '==':
      return here(
        `DuneSQL compares with a single =: write ${operand(previous, 'a')} = ${operand(next, 'b')}.`,
      );
    case ',':
      // Trino's grammar has no trailing comma in any list (a select list, GROUP BY, arguments).
      return !next ||
        [')', ']', ';'].includes(next.text) ||
        (next.kind === 'word' && AFTER_LIST.has(next.text))
        ? here(
            `A DuneSQL list has no comma after its last item: remove the comma before ${next ? (next.kind === 'word' ? next.text.toUpperCase() : `"${next.text}"`) : 'the end of the query'}.`,
          )
        : undefined;
    case '/':
      return next?.text === '/' && next.start === token.end
        ? here(
            'DuneSQL has no // operator: an integer divided by an integer is already whole (7 / 2 is 3); for other numbers write floor(x / y).',
          )
        : undefined;
    case '{':
      return here(
        "DuneSQL has no { } literals: write row(…) for a record, or map(array['a'], array[1]) for a map.",
      );
    case '[':
      return startsExpression(previous)
        ? here('DuneSQL writes an array as array[1, 2, 3], not [1, 2, 3].')
        : undefined;
    case '(':
      castParens.push(previous?.kind === 'word' && isCast(previous.text));
      return undefined;
    case ')':
      castParens.pop();
      return undefined;
    case '*': {
      // A star projection (after SELECT, a comma or `t.`), not a multiplication.
      const star = ['select', 'distinct', ',', '.'].includes(previous?.text ?? '');
      const modifier = next?.kind === 'word' && ['exclude', 'replace'].includes(next.text);
      return star && modifier && after?.text === '('
        ? here(`DuneSQL has no SELECT * ${next!.text.toUpperCase()} (…): list the columns you want.`, next)
        : undefined;
    }
    default:
      return undefined;
  }
}

/** Another dialect's keyword, function or type at the word `tokens[i]`. */
function foreignWord(
  tokens: readonly Token[],
  i: number,
  inCast: boolean,
  navigates: boolean,
  unparsed: boolean,
): Found {
  const [previous, token, next, after] = [tokens[i - 1], tokens[i]!, tokens[i + 1], tokens[i + 2]];
  const here = (message: string, at = token) => ({ at, message });
  const word = token.text;
  if (i === 0 && word === 'from') {
    return here(
      'A DuneSQL query starts with SELECT (or WITH, VALUES): write SELECT … FROM …, not FROM … SELECT.',
    );
  }
  if (previous?.text === '.') return undefined; // a qualified name, e.g. a column called "first"
  switch (word) {
    case 'interval': {
      const refused = foreignInterval(next, after);
      return refused ? here(refused) : undefined;
    }
    case 'ilike':
      return here(
        "DuneSQL has no ILIKE: write lower(x) like lower('pattern'), or regexp_like(x, '(?i)pattern').",
      );
    case 'top':
      return ['select', 'distinct'].includes(previous?.text ?? '') && next?.kind === 'number'
        ? here(`DuneSQL has no SELECT TOP: write LIMIT ${next.text} at the end of the query.`)
        : undefined;
    case 'limit':
      if (next?.kind !== 'number' && next?.text !== 'all') return undefined;
      if (after?.kind === 'word' && after.text === 'offset') {
        return here(
          `DuneSQL writes OFFSET before LIMIT: … OFFSET ${tokens[i + 3]?.text ?? 'n'} LIMIT ${next.text}.`,
          after,
        );
      }
      // MySQL's LIMIT offset, count.
      if (after?.text === ',' && next.kind === 'number') {
        return here(
          `DuneSQL has no LIMIT offset, count: write … OFFSET ${next.text} LIMIT ${tokens[i + 3]?.text ?? 'n'} (OFFSET comes before LIMIT).`,
          after,
        );
      }
      return after?.kind === 'word' && after.text === 'with'
        ? here(
            `DuneSQL keeps ties with FETCH, not LIMIT: … ORDER BY … FETCH FIRST ${next.text} ROWS WITH TIES.`,
            after,
          )
        : undefined;
    case 'all': {
      const grouping = previous?.text === 'by' && tokens[i - 2]?.text === 'group';
      const alone = !next || next.text === ')' || next.text === ';' || AFTER_GROUPING.has(next.text);
      return grouping && alone
        ? here('DuneSQL has no GROUP BY ALL: list the grouped columns or their positions (GROUP BY 1, 2).')
        : undefined;
    }
    case 'qualify':
      return unparsed
        ? here(
            'DuneSQL has no QUALIFY: compute the window function in a subquery and filter it outside (select * from (select …, row_number() over (…) as rn from …) where rn = 1).',
          )
        : undefined;
    case 'as':
      return inCast && next?.kind === 'word' && Object.hasOwn(FOREIGN_TYPES, next.text)
        ? here(`${next.text} is not a DuneSQL type: write ${FOREIGN_TYPES[next.text]}.`, next)
        : undefined;
  }
  if (navigates && (word === 'first' || word === 'last')) return undefined;
  return next?.text === '(' && Object.hasOwn(FOREIGN_FUNCTIONS, word) && !namesColumns(tokens, i)
    ? here(`${word}() is not a DuneSQL function: write ${FOREIGN_FUNCTIONS[word]}.`)
    : undefined;
}

/** What is wrong with `INTERVAL <next> <after>`, if anything. */
function foreignInterval(next: Token | undefined, after: Token | undefined): string | undefined {
  if (next?.kind === 'number') {
    return `DuneSQL writes an interval's value as a string: interval '${next.text}' ${after?.kind === 'word' ? singular(after.text) : 'day'}.`;
  }
  if (next?.kind !== 'string') return undefined;
  const spelled = /^\s*(-?\d+(?:\.\d+)?)\s+([a-z]+)\s*$/i.exec(next.text);
  if (spelled && !(after?.kind === 'word' && /^(year|month|day|hour|minute|second)$/.test(after.text))) {
    return `DuneSQL writes an interval's value and unit apart: interval '${spelled[1]}' ${singular(spelled[2]!.toLowerCase())}.`;
  }
  if (after?.kind === 'word' && PLURAL_UNITS.has(after.text)) {
    return `DuneSQL writes an interval's unit in the singular: interval '${next.text}' ${singular(after.text)}.`;
  }
  return undefined;
}

/**
 * Whether the word at `i`, followed by `(`, names a relation with its columns rather than calls a
 * function: `AS t(a, b)`, or a CTE `name (a, b) AS (…)`.
 */
function namesColumns(tokens: readonly Token[], i: number): boolean {
  if (tokens[i - 1]?.text === 'as') return true;
  let depth = 0;
  for (let j = i + 1; j < tokens.length; j++) {
    if (tokens[j]!.text === '(') depth++;
    else if (tokens[j]!.text === ')' && --depth === 0) {
      return tokens[j + 1]?.text === 'as' && tokens[j + 2]?.text === '(';
    }
  }
  return false;
}

const singular = (unit: string) => (PLURAL_UNITS.has(unit) ? unit.slice(0, -1) : unit);

const isCast = (word: string) => word === 'cast' || word === 'try_cast';

/** Whether an expression starts after this token (so `[` opens a list, not a subscript). */
function startsExpression(previous: Token | undefined): boolean {
  if (!previous) return true;
  if (previous.kind === 'symbol') return previous.text !== ')' && previous.text !== ']';
  return (
    previous.kind === 'word' &&
    [
      'select',
      'by',
      'in',
      'then',
      'else',
      'when',
      'and',
      'or',
      'not',
      'where',
      'having',
      'on',
      'distinct',
      'return',
    ].includes(previous.text)
  );
}

/** The statement's tokens, classified by how they are written; undefined if it does not tokenize. */
function tokensOf(polyglot: Polyglot, text: string): Token[] | undefined {
  const result = polyglot.tokenize(text, polyglot.Dialect.Trino);
  if (!result.success || !result.tokens) return undefined;
  const chars = [...text];
  return result.tokens.map((token) => {
    const { start, end } = token.span as { start: number; end: number };
    const first = chars[start] ?? '';
    // X'…' (binary) and U&'…' (Unicode) literals are strings too.
    const prefix = chars
      .slice(start, start + 3)
      .join('')
      .toLowerCase();
    const isString = first === "'" || prefix.startsWith("x'") || prefix === "u&'";
    const kind: TokenKind = isString
      ? 'string'
      : first === '"'
        ? 'quoted'
        : first === '`'
          ? 'backquoted'
          : /[0-9]/.test(first) || (first === '.' && /[0-9]/.test(chars[start + 1] ?? ''))
            ? 'number'
            : /[\p{L}_]/u.test(first)
              ? 'word'
              : 'symbol';
    return { kind, text: kind === 'word' ? token.text.toLowerCase() : token.text, start, end };
  });
}
