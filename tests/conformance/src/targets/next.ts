import { createMailroom, type RouteHandler } from '@mailroom/adapters/next';
import { createMailroom as createPagesMailroom, type ApiHandler } from '@mailroom/adapters/next/pages';
import type { RequestListener } from 'node:http';
import type { ConformanceTarget, TargetResponse } from '../target';
import { serveOnPort0 } from './node-server';

/** Where `next dev` would listen; App Router requests never leave the process, so it is only a URL. */
const APP_ORIGIN = 'http://localhost:3000';

/**
 * App Router: each endpoint is what a `route.ts` exports, called the way Next.js calls it, with a Web
 * `Request` and a context whose `params` is a Promise. No Next server is needed. Every method goes to
 * the handler, as with `export { handler as GET, handler as POST, handler as PUT }`, so a wrong method
 * gets the pipeline's 405.
 */
export const nextAppTarget: ConformanceTarget = {
  name: 'next app router',
  start: async (setup) => {
    const mailroom = createMailroom(setup.options);
    const routes = new Map<string, RouteHandler>([
      [setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler)],
      [setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions)],
      [setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
    ]);
    return {
      origin: APP_ORIGIN,
      send: async (request) => {
        const route = routes.get(request.path.split('?', 1)[0] ?? '');
        if (!route) return { status: 404, headers: {}, body: 'Not found' };
        // GET and HEAD may not carry a body in a Web Request, even an empty one.
        const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
        const webRequest = new Request(APP_ORIGIN + request.path, {
          method: request.method,
          headers: request.headers,
          ...(hasBody ? { body: request.body } : {}),
        });
        return fromResponse(await route(webRequest, { params: Promise.resolve({}) }));
      },
      close: async () => {},
    };
  },
};

/**
 * Pages Router: each endpoint is a `pages/api` default export with `bodyParser: false`, served by
 * node:http on port 0 the way Next.js hands it the untouched request stream.
 */
export const nextPagesTarget: ConformanceTarget = {
  name: 'next pages router',
  start: async (setup) => {
    const mailroom = createPagesMailroom(setup.options);
    const routes = new Map<string, ApiHandler>([
      [setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler)],
      [setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions)],
      [setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
    ]);
    const listener: RequestListener = (req, res) => {
      const route = routes.get((req.url ?? '/').split('?', 1)[0] ?? '');
      if (!route) {
        res.writeHead(404).end('Not found');
        return;
      }
      // Next.js answers 500 when an API route rejects; do the same so a crash is visible as one.
      route(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    };
    return serveOnPort0(listener);
  },
};

async function fromResponse(response: Response): Promise<TargetResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}
