import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../../core/errors';
import { isValidExecutionId } from '../../core/result-encoding';
import { versionTableName } from '../../core/stored-relations';

/** Parquet key-value metadata entry holding the result's columns with their engine types. */
export const COLUMNS_METADATA_KEY = 'onchain_sql_columns';

export { isValidExecutionId };

/** Where an execution's result lives: `<resultsDir>/<executionId>.parquet`. */
export function resultFilePath(resultsDir: string, executionId: string): string {
  if (!isValidExecutionId(executionId))
    throw new NotFoundError(`No result for execution ${JSON.stringify(executionId)}`);
  return join(resultsDir, `${executionId}.parquet`);
}

/**
 * Where an uploaded table's data file lives:
 * `<resultsDir>/uploads/<generation's version table name>/<file id>.json.gz`.
 */
export function uploadFilePath(
  resultsDir: string,
  fullName: string,
  generation: string,
  fileId: string,
): string {
  return join(uploadGenerationDirectory(resultsDir, fullName, generation), `${fileId}.json.gz`);
}

export function uploadGenerationDirectory(resultsDir: string, fullName: string, generation: string): string {
  if (!isValidExecutionId(generation))
    throw new NotFoundError(`No upload generation ${JSON.stringify(generation)}`);
  return join(resultsDir, UPLOADS_DIRECTORY, versionTableName(fullName, generation));
}

export const UPLOADS_DIRECTORY = 'uploads';

/** The engine writes here and renames into place on success, so readers never see half a file. */
export function partialResultFilePath(resultsDir: string, executionId: string): string {
  return `${resultFilePath(resultsDir, executionId)}.partial`;
}

/** Where runs stage and spill their files (under the results directory), kept apart from results. */
export const STAGING_DIRECTORY = '.staging';
export const SPILL_DIRECTORY = '.spill';

/**
 * Removes what runs that never finished left behind: partial results, staging and spill
 * directories. Only while no run is in flight (the host calls it at start, before its engine runs
 * anything); returns how many entries it removed.
 */
export async function removeRunLeftovers(resultsDir: string): Promise<number> {
  const names = await readdir(resultsDir).catch(() => [] as string[]);
  const leftovers = names.filter(
    (name) => name.endsWith('.partial') || name === STAGING_DIRECTORY || name === SPILL_DIRECTORY,
  );
  await Promise.all(leftovers.map((name) => rm(join(resultsDir, name), { recursive: true, force: true })));
  return leftovers.length;
}

/** A SQL string literal; only for values the service itself controls (paths, metadata). */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A double-quoted SQL identifier. */
export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
