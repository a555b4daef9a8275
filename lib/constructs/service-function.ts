import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { RAPIDOC_FILE } from '../../functions/apidocs/page';
import { POLYGLOT_WASM } from '../../functions/dunesql/wasm-file';
import type { RouteDefinition } from '../../functions/routes';
import { RASTERIZER_FILES } from '../../functions/visualizations/rasterizer-files';
import { LOCK_FILE, REPO_ROOT } from '../paths';

export const DEFAULT_TIMEOUT_SECONDS = 29;
export const DEFAULT_MEMORY_MB = 512;

/** Environment every function gets, on top of the table names and the workflow settings. */
export const BASE_FUNCTION_ENVIRONMENT: Readonly<Record<string, string>> = {
  SERVICE_RUNTIME: 'aws',
  POWERTOOLS_SERVICE_NAME: 'onchain-sql-service',
  NODE_OPTIONS: '--enable-source-maps',
  LOG_LEVEL: 'INFO',
};

/**
 * Modules that must stay out of every bundle: the local-only stand-ins (DuckDB, dynalite), which
 * only the local host loads. ESM resolves static imports when the module loads, so handler code
 * must reach these through a dynamic `import()` that is never taken in Lambda
 * (test/cdk/bundling.test.ts checks the bundles).
 *
 * The AWS SDK is bundled, not taken from the Lambda runtime: the version in package-lock.json is
 * the one tested, and a cold start reads one file instead of resolving the runtime's SDK packages
 * through Node's ESM loader (which parses each client's CommonJS entry file twice: to tell its
 * format, then to find its exports). See docs/aws.md, "Bundling the AWS SDK".
 */
export const EXTERNAL_MODULES: readonly string[] = ['@duckdb/node-api', '@duckdb/*', 'dynalite'];

/**
 * ESM output (middy 7 is ESM-only). esbuild turns a CommonJS dependency's `require()` of a
 * builtin into a `__require` shim that throws in ESM unless a real `require` exists, hence the
 * banner. Bundling always runs the locally installed esbuild, never Docker.
 */
/**
 * A file (or directory) a handler reads at run time, relative to the repository root: copied to
 * the same relative path in the bundle, or, as `{from, to}`, to `to` beside index.mjs.
 */
export type BundledFile = string | { readonly from: string; readonly to: string };

export function functionBundling(bundledFiles: readonly BundledFile[] = []): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: 'node22',
    mainFields: ['module', 'main'],
    banner:
      "import { createRequire as __cdkCreateRequire } from 'node:module'; const require = __cdkCreateRequire(import.meta.url);",
    minify: true,
    // Errors and logs name the real classes and functions, not minified ones.
    keepNames: true,
    sourceMap: true,
    sourcesContent: false,
    externalModules: [...EXTERNAL_MODULES],
    forceDockerBundling: false,
    ...(bundledFiles.length > 0 ? { commandHooks: copyIntoBundle(bundledFiles) } : {}),
  };
}

/** Files a handler reads at run time, copied into the bundle (see BundledFile). */
function copyIntoBundle(files: readonly BundledFile[]): NonNullable<BundlingOptions['commandHooks']> {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir, outputDir) =>
      files.map((file) => {
        const { from, to } = typeof file === 'string' ? { from: file, to: file } : file;
        const target = join(outputDir, to);
        return `mkdir -p "${join(target, '..')}" && cp -R "${join(inputDir, from)}" "${target}"`;
      }),
  };
}

export interface ServiceFunctionProps {
  /** Construct id of the function; its log group is `<id>Logs`. */
  readonly id: string;
  /** A physical name, for a function whose ARN must be known before it exists (the node runner). */
  readonly functionName?: string;
  readonly description: string;
  /** Handler source file, relative to the repository root. */
  readonly entry: string;
  /** Exported handler name. */
  readonly handler: string;
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
  /** Files the handler reads at run time (default: what FILES_READ_AT_RUN_TIME lists for its entry). */
  readonly bundledFiles?: readonly BundledFile[];
  /** The execution role of the function's group (see FunctionRoles); it gets write access to the log group. */
  readonly role: IRole;
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * One Lambda function of the service (an API route or a workflow worker), plus its log group: 2
 * resources. Every function is built the same way: the same bundle settings, Node 22 on arm64,
 * X-Ray tracing, logs kept one month. An explicit log group is the leanest way to get a retention
 * period (`logRetention` costs the same per function plus a custom-resource provider), and lets
 * the role write to this log group only.
 */
export function createServiceFunction(scope: Construct, props: ServiceFunctionProps): NodejsFunction {
  const logGroup = new LogGroup(scope, `${props.id}Logs`, {
    retention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const fn = new NodejsFunction(scope, props.id, {
    description: props.description,
    functionName: props.functionName,
    entry: join(REPO_ROOT, props.entry),
    handler: props.handler,
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    timeout: Duration.seconds(props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
    memorySize: props.memoryMb ?? DEFAULT_MEMORY_MB,
    role: props.role,
    logGroup,
    tracing: Tracing.ACTIVE,
    environment: { ...BASE_FUNCTION_ENVIRONMENT, ...props.environment },
    projectRoot: REPO_ROOT,
    depsLockFilePath: LOCK_FILE,
    bundling: functionBundling(props.bundledFiles ?? FILES_READ_AT_RUN_TIME[props.entry]),
  });
  logGroup.grantWrite(props.role);
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason: 'Node 22 on purpose: the runtime the code is built and tested with (the node devDependency)',
  });
  return fn;
}

export interface ApiFunctionProps {
  readonly route: RouteDefinition;
  readonly role: IRole;
  readonly environment: Readonly<Record<string, string>>;
}

/** The function of one route (the API adds its method and invoke permission). */
export function createApiFunction(scope: Construct, props: ApiFunctionProps): NodejsFunction {
  const { route } = props;
  return createServiceFunction(scope, {
    id: route.functionName,
    description: `${route.method} ${route.path}`,
    entry: route.entry,
    handler: route.handler,
    timeoutSeconds: route.timeoutSeconds,
    memoryMb: route.memoryMb,
    role: props.role,
    environment: props.environment,
  });
}

/**
 * Files handlers read at run time: the MCP server's searchDocs tool indexes the README and docs/
 * (functions/mcp/docs-search.ts); the API reference page serves the vendored RapiDoc bundle; the
 * PNG renderers load resvg's WASM and the chart fonts (functions/visualizations/render.ts); the
 * node runner (the Athena translation, scheduled refreshes' lineage), the pipeline routes
 * (lineage) and the MCP server (its check of saved SQL) load polyglot's WASM
 * (functions/dunesql/wasm-file.ts).
 */
export const FILES_READ_AT_RUN_TIME: Readonly<Record<string, readonly BundledFile[]>> = {
  // The MCP server also renders PNG (generateVisualization, getVisualization) and translates a
  // saved query's SQL to check it (createServiceQuery, updateServiceQuery).
  'functions/mcp/handler.ts': ['README.md', 'docs', ...RASTERIZER_FILES, POLYGLOT_WASM],
  'functions/apidocs/handlers.ts': [RAPIDOC_FILE],
  'functions/visualizations/handlers.ts': RASTERIZER_FILES,
  'functions/runner/handler.ts': [POLYGLOT_WASM],
  'functions/pipelines/handlers.ts': [POLYGLOT_WASM],
};
