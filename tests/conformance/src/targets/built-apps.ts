import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createRequestListener } from '@react-router/node';
import { toNodeListener } from 'h3v1';
import type { ServerBuild } from 'react-router';
import type { ViteDevServer } from 'vite';
import { launch, remoteConfig, sharedProcessTarget, startBridge } from '../runtimes/runtime-target';
import { cachedBuild, inputsHash, removeUnused } from './build-cache';
import type { ConformanceTarget, TargetSetup } from '../target';
import { serveOnPort0 } from './node-server';

/**
 * Apps made by a framework's own build, each served as its users serve it, on its production build
 * and its dev server:
 * - SvelteKit (apps/sveltekit: one `+server.js` route with `fallback`, so every method reaches
 *   Mailroom): `vite build` with adapter-node, its `build/handler.js` on a Node server; `vite dev`.
 * - React Router 7 in framework mode (apps/react-router: one resource route, `action` and `loader`):
 *   `react-router build`, its server build on `@react-router/node`'s listener (the custom-server way;
 *   `react-router-serve` wraps the same); `react-router dev`'s Vite server with the server build it loads.
 * - Nuxt 3 (apps/nuxt: a catch-all server route with the h3 adapter, after a middleware that reads
 *   every POST body): `nuxt build`, Nitro's server built with the node-listener preset (the default
 *   node-server preset's server, exporting its listener instead of calling `listen`); `nuxi dev`.
 * - SolidStart 1 (apps/solidstart: one catch-all API route, every method): `vinxi build`, then
 *   `node .output/server/index.mjs`, one server per profile, its handlers calling back over HTTP.
 * - Astro 5 (apps/astro: one on-demand API route, `ALL`): `astro build` with @astrojs/node in
 *   standalone mode, its `dist/server/entry.mjs` handler (started with ASTRO_NODE_AUTOSTART=disabled,
 *   as its own preview does); `astro dev`, whose dev server hands out its request handler.
 * - TanStack Start (apps/tanstack-start: one catch-all server route, `ANY`): `vite build`, then
 *   `vite preview`, whose middleware runs the built server entry in this process; `vite dev`.
 * A production build is made once for its inputs and kept between runs (build-cache.ts); a dev server
 * runs in a copy of its own per test file, so two files never share its caches.
 * The app finds its profile's setup by the port the request arrived at.
 */
const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const REPO = join(PACKAGE, '..', '..');
const BUILDS = join(PACKAGE, 'node_modules', '.cache', 'builds');
const SETUPS = Symbol.for('mailroom.conformance.setups');
const require = createRequire(import.meta.url);
const VITE = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
const REACT_ROUTER = join(dirname(require.resolve('@react-router/dev/package.json')), 'bin.js');
const ASTRO = join(dirname(require.resolve('astro/package.json')), 'astro.js');
const NUXT = join(dirname(require.resolve('nuxt/package.json')), 'bin', 'nuxt.mjs');
// vinxi exports no package.json: its bin is found from its main module (lib/index.js).
const VINXI = join(dirname(fileURLToPath(import.meta.resolve('vinxi'))), '..', 'bin', 'cli.mjs');

type NodeHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

type App = 'sveltekit' | 'react-router' | 'nuxt' | 'astro' | 'solidstart' | 'tanstack-start';

/** Changes a copy of an app before it is built (a variant with a framework's defaults). */
type Edit = (root: string) => Promise<void>;

/** Lays `app` out in `folder` as under apps/: beside what the apps share, so its relative imports resolve. */
async function layOutApp(app: App, folder: string, edit?: Edit): Promise<string> {
  await cp(join(PACKAGE, 'apps', 'shared'), join(folder, 'shared'), { recursive: true });
  const root = join(folder, app);
  await cp(join(PACKAGE, 'apps', app), root, { recursive: true });
  await edit?.(root);
  return root;
}

/** A copy of `app` for a dev server, which writes its caches into the app: one per test file. */
async function copyOfApp(app: App): Promise<string> {
  const copies = join(PACKAGE, 'node_modules', '.cache', app);
  await mkdir(copies, { recursive: true });
  // The copies of earlier runs.
  await removeUnused(copies);
  return layOutApp(app, await mkdtemp(join(copies, 'app-')));
}

/**
 * `app` built by `build` (run with the app's folder), made once for its inputs and kept between
 * runs: the app, what it shares, the suite's sources (the remote setup a build bundles, the edits
 * here), the lockfile's versions and the Mailroom packages the apps import.
 */
