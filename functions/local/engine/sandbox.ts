import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { registerDuneFunctions } from './dune-functions';
import { sqlString } from './result-files';

export interface SandboxLimits {
  threads: number;
  /** DuckDB size string, e.g. `1GB`. */
  memoryLimit: string;
}

export interface SandboxOptions {
  /** The database file the user's SQL reads; opened read-only. Omit for an in-memory database. */
  databasePath?: string;
  limits: SandboxLimits;
  /** Files the sandbox may read and write in spite of external access being off (a run's result file). */
  allowedPaths?: string[];
  /** Directories the sandbox may use in the same way (the result store's results directory). */
  allowedDirectories?: string[];
  /** Where DuckDB may spill when a query outgrows memory; empty disables spilling. */
  spillDirectory?: string;
  /** Upper bound on spilled bytes, e.g. `4GB`. */
  maxSpillSize?: string;
  /** Errors as JSON objects (type, message, position) instead of display text. */
  errorsAsJson?: boolean;
  /**
   * Statements the service runs before the sandbox is locked (e.g. views over readable stored
   * results); they may read only the allowed paths once external access is off.
   */
  prepare?: string[];
  /** Registers the DuneSQL functions DuckDB lacks (dune-functions.ts): for sandboxes of user SQL. */
  duneFunctions?: boolean;
}

export interface Sandbox {
  /** The connection the sandbox was set up on. */
  connection: DuckDBConnection;
  /** Another connection to the same locked-down instance (configuration is instance-wide). */
  connect(): Promise<DuckDBConnection>;
  /** Closes the setup connection and the instance. */
  close(): void;
}

/**
 * The settings DuckDB takes only when an instance starts, the same for every run: no extension is
 * ever installed or loaded, no persistent secrets (the default directory, ~/.duckdb/stored_secrets,
 * would tell queries which user the host runs as), and the database opened read-only.
 */
function startupConfig(databasePath: string | undefined): Record<string, string> {
  return {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
    allow_unsigned_extensions: 'false',
    allow_persistent_secrets: 'false',
    secret_directory: 'no-persistent-secrets',
    // Until the run's own limits are set (openSandbox), the instance may use one thread.
    threads: '1',
    ...(databasePath ? { access_mode: 'READ_ONLY' } : {}),
  };
}

/**
 * A new DuckDB instance, not yet locked down: only `openSandbox` may hand it to user SQL. Creating
 * one is most of a sandbox's cost (~12 ms on the sample warehouse), so the engine process creates
 * the next run's instance while it is idle (engine-process.ts). An instance serves one run, or the
 * runs of one account and tier as a ReusableSandbox.
 */
export function createSandboxInstance(databasePath?: string): Promise<DuckDBInstance> {
  return DuckDBInstance.create(databasePath ?? ':memory:', startupConfig(databasePath));
}

/**
 * Opens a DuckDB instance that user SQL cannot escape. Every restriction is engine configuration,
 * not SQL inspection:
 * - the database is opened `READ_ONLY`, so no DDL/DML reaches the base data;
 * - `enable_external_access=false`: no file or network access from SQL (read_csv, read_parquet,
 *   glob, COPY, ATTACH, INSTALL all fail), except the exact `allowed_paths`/`allowed_directories`
 *   set here, before the switch is thrown (DuckDB refuses to change them afterwards);
 * - extensions are never installed or auto-loaded (`autoinstall_known_extensions=false`,
 *   `autoload_known_extensions=false`, `allow_community_extensions=false`);
 * - `threads`, `memory_limit` and the spill directory bound resources;
 * - no persistent secrets, and no setting that names the host's user or home directory;
 * - `lock_configuration=true` last, so no `SET`/`RESET`/`PRAGMA` can loosen any of the above.
 *
 * `fresh` is an instance made by `createSandboxInstance` for this database that nothing has used
 * yet (a run's pre-created one); without it a new instance is created.
 */
export async function openSandbox(
  options: SandboxOptions,
  fresh?: Promise<DuckDBInstance>,
): Promise<Sandbox> {
  const { instance, connection } = await lockDown(options, fresh);
  return { connection, connect: () => instance.connect(), close: closeOnce(connection, instance) };
}

/** Closes the setup connection and the instance, the first time only. */
function closeOnce(connection: DuckDBConnection, instance: DuckDBInstance): () => void {
  let closed = false;
  return () => {
    if (closed) return;
    closed = true;
    connection.closeSync();
    instance.closeSync();
  };
}

/**
 * The setup of `openSandbox`, on a new connection of the instance, ending with the lock. `global`
 * settings are instance-wide defaults the instance's later connections start with.
 */
async function lockDown(
  options: SandboxOptions & { global?: readonly string[] },
  fresh?: Promise<DuckDBInstance>,
): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  const instance = await (fresh ?? createSandboxInstance(options.databasePath));
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    if (options.duneFunctions) await registerDuneFunctions(connection);
    const setup: string[] = [
      `SET threads = ${Number(options.limits.threads)}`,
      `SET memory_limit = ${sqlString(options.limits.memoryLimit)}`,
      `SET temp_directory = ${sqlString(options.spillDirectory ?? '')}`,
      ...(options.global ?? []),
    ];
    if (options.maxSpillSize) setup.push(`SET max_temp_directory_size = ${sqlString(options.maxSpillSize)}`);
    if (options.errorsAsJson) setup.push(`SET ${options.global ? 'GLOBAL ' : ''}errors_as_json = true`);
    if (options.allowedPaths?.length) {
      setup.push(`SET allowed_paths = [${options.allowedPaths.map(sqlString).join(', ')}]`);
    }
    if (options.allowedDirectories?.length) {
      setup.push(`SET allowed_directories = [${options.allowedDirectories.map(sqlString).join(', ')}]`);
    }
    setup.push(
      ...(options.prepare ?? []),
      'SET enable_external_access = false',
      'SET lock_configuration = true',
    );
    // One call for the whole setup: each call is a hop to DuckDB's thread and back.
    await connection.run(setup.join(';\n'));
    return { instance, connection };
  } catch (error) {
    connection?.closeSync();
    instance.closeSync();
    throw error;
  }
}

/**
 * A locked sandbox that serves one run after another of the same account and tier, each on a
 * connection of its own. What a run could leave behind belongs to its connection (TEMP macros and
 * views, the random seed, prepared statements) and goes with it; the configuration is locked and
 * the database read-only, so the next run starts as the first did, with the buffer cache warm.
 * Files it may write are confined to one staging directory, emptied by every run before the next.
 * Runs that read materialized views never get one: their views are instance-wide.
 */
export interface ReusableSandbox {
  /** A new connection for one run. */
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

export async function openReusableSandbox(
  options: Omit<SandboxOptions, 'allowedPaths' | 'prepare'> & {
    stagingDirectory: string;
    /** Session settings as `SET GLOBAL` statements (DUCKDB_GLOBAL_SETTINGS). */
    global: readonly string[];
  },
  fresh?: Promise<DuckDBInstance>,
): Promise<ReusableSandbox> {
  const { stagingDirectory, ...rest } = options;
  const { instance, connection } = await lockDown(
    { ...rest, allowedDirectories: [`${stagingDirectory.replace(/\/+$/, '')}/`] },
    fresh,
  );
  return { connect: () => instance.connect(), close: closeOnce(connection, instance) };
}
