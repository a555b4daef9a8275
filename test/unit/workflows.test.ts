import aslValidator from 'asl-validator';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { LOCAL_TASK_CONTEXT, pipelineRunnerInput } from '../../functions/core/pipeline-workflow';
import {
  LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN,
  type QueryProgress,
  queryPollSeconds,
  singleQueryInput,
  singleQueryWorkflow,
  taskStateNames,
  waitStateNames,
} from '../../functions/core/workflows';
import { LOCAL_RUNNER_ARN } from '../../functions/local/step-functions';

const workflow = singleQueryWorkflow({
  runnerResource: LOCAL_RUNNER_ARN,
  slotWaitSeconds: 1800,
});

describe('the single-query workflow (generated ASL)', () => {
  it('is valid ASL, JSONPath only, with a timeout on every Task and short state names', () => {
    const result = aslValidator(workflow, { checkPaths: true, checkArn: true });
    expect(result.isValid, result.errorsText()).toBe(true);
    const text = JSON.stringify(workflow);
    expect(text).not.toMatch(/JSONata|"Arguments"|"Assign"|"Output"/);
    for (const name of taskStateNames(workflow)) {
      expect(workflow.States[name]?.TimeoutSeconds, name).toBeGreaterThan(0);
    }
    expect(Object.keys(workflow.States).every((name) => name.length <= 80)).toBe(true);
    expect(taskStateNames(workflow)).toEqual(['AcquireSlot', 'StartQuery', 'CheckQuery', 'RecordFailure']);
    // No polling for a slot: AcquireSlot parks on its task token until the slot gate answers.
    expect(waitStateNames(workflow)).toEqual(['WaitForQuery']);
    expect(workflow.States.AcquireSlot).toMatchObject({
      Resource: LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN,
      Parameters: {
        FunctionName: LOCAL_RUNNER_ARN,
        Payload: {
          action: 'acquire_slot',
          'execution_id.$': '$.execution_id',
          'task_token.$': '$$.Task.Token',
        },
      },
      ResultPath: '$.slot',
      TimeoutSeconds: 1800,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'RecordFailure' }],
    });
    // No Task waits on a running query: every runner call is short, the Wait state polls.
    for (const name of taskStateNames(workflow).filter((n) => n !== 'AcquireSlot')) {
      expect(workflow.States[name]?.TimeoutSeconds, name).toBeLessThanOrEqual(300);
    }
  });

  it('carries ids, not data, in its payloads', () => {
    expect(JSON.stringify(singleQueryInput('01HKZJ2683PHF9Q9PHHQ8FW4Q1')).length).toBeLessThan(200);
  });

  /** Runs the definition on aws-local-stepfunctions with scripted runner answers. */
  async function run(answers: (input: Record<string, unknown>) => unknown) {
    const calls: string[] = [];
    const handler = async (input: unknown) => {
      // AcquireSlot is a lambda:invoke Task: locally its handler gets {FunctionName, Payload}.
      const typed = pipelineRunnerInput(input) as unknown as Record<string, unknown>;
      calls.push(String(typed.action));
      if (typed.action === 'acquire_slot') expect(typed.task_token).toBe('local');
      return answers(typed);
    };
    const machine = new StateMachine(workflow as never);
    const execution = machine.run(singleQueryInput('01HKZJ2683PHF9Q9PHHQ8FW4Q1') as never, {
      overrides: {
        taskResourceLocalHandlers: Object.fromEntries(
          taskStateNames(workflow).map((name) => [name, handler]),
        ) as never,
        waitTimeOverrides: { WaitForQuery: 1 },
        retryIntervalOverrides: { AcquireSlot: 1, StartQuery: 1, CheckQuery: 1, RecordFailure: 1 },
      },
      context: LOCAL_TASK_CONTEXT as never,
    });
    await execution.result;
    return calls;
  }

  /** The runner's answer to StartQuery / CheckQuery. */
  const progress = (status: 'running' | 'finished', polls: number): QueryProgress => ({
    status,
    polls,
    wait_seconds: queryPollSeconds(polls),
  });

  it('takes a slot once (the gate answers when one is free), submits once, then polls the status until the run ends', async () => {
    const checks: unknown[] = [];
    const calls = await run((input) => {
      if (input.action === 'acquire_slot') return { status: 'acquired', attempts: 1 };
      if (input.action === 'submit_query') return progress('running', 0);
      checks.push(input.polls);
      const polls = Number(input.polls) + 1;
      return progress(polls < 4 ? 'running' : 'finished', polls);
    });
    expect(calls).toEqual([
      'acquire_slot',
      'submit_query',
      'check_query',
      'check_query',
      'check_query',
      'check_query',
    ]);
    // Each check carries the count of the previous ones (the runner's poll backoff).
    expect(checks).toEqual([0, 1, 2, 3]);
  });

  it('goes straight to polling when AcquireSlot got a slot at once and submitted the query itself', async () => {
    const calls = await run((input) => {
      if (input.action === 'acquire_slot')
        return { status: 'running', attempts: 1, polls: 0, wait_seconds: 1 };
      const polls = Number(input.polls) + 1;
      return progress(polls < 2 ? 'running' : 'finished', polls);
    });
    expect(calls).toEqual(['acquire_slot', 'check_query', 'check_query']);
  });

  it('ends without polling when the submit already settled the execution (refused or cancelled)', async () => {
    const calls = await run((input) =>
      input.action === 'acquire_slot' ? { status: 'acquired', attempts: 1 } : progress('finished', 0),
    );
    expect(calls).toEqual(['acquire_slot', 'submit_query']);
  });

  it('waits between status reads as the runner says: 1 s at first, doubling every 3 reads, at most 10 s', () => {
    expect([0, 1, 2, 3, 5, 6, 9, 12, 100].map(queryPollSeconds)).toEqual([1, 1, 1, 2, 2, 4, 8, 10, 10]);
    expect(workflow.States.WaitForQuery).toMatchObject({ Type: 'Wait', SecondsPath: '$.run.wait_seconds' });
  });

  it('stops without running when the execution ended while queued', async () => {
    expect(await run(() => ({ status: 'finished', attempts: 1 }))).toEqual(['acquire_slot']);
  });

  it('retries transient engine errors and records a failure when the run crashes', async () => {
    let runs = 0;
    const calls = await run((input) => {
      if (input.action === 'acquire_slot') return { status: 'acquired', attempts: 1 };
      if (input.action === 'submit_query') return progress('running', 0);
      if (input.action === 'check_query') {
        runs++;
        const error = new Error(runs < 3 ? 'busy' : 'boom');
        error.name = runs < 3 ? 'Engine.Unavailable' : 'RuntimeError';
        throw error;
      }
      expect(input).toMatchObject({ error: 'RuntimeError', cause: 'boom' });
      return {};
    });
    expect(calls).toEqual([
      'acquire_slot',
      'submit_query',
      'check_query',
      'check_query',
      'check_query',
      'record_failure',
    ]);
  });
});
