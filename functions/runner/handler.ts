import type { RunnerInput } from '../core/workflows';
import { getServices } from '../services';
import { createNodeRunner } from './node-runner';

/**
 * The node-runner Lambda: Step Functions Task states invoke it with `{action, execution_id, ...}`
 * (ids only) and it does the step, exactly as the local host's Task bindings do.
 */
export async function handler(event: RunnerInput): Promise<unknown> {
  const services = await getServices();
  return createNodeRunner(services)(event);
}
