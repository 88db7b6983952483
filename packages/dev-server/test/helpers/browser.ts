import { aptInstall } from '@mailroom/test-machine';
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
  try {
    aptInstall('chromium', "the console's browser tests", 300_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}, or set CHROMIUM_PATH.`);
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
