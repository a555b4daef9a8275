import aslValidator from 'asl-validator';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import {
  singleQueryInput,
  singleQueryWorkflow,
  taskStateNames,
  waitStateNames,
} from '../../functions/core/workflows';
import { LOCAL_RUNNER_ARN } from '../../functions/local/step-functions';

const workflow = singleQueryWorkflow({
  runnerResource: LOCAL_RUNNER_ARN,
  queryTimeoutSeconds: 30,
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
    expect(taskStateNames(workflow)).toEqual(['AcquireSlot', 'RunQuery', 'RecordFailure']);
    expect(waitStateNames(workflow)).toEqual(['WaitForSlot']);
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
        waitTimeOverrides: { WaitForSlot: 1 },
        retryIntervalOverrides: { AcquireSlot: 1, RunQuery: 1, RecordFailure: 1 },
      },
    });
    await execution.result;
    return calls;
  }

  it('polls for a slot until one is free, then runs the query once', async () => {
    let polls = 0;
    const calls = await run((input) =>
      input.action === 'acquire_slot'
        ? { status: ++polls < 3 ? 'waiting' : 'acquired', attempts: polls }
        : { state: 'ok' },
    );
    expect(calls).toEqual(['acquire_slot', 'acquire_slot', 'acquire_slot', 'run_query']);
  });

  it('stops without running when the execution ended while queued', async () => {
    expect(await run(() => ({ status: 'finished', attempts: 1 }))).toEqual(['acquire_slot']);
  });

  it('retries transient engine errors and records a failure when the run crashes', async () => {
    let runs = 0;
    const calls = await run((input) => {
      if (input.action === 'acquire_slot') return { status: 'acquired', attempts: 1 };
      if (input.action === 'run_query') {
        runs++;
        const error = new Error(runs < 3 ? 'busy' : 'boom');
        error.name = runs < 3 ? 'Engine.Unavailable' : 'RuntimeError';
        throw error;
      }
      expect(input).toMatchObject({ error: 'RuntimeError', cause: 'boom' });
      return {};
    });
    expect(calls).toEqual(['acquire_slot', 'run_query', 'run_query', 'run_query', 'record_failure']);
  });
});
