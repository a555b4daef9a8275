import aslValidator from 'asl-validator';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import {
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
  slotPollSeconds: 2,
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
    expect(waitStateNames(workflow)).toEqual(['WaitForSlot', 'WaitForQuery']);
    // No Task waits on a running query: every runner call is short, the Wait state polls.
    for (const name of taskStateNames(workflow)) {
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
      const typed = input as Record<string, unknown>;
      calls.push(String(typed.action));
      return answers(typed);
    };
    const machine = new StateMachine(workflow as never);
    const execution = machine.run(singleQueryInput('01HKZJ2683PHF9Q9PHHQ8FW4Q1') as never, {
      overrides: {
        taskResourceLocalHandlers: Object.fromEntries(
          taskStateNames(workflow).map((name) => [name, handler]),
        ) as never,
        waitTimeOverrides: { WaitForSlot: 1, WaitForQuery: 1 },
        retryIntervalOverrides: { AcquireSlot: 1, StartQuery: 1, CheckQuery: 1, RecordFailure: 1 },
      },
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

  it('polls for a slot until one is free, submits once, then polls the status until the run ends', async () => {
    let slotPolls = 0;
    const checks: unknown[] = [];
    const calls = await run((input) => {
      if (input.action === 'acquire_slot')
        return { status: ++slotPolls < 3 ? 'waiting' : 'acquired', attempts: slotPolls };
      if (input.action === 'submit_query') return progress('running', 0);
      checks.push(input.polls);
      const polls = Number(input.polls) + 1;
      return progress(polls < 4 ? 'running' : 'finished', polls);
    });
    expect(calls).toEqual([
      'acquire_slot',
      'acquire_slot',
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
