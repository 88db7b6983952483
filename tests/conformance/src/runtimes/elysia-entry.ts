import { elysiaApp } from '../targets/elysia-app';
import { remoteApp } from './remote-app';
import type { RemoteConfig } from './wire';

// Elysia's app on Bun, in a bundle of its own: Elysia brings Node-only modules that Deno's and
// workerd's bundles must not carry. Like serve-entry.ts, it prints the port it got.

declare const Bun: { serve(options: { port: number; hostname: string; fetch: (request: Request) => Promise<Response> }): { port: number } };
declare const process: { env: Record<string, string | undefined> };

const app = remoteApp(JSON.parse(process.env.MAILROOM_CONFORMANCE ?? '{}') as RemoteConfig, {
  elysia: elysiaApp,
  'elysia-parsed-first': (setup) => elysiaApp(setup, { parsedFirst: true }),
});
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => app.fetch(request) });
await app.started();
console.log(`LISTENING ${server.port}`);
