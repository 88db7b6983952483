import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/*
 * An app's package-lock.json cut from the repository's: the packages its dependencies reach, at the
 * versions and in the layout the repository's `npm ci` installed, plus the packed Mailroom tarballs.
 * With it, the app's `npm install` takes every package from the cache `npm ci` filled instead of
 * resolving each range again from package metadata.
 */

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

export interface Lockfile {
  name: string;
  lockfileVersion: 3;
  requires: true;
  packages: Record<string, LockEntry>;
}

/** A packed Mailroom package: its workspace folder in the repository and its tarball. */
interface PackedPackage {
  name: string;
  workspace: string;
  tarball: string;
}

/** What an app depends on: `[name, lockfile key]` for each locked package, the packed Mailroom packages. */
export interface LockedDependencies {
  locked: Array<[name: string, lockKey: string]>;
  packed: PackedPackage[];
}

/** Why a lockfile could not be cut: the app's packages do not fit one layout taken from the repository's. */
export class LayoutConflict extends Error {
  override name = 'LayoutConflict';
}

// An edge to follow from a package, and what it is. A peer is whatever copy the app provides where
// the package looks; a required peer the app lacks is installed, an optional one never is.
type Edge = [name: string, kind: 'required' | 'optional' | 'peer' | 'optional peer'];

function edgesOf(entry: LockEntry): Edge[] {
  const edges: Edge[] = [];
  for (const name of Object.keys(entry.dependencies ?? {})) edges.push([name, 'required']);
  for (const name of Object.keys(entry.optionalDependencies ?? {})) edges.push([name, 'optional']);
  for (const name of Object.keys(entry.peerDependencies ?? {})) {
    edges.push([name, entry.peerDependenciesMeta?.[name]?.optional ? 'optional peer' : 'peer']);
  }
  return edges;
}

/** Where Node finds `name` from the package at lockfile key `from`: its own node_modules, then each folder above. */
function resolveFrom(exists: (key: string) => boolean, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (exists(candidate)) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    // A hoisted package's parent is the root; a workspace folder (tests/conformance) looks in the root next.
    base = cut >= 0 ? base.slice(0, cut) : '';
  }
}

/** The folders a package at `key` looks in, nearest first: its own, then each one up to the root (''). */
function ancestorsOf(key: string): string[] {
  const folders = [key];
  for (let base = key; base; ) {
    const cut = base.lastIndexOf('/node_modules/');
    base = cut >= 0 ? base.slice(0, cut) : '';
    folders.push(base);
  }
  return folders;
}

/** How many folders up from `from` Node found `found`. */
function levelsUp(from: string, found: string): number {
  const home = found.slice(0, Math.max(0, found.lastIndexOf('node_modules/') - 1));
  return ancestorsOf(from).indexOf(home);
}

/**
 * The lockfile for an app named `name` with `dependencies`, cut from the repository's lockfile
 * `repository`. Throws {@link LayoutConflict} when that lockfile lacks a package the app needs, or two
 * copies would need the same place.
 */
