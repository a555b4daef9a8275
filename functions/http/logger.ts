import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs (Powertools); level from POWERTOOLS_LOG_LEVEL / LOG_LEVEL. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'onchain-sql-service',
});
