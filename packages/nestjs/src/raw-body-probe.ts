import { Readable } from 'node:stream';
import { RawBodyUnavailableError } from '@mailroom/core';
import { readInbound } from '@mailroom/core/adapter';

/** body-parser names its middleware after the parser; Nest itself relies on these names. */
const BODY_PARSER_NAMES = new Set(['jsonParser', 'urlencodedParser', 'textParser', 'rawParser']);

/** One representative body per content type a global parser commonly consumes. */
const PROBES = [
  { contentType: 'application/json', body: '{"mailroom":"probe"}' },
  { contentType: 'application/x-www-form-urlencoded', body: 'mailroom=probe' },
  { contentType: 'text/plain', body: 'mailroom probe' },
] as const;

/** How long one parser may take on a 20-byte in-memory body before the probe gives up on it. */
const PARSER_TIMEOUT_MS = 2_000;

type Middleware = (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
interface Layer {
  handle?: unknown;
  name?: string;
  /** router 2 (Express 5): mounted at `/` with `end: false`, i.e. runs for every path. */
  slash?: boolean;
  /** Express 4's flag for the same. */
  regexp?: { fast_slash?: boolean };
}

/** What the probe found: the content types whose bytes no Mailroom route could get back. */
export interface RawBodyProbeResult {
  /** Content types a root-mounted parser consumes without keeping `req.rawBody`. */
  lost: string[];
  /** Parsers that did not finish on a probe body (never expected; reported, not guessed at). */
  inconclusive: string[];
}

/**
 * Whether the Express app's global body parsers keep the raw body. Nest registers its JSON and
 * urlencoded parsers (with `verify` keeping `req.rawBody` only when the app was created with
 * `rawBody: true`) before `onModuleInit`, so this sees exactly the parsers requests will meet.
 *
 * The setting itself is not readable from a module (Nest keeps it inside the application object),
 * and the `verify` callback is hidden in a closure, so the probe asks the parsers instead: it runs
 * the root-mounted body-parser middleware in order on an in-memory request per content type, then
 * asks `readInbound` (the same code every request goes through) whether the bytes are still
 * available. No parsers at all (`bodyParser: false`) is fine: the stream is then read directly.
 */
export async function probeRawBody(app: unknown): Promise<RawBodyProbeResult> {
  const parsers = rootBodyParsers(app);
  const result: RawBodyProbeResult = { lost: [], inconclusive: [] };
  if (parsers.length === 0) return result;
  for (const probe of PROBES) {
    const request = probeRequest(probe.contentType, probe.body);
    let finished = true;
    for (const parser of parsers) {
      const outcome = await runParser(parser, request);
      if (outcome === 'timeout') {
        result.inconclusive.push(`${parser.name || 'body parser'} (${probe.contentType})`);
        finished = false;
        break;
      }
    }
    if (!finished) continue;
    try {
      await readInbound(request as never, { maxBodyBytes: Number.POSITIVE_INFINITY });
    } catch (error) {
      if (error instanceof RawBodyUnavailableError) result.lost.push(probe.contentType);
    }
  }
  return result;
}

function rootBodyParsers(app: unknown): Middleware[] {
  const candidate = app as { router?: { stack?: unknown }; _router?: { stack?: unknown } } | null;
  // Express 5 creates `app.router` on first access; Nest reads it the same way.
  const stack = candidate?.router?.stack ?? candidate?._router?.stack;
  if (!Array.isArray(stack)) return [];
  return (stack as Layer[])
    .filter((layer) => typeof layer?.handle === 'function' && BODY_PARSER_NAMES.has((layer.handle as Function).name))
    .filter((layer) => layer.slash === true || layer.regexp?.fast_slash === true)
    .map((layer) => layer.handle as Middleware);
}

/**
 * A bare `Readable` with the fields body-parser reads. Not an `IncomingMessage`: that needs a socket,
 * and `on-finished` would then consult it. Without `complete`, body-parser treats it as unread.
 */
function probeRequest(contentType: string, body: string): Readable & Record<string, unknown> {
  const bytes = Buffer.from(body, 'utf8');
  const request = Readable.from([bytes], { objectMode: false }) as Readable & Record<string, unknown>;
  request.headers = { 'content-type': contentType, 'content-length': String(bytes.byteLength) };
  request.method = 'POST';
  request.url = '/';
  return request;
}

function runParser(parser: Middleware, request: unknown): Promise<'done' | 'timeout'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), PARSER_TIMEOUT_MS);
    timer.unref?.();
    const done = (): void => {
      clearTimeout(timer);
      resolve('done');
    };
    try {
      // A parser's own error (it rejected the probe) still leaves the question answerable.
      parser(request, {}, done);
    } catch {
      done();
    }
  });
}
