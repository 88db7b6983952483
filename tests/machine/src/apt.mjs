import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// Servers and browsers the suites run for real (Redis, Postgres, Chromium) come from Debian's
// packages: installed by the suite's set-up when the machine lacks them, CI included, so `npm test`
// needs nothing installed beforehand. Plain JavaScript: the bench (node, no TypeScript) uses it too.

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Installs a Debian package with apt-get (through `sudo -n` when not root), updating the package
 * lists first when a fresh machine has none. Throws a message saying what to install by hand.
 *
 * @param {string} pkg
 * @param {string} neededFor
 * @param {number} [timeoutMs]
 */
export function aptInstall(pkg, neededFor, timeoutMs = 600_000) {
  /** @param {string[]} args */
  const run = (args) =>
    execFileSync(isRoot ? args[0] : 'sudo', isRoot ? args.slice(1) : ['-n', ...args], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: timeoutMs,
    });
  const install = ['apt-get', 'install', '-y', '--no-install-recommends', pkg];
  try {
    try {
      run(install);
    } catch {
      // A fresh machine may have no package lists yet.
      run(['apt-get', 'update']);
      run(install);
    }
  } catch (error) {
    throw new Error(`the Debian package "${pkg}" is needed for ${neededFor} and could not be installed (${String(error)}); install it`);
  }
}

/** Where a Chromium is on this machine (`CHROMIUM_PATH` first), or undefined. */
export function findChromium() {
  return [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(
    (path) => path !== undefined && path !== '' && existsSync(path),
  );
}

/**
 * The path of a Chromium, Debian's package installed with apt-get when the machine has none.
 *
 * @param {string} neededFor
 */
export function ensureChromium(neededFor) {
  const found = findChromium();
  if (found) return found;
  try {
    aptInstall('chromium', neededFor, 300_000);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}, or set CHROMIUM_PATH.`);
  }
  const installed = findChromium();
  if (!installed) throw new Error('apt-get installed chromium, but no chromium binary was found; set CHROMIUM_PATH');
  return installed;
}
