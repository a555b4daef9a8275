import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backgroundLogger, logger } from '../../functions/http/logger';

describe('backgroundLogger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    logger.resetKeys();
  });

  it('never tells a line as the function (or request) the shared logger served last', () => {
    const lines: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      });
    }
    // What the route handler's middleware leaves on the shared logger after a request.
    logger.addContext({
      functionName: 'GetOpenApiDocument',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:GetOpenApiDocument',
      memoryLimitInMB: '1024',
      awsRequestId: 'request-1',
    } as Context);
    logger.appendKeys({ route: 'GET /v1/openapi.json' });
    const background = backgroundLogger('refresh-scheduler');
    background.setLogLevel('WARN');
    background.warn('scheduled refresh could not start', { view: 'mv.local.result_x' });
    const line = JSON.parse(lines.find((l) => l.includes('scheduled refresh'))!);
    expect(line).toMatchObject({ component: 'refresh-scheduler', view: 'mv.local.result_x' });
    expect(line.function_name).toBeUndefined();
    expect(line.route).toBeUndefined();
  });
});
