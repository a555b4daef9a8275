import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { synthServiceStack } from './helpers';

/** Every acknowledged cdk-nag rule in the tree: construct path, rule id, reason. */
function acknowledgements(root: IConstruct): { path: string; id: string; reason: unknown }[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, unknown>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

describe('cdk-nag AwsSolutions on the whole service stack', () => {
  const { stack } = synthServiceStack();
  const report = new AwsSolutionsChecks().validateScope(stack);

  it('reports no unacknowledged error (and no warning)', () => {
    const findings = report.violations.map(
      (v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });

  it('gives every acknowledgement a one-line reason, and acknowledges no rule wholesale that has findings', () => {
    const acknowledged = acknowledgements(stack);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { path, id, reason } of acknowledged) {
      const text = typeof reason === 'object' && reason ? (reason as { reason?: string }).reason : reason;
      expect(typeof text, `${path} ${id}`).toBe('string');
      expect(String(text).length, `${path} ${id}`).toBeGreaterThan(20);
      expect(String(text), `${path} ${id}`).not.toContain('\n');
      // Wildcard IAM findings are acknowledged one resource at a time, except X-Ray's and
      // log delivery's `*` (no resource-level permissions exist for them).
      if (id.startsWith('AwsSolutions-IAM5')) expect(id, path).toMatch(/^AwsSolutions-IAM5\[Resource::/);
    }
  });
});
