import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { ValidationError } from '../errors/validation-error';

/** Settings of {@link createNodeFetch}. Every one is optional. */
export interface NodeFetchOptions {
  /** Most open connections per origin; further requests wait for a free one. Default 64. */
  maxSockets?: number;
  /** Idle connections kept open per origin for reuse. Default: `maxSockets`. */
  maxFreeSockets?: number;
  /**
   * Close a connection idle for this long. Default 4000 ms: under the 5 s keep-alive timeout of
   * Node servers, so we close first instead of sending into a socket the server is closing. A
   * server's `Keep-Alive: timeout=N` hint shortens it further.
   */
  idleTimeoutMs?: number;
  /**
   * Answers with a `Content-Length` up to this size are read whole before `fetch` resolves, and
   * their `Response` reads from that buffer without building a stream. Larger answers, and answers
   * of unknown length or with a content encoding, are streamed. Default 1 MiB.
   */
  maxBufferedBytes?: number;
  /** Your own agents (proxy, TLS settings). They are used as they are and `close()` leaves them open. */
  agents?: { http?: http.Agent; https?: https.Agent };
}

/** A `fetch` over keep-alive `node:http`/`node:https` connection pools. */
export type NodeFetch = typeof fetch & {
  /** Closes the pooled connections this fetch opened. Requests made afterwards open new ones. */
  close(): void;
};

const DEFAULT_MAX_SOCKETS = 64;
const DEFAULT_IDLE_TIMEOUT_MS = 4_000;
const DEFAULT_MAX_BUFFERED_BYTES = 1_048_576;
const MAX_REDIRECTS = 20;
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NORMALISED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH']);
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
// Retrying these after a reset on a reused connection cannot apply the request twice (RFC 9110 9.2.2).
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);
// Headers fetch never sends from the caller: they describe this connection and message, which we own.
const CONNECTION_HEADERS = new Set(['connection', 'content-length', 'host', 'keep-alive', 'transfer-encoding', 'upgrade']);
const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  'x-gzip': () => zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/**
 * A `fetch` for Node over a keep-alive connection pool (`node:http`/`node:https` agents). Pass it to
 * a client to skip the global fetch's per-request overhead where the runtime is Node; the global
 * `fetch` stays the default, so edge runtimes need nothing.
 *
 * It resolves with real `Response` objects (a subclass): small answers with a `Content-Length` are
 * read whole first and their `text()`/`json()`/`arrayBuffer()` read that buffer directly; larger
 * or unsized answers stream. The `AbortSignal` aborts connecting, sending and reading, rejecting with
 * the signal's reason. Network failures reject with `TypeError('fetch failed', { cause })`, as the
 * global fetch does, so `@mailroom/core` reports them as `NetworkError`. Redirects are followed
 * (`redirect: 'follow'`, at most 20), or returned (`'manual'`), or refused (`'error'`).
 *
 * Not supported (a TypeError, so nothing is sent half-right): stream and FormData request bodies.
 * No `Accept-Encoding` is sent unless you set one; `gzip`, `deflate` and `br` answers are decoded.
 *
 * @example
 * import { createMessagingClient } from '@mailroom/core';
 * import { createNodeFetch } from '@mailroom/core/node';
 *
 * const client = createMessagingClient({ fetch: createNodeFetch() });
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  const settings = resolveOptions(options);
  const own: http.Agent[] = [];
  const makeAgent = <A extends http.Agent>(Agent: new (o: http.AgentOptions) => A): A => {
    const agent = new Agent({
      keepAlive: true,
      maxSockets: settings.maxSockets,
      maxFreeSockets: settings.maxFreeSockets,
      // Only idle sockets are closed on this timeout (the agent's own listener); a request waiting
      // for a slow answer is not affected. It also lets Node apply the server's Keep-Alive hint.
      timeout: settings.idleTimeoutMs,
      scheduling: 'lifo',
    });
    own.push(agent);
    return agent;
  };
  const httpAgent = options.agents?.http ?? makeAgent(http.Agent);
  const httpsAgent = options.agents?.https ?? makeAgent(https.Agent);

  const nodeFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = await readRequest(input, init);
    request.signal?.throwIfAborted();
    return follow(request, { httpAgent, httpsAgent, maxBufferedBytes: settings.maxBufferedBytes }, 0);
  }) as NodeFetch;
  nodeFetch.close = () => {
    for (const agent of own) agent.destroy();
  };
  return nodeFetch;
}

interface Settings {
  maxSockets: number;
  maxFreeSockets: number;
  idleTimeoutMs: number;
  maxBufferedBytes: number;
}

function resolveOptions(options: NodeFetchOptions): Settings {
  if (options === null || typeof options !== 'object') throw new ValidationError('options', 'expected an object of createNodeFetch options');
  const maxSockets = positiveInteger('maxSockets', options.maxSockets, DEFAULT_MAX_SOCKETS, 1);
  const agents = options.agents;
  if (agents !== undefined && (agents === null || typeof agents !== 'object')) throw new ValidationError('agents', 'expected { http?, https? } agents');
  for (const name of ['http', 'https'] as const) {
    if (agents?.[name] !== undefined && !(agents[name] instanceof http.Agent)) throw new ValidationError(`agents.${name}`, 'expected an http.Agent (or https.Agent)');
  }
  return {
    maxSockets,
    maxFreeSockets: positiveInteger('maxFreeSockets', options.maxFreeSockets, maxSockets, 0),
    idleTimeoutMs: positiveInteger('idleTimeoutMs', options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS, 1),
    maxBufferedBytes: positiveInteger('maxBufferedBytes', options.maxBufferedBytes, DEFAULT_MAX_BUFFERED_BYTES, 0),
  };
}

function positiveInteger(path: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ValidationError(path, `must be a whole number >= ${min}, got ${String(value)}`);
  }
  return value;
}

/** One request, checked and serialised once, so a redirect or a retry sends the same bytes. */
interface PreparedFetch {
  url: URL;
  method: string;
  headers: Record<string, string>;
  /** A string stays a string: node:http then sends it in one write with the head (a Buffer takes a writev). */
  body: string | Buffer | undefined;
  signal: AbortSignal | undefined;
  redirect: RedirectMode;
  redirected: boolean;
}

