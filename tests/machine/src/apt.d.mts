/** Installs a Debian package with apt-get, updating the package lists first on a fresh machine. */
export function aptInstall(pkg: string, neededFor: string, timeoutMs?: number): void;
/** Where a Chromium is on this machine (`CHROMIUM_PATH` first), or undefined. */
export function findChromium(): string | undefined;
/** The path of a Chromium, Debian's package installed with apt-get when the machine has none. */
export function ensureChromium(neededFor: string): string;
