import { execFileSync } from 'node:child_process';

// Servers and browsers the suites run for real (Redis, Postgres, Chromium) come from Debian's
// packages: installed by the suite's set-up when the machine lacks them, CI included, so `npm test`
// needs nothing installed beforehand.

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Installs a Debian package with apt-get (through `sudo -n` when not root), updating the package
 * lists first when a fresh machine has none. Throws a message saying what to install by hand.
 */
export function aptInstall(pkg: string, neededFor: string, timeoutMs = 600_000): void {
  const run = (args: string[]) =>
    execFileSync(isRoot ? args[0]! : 'sudo', isRoot ? args.slice(1) : ['-n', ...args], {
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
