/**
 * Operands Trino refuses ("Cannot apply operator: …", "Unexpected parameters …") that DuckDB would
 * take by converting one side quietly, so a query that ran locally would fail on Athena, or match
 * nothing:
 * - varbinary compared with varchar: `address = '0xc02a…'` (the usual slip), or an uploaded CSV's
 *   text column joined with an onchain address. DuckDB would cast the text's characters to bytes;
 * - a timestamp, date, number or boolean column compared with quoted text: `block_time >
 *   '2024-01-01'`, `block_number = '123'`, or a text column with a number (`version = 3`). Trino
 *   converts no text implicitly; DuckDB would parse it;
 * - a number added to or subtracted from a date or timestamp: `current_date - 7`. Trino adds
 *   intervals only; DuckDB would count days;
 * - text joined with a number, date, timestamp or boolean: `'#' || rank`. DuckDB would write the
 *   value as text;
 * - a string function given a number, date, timestamp or boolean (`length(123)`), or varbinary
 *   where it takes text only (`lower(taker)`). DuckDB would write the number as text, and fail on
 *   varbinary in its own words (`No function matches … 'lower(BLOB)'`).
 * Trino's conversion docs: it "will not convert between character and numeric types"
 * (docs/src/main/sphinx/functions/conversion.rst; Dune's conversion page says the same), and an
 * interval, never a number, is added to a date (its Hive migration guide, trinodb/trino#14952).
 * Both hosts refuse them here, before anything runs, with the fix. Only statements that compare
 * with or join quoted text, read an uploaded table, or add a number literal are typed, and only
 * operands whose type is known for sure.
 */
import { findAll, functionCall, nodeType, someNode } from './ast';
import { walkTyped } from './athena-varbinary-casts';
import type { TrinoType } from './nested-json';
import { tablesNamed } from './nested-outputs';
import type { Polyglot, TableSchema, Typing } from './nested-typing';
import type { AstNode } from './polyglot';
import { ruleArguments } from './rules';
import { isNumeric } from './scalar-types';

const COMPARISONS = ['eq', 'neq', 'lt', 'gt', 'lte', 'gte'] as const;
const HEX_TEXT = /^0x[0-9a-f]*$/i;
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export class RefusedOperation extends Error {
  constructor(
    message: string,
    /** Offset (in the prepared source, code points) of the typed side, when it has one. */
    readonly offset: number | undefined,
    /** Else the name (a function's) whose first occurrence to point at. */
    readonly construct?: string,
  ) {
    super(message);
  }
}

const isText = (node: AstNode) => node?.literal?.literal_type === 'string';
const isHexText = (node: AstNode) => isText(node) && HEX_TEXT.test(String(node.literal.value));

/** The operands compared by a node, each pair in both orders: [one side, the side it meets]. */
function comparedPairs(node: AstNode, kind: string): [AstNode, AstNode][] {
  if (kind === 'in') return (node.in.expressions ?? []).map((item: AstNode) => [node.in.this, item]);
  if (kind === 'between') {
    const { this: value, low, high } = node.between;
    return [
      [value, low],
      [value, high],
      [low, value],
      [high, value],
    ];
  }
  if (!(COMPARISONS as readonly string[]).includes(kind)) return [];
  return [
    [node[kind].left, node[kind].right],
    [node[kind].right, node[kind].left],
  ];
}

type Typed = () => Typing | undefined;

/** One kind of operand Trino refuses. */
interface OperandCheck {
  /** Whether the statement holds anything to check (else nothing is typed for it). */
  applies(statement: AstNode, uploads: readonly TableSchema[]): boolean;
  /** Throws RefusedOperation when the node is refused. */
  visit(node: AstNode, kind: string, typing: Typed): void;
}

/**
 * Throws RefusedOperation at the first operand Trino would refuse (see above), in one walk that
 * types only what a check asks about. `tables` type the base tables; `uploads` the uploaded tables
 * the SQL may read (their text columns often hold 0x addresses).
 */
