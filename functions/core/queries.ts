/** Saved queries: SQL with typed `{{name}}` parameters, owned by an account. */
export const PARAMETER_TYPES = ['text', 'number', 'datetime', 'date', 'enum'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

export interface QueryParameter {
  key: string;
  type: ParameterType;
  /** Default value, always a string (as the Dune API keeps it). */
  value: string;
  description?: string;
  /** enum: the allowed values. */
  enumOptions?: string[];
  /** enum: several values may be chosen; they bind as a comma-separated list of literals. */
  isMultiselect?: boolean;
  /** enum: values outside enumOptions are accepted too (always so for an enum without options). */
  isFreeformAllowed?: boolean;
}

export interface SavedQuery {
  queryId: number;
  accountId: string;
  ownerHandle: string;
  name: string;
  description: string;
  querySql: string;
  parameters: QueryParameter[];
  tags: string[];
  isPrivate: boolean;
  isArchived: boolean;
  /** Starts at 1 and grows by one on every change. */
  version: number;
  createdAt: string;
  updatedAt: string;
  /** The newest execution of this query that completed (what GET /v1/query/{id}/results reads). */
  latestCompletedExecutionId?: string;
}

/**
 * The query's latest completed execution once `executionId` completed: ULIDs sort by time, so an
 * older run finishing late never replaces a newer result (the store's write has the same condition).
 */
export function newerCompleted(query: SavedQuery, executionId: string): string {
  const current = query.latestCompletedExecutionId;
  return current !== undefined && current >= executionId ? current : executionId;
}

/**
 * Parameters as a request declares them: full declarations, or bare default values whose types the
 * use case infers (keeping the declared type of a name the query already has).
 */
export type ParameterDeclarations = QueryParameter[] | { values: Record<string, string | number | boolean> };

/** What a caller sends to save a new query (any API face). */
export interface NewQuery {
  name: string;
  description: string;
  querySql: string;
  parameters: ParameterDeclarations;
  tags: string[];
  isPrivate: boolean;
}

/** What a caller sends to change a query: only the fields present change; tags and parameters are replaced. */
export interface QueryEdit
  extends Partial<
    Pick<SavedQuery, 'name' | 'description' | 'querySql' | 'tags' | 'isPrivate' | 'isArchived'>
  > {
  parameters?: ParameterDeclarations;
}

export type QueryChanges = Partial<
  Pick<SavedQuery, 'name' | 'description' | 'querySql' | 'parameters' | 'tags' | 'isPrivate' | 'isArchived'>
>;

export interface QueryStore {
  /** Allocates the next integer id (atomic counter). */
  nextQueryId(): Promise<number>;
  create(query: SavedQuery): Promise<void>;
  get(queryId: number): Promise<SavedQuery | undefined>;
  /** Applies changes if the stored version is still `expectedVersion`; ConflictError otherwise. */
  update(
    queryId: number,
    expectedVersion: number,
    changes: QueryChanges,
    updatedAt: string,
  ): Promise<SavedQuery>;
  /** Records a completed execution as the latest, unless a newer one is already recorded. */
  setLatestCompletedExecution(queryId: number, executionId: string): Promise<void>;
  listByAccount(
    accountId: string,
    limit: number,
    offset: number,
  ): Promise<{ queries: SavedQuery[]; total: number }>;
}
