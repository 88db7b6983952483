import http from 'node:http';
import { ServiceError } from '../errors';
import type { EventBus } from '../events';
import { type ConsoleSettings, serveConsole, type RequestGuard } from './console';
import { errorReply, writeReply } from './reply';
import { fromNode } from './request';
import { type Answering, answerRequest } from './router';

/** What the server needs beyond answering requests: the guard of a local page, and the console's settings. */
export interface HttpServerOptions extends Answering {
  events: EventBus;
  guard: RequestGuard;
  /** The console's non-secret settings (`/console/settings.json`). */
  consoleSettings: () => ConsoleSettings;
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
 * checked by the guard (host names, origins), answered by the route table, every failure answered as
 * `{"error": "..."}`.
 */
export function createHttpServer(options: HttpServerOptions): http.Server {
  const { events, guard } = options;
  const { keepAliveTimeout, ...timeouts } = { ...SERVER_TIMEOUTS, ...options.timeouts };
  const server = http.createServer(timeouts, (req, res) => {
    void handle(req, res).catch((error: unknown) => {
      // One line, no stack: a log line is read by people and by line-oriented tools.
      const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      events.emit({ type: 'error', message: `${req.method} ${(req.url ?? '/').split('?')[0]}: ${what}` });
      if (!res.headersSent) writeReply(res, errorReply(500, 'internal error of the dev server (see its log)'));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = keepAliveTimeout;
  return server;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      guard.check(req.headers);
      if (await serveConsole(req, res, options.consoleSettings)) return;
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      req.resume();
      writeReply(res, errorReply(error.status, error.message, error.headers));
      return;
    }
    const reply = await answerRequest(options, fromNode(req));
    // Unread request bodies would otherwise stall a keep-alive connection.
    if ((reply.status ?? 200) >= 400) req.resume();
    writeReply(res, reply);
  }
}