export function refuseMistypedOperands(
  polyglot: Polyglot,
  statement: AstNode,
  tables: readonly TableSchema[],
  uploads: readonly TableSchema[] = [],
): void {
  const checks = [COMPARED, ADDED_TO_DATES, JOINED_TO_TEXT, STRING_ARGUMENTS].filter((check) =>
    check.applies(statement, uploads),
  );
  if (checks.length === 0) return;
  walkTyped(polyglot, statement, [...tables, ...uploads], (node, kind, typing) => {
    for (const check of checks) check.visit(node, kind, typing);
    return node;
  });
}

/** Comparisons: varbinary with text, typed columns with quoted text, text columns with numbers. */
const COMPARED: OperandCheck = {
  applies(statement, uploads) {
    const comparisons = [...COMPARISONS, 'in', 'between'].flatMap((kind) =>
      findAll(statement, kind).flatMap((node: AstNode) => comparedPairs(node, kind)),
    );
    if (comparisons.length === 0) return false;
    const meetsLiteral = comparisons.some(([, other]) => isText(other) || isNumberLiteral(other));
    return meetsLiteral || tablesNamed(statement, uploads).length > 0;
  },
  visit(node, kind, typing) {
    for (const [typed, other] of comparedPairs(node, kind)) {
      // Text meets a column (the usual slip) or a varbinary expression (`varbinary_substring(…)`).
      if (!typed?.column && !isText(other) && !other?.column) continue;
      const type = typing()?.typeOf(typed);
      if (type?.kind !== 'scalar') continue;
      if (typed.column && type.name.startsWith('varchar') && isNumberLiteral(other)) {
        const number = String(other.literal.value);
        throw new RefusedOperation(
          `Cannot compare varchar with a number: ${describe(typed)} is text, and ${number} is a number. Quote it ('${number}'), or compare try_cast(${describe(typed)} as double).`,
          typed.column.span?.start,
        );
      }
      if (type.name === 'varbinary') {
        if (isHexText(other)) throw literalComparison(typed, String(other.literal.value));
        const otherType = typing()?.typeOf(other);
        if (otherType?.kind === 'scalar' && otherType.name === 'varchar' && other?.column) {
          throw new RefusedOperation(
            `Cannot compare varbinary with varchar: ${describe(typed)} is varbinary and ${describe(other)} is varchar. If ${describe(other)} holds 0x text, compare from_hex(${describe(other)}); or give the uploaded column the type varbinary.`,
            typed.column.span?.start ?? other.column.span?.start,
          );
        }
        continue;
      }
      const fix = typed.column && isText(other) ? textFix(type, String(other.literal.value)) : undefined;
      if (fix) {
        // uint256 and int256 columns are decimals to Athena: a number, whichever it is.
        const kind = isNumeric(type) ? 'number' : type.name;
        throw new RefusedOperation(
          `Cannot compare ${kind} with varchar: ${describe(typed)} is a ${kind}, and '${shown(String(other.literal.value))}' is text. ${fix}`,
          typed.column.span?.start,
        );
      }
    }
  },
};

/** How to write quoted text as a value of the column's type, for the types Trino never reads text as. */
function textFix(type: TrinoType & { kind: 'scalar' }, value: string): string | undefined {
  const text = shown(value);
  if (type.name.startsWith('timestamp')) {
    return `Trino reads no text as a timestamp: write timestamp '${text}', or cast('${text}' as timestamp).`;
  }
  if (type.name === 'date') return `Trino reads no text as a date: write date '${text}'.`;
  if (type.name === 'boolean') return 'Write true or false, without quotes.';
  if (isNumeric(type)) {
    return NUMBER_TEXT.test(value.trim())
      ? `Write the number without quotes (${value.trim()}).`
      : 'Compare with a number, written without quotes.';
  }
  return undefined;
}

function literalComparison(binary: AstNode, value: string): RefusedOperation {
  return new RefusedOperation(
    `Cannot compare varbinary with varchar: ${describe(binary)} is varbinary, and '${shown(value)}' is text. Write the value without quotes, as a 0x literal (${shown(value)}), or convert text with from_hex('${shown(value)}').`,
    binary?.column?.span?.start,
  );
}

/** An address (42 characters) or hash (66) is shown whole, so the fix can be copied. */
const shown = (value: string) => (value.length > 66 ? `${value.slice(0, 66)}…` : value);

