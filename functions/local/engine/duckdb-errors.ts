import { QueryFailure, type QueryFailureType } from '../../core/engine';
import { DuneSqlError, type DuneSqlErrorKind, type Translation } from '../../dunesql';
import { trinoWording } from './trino-wording';

/** A DuckDB error as reported with `errors_as_json=true`. */
export interface DuckDbErrorInfo {
  /** e.g. `Parser`, `Binder`, `Catalog`, `Conversion`, `Permission`, `Out of Memory`, `INTERRUPT`. */
  type: string;
  message: string;
  /** Byte offset into the statement's SQL text, when DuckDB knows it. */
  position?: number;
}

/**
 * Reads DuckDB's JSON error (`{"exception_type": ..., "exception_message": ..., "position": ...}`),
 * which may be prefixed (`Failed to extract statements: Parser Error: {...}`). Falls back to the
 * `Type Error: message` display form.
 */
export function parseDuckDbError(error: unknown): DuckDbErrorInfo {
  const text = error instanceof Error ? error.message : String(error);
  const start = text.indexOf('{');
  if (start >= 0) {
    try {
      const json = JSON.parse(text.slice(start)) as Record<string, unknown>;
      if (typeof json.exception_type === 'string' && typeof json.exception_message === 'string') {
        const position = Number(json.position);
        return {
          type: json.exception_type,
          message: json.exception_message,
          position: json.position !== undefined && Number.isInteger(position) ? position : undefined,
        };
      }
    } catch {
      // not JSON: fall through to the display form
    }
  }
  const display = /^(?:[\w ]+: )?([A-Za-z ]+) Error: ([\s\S]*)$/.exec(text);
  if (display) {
    const message = display[2]!.replace(/\n\nLINE \d+:[\s\S]*$/, '');
    return { type: display[1]!, message };
  }
  return { type: 'Unknown', message: text };
}

/** 1-based line and column of a byte offset into `sql` (DuckDB positions count UTF-8 bytes). */
export function positionToLineColumn(
  sql: string,
  offset: number,
  unit: 'bytes' | 'characters' = 'bytes',
): { line: number; column: number } {
  // DuckDB's parser counts characters (code points); the binder and query_location count UTF-8 bytes.
  const prefix =
    unit === 'characters'
      ? [...sql].slice(0, Math.max(0, offset)).join('')
      : Buffer.from(sql, 'utf8').subarray(0, Math.max(0, offset)).toString('utf8');
  const lines = prefix.split(/\r\n|\r|\n/);
  const last = lines[lines.length - 1] ?? '';
  return { line: lines.length, column: [...last].length + 1 };
}

function failureType(info: DuckDbErrorInfo): QueryFailureType {
  switch (info.type) {
    case 'Parser':
    case 'Syntax':
      return 'syntax_error';
    case 'Permission':
      return 'permission_denied';
    case 'Out of Memory':
      return 'resource_exhausted';
    case 'INTERRUPT':
      return 'cancelled';
    case 'Invalid Input':
      // The read-only database and the locked configuration report themselves as invalid input.
      if (
        /read-only mode|configuration has been locked|disabled (through|by) configuration/i.test(info.message)
      ) {
        return 'permission_denied';
      }
      return 'execution_error';
    case 'IO':
      if (/no space left|temp(orary)? (file|directory)/i.test(info.message)) return 'resource_exhausted';
      return 'execution_error';
    default:
      return 'execution_error';
  }
}

/** The statement DuckDB ran: the user's SQL as written (raw DuckDB), or its DuneSQL translation. */
export type RanStatement =
  | { sql: string; translation?: undefined }
  | { sql: string; translation: Translation };

const DUNESQL_FAILURE_TYPES: Record<DuneSqlErrorKind, QueryFailureType> = {
  syntax: 'syntax_error',
  not_a_query: 'permission_denied',
  unsupported: 'execution_error',
  // As Athena reports Trino's COLUMN_NOT_FOUND and TABLE_NOT_FOUND (docs/aws.md, error mapping).
  unresolved: 'execution_error',
};

/** A DuneSQL translation failure as a QueryFailure, keeping its position in the user's SQL. */
export function dunesqlFailure(error: DuneSqlError, engineMillis: number): QueryFailure {
  return new QueryFailure(DUNESQL_FAILURE_TYPES[error.kind], error.message, error.position, engineMillis);
}

/**
 * Maps a DuckDB error on the user's statement to a QueryFailure: the failure type, the message
 * (in Trino's words for the common run-time errors of a DuneSQL query, ./trino-wording.ts; else
 * DuckDB's own, `Binder Error: Referenced column "x" not found …`) and, when
 * DuckDB gives one, the line/column of the error in the SQL the user wrote: for a DuneSQL
 * statement DuckDB's offset is in the translated text, so it is mapped back through the
 * translation (and the translator's helper names are dropped from the message).
 */
export async function toQueryFailure(
  error: unknown,
  statement: RanStatement,
  engineMillis: number,
  context: { tier: string; memoryLimit: string; maxSpillSize?: string },
): Promise<QueryFailure> {
  if (error instanceof DuneSqlError) return dunesqlFailure(error, engineMillis);
  const info = parseDuckDbError(error);
  const type = failureType(info);
  const { translation } = statement;
  const userMessage = translation ? translation.userMessage(info.message) : info.message;
  // A DuneSQL query's common run-time errors read as on Athena; the rest keep DuckDB's label.
  let message = (translation && trinoWording(userMessage)) || `${info.type} Error: ${userMessage}`;
  if (type === 'resource_exhausted' && info.type === 'Out of Memory') {
    // DuckDB's advice (SET memory_limit, SET threads) cannot be followed from a query; say what can.
    const firstLine = info.message.split('\n')[0];
    message =
      `Out of Memory Error: ${firstLine}. The query needs more than the ${context.memoryLimit} memory of the ` +
      `${context.tier} tier${context.maxSpillSize ? ` (and ${context.maxSpillSize} of disk to spill to)` : ''}; ` +
      'filter or aggregate earlier, select fewer columns' +
      (context.tier === 'large' ? '.' : ', or run it on the large tier.');
  }
  const unit = info.type === 'Parser' || info.type === 'Syntax' ? 'characters' : 'bytes';
  let position: { line: number; column: number } | undefined;
  if (info.position !== undefined) {
    position = translation
      ? await translation.userPosition(info.position, unit)
      : positionToLineColumn(statement.sql, info.position, unit);
  }
  if (position) message += ` (line ${position.line}, column ${position.column})`;
  return new QueryFailure(type, message, position, engineMillis);
}
