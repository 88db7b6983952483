import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp } from 'node:fs/promises';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { ConformanceTarget, TargetSetup } from '../target';
import { serveOnPort0 } from './node-server';

/**
 * A SvelteKit app (apps/sveltekit: one `+server.js` route with `fallback`, so every method reaches
 * Mailroom), served as its users serve it: the production build (`vite build` with adapter-node, its
 * `build/handler.js` on a Node server) and the dev server (`vite dev`, as middleware). Each is made
 * once per test file, in a copy of its own, so two files never share an output folder.
 */
const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const SETUPS = Symbol.for('mailroom.conformance.setups');
const VITE = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');

type NodeHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

async function copyOfApp(): Promise<string> {
  const cache = join(PACKAGE, 'node_modules', '.cache', 'sveltekit');
  await mkdir(cache, { recursive: true });
  const root = await mkdtemp(join(cache, 'app-'));
  await cp(join(PACKAGE, 'apps', 'sveltekit'), root, { recursive: true });
  return root;
}

/** `vite build` in the app's folder, as its users run it (SvelteKit reads its config from there). */
async function productionBuild(): Promise<NodeHandler> {
  const root = await copyOfApp();
  await promisify(execFile)(process.execPath, [VITE, 'build'], { cwd: root, env: { ...process.env, NODE_ENV: 'production' } });
  const { handler } = (await import(pathToFileURL(join(root, 'build', 'handler.js')).href)) as { handler: NodeHandler };
  return handler;
}

/** `vite dev` as middleware (SvelteKit reads its config from the working folder, so it is entered first). */
async function devServer(): Promise<NodeHandler> {
  const root = await copyOfApp();
  const { createServer } = (await import('vite')) as typeof import('vite');
  const previous = process.cwd();
  process.chdir(root);
  try {
    const vite = await createServer({
      root,
      configFile: join(root, 'vite.config.js'),
      server: { middlewareMode: true },
      logLevel: 'silent',
    });
    return (req, res, next) => vite.middlewares(req, res, next);
  } finally {
    process.chdir(previous);
  }
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

function svelteKitTarget(name: string, make: () => Promise<NodeHandler>): ConformanceTarget {
  let made: Promise<NodeHandler> | undefined;
  return {
    name,
    // SvelteKit's Node request reads no body from a request without Content-Type.
    quirks: { dropsBodyWithoutContentType: true },
    start: async (setup) => serveProfile(await (made ??= make()), setup),
  };
}

export const svelteKitBuildTarget = svelteKitTarget('sveltekit 2 (vite build, adapter-node)', productionBuild);
export const svelteKitDevTarget = svelteKitTarget('sveltekit 2 (vite dev)', devServer);