async function builtApp(app: App, variant: string, build: (root: string) => Promise<void>, edit?: Edit): Promise<string> {
  const inputs = ['apps/shared', `apps/${app}`, 'src'].map((path) => join(PACKAGE, path));
  inputs.push(...['package-lock.json', 'packages/core/dist', 'packages/adapters/dist'].map((path) => join(REPO, path)));
  const key = await inputsHash(REPO, inputs, [process.version, PACKAGE, variant]);
  const folder = await cachedBuild(BUILDS, `${app}-${variant}`, key, async (into) => {
    await build(await layOutApp(app, into, edit));
  });
  return join(folder, app);
}

/** Runs a framework's build command in `root`, as its users run it. */
async function runBuild(root: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  await promisify(execFile)(process.execPath, args, { cwd: root, env: { ...process.env, NODE_ENV: 'production', ...env } });
}

/** Removes the line of `file` (in the app's copy) that contains `text`; fails when there is none. */
async function dropLine(root: string, file: string, text: string): Promise<void> {
  const lines = (await readFile(join(root, file), 'utf8')).split('\n');
  const kept = lines.filter((line) => !line.includes(text));
  if (kept.length === lines.length) throw new Error(`${file} has no line with ${text}`);
  await writeFile(join(root, file), kept.join('\n'));
}

/** `vite build` in the app's folder, as its users run it (SvelteKit reads its config from there). */
async function svelteKitBuild(variant: string, edit?: Edit): Promise<NodeHandler> {
  const root = await builtApp('sveltekit', variant, (folder) => runBuild(folder, [VITE, 'build']), edit);
  const { handler } = (await import(pathToFileURL(join(root, 'build', 'handler.js')).href)) as { handler: NodeHandler };
  return handler;
}

/** `vite dev` as middleware (SvelteKit and React Router read their config from the working folder, so it is entered first). */
async function viteDevServer(app: App): Promise<ViteDevServer> {
  const root = await copyOfApp(app);
  const { createServer } = (await import('vite')) as typeof import('vite');
  const previous = process.cwd();
  process.chdir(root);
  try {
    return await createServer({ root, configFile: join(root, 'vite.config.js'), server: { middlewareMode: true }, logLevel: 'silent' });
  } finally {
    process.chdir(previous);
  }
}

async function svelteKitDev(): Promise<NodeHandler> {
  const vite = await viteDevServer('sveltekit');
  return (req, res, next) => vite.middlewares(req, res, next);
}

/** `vite build`, then `vite preview` (the build's server entry behind its middleware) on a port the suite does not use. */
async function tanStackStartBuild(): Promise<NodeHandler> {
  const root = await builtApp('tanstack-start', 'default', (folder) => runBuild(folder, [VITE, 'build']));
  const { preview } = (await import('vite')) as typeof import('vite');
  const server = await preview({
    root,
    configFile: join(root, 'vite.config.js'),
    // The build's own folder, named absolutely: the plugin finds the server entry from the working folder.
    build: { outDir: join(root, 'dist') },
    preview: { port: 0, host: '127.0.0.1' },
    logLevel: 'silent',
  });
  return (req, res, next) => server.middlewares(req, res, next);
}

/**
 * `vite dev` as its users run it, listening on a port the suite does not use: the Start plugin adds
 * its request handler only to a server of its own (not in middleware mode).
 */
async function tanStackStartDev(): Promise<NodeHandler> {
  const root = await copyOfApp('tanstack-start');
  const { createServer } = (await import('vite')) as typeof import('vite');
  const previous = process.cwd();
  process.chdir(root);
  try {
    const vite = await createServer({
      root,
      configFile: join(root, 'vite.config.js'),
      server: { port: 0, host: '127.0.0.1' },
      logLevel: 'silent',
    });
    await vite.listen();
    return (req, res, next) => vite.middlewares(req, res, next);
  } finally {
    process.chdir(previous);
  }
}

/** `react-router build`, then the server build on `@react-router/node`'s request listener. */
async function reactRouterBuild(): Promise<NodeHandler> {
  const root = await builtApp('react-router', 'default', (folder) => runBuild(folder, [REACT_ROUTER, 'build']));
  const build = (await import(pathToFileURL(join(root, 'build', 'server', 'index.js')).href)) as ServerBuild;
  const listener = createRequestListener({ build });
  return (req, res) => void listener(req, res);
}

/** `astro build`, then the standalone server's handler, without the server it would start itself. */
async function astroBuild(variant: string, edit?: Edit): Promise<NodeHandler> {
  const root = await builtApp('astro', variant, (folder) => runBuild(folder, [ASTRO, 'build']), edit);
  // Read while the entry loads, then put back: the worker's later files start Astro servers of their
  // own (docs/frameworks/astro.md's), which must start.
  const autostart = process.env.ASTRO_NODE_AUTOSTART;
  process.env.ASTRO_NODE_AUTOSTART = 'disabled';
  try {
    const { handler } = (await import(pathToFileURL(join(root, 'dist', 'server', 'entry.mjs')).href)) as { handler: NodeHandler };
    return handler;
  } finally {
    if (autostart === undefined) delete process.env.ASTRO_NODE_AUTOSTART;
    else process.env.ASTRO_NODE_AUTOSTART = autostart;
  }
}

