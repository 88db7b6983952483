import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { ServiceError } from '../errors';
import type { EventBus } from '../events';
import type { McpSettings } from '../mcp/mcp-endpoint';
import { MCP_PATH } from '../settings';
import { type ConsoleSettings, serveConsole, type RequestGuard } from './console';
import { type Answering, answerRequest, errorReply, type Reply, replyBody, replyHeaders, type ServiceRequest } from './router';

/** What the server needs beyond answering requests: the guard of a local page, and the console's settings. */
export interface HttpServerOptions extends Answering {
  events: EventBus;
  guard: RequestGuard;
  /** The console's non-secret settings (`/console/settings.json`). */
  consoleSettings: () => ConsoleSettings;
  /** What the MCP endpoint (`/mcp`) needs beyond the route table; without it, `/mcp` is not served. */
  mcp?: McpSettings;
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
      // An agent's tools: the same guard as the console, the route table behind every call.
      // Loaded at its first call: the MCP SDK and its schema libraries are most of a start's imports.
      if (options.mcp && (req.url ?? '').split('?')[0] === MCP_PATH) {
        const { serveMcp } = await import('../mcp/mcp-endpoint');
        if (await serveMcp(req, res, options, options.mcp)) return;
      }
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

/** A request that came over a socket. */
function fromNode(req: IncomingMessage): ServiceRequest {
  return {
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    callerIp: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
    body: (limit, tooLarge) => readNodeBody(req, limit, tooLarge),
  };
}

function readNodeBody(req: IncomingMessage, limit: number, tooLarge: () => ServiceError): Promise<Buffer> {
  if (Number(req.headers['content-length']) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    // A client that goes away mid-upload is its own failure, not the server's: a 400 nobody reads.
    const cutShort = () => {
      if (!failed) reject(new ServiceError(400, 'request body cut short: the client closed the connection'));
      failed = true;
    };
    req.on('error', cutShort);
    req.on('aborted', cutShort);
  });
}

/** Writes a reply to a socket. */
function writeReply(res: ServerResponse, reply: Reply): void {
  const body = replyBody(reply);
  res.writeHead(reply.status ?? 200, replyHeaders(reply, body));
  res.end(body);
}
