import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { ValidationError } from '@mailroom/core';
import type { InProcessAnswer, OutgoingRequest } from '@mailroom/dev-server/internal-embedded';

// Where deliveries go, and how they get there without a port: a Node request listener (an Express
// app) through Node's own HTTP server and client joined by an in-memory socket, a Fastify instance
// through its `inject`, a fetch handler (Hono, Next route handlers, Workers) with a Web Request, a
// NestJS application through its HTTP adapter's instance. A base URL is delivered to over the
// network, like `mailroom dev` does.

/** A Node request listener: an Express app, `http.createServer`'s callback, a Connect app. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;
/**
 * A fetch handler: a Next route handler `(request, context)`, a Workers `fetch(request, env, ctx)`, a
 * Hono app's `fetch`. Called with the request only.
 */
// biome-ignore lint/suspicious/noExplicitAny: a handler's own further parameters (Next's context, a Worker's env) are its business.
export type FetchHandler = (request: Request, ...rest: any[]) => Response | Promise<Response>;

/** Next App Router route handlers by method, as a `route.ts` module exports them. */
export type RouteModule = Partial<Record<'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS', FetchHandler>>;

/**
 * The app under test. Deliveries to URLs under `appUrl` reach it in-process; a string is the base URL
 * of an app already listening, reached over the network. A bare function is a Node listener when it
 * is an Express or Connect app or takes `(req, res)` synchronously, a fetch handler when it takes one
 * parameter; otherwise say which with `{ fetch }` or `{ listener }`. `{ routes }` serves several route
 * handlers (Next's App Router) by path.
 */
export type TestApp =
  | NodeListener
  | FetchHandler
  | { fetch: FetchHandler }
  | { listener: NodeListener }
  | { routes: Readonly<Record<string, FetchHandler | RouteModule>> }
  | { inject: (...args: never[]) => unknown }
  | { getHttpAdapter(): { getInstance(): unknown } }
  | string;

/** Delivers one attempt in-process. */
export type InProcessDelivery = (request: OutgoingRequest) => Promise<InProcessAnswer>;

interface InjectResponse {
  statusCode: number;
  headers: Readonly<Record<string, string | string[] | number | undefined>>;
  rawPayload: Buffer;
}

type Injector = (options: {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: Buffer;
  remoteAddress: string;
}) => Promise<InjectResponse>;

/** How the app is reached: in-process, or `undefined` for a base URL (the network). */
export async function inProcessDelivery(app: TestApp): Promise<InProcessDelivery | undefined> {
  if (typeof app === 'string') return undefined;
  if (app === null || (typeof app !== 'object' && typeof app !== 'function')) {
    throw new ValidationError('app', `expected the app under test or its base URL, got ${String(app)}`);
  }
  const reach = await reachOf(app);
  return (request) => {
    const url = new URL(request.url);
    const headers: Record<string, string> = { host: url.host };
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    return reach(request, url, headers);
  };
}

type Reach = (request: OutgoingRequest, url: URL, headers: Record<string, string>) => Promise<InProcessAnswer>;

async function reachOf(app: Exclude<TestApp, string>): Promise<Reach> {
  if (typeof app === 'function') {
    return kindOfFunction(app) === 'listener' ? byInjection(listenerInjector(app as NodeListener)) : byFetch(app as FetchHandler);
  }
  if (hasFunction(app, 'listener')) return byInjection(listenerInjector((app as { listener: NodeListener }).listener));
  // `{ routes }` as a test writes it: a plain object (a Hono app has `routes` too, and a `fetch`).
  if (Object.getPrototypeOf(app) === Object.prototype && 'routes' in app && !hasFunction(app, 'fetch')) return byRoutes(app.routes);
  if (hasFunction(app, 'getHttpAdapter')) {
    // A Nest application: initialised once (idempotent), then its Express or Fastify instance.
    if (hasFunction(app, 'init')) await (app as unknown as { init(): Promise<unknown> }).init();
    const instance = (app as { getHttpAdapter(): { getInstance(): unknown } }).getHttpAdapter().getInstance();
    if (typeof instance === 'function') return byInjection(listenerInjector(instance as NodeListener));
    if (hasFunction(instance, 'inject')) return byInjection(fastifyInjector(instance));
    throw new ValidationError(
      'app',
      'the Nest application has neither an Express nor a Fastify instance: pass its HTTP server, or a base URL',
    );
  }
  if (hasFunction(app, 'inject')) return byInjection(fastifyInjector(app));
  if (hasFunction(app, 'fetch')) {
    const target = app as { fetch: FetchHandler };
    return byFetch((request) => target.fetch(request));
  }
  throw new ValidationError(
    'app',
    'expected an Express app or Node request listener, a Fastify instance, a fetch handler or Hono app, { fetch }, { listener }, { routes }, a Nest application, or a base URL',
  );
}

/**
 * A bare function's kind, where its shape tells: Express and Connect apps are listeners (they take
 * `(req, res, next)`), as is a plain synchronous `(req, res)`; one parameter is a fetch handler. An
 * async function of two or more (a Next route handler's `(request, context)`, or an async listener),
 * or a synchronous one of three (a Worker's `fetch(request, env, ctx)`, or middleware), could be
 * either: handing it the wrong kind of request would crash the test, so the test says which.
 */
