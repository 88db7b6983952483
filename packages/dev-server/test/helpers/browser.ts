import { ensureChromium } from '@mailroom/test-machine';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

// Headless Chromium for the console's tests: Debian's package, driven by Playwright's library. The
// set-up installs it when the machine lacks it (CI included), so `npm test` needs nothing else.

/**
 * One Chromium for the test file, launched before its tests (installing it may take minutes) and
 * closed after them; call the returned function inside a test or hook for the browser.
 */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: ensureChromium("the console's browser tests"),
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not launched yet: call it inside a test or a beforeEach hook');
    return browser;
  };
}
