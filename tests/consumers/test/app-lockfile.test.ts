import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutLockfile, LayoutConflict } from '../src/app-lockfile';

// The rules of the cut on a small repository lockfile; the other files install real apps from it.
const repository = {
  packages: {
    '': { name: 'repo', workspaces: ['packages/*', 'tests/old'] },
    'packages/core': { name: '@mailroom/core', version: '0.1.0', dependencies: { jose: '^6' }, devDependencies: { vitest: '^4' } },
    'packages/testing': { name: '@mailroom/testing', version: '0.1.0', dependencies: { '@mailroom/core': '0.1.0' } },
    'node_modules/@mailroom/core': { resolved: 'packages/core', link: true },
    'node_modules/@mailroom/testing': { resolved: 'packages/testing', link: true },
    'node_modules/jose': { version: '6.1.0', integrity: 'sha512-jose', dev: true },
    'node_modules/vitest': { version: '4.0.0', integrity: 'sha512-vitest', dev: true },
    // A framework with a nested copy of `lib`, a hoisted helper, an optional peer and a required peer.
    'node_modules/framework': {
      version: '2.0.0',
      integrity: 'sha512-framework',
      dev: true,
      dependencies: { lib: '^2', helper: '^1' },
      peerDependencies: { react: '*', next: '*' },
      peerDependenciesMeta: { next: { optional: true } },
    },
    'node_modules/framework/node_modules/lib': { version: '2.0.0', integrity: 'sha512-lib2', dev: true },
    'node_modules/lib': { version: '1.0.0', integrity: 'sha512-lib1', dev: true },
    'node_modules/helper': { version: '1.0.0', integrity: 'sha512-helper', dev: true, dependencies: { 'wrap-cjs': '^7' } },
    'node_modules/wrap-cjs': { name: 'wrap', version: '7.0.0', integrity: 'sha512-wrap', dev: true },
    'node_modules/react': { version: '19.0.0', integrity: 'sha512-react', dev: true },
    'node_modules/next': { version: '16.0.0', integrity: 'sha512-next', dev: true },
    'node_modules/@scope/tool': { version: '3.0.0', integrity: 'sha512-tool', dev: true, dependencies: { lib: '^1' } },
    // A workspace's own older copy of the framework, needing the older helper it keeps beside it.
    'tests/old': { name: 'old', devDependencies: { framework: '^1' } },
    'tests/old/node_modules/framework': { version: '1.0.0', integrity: 'sha512-old', dev: true, dependencies: { helper: '^0.9' } },
    'tests/old/node_modules/helper': { version: '0.9.0', integrity: 'sha512-oldhelper', dev: true },
  },
};

let dir: string;
let coreTarball: string;
let testingTarball: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailroom-lockfile-'));
  coreTarball = join(dir, 'mailroom-core-0.1.0.tgz');
  testingTarball = join(dir, 'mailroom-testing-0.1.0.tgz');
  await writeFile(coreTarball, 'core bytes');
  await writeFile(testingTarball, 'testing bytes');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const app = () => join(dir, 'app');
const core = () => ({ name: '@mailroom/core', workspace: 'packages/core', tarball: coreTarball });
const testing = () => ({ name: '@mailroom/testing', workspace: 'packages/testing', tarball: testingTarball });

