/**
 * Engine-independent pieces of the results API's encoding and paging rules, shared by the local
 * (DuckDB) and the AWS (S3) result stores so both answer alike.
 */
import type { ResultColumn, ResultPageRequest, ResultValue } from './engine';
import { BadRequestError } from './errors';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An integer as a number while exact (|n| ≤ 2^53 − 1), else its exact decimal text. */
export function integerValue(value: bigint): number | string {
  return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value.toString();
}

/** A decimal's text as a number when the number prints back as the same decimal, else the text. */
export function decimalValue(text: string): number | string {
  const number = Number(text);
  // Normalise fixed-scale text (1.5000) to JS's shortest form (1.5) and compare.
  let normal = text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
  if (normal === '-0') normal = '0';
  return Number.isFinite(number) && String(number) === normal ? number : text;
}

/** One RFC 4180 field: quoted when it holds a comma, quote or line break; NULL empty, '' as "". */
export function csvField(value: ResultValue): string {
  if (value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (text === '' || /[",\r\n]/.test(text)) return `"${text.replaceAll('"', '""')}"`;
  return text;
}

export const CSV_LINE_BREAK = '\r\n';

/** A CSV document: the header line, then one line per row, each ending with CRLF. */
export function csvDocument(columns: readonly ResultColumn[], rows: Iterable<ResultValue[]>): string {
  const lines = [columns.map((column) => csvField(column.name)).join(',')];
  for (const row of rows) lines.push(row.map(csvField).join(','));
  return lines.join(CSV_LINE_BREAK) + CSV_LINE_BREAK;
}

export function validatePaging(request: ResultPageRequest): void {
  if (!Number.isSafeInteger(request.limit) || request.limit < 0) {
    throw new BadRequestError('limit must be a non-negative integer');
  }
  if (!Number.isSafeInteger(request.offset) || request.offset < 0) {
    throw new BadRequestError('offset must be a non-negative integer');
  }
  if (request.sampleCount !== undefined) {
    if (!Number.isSafeInteger(request.sampleCount) || request.sampleCount < 0) {
      throw new BadRequestError('sample_count must be a non-negative integer');
    }
    if (request.filters !== undefined)
      throw new BadRequestError('sample_count cannot be combined with filters');
  }
}

/** Exact name first, then a unique case-insensitive match (SQL identifiers are case-insensitive). */
export function resolveColumn<C extends ResultColumn>(
  columns: readonly C[],
  name: string,
  parameter: string,
): C {
  const exact = columns.find((column) => column.name === name);
  if (exact) return exact;
  const folded = columns.filter((column) => column.name.toLowerCase() === name.toLowerCase());
  if (folded.length === 1) return folded[0]!;
  const available = columns.map((column) => column.name).join(', ');
  throw new BadRequestError(
    `${parameter}: unknown column ${JSON.stringify(name)}; available columns: ${available}`,
  );
}

/**
 * The columns a `columns` projection names, in its order. One named twice (in any case) is refused:
 * a row, keyed by name, could not hold it twice.
 */
export function projectedColumns<C extends ResultColumn>(
  columns: readonly C[],
  names: readonly string[],
): C[] {
  const chosen = names.map((name) => resolveColumn(columns, name, 'columns'));
  chosen.forEach((column, i) => {
    const first = chosen.indexOf(column);
    if (first === i) return;
    const spellings =
      names[first] === names[i]
        ? ''
        : ` (as ${JSON.stringify(names[first])} and ${JSON.stringify(names[i])})`;
    throw new BadRequestError(`columns: ${column.name} is named twice${spellings}; name each column once.`);
  });
  return chosen;
}

/**
 * Execution ids name stored results (files, object keys), so only a safe alphabet is accepted
 * (ULIDs and test ids); anything else cannot name a stored result.
 */
const EXECUTION_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function isValidExecutionId(executionId: string): boolean {
  return EXECUTION_ID.test(executionId);
}
