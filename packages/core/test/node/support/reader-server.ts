/**
 * Real servers on 127.0.0.1, port 0, for testing the Node bridge through real sockets. A "reader"
 * handler runs `readInbound`, records what happened, and answers through `writeOutbound` the way an
 * adapter would: 200 with the byte count, 413, 500 or 400 for the body errors.
 *
 * @example
 * const recorder = createRecorder();
 * const server = await startServer(readerHandler(recorder, { maxBodyBytes: 10 }));
 * await fetch(server.url, { method: 'POST', body: 'hello' });
 * const outcome = await recorder.next();
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyReadError, BodyTooLargeError, RawBodyUnavailableError } from '../../../src/errors';
import { readInbound, writeOutbound, type InboundRequest, type ReadInboundOptions } from '../../../src/adapter';

export interface TestServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startServer(listener: RequestListener): Promise<TestServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What one `readInbound` call produced, plus the request's listener counts right after it settled. */
interface Outcome {
  req: IncomingMessage;
  inbound?: InboundRequest;
  error?: unknown;
  /** `req.readableDidRead` when the outcome was recorded: had anyone pulled bytes off the stream? */
  didRead: boolean;
  listeners: ListenerCounts;
  /** The same counts just before `readInbound` was called. */
  baseline: ListenerCounts;
}

interface ListenerCounts {
  data: number;
  end: number;
  error: number;
  close: number;
}

export interface Recorder {
  readonly outcomes: Outcome[];
  push(outcome: Outcome): void;
  /** The next outcome not yet taken, waiting for it if needed. */
  next(): Promise<Outcome>;
}

export function createRecorder(): Recorder {
  const outcomes: Outcome[] = [];
  const waiters: Array<(outcome: Outcome) => void> = [];
  let taken = 0;
  return {
    outcomes,
    push(outcome) {
      outcomes.push(outcome);
      const waiter = waiters.shift();
      if (waiter) {
        taken += 1;
        waiter(outcome);
      }
    },
    next() {
      const ready = outcomes[taken];
      if (ready) {
        taken += 1;
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** The status an adapter gives each body error. */
function statusFor(error: unknown): number {
  if (error instanceof BodyTooLargeError) return 413;
  if (error instanceof RawBodyUnavailableError) return 500;
  if (error instanceof BodyReadError) return 400;
  return 500;
}

/**
 * Reads the request with `readInbound`, records the outcome, answers like an adapter. `onReading`
 * runs synchronously right after `readInbound` was called (its listeners are attached by then).
 */
export async function readAndAnswer(
  recorder: Recorder,
  req: IncomingMessage,
  res: ServerResponse,
  options?: ReadInboundOptions,
  onReading?: (req: IncomingMessage) => void,
): Promise<void> {
  const baseline = listenerCounts(req);
  const pending = readInbound(req, options);
  onReading?.(req);
  try {
    const inbound = await pending;
    recorder.push({ req, inbound, listeners: listenerCounts(req), baseline, didRead: req.readableDidRead });
    writeOutbound(res, {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ length: inbound.rawBody.byteLength }),
    });
  } catch (error) {
    recorder.push({ req, error, listeners: listenerCounts(req), baseline, didRead: req.readableDidRead });
    writeOutbound(res, { status: statusFor(error), headers: { 'content-type': 'text/plain' }, body: (error as Error).message });
  }
}

export function readerHandler(
  recorder: Recorder,
  options?: ReadInboundOptions | ((req: IncomingMessage) => ReadInboundOptions),
  onReading?: (req: IncomingMessage) => void,
): RequestListener {
  return (req, res) => {
    void readAndAnswer(recorder, req, res, typeof options === 'function' ? options(req) : options, onReading);
  };
}

function listenerCounts(req: IncomingMessage): ListenerCounts {
  return {
    data: req.listenerCount('data'),
    end: req.listenerCount('end'),
    error: req.listenerCount('error'),
    close: req.listenerCount('close'),
  };
}
