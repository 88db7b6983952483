import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP relay on loopback, on a port of its own. */
export interface TcpRelay {
  port: number;
  url: `http://127.0.0.1:${number}`;
  /** Where connections go from now on; `undefined` refuses them, as an address whose app is down does. */
  point(port: number | undefined): void;
  /** Stops listening and ends the connections still open. */
  close(): Promise<void>;
}

/**
 * Starts a relay on port 0 that passes each connection's bytes, untouched, to the loopback port it
 * points at: one stable address in front of an app that restarts, or one of several addresses in front
 * of one app (which tells them apart by the port in Host).
 */
export async function startTcpRelay(target?: number): Promise<TcpRelay> {
  let port = target;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    if (port === undefined) return socket.destroy();
    const upstream = connect(port, '127.0.0.1');
    for (const end of [socket, upstream]) {
      sockets.add(end);
      end.once('close', () => sockets.delete(end));
    }
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const own = (server.address() as AddressInfo).port;
  return {
    port: own,
    url: `http://127.0.0.1:${own}`,
    point: (next) => {
      port = next;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
