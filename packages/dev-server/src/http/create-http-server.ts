import http from 'node:http';
import type { EventBus } from '../events';
import type { DevCredentials } from '../credentials';
import { checkManagementAuth, checkMessagingAuth, type MessagingAccess, redactSecrets } from './auth';
import { serveConsole, type RequestGuard } from './console';
import { HttpError, writeError, writeReply } from './exchange';
import { matchRoute, type Route } from './router';

/** What the server needs beyond its routes: who may call, and the console's settings. */
export interface HttpServerOptions {
  credentials: DevCredentials;
  events: EventBus;
  guard: RequestGuard;
  /** The console's non-secret settings (`/console/settings.json`). */
  consoleSettings: () => unknown;
  /** Values answers to the read-only token must never show (webhook event ids: holding one lets anyone write). */
  readOnlySecrets: () => readonly string[];
  /** How long a client may take; tests shorten them. */
  timeouts?: Partial<typeof SERVER_TIMEOUTS>;
}

/**
 * A local client sends a whole request in milliseconds: one that drips its headers or body, or
 * declares more bytes than it sends, is cut off (408) instead of holding a socket for Node's 5 minutes.
 */
const SERVER_TIMEOUTS = {
  /** The headers of a request. */
  headersTimeout: 10_000,
  /** A whole request, body included. */
  requestTimeout: 30_000,
  /** An idle keep-alive connection. */
  keepAliveTimeout: 5_000,
  /** How often Node checks the two above. */
  connectionsCheckingInterval: 1_000,
};

/**
 * The one HTTP server of the dev server: both interfaces and the console on one port, every request
 * checked by the guard (host names, origins), each route behind its interface's auth, every failure
 * answered as `{"error": "..."}`.
 */
export function createHttpServer(routes: readonly Route[], options: HttpServerOptions): http.Server {
  const { credentials, events, guard } = options;
  const { keepAliveTimeout, ...timeouts } = { ...SERVER_TIMEOUTS, ...options.timeouts };
  const server = http.createServer(timeouts, (req, res) => {
    void handle(req, res).catch((error: unknown) => {
      // One line, no stack: a log line is read by people and by line-oriented tools.
      const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      events.emit({ type: 'error', message: `${req.method} ${(req.url ?? '/').split('?')[0]}: ${what}` });
      if (!res.headersSent) writeError(res, 500, 'internal error of the dev server (see its log)');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = keepAliveTimeout;
  return server;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      guard.check(req);
      if (await serveConsole(req, res, options.consoleSettings)) return;
      const method = req.method ?? 'GET';
      const match = matchRoute(routes, method, req.url ?? '/');
      let access: MessagingAccess | undefined;
      if (match.route.auth === 'management') checkManagementAuth(req, credentials);
      else if (match.route.auth !== 'public') access = checkMessagingAuth(req, credentials, match.route.auth === 'full-token');
      const reply = await match.route.handler({ req, method, params: match.params, rest: match.rest, query: match.query });
      if (access === 'read-only' && reply.json !== undefined) reply.json = redactSecrets(reply.json, options.readOnlySecrets());
      writeReply(res, reply);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      // Unread request bodies would otherwise stall a keep-alive connection.
      req.resume();
      writeError(res, error.status, error.message, error.headers);
    }
  }
}
