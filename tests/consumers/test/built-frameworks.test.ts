import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@upstash/qstash';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cleanEnv, createApp, LISTENING, publicAddress, run, start, startDevServer, type App } from '../src/harness';

// Fresh SvelteKit, Astro, React Router, SolidStart, TanStack Start and Nuxt apps, laid out as each framework's docs lay out a new
// project (their scaffolders fetch templates from GitHub or need Node 22) and written as Mailroom's
// page for each says. Each is built with its own build, started as production starts it (the keys in
// a `.env` read with `node --env-file`), and then, through `mailroom dev` playing the service with its
// vendor's header prefix: a delivery published with the vendor's own SDK (`@upstash/qstash`), a
// `send` from the app's server code, and an unsigned request refused. The Astro, React Router,
// SolidStart and TanStack Start apps also run the in-process test their page shows, with
// `@mailroom/testing` and vitest.

interface Framework {
  template: string;
  /** Each at the version the repository's lockfile has: hoisted, or under the lockfile key given. */
  dependencies: Array<string | [name: string, lockKey: string]>;
  /** The build command, relative to the app's `node_modules`. */
  build: string[];
  /** What production runs, after `node --env-file=.env`. */
  serve: string;
  /** Whether the app carries the in-process test its page shows (`test/`, run by vitest with `@mailroom/testing`). */
  inProcessTest?: boolean;
}

const FRAMEWORKS: Framework[] = [
  {
    template: 'sveltekit',
    dependencies: ['@sveltejs/kit', '@sveltejs/adapter-node', '@sveltejs/vite-plugin-svelte', 'svelte', 'vite', 'zod'],
    build: ['vite/bin/vite.js', 'build'],
    serve: 'server.js',
  },
  {
    template: 'astro',
    dependencies: ['astro', '@astrojs/node', 'zod'],
    build: ['astro/astro.js', 'build'],
    serve: 'dist/server/entry.mjs',
    inProcessTest: true,
  },
  {
    template: 'react-router',
    dependencies: [
      'react-router',
      '@react-router/dev',
      ['@react-router/node', 'node_modules/@react-router/dev/node_modules/@react-router/node'],
      'react',
      'react-dom',
      'isbot',
      'vite',
      'zod',
    ],
    build: ['@react-router/dev/bin.js', 'build'],
    serve: 'server.js',
    inProcessTest: true,
  },
  {
    template: 'solidstart',
    dependencies: ['@solidjs/start', '@solidjs/router', 'solid-js', 'vinxi', 'zod'],
    build: ['vinxi/bin/cli.mjs', 'build'],
    serve: '.output/server/index.mjs',
    inProcessTest: true,
  },
  {
    template: 'tanstack-start',
    dependencies: [
      '@tanstack/react-start',
      '@tanstack/react-router',
      ['@vitejs/plugin-react', 'tests/conformance/node_modules/@vitejs/plugin-react'],
      'react',
      'react-dom',
      'srvx',
      'vite',
      'zod',
    ],
    build: ['vite/bin/vite.js', 'build'],
    serve: 'server.js',
    inProcessTest: true,
  },
  {
    template: 'nuxt',
    dependencies: ['nuxt', 'zod'],
    build: ['nuxt/bin/nuxt.mjs', 'build'],
    serve: '.output/server/index.mjs',
  },
];

describe.each(FRAMEWORKS)('a fresh $template app', (framework) => {
  let app: App;
  const running: Array<{ stop(): Promise<void> }> = [];

  beforeAll(async () => {
    app = await createApp(framework.template, {
      packed: inject('tarballs'),
      mailroom: ['core', 'adapters', 'dev-server', ...(framework.inProcessTest ? (['testing'] as const) : [])],
      locked: [...framework.dependencies, ...(framework.inProcessTest ? ['vitest'] : [])],
    });
  });

  afterAll(async () => {
    await Promise.all(running.map((process) => process.stop()));
    await app?.remove();
  });

  it('builds with its own build', async () => {
    const result = await run(
      process.execPath,
      [join(app.dir, 'node_modules', ...framework.build[0]!.split('/')), ...framework.build.slice(1)],
      {
        cwd: app.dir,
        env: cleanEnv({ NODE_ENV: 'production' }),
        timeoutMs: 240_000,
        allowFailure: true,
      },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });

  // Only the apps whose page shows an in-process test carry one (no skipped test for the others).
  if (framework.inProcessTest)
    it("runs its page's in-process test: @mailroom/testing delivering into the route", async () => {
      const result = await run(process.execPath, [join(app.dir, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
        cwd: app.dir,
        env: cleanEnv({ NO_COLOR: '1' }),
        timeoutMs: 120_000,
        allowFailure: true,
      });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(/Tests\s+1 passed/);
    });

  it('receives a vendor-published delivery and its own send through mailroom dev, and refuses an unsigned one', async () => {
    const address = await publicAddress();
    running.push(address);
    const appUrl = address.url;
    const dev = await startDevServer(app, appUrl, ['--header-prefix', 'Upstash', '--issuer', 'Upstash']);
    running.push(dev);
    // The printed lines, pasted into .env as the pages say; production reads them with --env-file.
    await writeFile(
      join(app.dir, '.env'),
      `${Object.entries(dev.env)
        .map(([name, value]) => `${name}=${value}`)
        .join('\n')}\n`,
    );
    const server = await start(process.execPath, ['--env-file=.env', framework.serve], {
      cwd: app.dir,
      env: cleanEnv({ HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'production' }),
      ready: LISTENING,
    });
    running.push(server);
    address.forwardTo(LISTENING.exec(server.output())![1]!);

    await new Client({ baseUrl: dev.env.MAILROOM_URL!, token: dev.env.MAILROOM_TOKEN! }).publishJSON({
      url: `${appUrl}/api/order-placed`,
      body: { orderId: 'vendor-1' },
    });
    const sent = await fetch(`${appUrl}/api/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: 'send-1' }),
    });
    expect(sent.status, await sent.clone().text()).toBe(200);
    expect(((await sent.json()) as { messageId: string }).messageId).toMatch(/^msg_/);

    let received: Array<{ orderId: string; path: string }> = [];
    for (let waited = 0; received.length < 2 && waited < 30_000; waited += 100) {
      received = (await (await fetch(`${appUrl}/api/events`)).json()) as typeof received;
      if (received.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(received.map((message) => message.orderId).sort()).toEqual(['send-1', 'vendor-1']);
    expect(received.every((message) => message.path === '/api/order-placed')).toBe(true);

    const unsigned = await fetch(`${appUrl}/api/order-placed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"orderId":"forged"}',
    });
    expect(unsigned.status).toBe(401);
  });
});
