import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { cleanEnv, createApp, run, type App } from '../src/harness';

/** The repository's bun (a dev dependency), as a project would run `bun test`. */
const BUN = fileURLToPath(new URL('../../../node_modules/.bin/bun', import.meta.url));

// @mailroom/testing from its tarball in a fresh ESM project run by vitest (Jest below, and in the
// Nest app's suite): retries into the DLQ, a delay, a schedule, a duplicate delivery, the
// matchers, and explore catching a handler that is not idempotent.
let app: App;

beforeAll(async () => {
  app = await createApp('testing-vitest', {
    packed: inject('tarballs'),
    mailroom: ['core', 'adapters', 'dev-server', 'testing'],
    locked: ['hono', 'zod', 'vitest'],
  });
});

afterAll(async () => {
  await app?.remove();
});

describe('@mailroom/testing in a fresh vitest project', () => {
  it('runs its tests, and vitest exits by itself (nothing left open)', async () => {
    const result = await run(process.execPath, [join(app.dir, 'node_modules/vitest/vitest.mjs'), 'run'], {
      cwd: app.dir,
      env: cleanEnv({ NO_COLOR: '1' }),
      allowFailure: true,
      timeoutMs: 180_000,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Tests\s+6 passed \(6\)/);
  });
});

// The other runners: node:test (ESM and CommonJS files) and bun test, from the same tarballs.
describe('@mailroom/testing under node:test and bun test', () => {
  let runners: App;
  beforeAll(async () => {
    runners = await createApp('testing-runners', {
      packed: inject('tarballs'),
      mailroom: ['core', 'dev-server', 'testing'],
      locked: ['zod'],
    });
  });
  afterAll(async () => {
    await runners?.remove();
  });

  it('node --test runs the ESM and the CommonJS files, and exits by itself', async () => {
    const result = await run(process.execPath, ['--test', 'orders.node-test.mjs', 'orders.node-test.cjs'], {
      cwd: runners.dir,
      env: cleanEnv({ NO_COLOR: '1' }),
      allowFailure: true,
      timeoutMs: 180_000,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/# pass 3\n/);
  });

  it('bun test runs the matchers and explore', async () => {
    const result = await run(BUN, ['test', 'orders.bun.test.ts'], {
      cwd: runners.dir,
      env: cleanEnv({ NO_COLOR: '1' }),
      allowFailure: true,
      timeoutMs: 180_000,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/\b2 pass\b/);
  });
});

// Jest, without a transform: ES modules (`--experimental-vm-modules`) and CommonJS in one run.
describe('@mailroom/testing under Jest', () => {
  let jestApp: App;
  beforeAll(async () => {
    jestApp = await createApp('testing-jest', {
      packed: inject('tarballs'),
      mailroom: ['core', 'dev-server', 'testing'],
      locked: ['zod', 'jest'],
    });
  });
  afterAll(async () => {
    await jestApp?.remove();
  });

  it('runs the ESM and the CommonJS files with the matchers and explore, and exits by itself', async () => {
    const result = await run(process.execPath, ['--experimental-vm-modules', join(jestApp.dir, 'node_modules/jest/bin/jest.js')], {
      cwd: jestApp.dir,
      env: cleanEnv({ NO_COLOR: '1' }),
      allowFailure: true,
      timeoutMs: 180_000,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Tests:\s+4 passed, 4 total/);
    expect(result.stderr).toMatch(/orders\.jest\.test\.js/);
    expect(result.stderr).toMatch(/orders\.jest\.test\.cjs/);
  });
});