function describe(node: AstNode): string {
  const column = node?.column;
  if (!column) return 'the other side';
  const table = column.table?.name;
  return table ? `${table}.${column.name.name}` : String(column.name.name);
}

/** Calls that are a date or a timestamp, which the typing leaves untyped. */
const TEMPORAL_CALLS: Record<string, string> = {
  current_date: 'date',
  current_timestamp: 'timestamp',
  now: 'timestamp',
  localtimestamp: 'timestamp',
};

const isNumberLiteral = (node: AstNode) => node?.literal?.literal_type === 'number';

/**
 * A number literal added to or subtracted from a date or a timestamp (`current_date - 7`,
 * `block_date + 1`), which Trino refuses ("Cannot apply operator: date - integer") and DuckDB
 * would read as days.
 */
const ADDED_TO_DATES: OperandCheck = {
  applies: (statement) =>
    ['add', 'sub']
      .flatMap((kind) => findAll(statement, kind).map((node: AstNode) => node[kind]))
      .some((sum) => isNumberLiteral(sum.left) || isNumberLiteral(sum.right)),
  visit(node, kind, typing) {
    if (kind !== 'add' && kind !== 'sub') return;
    const { left, right } = node[kind];
    const pairs: [AstNode, AstNode][] =
      kind === 'add'
        ? [
            [left, right],
            [right, left],
          ]
        : [[left, right]];
    for (const [temporal, number] of pairs) {
      if (!isNumberLiteral(number)) continue;
      const type =
        TEMPORAL_CALLS[functionCall(temporal)?.name ?? ''] ?? scalarName(typing()?.typeOf(temporal));
      const what = type === 'date' ? 'date' : type?.startsWith('timestamp') ? 'timestamp' : undefined;
      if (!what) continue;
      const days = String(number.literal.value);
      const signed = kind === 'sub' ? `-${days}` : days;
      throw new RefusedOperation(
        `Cannot ${kind === 'add' ? 'add a number to' : 'subtract a number from'} a ${what}: Trino adds and subtracts intervals, not numbers. Write ${kind === 'add' ? '+' : '-'} interval '${days}' day, or date_add('day', ${signed}, …).`,
        temporal?.column?.span?.start,
      );
    }
  },
};

const scalarName = (type: TrinoType | undefined) => (type?.kind === 'scalar' ? type.name : undefined);

/** The operands a `||` or a concat() call joins. */
const joinedOperands = (node: AstNode, kind: string): AstNode[] | undefined =>
  kind === 'concat'
    ? [node.concat.left, node.concat.right]
    : functionCall(node)?.name === 'concat'
      ? functionCall(node)!.args
      : undefined;

/**
 * Text joined with a number, date, timestamp or boolean (`'#' || rank`,
 * `concat('block ', block_number)`): Trino's `||` and `concat` take text only with text
 * ("Unexpected parameters (varchar(1), bigint) for function concat"); DuckDB would write the value
 * as text.
 */
const JOINED_TO_TEXT: OperandCheck = {
  applies: (statement) =>
    [...findAll(statement, 'concat'), ...findAll(statement, 'function')].some((node: AstNode) =>
      joinedOperands(node, nodeType(node)!)?.some(isText),
    ),
  visit(node, kind, typing) {
    const operands = joinedOperands(node, kind);
    if (!operands?.some(isText)) return;
    const types = operands.map((operand) => typing()?.typeOf(operand));
    // `array || element` and varbinary joins are Trino's too: left alone.
    if (types.some((type) => type?.kind !== 'scalar' || type.name === 'varbinary')) return;
    const index = types.findIndex((type) => {
      const name = scalarName(type) ?? '';
      return isNumeric(type) || name === 'date' || name === 'boolean' || name.startsWith('timestamp');
    });
    if (index < 0) return;
    const operand = operands[index];
    const shownOperand = operand?.column
      ? describe(operand)
      : isNumberLiteral(operand)
        ? operand.literal.value
        : '…';
    throw new RefusedOperation(
      `Cannot join text with a ${isNumeric(types[index]) ? 'number' : scalarName(types[index])}: Trino's || and concat take text only. Write cast(${shownOperand} as varchar).`,
      operand?.column?.span?.start,
    );
  },
};

