import { AthenaClient } from '@aws-sdk/client-athena';
import { GlueClient } from '@aws-sdk/client-glue';
import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { STSClient } from '@aws-sdk/client-sts';
import type { QueryEngine, ResultStore } from '../core/engine';
import { NotImplementedError } from '../core/errors';
import type { RefreshScheduleRegistry } from '../core/refresh-schedules';
import type { UploadFileStore } from '../core/uploads';
import type { Orchestrator } from '../core/workflows';
import { BASE_TABLES } from '../datasets/base-tables';
import { DuneSqlTableReferenceParser } from '../dunesql/table-references';
import { executionConfigFromEnv, longestRunMs } from '../executions/config';
import { SigningKeys } from '../oauth/signing-keys';
import { createServices, type Services } from '../services';
import { AthenaQueryEngine } from './athena/athena-engine';
import { AthenaQueries } from './athena/athena-queries';
import { RunRoleSessions } from './athena/run-isolation';
import { athenaTableSchemas } from './catalog/glue-tables';
import { GlueUploadTables } from './catalog/upload-tables';
import { GlueViewVersions } from './catalog/view-versions';
import { createDocumentClient } from './dynamo/client';
import { DynamoRequestCounter } from './dynamo/request-counter';
import { DynamoSlotWaiterStore } from './dynamo/slot-waiter-store';
import { SERVICE_TABLE } from './dynamo/table-definitions';
import { DynamoTaskTokenStore } from './dynamo/task-token-store';
import { EventBridgeRefreshSchedules } from './eventbridge-schedules';
import { S3ResultStore } from './results/s3-result-store';
import { SecretsManagerSigningKeyStore } from './secrets-manager-signing-keys';
import { StepFunctionsDependencyGate } from './step-functions-gate';
import { StepFunctionsOrchestrator } from './step-functions-orchestrator';
import { StepFunctionsSlotGate } from './step-functions-slot-gate';

/** A port whose AWS adapter is not built yet: every call is a 501 that says so. */
function notYetInAws<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get: () => () => {
      throw new NotImplementedError(
        `${what} is not available in the AWS deployment yet; run the service locally (npm start).`,
      );
    },
  });
}

/** `key=value` (the stack sets it) as a tag map; none when unset. */
function workflowTags(tag: string | undefined): Record<string, string> | undefined {
  const separator = tag?.indexOf('=') ?? -1;
  if (!tag || separator <= 0) return undefined;
  return { [tag.slice(0, separator)]: tag.slice(separator + 1) };
}

