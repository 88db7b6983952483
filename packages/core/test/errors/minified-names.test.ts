import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// A production bundler renames classes (`class le extends Error`); an app that logs or checks
// `err.name` must still read `ValidationError`, so every class names itself with a literal.

const dir = await mkdtemp(join(tmpdir(), 'mailroom-minified-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function minifiedExports(): Promise<Record<string, unknown>> {
  const outfile = join(dir, 'core.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, '../../src/index.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    external: ['jose', 'zod', '@standard-schema/spec'],
    outfile,
    logLevel: 'silent',
  });
  return import(pathToFileURL(outfile).href);
}

/** An instance of any of our error classes: constructors take strings, numbers or an init object. */
function instantiate(ErrorClass: new (...args: never[]) => Error): Error {
  let failure: unknown;
  const init = { status: 500, serviceMessage: 'x', method: 'GET', url: 'http://x.test/', timedOut: false, field: 'f', reason: 'r' };
  for (const args of [['a', 'b', 'c'], [init, { kind: 'daily' }], [1], ['a', []], ['a', 1, 'b']]) {
    try {
      return Reflect.construct(ErrorClass, args) as Error;
    } catch (error) {
      failure = error; // Try the next constructor shape.
    }
  }
  throw new Error(`could not construct ${ErrorClass.name}: ${String(failure)}`);
}

describe('error names in a minified bundle', () => {
  it('every exported error class keeps its own name', async () => {
    const exported = await minifiedExports();
    const errorClasses = Object.entries(exported).filter(
      (entry): entry is [string, new (...args: never[]) => Error] => typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
    );
    expect(errorClasses.map(([name]) => name)).toEqual(
      expect.arrayContaining(['MailroomError', 'ValidationError', 'SignatureError', 'ApiError', 'RateLimitError']),
    );
    for (const [exportName, ErrorClass] of errorClasses) {
      // The bundle really was minified: the class's own binding name is gone.
      expect(instantiate(ErrorClass).name, exportName).toBe(exportName);
    }
  });
});
