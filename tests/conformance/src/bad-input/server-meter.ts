import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

// Counts what the SERVER read, not what the client wrote: a client's writes land in kernel buffers
// (megabytes on loopback) whether or not the server ever reads them, so only the server socket's
// `bytesRead` tells a streamed-and-cut body from one buffered whole. The targets own their servers,
// so the server sockets are found through Node's `http.server.request.start` diagnostics channel,
// which every node:http server publishes to, and matched by a marker in the request URL.

const CHANNEL = 'http.server.request.start';
// Shared by every meter in the process, so two meters never wait for the same marker.
let nextMark = 0;

interface Started {
  request: IncomingMessage;
  socket: Socket;
}

/** What the server side of one metered connection did. */
interface ServerSide {
  /** Bytes the server read from the socket (request line and headers included). */
  bytesRead: number;
}

export interface ServerMeter {
  /** A query string that marks a request for metering, e.g. `?meter=3`. */
  mark(): { query: string; closed: () => Promise<ServerSide> };
  stop(): void;
}

/**
 * Starts watching server sockets. `closed()` of a mark resolves once the server-side socket that
 * carried the marked request has closed, with what it read; it rejects after `timeoutMs` if the
 * marked request never arrived or the socket never closed.
 */
export function meterServerSockets(timeoutMs = 15_000): ServerMeter {
  const waiting = new Map<string, (socket: Socket) => void>();
  const onStart = (message: unknown): void => {
    const { request, socket } = message as Started;
    const marker = /[?&]meter=(\d+)/.exec(request.url ?? '')?.[1];
    const found = marker === undefined ? undefined : waiting.get(marker);
    if (found) found(socket);
  };
  subscribe(CHANNEL, onStart);
  return {
    mark() {
      const id = String(nextMark++);
      const socket = new Promise<Socket>((resolve) => waiting.set(id, resolve));
      return {
        query: `?meter=${id}`,
        closed: () =>
          withTimeout(
            socket.then(
              (server) =>
                new Promise<ServerSide>((resolve) => {
                  if (server.destroyed) resolve({ bytesRead: server.bytesRead });
                  else server.once('close', () => resolve({ bytesRead: server.bytesRead }));
                }),
            ),
            timeoutMs,
            `the server never closed the connection of request ?meter=${id}`,
          ),
      };
    },
    stop() {
      unsubscribe(CHANNEL, onStart);
      waiting.clear();
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
