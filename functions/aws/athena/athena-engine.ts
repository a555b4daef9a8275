import {
  type EngineCheckRequest,
  type EngineRun,
  type EngineRunStatus,
  type EngineSubmitRequest,
  type QueryEngine,
  QueryFailure,
  type ReadableRelation,
} from '../../core/engine';
import { RESULT_LIMITS, resultLimitOf, resultTooLarge, storageQuotaUsedUp } from '../../core/result-limits';
import { STORED_RELATION_CATALOGS, versionTableName, versionTablePrefix } from '../../core/stored-relations';
import { BASE_TABLES } from '../../datasets/base-tables';
import {
  DuneSqlError,
  listedTables,
  type TableSchema,
  type TextStoredRelation,
  translate,
} from '../../dunesql';
import { athenaColumnType } from '../catalog/glue-tables';
import { ResultLimitExceeded, type ResultManifest, type S3Location } from '../results/s3-result-store';
import type { AthenaQueries, AthenaStatistics } from './athena-queries';
import type { RunRoleSessions } from './run-isolation';

/**
 * What the engine needs of the result store (S3ResultStore): indexing a finished query's CSV, and
 * taking a copy of an earlier one Athena reused.
 */
export interface AthenaResultIndex {
  adopt(executionId: string, csv: S3Location): Promise<S3Location>;
  register(
    executionId: string,
    csv: S3Location,
    columns: Awaited<ReturnType<AthenaQueries['columns']>>,
    limit?: { maxResultRows: number; maxResultBytes: number },
  ): Promise<ResultManifest>;
}

export interface AthenaEngineOptions {
  now?: () => Date;
  limits?: typeof RESULT_LIMITS;
  /** The Glue database of view versions (functions/aws/catalog/view-versions.ts). */
  viewsDatabase?: string;
  /** Per-run sessions of the query-run role (run-isolation.ts); absent: the function's own role. */
  isolation?: RunRoleSessions;
  /**
   * Athena may answer a query from an identical one's result up to this many minutes old (0 or
   * absent: never). Asked only for SQL that reads no view and calls no clock or random function.
   */
  resultReuseMinutes?: number;
  /**
   * The data lake's tables with their Athena column types (`athenaTableSchemas`): output columns
   * typed as arrays, maps or rows from them are returned as JSON (dunesql/nested-outputs.ts).
   */
  tables?: readonly TableSchema[];
}

/**
 * The QueryEngine port on Amazon Athena (engine v3, Trino). `submit` translates the user's DuneSQL
 * for Athena and calls StartQueryExecution in the tier's workgroup; `status` is one
 * GetQueryExecution (and, once the query succeeded, GetQueryResults for the columns plus one pass
 * over the CSV to index it); `cancel` is StopQueryExecution. Nothing here waits on a running
 * query: the generated workflow's Wait state polls `status` (docs/aws.md, "Athena call
 * sequences"). The tier's time limit is enforced at the first status read past it.
 */
export class AthenaQueryEngine implements QueryEngine {
  private readonly now: () => Date;
  private readonly limits: typeof RESULT_LIMITS;

  constructor(
    private readonly queries: AthenaQueries,
    private readonly results: AthenaResultIndex,
    private readonly options: AthenaEngineOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.limits = options.limits ?? RESULT_LIMITS;
  }

  /** The translation a run would start with, without Athena (it is made in this process). */
  async check(request: EngineCheckRequest): Promise<QueryFailure | undefined> {
    try {
      await this.translation(request);
      return undefined;
    } catch (error) {
      if (error instanceof QueryFailure) return error;
      throw error;
    }
  }

  /** The run's SQL for Athena, or the QueryFailure the run ends with before it starts. */
  private async translation(request: EngineCheckRequest) {
    const translation = await translate(request.sql, 'athena', {
      relations: this.storedRelations(request.relations ?? []),
      relationCatalogs: STORED_RELATION_CATALOGS,
      ...(this.options.viewsDatabase ? { hiddenDatabases: [this.options.viewsDatabase] } : {}),
      tables: this.options.tables ?? [],
      catalog: listedTables(BASE_TABLES, request.relations),
      uploads: (request.relations ?? [])
        .filter((relation) => relation.uploadFiles)
        .map(({ schema, name, columns }) => ({ schema, name, columns: columns.map(uploadColumnOnAthena) })),
    }).catch((error: unknown) => {
      throw translationFailure(error);
    });
    assertWithinQueryLength(translation.sql);
    return translation;
  }

