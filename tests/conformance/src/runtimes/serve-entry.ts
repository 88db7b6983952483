import type { RemoteConfig } from './wire';
import { remoteApp } from './remote-app';

// Bun and Deno: the remote app on a free port of 127.0.0.1, printed for the test to read. (workerd
// loads worker-entry.ts instead: a default export with `fetch` would make Bun serve on port 3000 too.)

declare const Bun:
  | { serve(options: { port: number; hostname: string; fetch: (request: Request) => Promise<Response> }): { port: number } }
  | undefined;
declare const Deno:
  | {
      env: { get(name: string): string | undefined };
      serve(
        options: { port: number; hostname: string; onListen(address: { port: number }): void },
        handler: (request: Request) => Promise<Response>,
      ): unknown;
    }
  | undefined;

const config = (text: string | undefined): RemoteConfig => JSON.parse(text ?? '{}') as RemoteConfig;

if (typeof Bun !== 'undefined') {
  const app = remoteApp(
    config((globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.MAILROOM_CONFORMANCE),
  );
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => app.fetch(request) });
  // Ready once its start-up reports are in, as an in-process app's are before a case begins.
  await app.started();
  console.log(`LISTENING ${server.port}`);
} else if (typeof Deno !== 'undefined') {
  const app = remoteApp(config(Deno.env.get('MAILROOM_CONFORMANCE')));
  await app.started();
  Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: ({ port }) => console.log(`LISTENING ${port}`) }, (request) => app.fetch(request));
}
