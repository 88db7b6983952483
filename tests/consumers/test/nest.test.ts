import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  cleanEnv,
  createApp,
  publicAddress,
  run,
  runBehind,
  startDevServer,
  type App,
  type AppAddress,
  type DevServerProcess,
} from '../src/harness';

// A NestJS 11 app with the Nest CLI's default tsconfig: CommonJS, decorators with emitted metadata,
// and node10 module resolution (no `moduleResolution`, `module: commonjs`), compiled by tsc.
let app: App;
let dev: DevServerProcess | undefined;
let address: AppAddress | undefined;

beforeAll(async () => {
  app = await createApp('nest', {
    packed: inject('tarballs'),
    mailroom: ['core', 'nestjs', 'dev-server', 'testing'],
    locked: [
      ...['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', '@nestjs/testing'].map((name): [string, string] => [
        name,
        `tests/nestjs-previous-major/node_modules/${name}`,
      ]),
      'reflect-metadata',
      'rxjs',
      'zod',
      'typescript',
      '@types/node',
      '@types/express',
      // What `nest new` adds for its tests: Jest with ts-jest, supertest.
      'jest',
      'ts-jest',
      '@types/jest',
      'supertest',
      '@types/supertest',
    ],
  });
});

afterAll(async () => {
  await dev?.stop();
  await address?.stop();
  await app?.remove();
});

describe('a NestJS 11 app with the Nest CLI defaults', () => {
  it('compiles with tsc (node10 resolution finds and types @mailroom/core/testing and the Nest package)', async () => {
    const result = await run(process.execPath, [join(app.dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: app.dir,
      allowFailure: true,
    });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it("passes the e2e test Nest scaffolds and @mailroom/testing's, under Jest and ts-jest with no configuration of ours (the CommonJS builds load there)", async () => {
    const result = await run(
      process.execPath,
      [join(app.dir, 'node_modules/jest/bin/jest.js'), '--config', './test/jest-e2e.json', '--detectOpenHandles'],
      {
        cwd: app.dir,
        allowFailure: true,
        timeoutMs: 180_000,
      },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // Its two tests, and two of @mailroom/testing (a virtual clock, faults, the DLQ) in the same CommonJS set-up.
    expect(result.stderr).toMatch(/Tests:\s+6 passed, 6 total/);
    expect(result.stderr).not.toMatch(/open handle/i);
  });

  it("receives a message sent with mailroom dev's printed .env, and refuses to start with a route off its definition's path", async () => {
    address = await publicAddress();
    dev = await startDevServer(app, address.url);
    const result = await runBehind(address, process.execPath, ['dist/main.js'], { cwd: app.dir, env: cleanEnv({ ...dev.env, PORT: '0' }) });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(
      result.stdout
        .split('\n')
        .find((line) => line.startsWith('REPORT '))!
        .slice(7),
    );
    expect(report.received).toEqual([{ orderId: 'nest-1' }]);
    expect(report.startupError.name).toBe('MailroomSetupError');
    expect(report.startupError.message).toContain(
      'MisroutedController.placed serves /orders, but destination "order-placed" is delivered to /order-placed',
    );
  });
});