type RedirectMode = 'follow' | 'manual' | 'error';

interface Pools {
  httpAgent: http.Agent;
  httpsAgent: http.Agent;
  maxBufferedBytes: number;
}

async function readRequest(input: string | URL | Request, init: RequestInit | undefined): Promise<PreparedFetch> {
  const fromRequest = typeof Request !== 'undefined' && input instanceof Request ? input : undefined;
  let url: URL;
  try {
    url = new URL(fromRequest ? fromRequest.url : String(input));
  } catch (cause) {
    throw new TypeError(`Failed to parse URL from ${String(fromRequest?.url ?? input)}`, { cause });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`fetch failed: unsupported protocol ${url.protocol}`);
  if (url.username || url.password) throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url.origin}`);
  const method = readMethod(init?.method ?? fromRequest?.method ?? 'GET');
  // A Headers object is read as it is (never changed: it is the caller's); anything else is checked
  // and normalised by the Headers constructor, as fetch does.
  const given = init?.headers ?? fromRequest?.headers;
  const headers = given instanceof Headers ? given : new Headers(given);
  const bodyInit = init?.body !== undefined ? init.body : fromRequest?.body ? await fromRequest.arrayBuffer() : undefined;
  const { body, contentType } = await readBody(bodyInit);
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
  const signal = init?.signal ?? fromRequest?.signal ?? undefined;
  if (signal !== undefined && signal !== null && !(signal instanceof AbortSignal)) throw new TypeError('signal must be an AbortSignal');
  const redirect: unknown = init?.redirect ?? fromRequest?.redirect ?? 'follow';
  if (redirect !== 'follow' && redirect !== 'manual' && redirect !== 'error') throw new TypeError(`redirect must be follow, manual or error, got ${String(redirect)}`);
  return { url, method, headers: nodeHeaders(headers, method, body, contentType), body, signal: signal ?? undefined, redirect, redirected: false };
}

function readMethod(value: string): string {
  if (typeof value !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) throw new TypeError(`'${String(value)}' is not a valid HTTP method.`);
  const upper = value.toUpperCase();
  if (FORBIDDEN_METHODS.has(upper)) throw new TypeError(`'${value}' HTTP method is unsupported.`);
  return NORMALISED_METHODS.has(upper) ? upper : value;
}

async function readBody(body: unknown): Promise<{ body: string | Buffer | undefined; contentType?: string }> {
  if (body === undefined || body === null) return { body: undefined };
  if (typeof body === 'string') return { body, contentType: 'text/plain;charset=UTF-8' };
  if (body instanceof ArrayBuffer) return { body: Buffer.from(body.slice(0)) };
  if (ArrayBuffer.isView(body)) return { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
  if (body instanceof URLSearchParams) return { body: body.toString(), contentType: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (typeof Blob !== 'undefined' && body instanceof Blob) {
    return { body: Buffer.from(await body.arrayBuffer()), ...(body.type ? { contentType: body.type } : {}) };
  }
  throw new TypeError('createNodeFetch sends string, ArrayBuffer, typed-array, URLSearchParams and Blob bodies; serialise streams and FormData first, or use the global fetch');
}

/** The caller's headers as node:http takes them, plus what fetch itself would add. */
function nodeHeaders(headers: Headers, method: string, body: string | Buffer | undefined, contentType: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!CONNECTION_HEADERS.has(name)) out[name] = value;
  });
  if (contentType !== undefined) out['content-type'] ??= contentType;
  out.accept ??= '*/*';
  out['user-agent'] ??= 'node';
  if (body !== undefined) out['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  else if (method === 'POST' || method === 'PUT' || method === 'PATCH') out['content-length'] = '0';
  return out;
}

async function follow(request: PreparedFetch, pools: Pools, hops: number): Promise<Response> {
  const answer = await send(request, pools, false);
  const location = REDIRECT_STATUSES.has(answer.status) ? answer.headers.get('location') : null;
  if (location === null || request.redirect === 'manual') return answer.toResponse();
  answer.discard();
  if (request.redirect === 'error') throw new TypeError('fetch failed', { cause: new Error(`redirect (${answer.status}) with redirect mode "error"`) });
  if (hops >= MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
  let next: URL;
  try {
    next = new URL(location, request.url);
  } catch (cause) {
    throw new TypeError('fetch failed', { cause });
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new TypeError('fetch failed', { cause: new Error(`redirect to ${next.protocol} URL`) });
  const headers = { ...request.headers };
  let { method, body } = request;
  // As the Fetch standard: 303 turns anything but HEAD into a GET, 301/302 turn a POST into a GET.
  if ((answer.status === 303 && method !== 'HEAD') || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    for (const name of ['content-length', 'content-type', 'content-encoding', 'content-language', 'content-location']) delete headers[name];
  }
  // Credentials are for the origin they were given to, never for wherever it redirects.
  if (next.origin !== request.url.origin) {
    for (const name of ['authorization', 'cookie', 'proxy-authorization']) delete headers[name];
  }
  return follow({ ...request, url: next, method, headers, body, redirected: true }, pools, hops + 1);
}

/** The head of an answer, and how to turn it into a `Response` or throw it away. */
interface Answer {
  status: number;
  headers: Headers;
  toResponse(): Response;
  discard(): void;
}

function send(request: PreparedFetch, pools: Pools, isRetry: boolean): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const { url, signal } = request;
    const agent = url.protocol === 'https:' ? pools.httpsAgent : pools.httpAgent;
    let settled = false;
    let answered = false;
    let response: http.IncomingMessage | undefined;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    };
    const onAbort = (): void => {
      const reason: unknown = signal?.reason;
      req.destroy();
      response?.destroy();
      fail(reason);
    };
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: request.method, headers: request.headers, agent }, (res) => {
      answered = true;
      response = res;
      readAnswer(request, res, pools.maxBufferedBytes, signal, onAbort).then(
        (answer) => {
          if (settled) {
            answer.discard();
            return;
          }
          settled = true;
          resolve(answer);
        },
        fail,
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      // The server closed a pooled connection just as we reused it; for a request that cannot do
      // harm twice, one more try on a fresh connection is what Node's documentation recommends.
      if (!answered && !isRetry && req.reusedSocket && RESET_CODES.has(error.code ?? '') && IDEMPOTENT_METHODS.has(request.method)) {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        send(request, pools, true).then(resolve, reject);
        return;
      }
      fail(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) {
      onAbort();
      return;
    }
    req.end(request.body);
  });
}

/**
 * Reads the body when it is small and sized (the common JSON answer): the fetch resolves with the
 * whole answer in memory and no stream is ever built. Otherwise it resolves at once with a stream.
 * `onAbort` stays registered while the body is still on the wire; it is removed here once read.
 */
function readAnswer(request: PreparedFetch, res: http.IncomingMessage, maxBufferedBytes: number, signal: AbortSignal | undefined, onAbort: () => void): Promise<Answer> {
  const status = res.statusCode ?? 0;
  const headers = responseHeaders(res.rawHeaders);
  const init: ResponseParts = { status, statusText: res.statusMessage ?? '', headers, url: request.url.href, redirected: request.redirected };
  const done = (): void => signal?.removeEventListener('abort', onAbort);
  const discard = (): void => {
    done();
    res.resume();
  };
  if (request.method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    discard();
    // No body at all (body === null), as fetch answers HEAD and 204/304.
    return Promise.resolve({ status, headers, discard: () => {}, toResponse: () => NodeFetchResponse.create(init, undefined) });
  }
  const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const length = Number(res.headers['content-length'] ?? Number.NaN);
  if (encoding === '' || encoding === 'identity') {
    if (Number.isSafeInteger(length) && length <= maxBufferedBytes) {
      return readWhole(res, length).then((bytes) => {
        done();
        return { status, headers, discard: () => {}, toResponse: () => NodeFetchResponse.create(init, bytes) };
      });
    }
    return Promise.resolve({ status, headers, discard, toResponse: () => NodeFetchResponse.create(init, undefined, toWebStream(res, undefined, signal, done)) });
  }
  const decoder = DECODERS[encoding];
  if (!decoder) {
    // An encoding we cannot undo: hand over the bytes as they came, as fetch does.
    return Promise.resolve({ status, headers, discard, toResponse: () => NodeFetchResponse.create(init, undefined, toWebStream(res, undefined, signal, done)) });
  }
  return Promise.resolve({ status, headers, discard, toResponse: () => NodeFetchResponse.create(init, undefined, toWebStream(res, decoder(), signal, done)) });
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header the Fetch standard cannot represent is dropped rather than failing the whole answer.
    }
  }
  return headers;
}

function readWhole(res: http.IncomingMessage, length: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    res.once('end', () => {
      // node:http already fails a body shorter than its Content-Length ('aborted'); this is belt and braces.
      if (received !== length) reject(new TypeError('fetch failed', { cause: new Error(`expected ${length} body bytes, got ${received}`) }));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    });
    res.once('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
    res.once('close', () => {
      if (!res.complete) reject(new TypeError('fetch failed', { cause: new Error('the connection closed before the whole answer arrived') }));
    });
  });
}

/** A pull-driven Web stream over the socket: it reads only as fast as the consumer does. */
function toWebStream(
  res: http.IncomingMessage,
  decoder: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined,
  signal: AbortSignal | undefined,
  done: () => void,
): ReadableStream<Uint8Array> {
  const source: NodeJS.ReadableStream & { destroy(error?: Error): void; pause(): unknown; resume(): unknown } = decoder ? res.pipe(decoder) : res;
  if (decoder) res.once('error', (error) => decoder.destroy(error));
  source.pause();
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.on('data', (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.once('end', () => {
          done();
          controller.close();
        });
        const onError = (error: unknown): void => {
          done();
          // Reading after the caller aborted rejects with the caller's reason, as fetch does.
          controller.error(signal?.aborted ? signal.reason : new TypeError('terminated', { cause: error }));
        };
        source.once('error', onError);
        res.once('close', () => {
          if (!res.complete) onError(new Error('the connection closed before the whole answer arrived'));
        });
      },
      pull() {
        source.resume();
      },
      cancel() {
        done();
        res.destroy();
        decoder?.destroy();
      },
    },
    { highWaterMark: 65_536, size: (chunk) => chunk.byteLength },
  );
}

interface ResponseParts {
  status: number;
  statusText: string;
  headers: Headers;
  url: string;
  redirected: boolean;
}

const UNUSABLE = 'Body is unusable: Body has already been read';

/**
 * The standard Response as a class to extend. The global `Response` type declares its members as
 * properties, which TypeScript will not let a subclass override with accessors and methods, so the
 * same constructor is described here with accessors and methods (what it has at run time).
 */
interface StandardResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly ok: boolean;
  get url(): string;
  get redirected(): boolean;
  get type(): string;
  get body(): ReadableStream<Uint8Array> | null;
  get bodyUsed(): boolean;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array>;
  blob(): Promise<Blob>;
  formData(): Promise<FormData>;
  clone(): Response;
}
const StandardResponse = Response as unknown as new (body: ReadableStream<Uint8Array> | null, init: { status: number; statusText?: string; headers: Headers }) => StandardResponse;

/**
 * A `Response` whose small body sits in a buffer. Building a standard `Response` over bytes makes a
 * ReadableStream right away, and reading it back walks the stream machinery: together about 25 µs
 * on Node 20, more than the rest of a pooled request. Here `text()`, `json()`, `arrayBuffer()`,
 * `bytes()` and `blob()` read the buffer; touching `body` (or `formData()`) switches to a standard
 * `Response` over the same bytes, so every part of the interface keeps its standard behaviour.
 * Streamed answers are a plain subclass instance with `url`, `redirected` and `type` as fetch sets them.
 */
class NodeFetchResponse extends StandardResponse {
  #parts!: ResponseParts;
  #bytes: Buffer | undefined;
  #used = false;
  #standard: Response | undefined;

  static create(parts: ResponseParts, bytes: Buffer | undefined, stream?: ReadableStream<Uint8Array>): Response {
    let response: NodeFetchResponse;
    try {
      response = new NodeFetchResponse(stream ?? null, { status: parts.status, statusText: parts.statusText, headers: parts.headers });
    } catch {
      // A reason phrase outside the token grammar (or a status fetch cannot represent) must not lose the answer.
      try {
        response = new NodeFetchResponse(stream ?? null, { status: parts.status, headers: parts.headers });
      } catch (cause) {
        throw new TypeError('fetch failed', { cause });
      }
    }
    response.#parts = parts;
    response.#bytes = stream ? undefined : bytes;
    return response as unknown as Response;
  }

  override get url(): string {
    return this.#parts.url;
  }

  override get redirected(): boolean {
    return this.#parts.redirected;
  }

  override get type(): string {
    return 'basic';
  }

  override get body(): ReadableStream<Uint8Array> | null {
    return this.#buffered() ? this.#switchToStandard().body : super.body;
  }

  override get bodyUsed(): boolean {
    if (this.#standard) return this.#standard.bodyUsed;
    return this.#bytes !== undefined ? this.#used : super.bodyUsed;
  }

  override text(): Promise<string> {
    return this.#read((bytes) => textDecoder.decode(bytes), () => super.text());
  }

  override json(): Promise<unknown> {
    return this.#read((bytes) => JSON.parse(textDecoder.decode(bytes)) as unknown, () => super.json());
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#read((bytes) => copyToArrayBuffer(bytes), () => super.arrayBuffer());
  }

  override bytes(): Promise<Uint8Array> {
    return this.#read((bytes) => new Uint8Array(copyToArrayBuffer(bytes)), () => super.bytes());
  }

  override blob(): Promise<Blob> {
    return this.#read((bytes) => new Blob([copyToArrayBuffer(bytes)], { type: this.headers.get('content-type') ?? '' }), () => super.blob());
  }

  override formData(): Promise<FormData> {
    return this.#buffered() ? this.#switchToStandard().formData() : super.formData();
  }

  override clone(): Response {
    if (this.#buffered() && !this.#standard) {
      if (this.#used) throw new TypeError('Response.clone: Body has already been consumed.');
      return NodeFetchResponse.create(this.#parts, this.#bytes);
    }
    const cloned = this.#standard ? this.#standard.clone() : super.clone();
    const { url, redirected } = this.#parts;
    return Object.defineProperties(cloned, { url: { value: url }, redirected: { value: redirected }, type: { value: 'basic' } });
  }

  #buffered(): boolean {
    return this.#bytes !== undefined;
  }

  #switchToStandard(): Response {
    this.#standard ??= new Response(this.#used ? null : this.#bytes, { status: this.status, statusText: this.statusText, headers: this.headers });
    return this.#standard;
  }

  #read<T>(fromBytes: (bytes: Buffer) => T, standard: () => Promise<T>): Promise<T> {
    if (!this.#buffered()) return standard();
    // Once `body` was handed out, the standard Response owns the bytes: read through it.
    if (this.#standard) return this.#standard.arrayBuffer().then((buffer) => fromBytes(Buffer.from(buffer)));
    if (this.#used) return Promise.reject(new TypeError(UNUSABLE));
    this.#used = true;
    try {
      return Promise.resolve(fromBytes(this.#bytes!));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

const textDecoder = new TextDecoder();

function copyToArrayBuffer(bytes: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}