describe('cutLockfile', () => {
  it('keeps the layout, versions and integrity of what the dependencies reach, and nothing else', async () => {
    const lock = await cutLockfile(repository, app(), 'app', { locked: [['framework', 'node_modules/framework']], packed: [] });
    expect(Object.keys(lock.packages).sort()).toEqual([
      '',
      'node_modules/framework',
      'node_modules/framework/node_modules/lib',
      'node_modules/helper',
      'node_modules/react',
      'node_modules/wrap-cjs',
    ]);
    expect(lock.packages['']).toEqual({ name: 'app', dependencies: { framework: '2.0.0' } });
    expect(lock.packages['node_modules/framework/node_modules/lib']).toMatchObject({ version: '2.0.0', integrity: 'sha512-lib2' });
    // In the app nothing is a dev dependency, and every package has its download address.
    expect(lock.packages['node_modules/react']).toEqual({
      version: '19.0.0',
      integrity: 'sha512-react',
      resolved: 'https://registry.npmjs.org/react/-/react-19.0.0.tgz',
    });
    // An alias keeps its package's name, and its address is that package's.
    expect(lock.packages['node_modules/wrap-cjs']).toMatchObject({
      name: 'wrap',
      resolved: 'https://registry.npmjs.org/wrap/-/wrap-7.0.0.tgz',
    });
  });

  it('gives scoped packages their registry address', async () => {
    const lock = await cutLockfile(repository, app(), 'app', { locked: [['@scope/tool', 'node_modules/@scope/tool']], packed: [] });
    expect(lock.packages['node_modules/@scope/tool']!.resolved).toBe('https://registry.npmjs.org/@scope/tool/-/tool-3.0.0.tgz');
    expect(lock.packages['node_modules/lib']!.version).toBe('1.0.0');
  });

  it('puts the packed tarballs where the repository links its packages, with their integrity', async () => {
    const lock = await cutLockfile(repository, app(), 'app', { locked: [], packed: [core(), testing()] });
    const integrity = (text: string) => `sha512-${createHash('sha512').update(text).digest('base64')}`;
    expect(lock.packages['node_modules/@mailroom/core']).toEqual({
      version: '0.1.0',
      dependencies: { jose: '^6' },
      resolved: 'file:../mailroom-core-0.1.0.tgz',
      integrity: integrity('core bytes'),
    });
    expect(lock.packages['node_modules/@mailroom/testing']!.integrity).toBe(integrity('testing bytes'));
    expect(lock.packages['']!.dependencies).toEqual({
      '@mailroom/core': 'file:../mailroom-core-0.1.0.tgz',
      '@mailroom/testing': 'file:../mailroom-testing-0.1.0.tgz',
    });
    // A workspace's dev dependencies are not the package's.
    expect(lock.packages['node_modules/vitest']).toBeUndefined();
  });

  it('refuses a repository package reached without its tarball', async () => {
    await expect(cutLockfile(repository, app(), 'app', { locked: [], packed: [testing()] })).rejects.toThrow(
      new LayoutConflict("node_modules/@mailroom/core is one of the repository's packages, and no tarball of it was packed"),
    );
  });

  it("moves a workspace's copy, and the copies it needs beside it, to the top", async () => {
    const lock = await cutLockfile(repository, app(), 'app', {
      locked: [
        ['framework', 'tests/old/node_modules/framework'],
        ['@scope/tool', 'node_modules/@scope/tool'],
      ],
      packed: [],
    });
    expect(lock.packages['node_modules/framework']!.version).toBe('1.0.0');
    expect(lock.packages['node_modules/helper']!.version).toBe('0.9.0');
    expect(lock.packages['node_modules/lib']!.version).toBe('1.0.0');
    expect(lock.packages['']!.dependencies).toEqual({ framework: '1.0.0', '@scope/tool': '3.0.0' });
  });

  it('nests a copy under the package that needs it when its place holds another copy', async () => {
    const lock = await cutLockfile(
      {
        packages: {
          ...repository.packages,
          'tests/old/node_modules/legacy': { version: '0.5.0', integrity: 'sha512-legacy', dependencies: { helper: '^0.9' } },
        },
      },
      app(),
      'app',
      {
        locked: [
          ['framework', 'node_modules/framework'],
          ['legacy', 'tests/old/node_modules/legacy'],
        ],
        packed: [],
      },
    );
    expect(lock.packages['node_modules/helper']!.version).toBe('1.0.0');
    expect(lock.packages['node_modules/legacy/node_modules/helper']!.version).toBe('0.9.0');
  });

  it("meets a peer with the app's own copy, and installs an optional peer only when something else brings it", async () => {
    const lock = await cutLockfile(
      { packages: { ...repository.packages, 'tests/old/node_modules/react': { version: '18.0.0', integrity: 'sha512-react18' } } },
      app(),
      'app',
      {
        locked: [
          ['framework', 'node_modules/framework'],
          ['react', 'tests/old/node_modules/react'],
        ],
        packed: [],
      },
    );
    expect(lock.packages['node_modules/react']!.version).toBe('18.0.0');
    expect(Object.keys(lock.packages).filter((key) => key.endsWith('/react') || key.endsWith('/next'))).toEqual(['node_modules/react']);
  });

  it('refuses a dependency the repository does not have', async () => {
    const { 'node_modules/react': _react, ...packages } = repository.packages;
    const broken = { packages };
    await expect(cutLockfile(broken, app(), 'app', { locked: [['framework', 'node_modules/framework']], packed: [] })).rejects.toThrow(
      LayoutConflict,
    );
  });
});
