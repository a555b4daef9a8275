import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'functions/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // 2-core machines: DuckDB and dynalite work in-process, so keep parallelism modest.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
    globalSetup: ['test/support/ensure-chromium.ts', 'test/support/global-setup.ts'],
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_DEV: 'false' },
  },
});
