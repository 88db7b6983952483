import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { packPublished } from './harness';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Folder holding one `npm pack` tarball per published package. */
    tarballs: string;
  }
}

/** Packs every published package once, as `npm publish` would, for every app to install. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'mailroom-tarballs-'));
  await packPublished(dir);
  project.provide('tarballs', dir);
  return () => rm(dir, { recursive: true, force: true });
}
