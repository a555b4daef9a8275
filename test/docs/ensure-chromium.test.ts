import { describe, expect, it } from 'vitest';
import { CHROMIUM_INSTALL_COMMAND, ensureChromium } from '../support/ensure-chromium';

describe('browser provisioning for npm test', () => {
  it('uses a browser that is already there', () => {
    expect(ensureChromium({ browserPath: process.execPath, canInstall: false, install: () => {} })).toBe(
      'present',
    );
  });

  it('fails loudly with the one command to run when it cannot install', () => {
    expect(() =>
      ensureChromium({ browserPath: '/nonexistent/chromium', canInstall: false, install: () => {} }),
    ).toThrow(`Run: ${CHROMIUM_INSTALL_COMMAND}`);
  });

  it('installs when it can, and says so when the install did not produce the browser', () => {
    let installs = 0;
    expect(() =>
      ensureChromium({
        browserPath: '/nonexistent/chromium',
        canInstall: true,
        install: () => void installs++,
      }),
    ).toThrow('still missing');
    expect(installs).toBe(1);
  });

  it('reports a failed install with the command to run by hand', () => {
    expect(() =>
      ensureChromium({
        browserPath: '/nonexistent/chromium',
        canInstall: true,
        install: () => {
          throw new Error('E: Unable to locate package chromium');
        },
      }),
    ).toThrow(/Unable to locate package chromium.*sudo apt-get/);
  });
});
