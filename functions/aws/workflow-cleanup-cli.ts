/**
 * npm run cleanup-workflows -- --prefix <StateMachinePrefix output> [--dry-run] [--region us-east-1]
 *
 * Deletes the state machines the deployed stack generated at run time; run it after (or before)
 * `cdk destroy`. Uses the default AWS credential chain (needs states:ListStateMachines and
 * states:DeleteStateMachine).
 */
import { parseArgs } from 'node:util';
import { SFNClient } from '@aws-sdk/client-sfn';
import { deleteGeneratedWorkflows } from './workflow-cleanup';

const { values } = parseArgs({
  options: {
    prefix: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    region: { type: 'string' },
  },
});

if (!values.prefix) {
  console.error(
    'Usage: npm run cleanup-workflows -- --prefix <StateMachinePrefix output> [--dry-run] [--region …]',
  );
  process.exit(2);
}

const deleted = await deleteGeneratedWorkflows(
  new SFNClient(values.region ? { region: values.region } : {}),
  {
    prefix: values.prefix,
    dryRun: values['dry-run'],
    log: (line) => console.log(line),
  },
);
console.log(
  `${values['dry-run'] ? 'Would delete' : 'Deleted'} ${deleted.length} state machines named ${values.prefix}-*`,
);
