import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from './wait';

/** One request the destination received. */
export interface Received {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: http.IncomingHttpHeaders;
  /** As sent: `[name, value, ...]` (Node's `headers` drops a few names, e.g. `__proto__`). */
  rawHeaders: string[];
  body: Buffer;
  text: string;
  at: number;
}

/** How the destination answers one request. */
interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (a slow destination). */
  delayMs?: number;
  /** Answer only once this settles (a destination the test holds). */
  until?: Promise<unknown>;
}

/** Decides the answer; `index` counts the requests to this path so far (0 for the first). */
export type Script = (request: Received, index: number) => Answer;

/** A real HTTP destination on port 0 whose answers each test scripts per path. */
export interface TestDestination {
  /** `http://127.0.0.1:<port>`, typed as a URL so the client knows an enqueue to it answers one result. */
  url: `http://127.0.0.1:${number}`;
  /** Answers requests to `path` with `script` (default: 200 "ok"). */
  script(path: string, script: Script): void;
  /** Requests received at `path` (path without query), in arrival order. */
  received(path: string): Received[];
  /** Waits until `path` received at least `count` requests. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Fails `times` times with `status` (default 500), then answers 200. */
export const failTimes =
  (times: number, status = 500, headers: Record<string, string> = {}): Script =>
  (_, index) =>
    index < times ? { status, headers, body: `failure ${index + 1}` } : { status: 200, body: 'ok' };

/** Always answers `status`. */
export const always =
  (status: number, headers: Record<string, string> = {}, body = `status ${status}`): Script =>
  () => ({ status, headers, body });

/** Starts a {@link TestDestination}. */
export async function startDestination(): Promise<TestDestination> {
  const scripts = new Map<string, Script>();
  const log = new Map<string, Received[]>();
  // Counted on arrival: a retry can arrive while a slow first attempt is still unanswered.
  const arrivals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = req.url ?? '/';
      const path = url.split('?')[0] ?? '/';
      const received: Received = {
        method: req.method ?? '',
        url,
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
        text: body.toString('utf8'),
        at: Date.now(),
      };
      const index = arrivals.get(path) ?? 0;
      arrivals.set(path, index + 1);
      const answer: Answer = (scripts.get(path) ?? (() => ({ status: 200, body: 'ok' })))(received, index);
      const respond = () => {
        // Recorded when answered, so a test that saw N requests also sees N answers settle soon after.
        const list = log.get(path) ?? [];
        list.push(received);
        log.set(path, list);
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.until) void answer.until.then(respond, respond);
      else if (answer.delayMs) setTimeout(respond, answer.delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}` as const;
  return {
    url,
    script: (path, script) => void scripts.set(path, script),
    received: (path) => [...(log.get(path) ?? [])],
    async waitFor(path, count, timeoutMs = 20_000) {
      await waitUntil(
        () => (log.get(path)?.length ?? 0) >= count,
        `${count} request(s) at ${path} (got ${log.get(path)?.length ?? 0})`,
        timeoutMs,
      );
      return [...(log.get(path) ?? [])];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
