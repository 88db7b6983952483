import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

// Headless Chromium for the console's tests: Debian's package, driven by Playwright's library. The
// set-up installs it when the machine lacks it (CI included), so `npm test` needs nothing else.

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

function findChromium(): string | undefined {
  return CANDIDATES.find((path): path is string => path !== undefined && path !== '' && existsSync(path));
}

/** The path of a Chromium, installed with apt-get when missing. */
function ensureChromium(): string {
  const found = findChromium();
  if (found) return found;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = ['apt-get', 'install', '-y', '--no-install-recommends', 'chromium'];
  const run = (args: string[]) =>
    execFileSync(root ? args[0]! : 'sudo', root ? args.slice(1) : ['-n', ...args], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 300_000,
    });
  try {
    try {
      run(apt);
    } catch {
      // A fresh machine may have no package lists yet.
      run(['apt-get', 'update']);
      run(apt);
    }
  } catch (error) {
    throw new Error(
      `Chromium is needed for the console's browser tests and could not be installed (${String(error)}). Install the Debian package "chromium", or set CHROMIUM_PATH.`,
    );
  }
  const installed = findChromium();
  if (!installed) throw new Error('apt-get installed chromium, but no chromium binary was found; set CHROMIUM_PATH');
  return installed;
}

/**
 * One Chromium for the test file, launched before its tests (installing it may take minutes) and
 * closed after them; call the returned function inside a test or hook for the browser.
 */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: ensureChromium(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not launched yet: call it inside a test or a beforeEach hook');
    return browser;
  };
}