  async submit(request: EngineSubmitRequest): Promise<EngineRun> {
    if (resultLimitOf(request.tier, request, this.limits[request.tier]).maxResultBytes <= 0) {
      throw storageQuotaUsedUp();
    }
    const translation = await this.translation(request);
    // The run may read the views its SQL names (any version of each: all are equally readable).
    const client = await this.options.isolation?.clientFor(
      request.executionId,
      translation.relationsRead.map(
        ({ catalog, schema, name }) => `${versionTablePrefix(`${catalog}.${schema}.${name}`)}*`,
      ),
    );
    // A reused result is an earlier run of the same SQL over the same tables: safe unless the SQL
    // reads a view (refreshed in place) or a clock or random function.
    const reusable = translation.deterministic && translation.relationsRead.length === 0;
    const engineRunId = await this.queries.start({
      executionId: request.executionId,
      sql: translation.sql,
      tier: request.tier,
      reuseMinutes: reusable ? (this.options.resultReuseMinutes ?? 0) : 0,
      ...(client ? { client } : {}),
    });
    const { executionId, tier, timeoutMs, sql } = request;
    const nestedColumns = translation.nestedColumns;
    return {
      executionId,
      engineRunId,
      tier,
      timeoutMs,
      sql,
      ...(nestedColumns.length ? { nestedColumns } : {}),
    };
  }

  async status(run: EngineRun): Promise<EngineRunStatus> {
    const status = await this.queries.status(run.engineRunId);
    switch (status.state) {
      case 'queued':
      case 'running': {
        const submittedAt = status.submittedAt?.getTime();
        if (submittedAt !== undefined && this.now().getTime() - submittedAt > run.timeoutMs) {
          await this.queries.stop(run.engineRunId);
          return { state: 'failed', failure: timeoutFailure(run, status.statistics) };
        }
        return { state: status.state };
      }
      case 'succeeded': {
        // Columns returned as JSON text read as varchar in Athena's metadata: they get their types back.
        const columns = await this.queries.columns(run.engineRunId);
        for (const { position, type } of run.nestedColumns ?? []) {
          if (columns[position]) columns[position] = { ...columns[position], type };
        }
        // Athena cannot stop at a result size: a result past the tier's limit or the storage
        // quota left at submit is refused once written (and deleted), scanned bytes still billed.
        const limit = resultLimitOf(run.tier, run, this.limits[run.tier]);
        // A reused result is the earlier query's file: this execution gets a copy of its own.
        const csv = status.statistics.reusedPreviousResult
          ? await this.results.adopt(run.executionId, status.output)
          : status.output;
        let manifest: ResultManifest;
        try {
          manifest = await this.results.register(run.executionId, csv, columns, limit);
        } catch (error) {
          if (!(error instanceof ResultLimitExceeded)) throw error;
          const failure = resultTooLarge(limit, error.exceeded, status.statistics.engineMillis, {
            scannedBytes: status.statistics.dataScannedBytes,
          });
          return { state: 'failed', failure };
        }
        return {
          state: 'succeeded',
          result: {
            columns: manifest.columns,
            rowCount: manifest.rowCount,
            resultBytes: manifest.bytes,
            ...usageOf(status.statistics),
          },
        };
      }
      case 'failed':
        return {
          state: 'failed',
          failure: await inUserSql(run, status.failure, status.statistics, this.options.tables ?? []),
        };
    }
  }

  async cancel(run: EngineRun): Promise<void> {
    await this.queries.stop(run.engineRunId);
  }

  async close(): Promise<void> {}

