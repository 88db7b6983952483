import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// The frameworks' production builds, kept between runs by what goes into them. A build is made in a
// folder named by the hash of its inputs (the app's files, the suite's sources it bundles, the
// lockfile's versions, Mailroom's built packages, Node's version), so changing any of them builds
// again; an unchanged app is served from the build the last run made. Two files asking for the same
// build at once share one: the first claims its folder, the other waits for it.

/** Folders no input walk enters: installed packages, caches and what the builds write. */
const SKIPPED = new Set([
  'node_modules',
  '.git',
  '.turbo',
  '.cache',
  'dist',
  'build',
  '.output',
  '.nuxt',
  '.vinxi',
  '.svelte-kit',
  '.astro',
]);

/** Written last into a finished build's folder; the pid of a build under way is written first. */
const BUILT = '.built';
const BUILDER = '.builder';

/** How long a build may take before a waiting file gives up on it (the slowest, Nuxt's, takes ~15 s alone). */
const WAIT_MS = 600_000;
/** Builds of other inputs, and old copies, are removed once this old: a run still using one has long finished. */
const STALE_MS = 3_600_000;

async function filesUnder(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const nested = await Promise.all(
    entries
      .filter((entry) => !(entry.isDirectory() && SKIPPED.has(entry.name)))
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((entry) => filesUnder(join(path, entry.name))),
  );
  return nested.flat();
}

/** The hash of every file under `inputs` (names and contents) and of `extra`. */
export async function inputsHash(root: string, inputs: readonly string[], extra: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const value of extra) hash.update(`${value}\0`);
  for (const input of inputs) {
    for (const file of await filesUnder(input)) {
      hash.update(`${relative(root, file)}\0`);
      hash.update(await readFile(file));
      hash.update('\0');
    }
  }
  return hash.digest('hex').slice(0, 20);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Removes the folders in `dir` that `keep` does not name and that nothing has changed for {@link STALE_MS}. */
export async function removeUnused(dir: string, keep: (entry: string) => boolean = () => false): Promise<void> {
  for (const entry of await readdir(dir)) {
    if (keep(entry)) continue;
    const folder = join(dir, entry);
    // Another file may be removing the same folder.
    const info = await stat(folder).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > STALE_MS) await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The folder of `name`'s build for these inputs: made by `build` (given the empty folder) when no run
 * made it before, else the one made then. A build that fails leaves nothing behind, and one whose
 * process died is made again.
 */
export async function cachedBuild(cache: string, name: string, key: string, build: (folder: string) => Promise<void>): Promise<string> {
  await mkdir(cache, { recursive: true });
  const entry = `${name}-${key}`;
  const folder = join(cache, entry);
  // Only this app's builds of other inputs: another app's may be in use.
  await removeUnused(cache, (other) => !other.startsWith(`${name}-`) || other === entry);
  for (const started = Date.now(); Date.now() - started < WAIT_MS; ) {
    try {
      await mkdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if ((await readText(join(folder, BUILT))) !== undefined) return folder;
      const builder = Number(await readText(join(folder, BUILDER)));
      // A folder without a live builder is a build whose process died (or one just claimed: the
      // builder's pid is written right after the claim, so it is given a moment).
      if (Number.isInteger(builder) && builder > 0 ? !alive(builder) : Date.now() - started > 5_000) {
        await rm(folder, { recursive: true, force: true });
      } else {
        await sleep(200);
      }
      continue;
    }
    try {
      await writeFile(join(folder, BUILDER), String(process.pid));
      await build(folder);
      await writeFile(join(folder, BUILT), new Date().toISOString());
      return folder;
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
  }
  throw new Error(`the build ${entry} in ${cache} did not finish within ${WAIT_MS / 1000} s (another test file is making it)`);
}
