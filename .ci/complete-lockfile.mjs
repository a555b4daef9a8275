#!/usr/bin/env node
// The package registry these machines reach serves only the Linux builds of packages that ship
// native binaries per platform (biome, DuckDB). npm then leaves the other platforms' optional
// packages out of package-lock.json, and `npm ci` refuses the lock as "out of sync". This adds
// those entries back, marked optional and limited to their os/cpu, so `npm ci` skips them without
// fetching. Run it after any `npm install` that changes the lock: node .ci/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORM =
  /(darwin|linux|win32|android|freebsd|openbsd|sunos|aix)-(x64|arm64|arm|ia32|ppc64|s390x|riscv64)(-(musl|gnu|msvc))?$/;
const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const entry of Object.values(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${name}`;
    const match = PLATFORM.exec(name);
    if (lock.packages[target] || !match) continue;
    lock.packages[target] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [match[1]],
      cpu: [match[2]],
      ...(match[4] === 'musl' ? { libc: ['musl'] } : match[1] === 'linux' ? { libc: ['glibc'] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