/** Composition root inside Lambda: adapters configured from the function's environment. */
export function createAwsServices(env: NodeJS.ProcessEnv = process.env): Services {
  const tableName = env[SERVICE_TABLE.envVar];
  if (!tableName) throw new Error(`Missing environment variable ${SERVICE_TABLE.envVar}.`);
  const db = createDocumentClient();
  const results = env.RESULTS_BUCKET
    ? new S3ResultStore(new S3Client({}), { bucket: env.RESULTS_BUCKET })
    : undefined;
  const workGroups = { medium: env.ATHENA_WORKGROUP_MEDIUM, large: env.ATHENA_WORKGROUP_LARGE };
  const config = executionConfigFromEnv(
    env,
    env.NODE_RUNNER_ARN ?? 'arn:aws:lambda:us-east-1:000000000000:function:node-runner',
  );
  const longestRun = longestRunMs(config);
  const viewVersions =
    results && env.VIEWS_DATABASE && env.DATA_BUCKET
      ? new GlueViewVersions(new GlueClient({}), new S3Client({}), results, {
          database: env.VIEWS_DATABASE,
          bucket: env.DATA_BUCKET,
          // A superseded version outlives the longest run (longestRunMs).
          retireAfterMs: longestRun,
        })
      : undefined;
  // Each run starts as the query-run role, narrowed to the data lake and its own view versions.
  const isolation =
    env.ATHENA_RUN_ROLE_ARN && env.VIEWS_DATABASE
      ? new RunRoleSessions(new STSClient({}), {
          roleArn: env.ATHENA_RUN_ROLE_ARN,
          viewsDatabase: env.VIEWS_DATABASE,
          longestRunMs: longestRun,
        })
      : undefined;
  return createServices(db, tableName, {
    // Athena writes each result as CSV where the tier's workgroup says; the result store indexes it.
    engine:
      results && workGroups.medium && workGroups.large
        ? new AthenaQueryEngine(
            new AthenaQueries(new AthenaClient({}), {
              workGroups: { medium: workGroups.medium, large: workGroups.large },
            }),
            results,
            {
              ...(viewVersions ? { viewsDatabase: env.VIEWS_DATABASE } : {}),
              ...(isolation ? { isolation } : {}),
              resultReuseMinutes: Number(env.ATHENA_RESULT_REUSE_MINUTES ?? 0) || 0,
              tables: athenaTableSchemas(BASE_TABLES),
            },
          )
        : notYetInAws<QueryEngine>(
            'The Athena query engine (ATHENA_WORKGROUP_* or RESULTS_BUCKET is not set)',
          ),
    results: results ?? notYetInAws<ResultStore>('The S3 result store (RESULTS_BUCKET is not set)'),
    orchestrator:
      env.STATE_MACHINE_ROLE_ARN && env.STATE_MACHINE_PREFIX
        ? new StepFunctionsOrchestrator(new SFNClient({}), {
            roleArn: env.STATE_MACHINE_ROLE_ARN,
            namePrefix: env.STATE_MACHINE_PREFIX,
            logGroupArn: env.STATE_MACHINE_LOG_GROUP_ARN,
            tags: workflowTags(env.STATE_MACHINE_STACK_TAG),
          })
        : notYetInAws<Orchestrator>('The Step Functions orchestrator (STATE_MACHINE_ROLE_ARN is not set)'),
    dependencyGate: new StepFunctionsDependencyGate(
      new SFNClient({}),
      new DynamoTaskTokenStore(db, tableName),
    ),
    slotGate: new StepFunctionsSlotGate(new SFNClient({}), new DynamoSlotWaiterStore(db, tableName)),
    // Every function of the stack counts into the same items.
    requestCounter: new DynamoRequestCounter(db, tableName),
    sqlParser: new DuneSqlTableReferenceParser(),
    schedules:
      env.SCHEDULE_GROUP_NAME && env.SCHEDULER_ROLE_ARN && env.NODE_RUNNER_ARN
        ? new EventBridgeRefreshSchedules(new SchedulerClient({}), {
            groupName: env.SCHEDULE_GROUP_NAME,
            roleArn: env.SCHEDULER_ROLE_ARN,
            targetArn: env.NODE_RUNNER_ARN,
            ...(env.SCHEDULE_DLQ_ARN ? { deadLetterArn: env.SCHEDULE_DLQ_ARN } : {}),
          })
        : notYetInAws<RefreshScheduleRegistry>('Refresh schedules (SCHEDULE_GROUP_NAME is not set)'),
    signingKeys: env.SIGNING_KEYS_SECRET_ID
      ? new SigningKeys(
          new SecretsManagerSigningKeyStore(new SecretsManagerClient({}), env.SIGNING_KEYS_SECRET_ID),
        )
      : notYetInAws<SigningKeys>('OAuth (SIGNING_KEYS_SECRET_ID is not set)'),
    config,
    ...(viewVersions ? { viewVersions } : {}),
    uploadFiles:
      env.VIEWS_DATABASE && env.DATA_BUCKET
        ? new GlueUploadTables(new GlueClient({}), new S3Client({}), {
            database: env.VIEWS_DATABASE,
            bucket: env.DATA_BUCKET,
          })
        : notYetInAws<UploadFileStore>('Uploaded tables (VIEWS_DATABASE or DATA_BUCKET is not set)'),
  });
}
