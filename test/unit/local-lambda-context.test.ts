import { describe, expect, it } from 'vitest';
import { localLambdaContext } from '../../functions/local/api-gateway-event';

describe('localLambdaContext', () => {
  it("tells the time left when called detached from the context, as middy calls Lambda's", () => {
    const context = localLambdaContext('GetExecutionStatus', 29, 'req-1');
    const { getRemainingTimeInMillis } = context;
    expect(getRemainingTimeInMillis()).toBeGreaterThan(28_000);
    expect(getRemainingTimeInMillis()).toBeLessThanOrEqual(29_000);
    expect(context).toMatchObject({
      functionName: 'GetExecutionStatus',
      awsRequestId: 'req-1',
      invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:GetExecutionStatus',
      logGroupName: '/aws/lambda/GetExecutionStatus',
      memoryLimitInMB: '512',
    });
  });
});
