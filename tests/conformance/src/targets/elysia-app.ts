import { Elysia } from 'elysia';
import type { TargetSetup } from '../target';
import { coreRoutes } from './core';

/**
 * The suite's three endpoints in an Elysia app on Bun, with core's Web entry (Elysia hands a handler
 * the Web `Request`). The app also has a body parser of its own (`onParse`), as real apps do for
 * their other routes. Elysia applies a hook only to the routes registered after it, so the Mailroom
 * routes come first and get the request unread (docs/frameworks/elysia.md). `parsedFirst` registers
 * them after the hook instead: the bytes are gone, and every delivery must answer the fix-it 500.
 */
export function elysiaApp(setup: TargetSetup, { parsedFirst = false } = {}): { fetch: (request: Request) => Promise<Response> } {
  const app = new Elysia();
  const mount = () => {
    // `all`, so a wrong method still reaches the pipeline (405 with `Allow`).
    for (const [path, endpoint] of coreRoutes(setup)) app.all(path, ({ request }) => endpoint.fetch(request));
  };
  if (!parsedFirst) mount();
  // A JSON parser for the app's other routes (what a plugin such as a body validator adds).
  app.onParse(async ({ request }, contentType) =>
    contentType === 'application/json' ? (JSON.parse(await request.text()) as unknown) : undefined,
  );
  if (parsedFirst) mount();
  return { fetch: async (request) => app.handle(request) };
}