/** `astro dev`, on a port of its own that the suite does not use: requests go through its handler. */
async function astroDev(): Promise<NodeHandler> {
  const root = await copyOfApp('astro');
  const { dev } = (await import('astro')) as typeof import('astro');
  const server = await dev({ root, server: { port: 0, host: '127.0.0.1' }, logLevel: 'silent' });
  return (req, res) => server.handle(req, res);
}

/** `nuxt build`, then Nitro's request listener from `.output/server`. */
async function nuxtBuild(): Promise<NodeHandler> {
  const root = await builtApp('nuxt', 'default', (folder) => runBuild(folder, [NUXT, 'build']));
  const { listener } = (await import(pathToFileURL(join(root, '.output', 'server', 'index.mjs')).href)) as { listener: RequestListener };
  return (req, res) => listener(req, res);
}

/**
 * `nuxi dev` as it runs Nuxt: the app loaded in dev mode and built (Vite, and Nitro's dev server,
 * whose worker thread runs the server routes), requests handed to the dev server's app as nuxi's
 * listener does. The worker shares no memory with the test: each profile's settings go to a file it
 * reads by port, and its handlers call the suite's spies over HTTP (the remote setup).
 */
function nuxtDevTarget(): ConformanceTarget {
  let made: Promise<{ handler: NodeHandler; setups: string }> | undefined;
  const make = async () => {
    const root = await copyOfApp('nuxt');
    const setups = join(root, '.conformance-setups');
    await mkdir(setups, { recursive: true });
    process.env.MAILROOM_CONFORMANCE_SETUPS = setups;
    process.env.MAILROOM_CONFORMANCE_REMOTE_SETUP = join(PACKAGE, 'src', 'runtimes', 'remote-setup.ts');
    const { buildNuxt, loadNuxt } = (await import('nuxt/kit')) as typeof import('nuxt/kit');
    const nuxt = await loadNuxt({ cwd: root, dev: true, overrides: { logLevel: 'silent' } });
    await buildNuxt(nuxt);
    const server = nuxt.server as { app: Parameters<typeof toNodeListener>[0] } | undefined;
    if (!server) throw new Error('Nuxt started no dev server');
    const listener = toNodeListener(server.app);
    return { handler: ((req, res) => void listener(req, res)) as NodeHandler, setups };
  };
  return {
    name: 'nuxt 3 (nuxi dev, a middleware read the body first)',
    start: async (setup) => {
      const [{ handler, setups }, bridge] = await Promise.all([(made ??= make()), startBridge(setup)]);
      const running = await serveOnPort0((req, res) => handler(req, res, () => res.writeHead(404).end('Not found')));
      const file = join(setups, `${new URL(running.origin).port}.json`);
      await writeFile(file, JSON.stringify(remoteConfig(setup, bridge.url, 'web')));
      return {
        ...running,
        close: async () => {
          await rm(file, { force: true });
          await running.close();
          await bridge.close();
        },
      };
    },
  };
}

/** React Router's dev server as its custom-server template runs it: Vite's middleware, then the server build Vite loads per request. */
async function reactRouterDev(): Promise<NodeHandler> {
  const vite = await viteDevServer('react-router');
  const listener = createRequestListener({
    build: () => vite.ssrLoadModule('virtual:react-router/server-build') as Promise<ServerBuild>,
    mode: 'development',
  });
  return (req, res) =>
    vite.middlewares(req, res, () => {
      void listener(req, res);
    });
}

/** Serves `handler` on port 0, the profile registered by that port for the app to find. */
async function serveProfile(handler: NodeHandler, setup: TargetSetup) {
  const listener: RequestListener = (req, res) =>
    handler(req, res, () => {
      res.writeHead(404).end('Not found');
    });
  const running = await serveOnPort0(listener);
  const port = new URL(running.origin).port;
  const setups = ((globalThis as Record<symbol, Map<string, TargetSetup>>)[SETUPS] ??= new Map());
  setups.set(port, setup);
  return {
    ...running,
    close: async () => {
      setups.delete(port);
      await running.close();
    },
  };
}

function builtAppTarget(name: string, make: () => Promise<NodeHandler>, quirks?: ConformanceTarget['quirks']): ConformanceTarget {
  let made: Promise<NodeHandler> | undefined;
  return {
    name,
    ...(quirks ? { quirks } : {}),
    start: async (setup) => serveProfile(await (made ??= make()), setup),
  };
}

