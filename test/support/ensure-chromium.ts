import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * The end-to-end tests drive Debian's Chromium (playwright-core never downloads a browser here).
 * `npm test` must pass on a fresh machine with no other set-up, so when the browser is missing this
 * installs it where it can (root with apt-get, as on CI machines: about 30 s, once); anywhere else
 * the run stops at once with the one command that fixes it — never a silent skip.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_INSTALL_COMMAND = 'sudo apt-get update && sudo apt-get install -y chromium';

export interface BrowserProvisioning {
  browserPath: string;
  canInstall: boolean;
  install(): void;
}

export function ensureChromium(provisioning: BrowserProvisioning): 'present' | 'installed' {
  if (existsSync(provisioning.browserPath)) return 'present';
  const fix = `Run: ${CHROMIUM_INSTALL_COMMAND}`;
  if (!provisioning.canInstall) {
    throw new Error(
      `${provisioning.browserPath} is missing; the browser tests need Debian's Chromium. ${fix}`,
    );
  }
  console.log(`${provisioning.browserPath} is missing: installing Debian's chromium (about 30 s, once)`);
  try {
    provisioning.install();
  } catch (error) {
    throw new Error(`Installing chromium failed (${(error as Error).message}). ${fix}`);
  }
  if (!existsSync(provisioning.browserPath)) {
    throw new Error(`chromium was installed but ${provisioning.browserPath} is still missing. ${fix}`);
  }
  return 'installed';
}

function aptInstallChromium(): void {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
}

/** vitest global setup. Unit-only runs (SKIP_WAREHOUSE=1) start no browser and skip the check. */
export function setup() {
  if (process.env.SKIP_WAREHOUSE === '1') return;
  ensureChromium({
    browserPath: CHROMIUM_PATH,
    canInstall: process.getuid?.() === 0 && existsSync('/usr/bin/apt-get'),
    install: aptInstallChromium,
  });
}

/**
 * Debian's Chromium, headless, on a new empty profile that launch() removes on close. Background
 * networking and updates are off: this machine's closed network refuses them, many at a time.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    timeout: 15_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