function kindOfFunction(app: (...args: never[]) => unknown): 'listener' | 'fetch' {
  if (hasFunction(app, 'use') && hasFunction(app, 'handle')) return 'listener';
  if (app.length <= 1) return 'fetch';
  if (app.length === 2 && app.constructor.name !== 'AsyncFunction') return 'listener';
  throw new ValidationError(
    'app',
    `cannot tell whether ${app.name || 'this function'} (${app.length} parameters${app.constructor.name === 'AsyncFunction' ? ', async' : ''}) takes a Web Request or Node's (req, res): pass { fetch: handler } for a fetch handler (a Next route handler, a Worker's fetch), or { listener: handler } for a Node request listener`,
  );
}

/** Route handlers by path (exact, or a prefix ending in `/*`), each a handler or a module of handlers by method. */
function byRoutes(routes: Readonly<Record<string, FetchHandler | RouteModule>>): Reach {
  if (routes === null || typeof routes !== 'object')
    throw new ValidationError('routes', 'expected { "/api/path": handler or route module }');
  const table = Object.entries(routes).map(([path, handler]) => {
    if (!path.startsWith('/')) throw new ValidationError('routes', `route paths start with "/": got ${JSON.stringify(path)}`);
    if (typeof handler !== 'function' && (handler === null || typeof handler !== 'object')) {
      throw new ValidationError('routes', `the route ${path} needs a fetch handler or a module of handlers by method (POST, GET, ...)`);
    }
    return { path: path.replace(/\/\*$/, '/'), prefix: path.endsWith('/*'), handler };
  });
  const fetch = async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    const route = table.find((entry) => (entry.prefix ? pathname.startsWith(entry.path) : pathname === entry.path));
    if (!route) return new Response(`no route for ${pathname} in the test service's routes`, { status: 404 });
    const handler = typeof route.handler === 'function' ? route.handler : route.handler[request.method as keyof RouteModule];
    if (!handler) return new Response(`${pathname} exports no ${request.method} handler`, { status: 405 });
    // Next passes a context with the dynamic segments' params; a test service knows no segments.
    return handler(request, { params: Promise.resolve({}) });
  };
  return byFetch(fetch);
}

function hasFunction(value: unknown, name: string): boolean {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as Record<string, unknown>)[name] === 'function'
  );
}

/**
 * Node's HTTP server (never listening) and client, joined by a pair of in-memory sockets: the app gets
 * a real `IncomingMessage` and `ServerResponse`, as behind a port. (Injection with fake request objects
 * broke Express, which swaps their prototypes, while a real request to the same app was running.)
 */
function listenerInjector(listener: NodeListener): Injector {
  const server = http.createServer(listener);
  return (options) =>
    new Promise((resolve, reject) => {
      const [client, serverSide] = socketPair(options.remoteAddress);
      server.emit('connection', serverSide);
      const request = http.request(
        {
          method: options.method,
          path: options.url,
          headers: { ...options.headers, 'content-length': String(options.payload.length), connection: 'close' },
          createConnection: () => client as never,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            client.destroy();
            resolve({ statusCode: response.statusCode ?? 0, headers: response.headersDistinct, rawPayload: Buffer.concat(chunks) });
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(options.payload);
    });
}

/** Two connected in-memory sockets, with the few socket members Node's HTTP code calls. */
function socketPair(remoteAddress: string): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const make = (index: number): Duplex =>
    Object.assign(
      new Duplex({
        read() {},
        write(chunk: Buffer, _encoding, done) {
          ends[1 - index]!.push(chunk);
          done();
        },
        final(done) {
          ends[1 - index]!.push(null);
          done();
        },
      }),
      {
        remoteAddress,
        remoteFamily: 'IPv4',
        encrypted: false,
        setTimeout() {
          return this;
        },
        setNoDelay() {
          return this;
        },
        setKeepAlive() {
          return this;
        },
      },
    );
  ends.push(make(0), make(1));
  return [ends[0]!, ends[1]!];
}

function fastifyInjector(instance: unknown): Injector {
  return (options) => (instance as { inject(options: unknown): Promise<InjectResponse> }).inject(options);
}

function byInjection(injector: Injector): Reach {
  return async (request, url, headers) => {
    const response = await injector({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers,
      payload: request.body,
      remoteAddress: '127.0.0.1',
    });
    const answerHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) answerHeaders[name] = typeof value === 'number' ? String(value) : value;
    }
    return { status: response.statusCode, headers: answerHeaders, body: response.rawPayload };
  };
}

function byFetch(handler: FetchHandler): Reach {
  return async (request, url, headers) => {
    const method = request.method.toUpperCase();
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const response = await handler(new Request(url, { method, headers, ...(hasBody ? { body: new Uint8Array(request.body) } : {}) }));
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answerHeaders[name] = value;
    });
    return { status: response.status, headers: answerHeaders, body: Buffer.from(await response.arrayBuffer()) };
  };
}
