import {
  CreateStateMachineCommand,
  DeleteStateMachineCommand,
  ExecutionAlreadyExists,
  ListStateMachinesCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { StepFunctionsOrchestrator } from '../../functions/aws/step-functions-orchestrator';
import { deleteGeneratedWorkflows } from '../../functions/aws/workflow-cleanup';
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

  const workflow = (slotWaitSeconds: number) =>
    singleQueryWorkflow({ runnerResource: RUNNER, slotWaitSeconds });

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

  it('tags every machine with its stack and logs errors (no execution data) to the stack’s log group', async () => {
    const logGroupArn = 'arn:aws:logs:us-east-1:123456789012:log-group:/aws/vendedlogs/states/svc_wf:*';
    const orchestrator = new StepFunctionsOrchestrator(new SFNClient({ region: 'us-east-1' }), {
      roleArn: ROLE,
      namePrefix: 'svc_wf',
      logGroupArn,
      tags: { 'onchain-sql-service:stack': 'svc' },
    });
    await orchestrator.start({ name: 'run-1', definition: workflow(30), input: {} });
    const [create] = sfnMock.commandCalls(CreateStateMachineCommand).map((call) => call.args[0].input);
    expect(create).toMatchObject({
      tags: [{ key: 'onchain-sql-service:stack', value: 'svc' }],
      loggingConfiguration: {
        level: 'ERROR',
        includeExecutionData: false,
        destinations: [{ cloudWatchLogsLogGroup: { logGroupArn } }],
      },
    });
  });
});

describe('deleting the generated workflows of a stack (npm run cleanup-workflows)', () => {
  const machine = (name: string) => ({
    name,
    stateMachineArn: `arn:aws:states:us-east-1:123456789012:stateMachine:${name}`,
    type: 'STANDARD' as const,
    creationDate: new Date('2026-01-01T00:00:00Z'),
  });

  beforeEach(() => {
    sfnMock.reset();
    // Two pages, as ListStateMachines returns them (nextToken), mixing this stack's machines
    // with another stack's whose prefix extends this one's, and an unrelated machine.
    sfnMock.on(ListStateMachinesCommand, { nextToken: undefined }).resolves({
      stateMachines: [machine(`svc_wf-${'a'.repeat(40)}`), machine('other-app')],
      nextToken: 'p2',
    });
    sfnMock.on(ListStateMachinesCommand, { nextToken: 'p2' }).resolves({
      stateMachines: [machine(`svc_wf-${'b'.repeat(40)}`), machine(`svc-2_wf-${'c'.repeat(40)}`)],
    });
    sfnMock.on(DeleteStateMachineCommand).resolves({});
  });

  it('deletes exactly the machines named <prefix>-…, across pages', async () => {
    const lines: string[] = [];
    const deleted = await deleteGeneratedWorkflows(new SFNClient({ region: 'us-east-1' }), {
      prefix: 'svc_wf',
      log: (line) => lines.push(line),
    });
    expect(deleted).toEqual([`svc_wf-${'a'.repeat(40)}`, `svc_wf-${'b'.repeat(40)}`]);
    expect(
      sfnMock.commandCalls(DeleteStateMachineCommand).map((call) => call.args[0].input.stateMachineArn),
    ).toEqual(deleted.map((name) => `arn:aws:states:us-east-1:123456789012:stateMachine:${name}`));
    expect(lines).toHaveLength(2);
  });

  it('deletes nothing on a dry run, and refuses a prefix that is not one', async () => {
    const sfn = new SFNClient({ region: 'us-east-1' });
    expect(await deleteGeneratedWorkflows(sfn, { prefix: 'svc_wf', dryRun: true })).toHaveLength(2);
    expect(sfnMock.commandCalls(DeleteStateMachineCommand)).toHaveLength(0);
    await expect(deleteGeneratedWorkflows(sfn, { prefix: '' })).rejects.toThrow('StateMachinePrefix');
    await expect(deleteGeneratedWorkflows(sfn, { prefix: 'svc*' })).rejects.toThrow(
      'Not a state machine prefix',
    );
    expect(sfnMock.commandCalls(ListStateMachinesCommand)).toHaveLength(2);
  });
});
