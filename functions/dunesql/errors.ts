/**
 * Why DuneSQL could not be translated: the SQL does not parse, uses a construct the target lacks,
 * names a table or column that does not exist, or is a statement other than a query (only
 * read-only queries run).
 */
export type DuneSqlErrorKind = 'syntax' | 'unsupported' | 'unresolved' | 'not_a_query';

/** A translation failure, positioned in the SQL the user wrote (1-based line and column). */
export class DuneSqlError extends Error {
  constructor(
    readonly kind: DuneSqlErrorKind,
    message: string,
    readonly position?: { line: number; column: number },
  ) {
    super(position ? `${message} (line ${position.line}, column ${position.column})` : message);
    this.name = 'DuneSqlError';
  }
}

/** Thrown by a rewrite rule; translate() positions it at the construct's name in the user's SQL. */
export class UnsupportedConstruct extends Error {
  constructor(
    /** The name as the user wrote it (a function or type), used to find its position. */
    readonly construct: string,
    message: string,
    /** `syntax` for what Trino refuses in analysis (an unknown function), as Athena reports it. */
    readonly kind: 'unsupported' | 'syntax' = 'unsupported',
  ) {
    super(message);
  }
}
