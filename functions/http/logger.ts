import { Logger } from '@aws-lambda-powertools/logger';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'onchain-sql-service';

/** Structured JSON logs (Powertools); level from POWERTOOLS_LOG_LEVEL / LOG_LEVEL. */
export const logger = new Logger({ serviceName });

/**
 * A logger of its own for work no request started (the local host's refresh scheduler). The
 * shared logger carries the Lambda context and keys of the request it last served (the local host
 * serves every route from one process, and `resetKeys` clears the keys but not the context), so
 * a scheduler line would otherwise be told as some route's function.
 */
export function backgroundLogger(component: string): Logger {
  return new Logger({ serviceName, persistentKeys: { component } });
}