// SvelteKit's Node request reads no body from a request without Content-Type.
const svelteKitQuirks = { dropsBodyWithoutContentType: true };
export const svelteKitBuildTarget = builtAppTarget(
  'sveltekit 2 (vite build, adapter-node)',
  () => svelteKitBuild('default'),
  svelteKitQuirks,
);
export const svelteKitDevTarget = builtAppTarget('sveltekit 2 (vite dev)', svelteKitDev, svelteKitQuirks);
export const reactRouterBuildTarget = builtAppTarget('react router 7 (react-router build, @react-router/node)', reactRouterBuild);
export const reactRouterDevTarget = builtAppTarget('react router 7 (react-router dev)', reactRouterDev);
export const tanStackStartBuildTarget = builtAppTarget('tanstack start 1 (vite build, vite preview)', tanStackStartBuild);
export const tanStackStartDevTarget = builtAppTarget('tanstack start 1 (vite dev)', tanStackStartDev);
export const astroBuildTarget = builtAppTarget('astro 5 (astro build, @astrojs/node standalone)', () => astroBuild('default'));
export const astroDevTarget = builtAppTarget('astro 5 (astro dev)', astroDev);
/** SvelteKit as a new project has it: its CSRF check on (the app's `checkOrigin: false` line gone). */
export const svelteKitDefaultsTarget = builtAppTarget(
  'sveltekit 2 (vite build, CSRF check on)',
  () => svelteKitBuild('csrf-check', (root) => dropLine(root, 'svelte.config.js', 'checkOrigin')),
  svelteKitQuirks,
);
/** The path of an API route the Astro variant leaves prerendered (no `prerender = false`). */
export const ASTRO_PRERENDERED_PATH = '/api/prerendered';
/** Astro as a new project has it: its origin check on, and one API route without `prerender = false`. */
export const astroDefaultsTarget = builtAppTarget('astro 5 (astro build, origin check on)', () =>
  astroBuild('origin-check', async (root) => {
    await dropLine(root, 'astro.config.mjs', 'checkOrigin');
    await writeFile(join(root, 'src', 'pages', 'api', 'prerendered.js'), 'export const POST = () => new Response("reached");\n');
  }),
);
export const nuxtBuildTarget = builtAppTarget('nuxt 3 (nuxt build, nitro, a middleware read the body first)', nuxtBuild);
export const nuxtDevServerTarget = nuxtDevTarget();
let solidStartBuilt: Promise<string> | undefined;
async function solidStartBuild(): Promise<string> {
  const root = await builtApp('solidstart', 'default', (folder) =>
    runBuild(folder, [VINXI, 'build'], { MAILROOM_CONFORMANCE_REMOTE_SETUP: join(PACKAGE, 'src', 'runtimes', 'remote-setup.ts') }),
  );
  return join(root, '.output', 'server', 'index.mjs');
}

/**
 * SolidStart 1's dev server as its users run it, `vinxi dev`: one for every receiver profile of the
 * file (it compiles the app once), in a copy of its own (two dev servers never share Vite's cache
 * folder). The app's package.json names the Solid packages: vite-plugin-solid compiles only those for
 * the server, and one it does not name is imported by Node in its browser build.
 */
export const solidStartDevTarget = sharedProcessTarget(
  'solidstart 1 (vinxi dev)',
  'web',
  () => copyOfApp('solidstart'),
  (root, setups) =>
    launch(
      process.execPath,
      [VINXI, 'dev', '--port', '0', '--host', '127.0.0.1'],
      {
        NODE_ENV: 'development',
        MAILROOM_CONFORMANCE_SETUPS: setups,
        MAILROOM_CONFORMANCE_REMOTE_SETUP: join(PACKAGE, 'src', 'runtimes', 'remote-setup.ts'),
      },
      /Local:\s+http:\/\/[\w.]+:(\d+)/,
      root,
    ),
);

/**
 * SolidStart 1 as its users serve it: `vinxi build` once, then `node .output/server/index.mjs`, one
 * server for every receiver profile of the file, its handlers calling back over HTTP.
 */
export const solidStartBuildTarget = sharedProcessTarget(
  'solidstart 1 (vinxi build, node .output/server/index.mjs)',
  'web',
  () => (solidStartBuilt ??= solidStartBuild()),
  (server, setups) =>
    launch(
      process.execPath,
      [server],
      { PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production', MAILROOM_CONFORMANCE_SETUPS: setups },
      /Listening on http:\/\/127\.0\.0\.1:(\d+)/,
    ),
);