  /**
   * The views and uploaded tables the run may read, each at the version resolved at submit, as
   * their Glue tables. Uploads declare DuneSQL types: uint256 and int256 are Athena's decimal(38,0).
   */
  private storedRelations(relations: readonly ReadableRelation[]): TextStoredRelation[] {
    const database = this.options.viewsDatabase;
    if (!database) return [];
    return relations.map(({ catalog, schema, name, columns, executionId, uploadFiles }) => ({
      catalog,
      schema,
      name,
      columns: uploadFiles ? columns.map(uploadColumnOnAthena) : columns,
      table: { database, name: versionTableName(`${catalog}.${schema}.${name}`, executionId) },
    }));
  }
}

/** An upload's declared column as Athena types it. */
function uploadColumnOnAthena(column: { name: string; type: string }) {
  return { ...column, type: athenaColumnType(column.type) };
}

function usageOf(statistics: AthenaStatistics) {
  return {
    engineMillis: statistics.engineMillis,
    scannedBytes: statistics.dataScannedBytes,
    reusedResult: statistics.reusedPreviousResult,
  };
}

function timeoutFailure(run: EngineRun, statistics: AthenaStatistics): QueryFailure {
  const seconds = Math.round(run.timeoutMs / 1000);
  return new QueryFailure(
    'timeout',
    `Query exceeded the ${seconds} s limit of the ${run.tier} tier and was stopped; filter on a narrower block_time range, aggregate, or select fewer columns` +
      (run.tier === 'large' ? '.' : ', or run it on the large tier.'),
    undefined,
    statistics.engineMillis,
    statistics.dataScannedBytes,
  );
}

/** DuneSQL that cannot be translated fails as it does locally, positioned in the user's SQL. */
/** StartQueryExecution refuses a longer query string, and the quota is not adjustable (docs/aws.md). */
export const ATHENA_MAX_QUERY_BYTES = 262_144;

/**
 * The translation can be longer than the SQL the user wrote (an information_schema view is written
 * out as its rows): past Athena's limit the run fails here, saying why, not as Athena's 400.
 */
function assertWithinQueryLength(sql: string): void {
  const bytes = Buffer.byteLength(sql, 'utf8');
  if (bytes <= ATHENA_MAX_QUERY_BYTES) return;
  throw new QueryFailure(
    'execution_error',
    `The query is ${bytes.toLocaleString('en-US')} bytes once translated for Athena, which takes at most ${ATHENA_MAX_QUERY_BYTES.toLocaleString('en-US')}. Each information_schema view it reads is written out as its rows: read fewer of them, or list one table with DESCRIBE <table> or one schema with SHOW TABLES FROM <schema>; otherwise split the query with a materialized view.`,
  );
}

function translationFailure(error: unknown): unknown {
  if (!(error instanceof DuneSqlError)) return error;
  return new QueryFailure(
    error.kind === 'syntax' ? 'syntax_error' : 'execution_error',
    error.message,
    error.position,
  );
}

/**
 * Athena positions errors in the SQL it ran (the translation); the user wrote something else, so
 * the position is mapped back through the translation, and the scanned bytes are kept for credits.
 */
async function inUserSql(
  run: EngineRun,
  failure: QueryFailure,
  statistics: AthenaStatistics,
  /** As at submit, so the translation positions match what Athena ran (nested columns converted). */
  tables: readonly TableSchema[],
) {
  let position = failure.position;
  if (position) {
    const translation = await translate(run.sql, 'athena', {
      tables,
      catalog: listedTables(BASE_TABLES),
    }).catch(() => undefined);
    const offset = translation && offsetOf(translation.sql, position);
    position = (offset !== undefined && (await translation?.userPosition(offset, 'characters'))) || position;
  }
  return new QueryFailure(
    failure.type,
    failure.message,
    position,
    failure.engineMillis,
    statistics.dataScannedBytes,
  );
}

/** Character offset of a 1-based line and column, or undefined past the text. */
function offsetOf(text: string, position: { line: number; column: number }): number | undefined {
  const lines = text.split('\n');
  if (position.line < 1 || position.line > lines.length) return undefined;
  let offset = 0;
  for (let i = 0; i < position.line - 1; i++) offset += lines[i]!.length + 1;
  return offset + position.column - 1;
}
