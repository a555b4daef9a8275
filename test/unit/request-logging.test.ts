import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { addRequestLogKeys, logger, requestLogging } from '../../functions/http/logger';

const contextOf = (requestId: string) =>
  ({
    functionName: 'GetExecutionStatus',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:GetExecutionStatus',
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;

function capturedLines(): Record<string, unknown>[] {
  const lines: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
  }
  return new Proxy([], {
    get: (_, key) =>
      Reflect.get(
        lines.map((l) => JSON.parse(l)),
        key,
      ),
  });
}

describe('requestLogging', () => {
  afterEach(() => vi.restoreAllMocks());

  it("tells each line the request's function context and keys while it is served, and nothing after", async () => {
    const lines = capturedLines();
    logger.setLogLevel('INFO');
    const handler = middy(requestLogging).handler(async () => {
      addRequestLogKeys({ requestId: 'req-1', route: 'GET /v1/execution/{execution_id}/status' });
      logger.info('reading', { executionId: 'e1' });
      addRequestLogKeys({ accountId: 'acc-1' });
      logger.warn('slow');
      return 'done';
    });
    await handler({}, contextOf('aws-1'));
    logger.info('between requests');
    const failing = middy(requestLogging)
      .handler(async () => {
        addRequestLogKeys({ requestId: 'req-2' });
        throw new Error('boom');
      })
      .onError(() => {
        logger.error('request failed');
        return 'mapped';
      });
    await failing({}, contextOf('aws-2'));
    logger.info('after the failed one');

    const [reading, slow, between, failed, after] = lines as unknown as Record<string, unknown>[];
    expect(reading).toMatchObject({
      level: 'INFO',
      message: 'reading',
      function_name: 'GetExecutionStatus',
      function_request_id: 'aws-1',
      function_memory_size: '512',
      requestId: 'req-1',
      route: 'GET /v1/execution/{execution_id}/status',
      executionId: 'e1',
    });
    expect(reading!.accountId).toBeUndefined();
    expect(slow).toMatchObject({ message: 'slow', requestId: 'req-1', accountId: 'acc-1' });
    expect(between!.requestId).toBeUndefined();
    expect(between!.function_request_id).toBeUndefined();
    // The error middleware (registered after it) still logs with the request's keys.
    expect(failed).toMatchObject({
      message: 'request failed',
      requestId: 'req-2',
      function_request_id: 'aws-2',
    });
    expect(failed!.accountId).toBeUndefined();
    expect(after!.requestId).toBeUndefined();
  });
});
