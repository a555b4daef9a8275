import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/** Small but complete sample data, built once per test run and copied into each test host. */
export const TEST_SCALE = 0.02;

let templateDir: string | undefined;

export async function setup(project: TestProject) {
  // Unit-only runs can skip building data: SKIP_WAREHOUSE=1 npx vitest run test/unit
  if (process.env.SKIP_WAREHOUSE === '1') return;
  const { ensureWarehouse } = await import('../../functions/local/warehouse');
  templateDir = await mkdtemp(join(tmpdir(), 'warehouse-template-'));
  await ensureWarehouse({ dataDir: templateDir, scale: TEST_SCALE });
  project.provide('warehouseTemplateDir', templateDir);
}

export async function teardown() {
  if (templateDir) await rm(templateDir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    warehouseTemplateDir: string;
  }
}