/**
 * String functions (trino.io/docs/current/functions/string.html) by the node type or name polyglot
 * gives their call, with whether Trino also takes varbinary (functions/binary.html: length,
 * reverse, substr, lpad, rpad). Their first argument must be text (or varbinary where it may be);
 * Trino fails anything else as "Unexpected parameters (integer) for function length".
 */
const STRING_FUNCTIONS: Readonly<Record<string, { name: string; binary: boolean }>> = Object.fromEntries([
  ...[
    ['lower'],
    ['upper'],
    ['trim'],
    ['ltrim'],
    ['rtrim'],
    ['str_position', 'strpos'],
    ['starts_with'],
    ['replace'],
    ['split'],
    ['split_part'],
    ['split_to_map'],
    ['regexp_like'],
    ['regexp_extract'],
    ['regexp_extract_all'],
    ['regexp_replace'],
    ['regexp_count'],
    ['regexp_position'],
    ['regexp_split'],
  ].map(([kind, name]) => [kind, { name: name ?? kind!, binary: false }]),
  ...[['length'], ['reverse'], ['substring', 'substr'], ['lpad'], ['rpad']].map(([kind, name]) => [
    kind,
    { name: name ?? kind!, binary: true },
  ]),
]);

/** Dune's varbinary counterparts of string functions (Functions-and-operators/varbinary). */
const VARBINARY_COUNTERPARTS: Readonly<Record<string, string>> = {
  strpos: 'varbinary_position',
  replace: 'varbinary_replace',
  starts_with: 'varbinary_starts_with',
  ltrim: 'varbinary_ltrim',
  rtrim: 'varbinary_rtrim',
};

const stringCall = (node: AstNode, kind: string) =>
  Object.hasOwn(STRING_FUNCTIONS, functionCall(node)?.name ?? kind)
    ? STRING_FUNCTIONS[functionCall(node)?.name ?? kind]
    : undefined;

/** Trino's type of a number literal: integer, decimal(p,s) with a point, double with an exponent. */
function numberLiteralType(literal: string): string {
  if (/e/i.test(literal)) return 'double';
  const [whole = '', fraction] = literal.split('.');
  if (fraction === undefined) return 'integer';
  return `decimal(${Math.max(1, whole.replace(/^0+/, '').length + fraction.length)},${fraction.length})`;
}

/** A string function given a number, date, timestamp or boolean, or varbinary where it takes text only. */
const STRING_ARGUMENTS: OperandCheck = {
  applies: (statement) => someNode(statement, (node, kind) => stringCall(node, kind) !== undefined),
  visit(node, kind, typing) {
    const fn = stringCall(node, kind);
    const argument = fn && ruleArguments(node, kind)[0];
    if (!fn || !argument || isText(argument)) return;
    const literal = isNumberLiteral(argument) ? String(argument.literal.value) : undefined;
    const type: TrinoType | undefined =
      literal === undefined
        ? typing()?.typeOf(argument)
        : { kind: 'scalar', name: numberLiteralType(literal) };
    const name = scalarName(type);
    if (name === undefined) return;
    const shownArgument = argument.column ? describe(argument) : (literal ?? 'x');
    let fix: string;
    if (name === 'varbinary' && !fn.binary) {
      const counterpart = VARBINARY_COUNTERPARTS[fn.name];
      fix = counterpart
        ? `Write ${counterpart}(${shownArgument}, …) for its bytes, or ${fn.name}(to_hex(${shownArgument}), …) for its hex digits.`
        : `Write ${fn.name}(to_hex(${shownArgument})) for its hex digits${fn.name === 'lower' || fn.name === 'upper' ? `, or compare varbinary values directly (${shownArgument} = 0x…), which needs no ${fn.name}()` : ''}.`;
    } else if (isNumeric(type) || ['boolean', 'date'].includes(name) || name.startsWith('timestamp')) {
      fix = `Write ${fn.name}(cast(${shownArgument} as varchar)).`;
    } else {
      return;
    }
    throw new RefusedOperation(
      `Unexpected parameters (${name}) for function ${fn.name}: it takes ${fn.binary ? 'varchar or varbinary' : 'varchar'}${argument.column ? `, and ${shownArgument} is ${name}` : ''}. ${fix}`,
      argument.column?.span?.start,
      fn.name,
    );
  },
};
