import { DeleteStateMachineCommand, paginateListStateMachines, type SFNClient } from '@aws-sdk/client-sfn';

/**
 * Deletes the state machines a stack generated at run time (`<prefix>-<hash>`, see
 * StepFunctionsOrchestrator): they are not stack resources, so `cdk destroy` leaves them. Step
 * Functions deletes a machine with running executions once they end (docs/aws.md).
 */
export async function deleteGeneratedWorkflows(
  sfn: SFNClient,
  options: { prefix: string; dryRun?: boolean; log?: (line: string) => void },
): Promise<string[]> {
  if (!/^[A-Za-z0-9_-]+$/.test(options.prefix)) {
    throw new Error(
      `Not a state machine prefix: "${options.prefix}" (use the stack's StateMachinePrefix output).`,
    );
  }
  const machines: { name: string; arn: string }[] = [];
  for await (const page of paginateListStateMachines({ client: sfn }, {})) {
    for (const machine of page.stateMachines ?? []) {
      // `<prefix>-` exactly: another stack's prefix can start with this one's only before the `_wf`.
      if (machine.name?.startsWith(`${options.prefix}-`) && machine.stateMachineArn)
        machines.push({ name: machine.name, arn: machine.stateMachineArn });
    }
  }
  for (const machine of machines) {
    options.log?.(`${options.dryRun ? 'would delete' : 'deleting'} ${machine.name}`);
    if (!options.dryRun) await sfn.send(new DeleteStateMachineCommand({ stateMachineArn: machine.arn }));
  }
  return machines.map((machine) => machine.name);
}
