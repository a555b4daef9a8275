import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'onchain-sql-service';

/** The request a handler is serving: its function context and the keys it has told so far. */
interface ServedRequest {
  context: Context;
  coldStart: boolean;
  keys: LogAttributes;
}

let served: ServedRequest | undefined;
let firstRequest = true;

/**
 * Powertools' JSON lines (its field names and order), plus the served request's function
 * context and keys, added when a line is written. Powertools' own per-request middleware
 * (injectLambdaContext, appendKeys, resetKeys) keeps them in its invocation store, at about
 * 25-50 µs a request (it reads the environment on every change): a tenth of a cached status
 * read. Here a request costs two assignments, and only lines that are written pay.
 */
class RequestLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = served?.context ?? attributes.lambdaContext;
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        cold_start: served ? served.coldStart : attributes.lambdaContext?.coldStart,
        function_arn: context?.invokedFunctionArn,
        function_memory_size: context?.memoryLimitInMB,
        function_name: context?.functionName,
        function_request_id: served ? served.context.awsRequestId : attributes.lambdaContext?.awsRequestId,
        sampling_rate: attributes.sampleRateValue,
        xray_trace_id: attributes.xRayTraceId,
        ...served?.keys,
      },
    }).addAttributes(additional);
  }
}

/** Structured JSON logs (Powertools); level from POWERTOOLS_LOG_LEVEL / LOG_LEVEL. */
export const logger = new Logger({ serviceName, logFormatter: new RequestLogFormatter() });

/**
 * The handlers' middy plugin (`middy(requestLogging)`): every line the shared logger writes while
 * a request is served tells its function context and the keys given to `addRequestLogKeys`.
 * Plugin hooks, not a middleware: middy runs them at the start and the end of every request,
 * however it ends (a middleware's `after` is skipped when another one answers early).
 */
export const requestLogging: middy.PluginObject = {
  requestStart: (request) => {
    served = { context: request.context as Context, coldStart: firstRequest, keys: {} };
    firstRequest = false;
  },
  requestEnd: () => {
    served = undefined;
  },
};

/** Keys every further line of the request being served tells (its id, route, account...). */
export function addRequestLogKeys(keys: LogAttributes): void {
  if (served) Object.assign(served.keys, keys);
}

/**
 * A logger of its own for work no request started (the local host's refresh scheduler). The
 * local host serves every route from one process, so a line the shared logger writes from a
 * timer while a request is served would be told as that request.
 */
export function backgroundLogger(component: string): Logger {
  return new Logger({ serviceName, persistentKeys: { component } });
}
