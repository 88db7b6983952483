import { honoApp } from '../targets/hono-app';
import { webApp, workerApp } from '../targets/web-apps';
import type { TargetSetup } from '../target';
import { remoteSetup } from './remote-setup';
import type { RemoteAppKind, RemoteConfig } from './wire';

// The suite's app inside another runtime (Bun, Deno, workerd), bundled into one module: Hono's, or
// none (core's Web entry, the Cloudflare entry), made from the remote setup (remote-setup.ts).

type AppMaker = (setup: TargetSetup) => { fetch: unknown };
const builtIn: Partial<Record<RemoteAppKind, AppMaker>> = { hono: honoApp, web: webApp, workers: workerApp };

/**
 * The app for one started target, configured by what the test process sent (`MAILROOM_CONFORMANCE`).
 * `more` adds apps a bundle of its own carries (Elysia, which only Bun runs).
 */
export function remoteApp(
  config: RemoteConfig,
  more: Partial<Record<RemoteAppKind, AppMaker>> = {},
): {
  fetch: (request: Request, env?: unknown, context?: unknown) => Promise<Response>;
  /** Resolves once what the app reported while starting (a receiver made without keys says so) has reached the test. */
  started: () => Promise<void>;
} {
  const { setup, settle } = remoteSetup(config);
  const make = { ...builtIn, ...more }[config.app];
  if (!make) throw new Error(`this bundle has no ${config.app} app`);
  const app = make(setup);
  return {
    started: settle,
    fetch: async (request, env, context) => {
      const response = await (app.fetch as (request: Request, env?: unknown, context?: never) => Promise<Response>)(
        request,
        env,
        context as never,
      );
      await settle();
      return response;
    },
  };
}
