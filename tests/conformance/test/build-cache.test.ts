import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedBuild, inputsHash } from '../src/targets/build-cache';

// The production builds' cache: what the conformance files serve when an app's inputs are unchanged.
describe('the production builds kept between runs', () => {
  let dir: string;
  let cache: string;
  let builds: number;
  const build = async (folder: string) => {
    builds += 1;
    await writeFile(join(folder, 'server.js'), `export const build = ${builds};\n`);
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-build-cache-'));
    cache = join(dir, 'cache');
    builds = 0;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('builds once for the same inputs, and again when a file, a name or a value changes', async () => {
    const app = join(dir, 'app');
    await mkdir(join(app, 'node_modules', 'x'), { recursive: true });
    await writeFile(join(app, 'route.js'), 'one');
    const key = await inputsHash(dir, [app], ['v20']);
    const first = await cachedBuild(cache, 'app-default', key, build);
    expect(await cachedBuild(cache, 'app-default', key, build)).toBe(first);
    expect(builds).toBe(1);
    expect(await readFile(join(first, 'server.js'), 'utf8')).toContain('build = 1');

    // What the walk skips (installed packages, build output) is no input.
    await writeFile(join(app, 'node_modules', 'x', 'index.js'), 'changed');
    expect(await inputsHash(dir, [app], ['v20'])).toBe(key);
    await writeFile(join(app, 'route.js'), 'two');
    const changed = await inputsHash(dir, [app], ['v20']);
    expect(changed).not.toBe(key);
    await writeFile(join(app, 'route.js'), 'one');
    await writeFile(join(app, 'other.js'), '');
    expect(await inputsHash(dir, [app], ['v20'])).not.toBe(key);
    await rm(join(app, 'other.js'));
    expect(await inputsHash(dir, [app], ['v22'])).not.toBe(key);

    const rebuilt = await cachedBuild(cache, 'app-default', changed, build);
    expect(rebuilt).not.toBe(first);
    expect(builds).toBe(2);
  });

  it('shares one build between callers asking at once', async () => {
    const folders = await Promise.all([1, 2, 3].map(() => cachedBuild(cache, 'app-default', 'k1', build)));
    expect(new Set(folders).size).toBe(1);
    expect(builds).toBe(1);
  });

  it('leaves nothing behind when a build fails, so the next run builds again', async () => {
    const failing = async (folder: string) => {
      await writeFile(join(folder, 'half.js'), '');
      throw new Error('vite build failed');
    };
    await expect(cachedBuild(cache, 'app-default', 'k1', failing)).rejects.toThrow('vite build failed');
    expect(await readdir(cache)).toEqual([]);
    await cachedBuild(cache, 'app-default', 'k1', build);
    expect(builds).toBe(1);
  });

  it('builds again over a build whose process died before it finished', async () => {
    const folder = join(cache, 'app-default-k1');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'half.js'), '');
    // A pid no process has: the maximum on Linux is 2^22.
    await writeFile(join(folder, '.builder'), String(2 ** 22 + 1));
    expect(await cachedBuild(cache, 'app-default', 'k1', build)).toBe(folder);
    expect(builds).toBe(1);
    expect(await readdir(folder)).not.toContain('half.js');
  });

  it("removes the app's builds of other inputs once no run has used them for an hour, and only those", async () => {
    for (const entry of ['app-default-old', 'app-default-recent', 'app-variant-old']) await mkdir(join(cache, entry), { recursive: true });
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await utimes(join(cache, 'app-default-old'), hoursAgo, hoursAgo);
    await utimes(join(cache, 'app-variant-old'), hoursAgo, hoursAgo);
    await cachedBuild(cache, 'app-default', 'k1', build);
    expect((await readdir(cache)).sort()).toEqual(['app-default-k1', 'app-default-recent', 'app-variant-old']);
  });
});