export async function cutLockfile(
  repository: { packages: Record<string, LockEntry> },
  appDir: string,
  name: string,
  dependencies: LockedDependencies,
): Promise<Lockfile> {
  const source = repository.packages;
  const packedByWorkspace = new Map(dependencies.packed.map((entry) => [entry.workspace, entry]));
  const packedByName = new Map(dependencies.packed.map((entry) => [entry.name, entry]));
  const inSource = (key: string) => source[key] !== undefined;
  // The repository links its own packages; the app gets their tarballs.
  const sourceOf = (key: string, dependency: string): string => {
    if (!source[key]!.link) return key;
    const own = packedByName.get(dependency);
    if (!own) throw new LayoutConflict(`${key} is one of the repository's packages, and no tarball of it was packed`);
    return own.workspace;
  };
  const placed = new Map<string, string>(); // the app's key -> the repository's key it copies
  const queue: Array<[target: string, key: string]> = [];
  const place = (target: string, key: string): void => {
    placed.set(target, key);
    queue.push([target, key]);
  };
  for (const [dependency, key] of dependencies.locked) place(`node_modules/${dependency}`, key);
  for (const entry of dependencies.packed) place(`node_modules/${entry.name}`, entry.workspace);

  // Each package goes where the repository's layout puts it relative to the one that needs it: nested
  // under it when the repository nests it, else as many folders up as the repository has it. Where
  // that place holds another copy, it goes under the package that needs it, as npm would nest it.
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [target, key] = next;
    for (const [dependency, kind] of edgesOf(source[key]!)) {
      if (kind === 'optional peer') continue;
      const found = resolveFrom(inSource, key, dependency);
      if (!found) {
        if (kind !== 'optional') throw new LayoutConflict(`${key} needs ${dependency}, which the repository's lockfile lacks`);
        continue;
      }
      const wanted = sourceOf(found, dependency);
      const there = resolveFrom((candidate) => placed.has(candidate), target, dependency);
      if (there !== undefined && (placed.get(there) === wanted || kind === 'peer')) continue;
      const nested = `${target}/node_modules/${dependency}`;
      let candidate = found.startsWith(`${key}/node_modules/`) ? target + found.slice(key.length) : undefined;
      const up = levelsUp(key, found);
      if (candidate === undefined && there === undefined && up >= 0) {
        const folders = ancestorsOf(target);
        const base = folders[Math.min(up, folders.length - 1)];
        candidate = base ? `${base}/node_modules/${dependency}` : `node_modules/${dependency}`;
      }
      candidate ??= nested;
      if (placed.has(candidate)) throw new LayoutConflict(`${placed.get(candidate)} and ${wanted} would both be ${candidate}`);
      place(candidate, wanted);
    }
  }
  // Every edge must reach, in the app, a copy of what it reaches in the repository.
  for (const [target, key] of placed) {
    for (const [dependency, kind] of edgesOf(source[key]!)) {
      const found = resolveFrom(inSource, key, dependency);
      const there = resolveFrom((candidate) => placed.has(candidate), target, dependency);
      if (!found || (there === undefined && kind.startsWith('optional'))) continue; // one the app does not get
      if (there === undefined) throw new LayoutConflict(`${target} would not find ${dependency}`);
      if (kind.endsWith('peer')) continue; // the app's copy, whichever it is
      if (placed.get(there) !== sourceOf(found, dependency)) {
        throw new LayoutConflict(`${target} would find ${dependency} at ${there}, a copy of ${placed.get(there)}, not of ${found}`);
      }
    }
  }

  const root: LockEntry = { name, dependencies: {} };
  const packages: Record<string, LockEntry> = { '': root };
  for (const [dependency, key] of dependencies.locked) root.dependencies![dependency] = source[key]!.version!;
  for (const [target, key] of [...placed].sort(([a], [b]) => (a < b ? -1 : 1))) {
    // The repository installs everything as a dev dependency of a workspace; in the app it is not.
    const { dev, devOptional, peer, devDependencies, ...entry } = source[key]!;
    const own = packedByWorkspace.get(key);
    if (own) {
      const resolved = `file:${relative(appDir, own.tarball)}`;
      const integrity = `sha512-${createHash('sha512')
        .update(await readFile(own.tarball))
        .digest('base64')}`;
      const { name: _sameAsItsKey, ...manifest } = entry;
      packages[target] = { ...manifest, resolved, integrity };
      root.dependencies![own.name] = resolved;
    } else {
      // The repository's lockfile records no download addresses (npm's omit-lockfile-registry-resolved);
      // without one npm reads the package's metadata again to find its tarball.
      const published = (entry.name as string | undefined) ?? target.slice(target.lastIndexOf('node_modules/') + 'node_modules/'.length);
      const resolved = `https://registry.npmjs.org/${published}/-/${published.split('/').pop()}-${entry.version}.tgz`;
      packages[target] = entry.resolved || !entry.version ? entry : { ...entry, resolved };
    }
  }
  return { name, lockfileVersion: 3, requires: true, packages };
}

let repositoryLock: Promise<{ packages: Record<string, LockEntry> }> | undefined;

/** The repository's package-lock.json, read once. */
export function repositoryLockfile(repo: string): Promise<{ packages: Record<string, LockEntry> }> {
  repositoryLock ??= readFile(join(repo, 'package-lock.json'), 'utf8').then(
    (text) => JSON.parse(text) as { packages: Record<string, LockEntry> },
  );
  return repositoryLock;
}
