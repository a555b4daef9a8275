import {
  CreateStateMachineCommand,
  ExecutionAlreadyExists,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { StepFunctionsOrchestrator } from '../../functions/aws/step-functions-orchestrator';
import { singleQueryInput, singleQueryWorkflow } from '../../functions/core/workflows';

const sfnMock = mockClient(SFNClient);
const ROLE = 'arn:aws:iam::123456789012:role/workflows';
const RUNNER = 'arn:aws:lambda:us-east-1:123456789012:function:node-runner';

describe('the Step Functions orchestrator adapter', () => {
  beforeEach(() => {
    sfnMock.reset();
    sfnMock.on(CreateStateMachineCommand).callsFake((input) => ({
      stateMachineArn: `arn:aws:states:us-east-1:123456789012:stateMachine:${input.name}`,
    }));
    sfnMock.on(StartExecutionCommand).resolves({ executionArn: 'arn:execution', startDate: new Date() });
  });

  const workflow = (slotPollSeconds: number) =>
    singleQueryWorkflow({ runnerResource: RUNNER, slotPollSeconds });

  it('creates one machine per distinct definition, named by its hash, and reuses it', async () => {
    const orchestrator = new StepFunctionsOrchestrator(new SFNClient({ region: 'us-east-1' }), {
      roleArn: ROLE,
      namePrefix: 'svc-wf',
    });
    await orchestrator.start({
      name: '01HKZJ2683PHF9Q9PHHQ8FW4Q1',
      definition: workflow(2),
      input: singleQueryInput('01HKZJ2683PHF9Q9PHHQ8FW4Q1'),
    });
    await orchestrator.start({
      name: '01HKZJ2683PHF9Q9PHHQ8FW4Q2',
      definition: workflow(2),
      input: singleQueryInput('01HKZJ2683PHF9Q9PHHQ8FW4Q2'),
    });
    await orchestrator.start({
      name: '01HKZJ2683PHF9Q9PHHQ8FW4Q3',
      definition: workflow(5),
      input: singleQueryInput('01HKZJ2683PHF9Q9PHHQ8FW4Q3'),
    });
    const creates = sfnMock.commandCalls(CreateStateMachineCommand).map((call) => call.args[0].input);
    expect(creates).toHaveLength(2);
    for (const create of creates) {
      expect(create).toMatchObject({ roleArn: ROLE, type: 'STANDARD' });
      expect(create.name).toMatch(/^svc-wf-[0-9a-f]{40}$/);
      expect(create.name!.length).toBeLessThanOrEqual(80);
      expect(JSON.parse(create.definition!)).toHaveProperty('StartAt', 'AcquireSlot');
    }
    const starts = sfnMock.commandCalls(StartExecutionCommand).map((call) => call.args[0].input);
    expect(starts.map((s) => s.name)).toEqual([
      '01HKZJ2683PHF9Q9PHHQ8FW4Q1',
      '01HKZJ2683PHF9Q9PHHQ8FW4Q2',
      '01HKZJ2683PHF9Q9PHHQ8FW4Q3',
    ]);
    expect(starts[0]?.stateMachineArn).toBe(starts[1]?.stateMachineArn);
    expect(JSON.parse(starts[0]!.input!)).toEqual(singleQueryInput('01HKZJ2683PHF9Q9PHHQ8FW4Q1'));
  });

  it('treats a repeated start of the same run as done, and retries machine creation after a failure', async () => {
    sfnMock
      .on(StartExecutionCommand)
      .rejectsOnce(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));
    sfnMock.on(CreateStateMachineCommand).rejectsOnce(new Error('throttled'));
    const orchestrator = new StepFunctionsOrchestrator(new SFNClient({ region: 'us-east-1' }), {
      roleArn: ROLE,
      namePrefix: 'svc-wf',
    });
    const run = { name: 'run-1', definition: workflow(2), input: {} };
    await expect(orchestrator.start(run)).rejects.toThrow('throttled');
    sfnMock.on(CreateStateMachineCommand).resolves({ stateMachineArn: 'arn:machine' });
    await expect(orchestrator.start(run)).resolves.toBeUndefined();
    expect(sfnMock.commandCalls(CreateStateMachineCommand)).toHaveLength(2);
  });
});
