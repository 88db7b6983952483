// One attempt on the wire: the request it sends (signed for its URL, forwarded headers, the
// service's own headers) and the sender that sends it over keep-alive pools and reads the answer.
import { bodyBytes, type MessageRecord } from '../state/records';
import type { DevState } from '../state/dev-state';
import { runHistory } from '../state/runs';
import { dispatchOnce, headerNames, type TokenSigner } from '@mailroom/core/internal-protocol';
import type { EngineConfig } from '../settings';
import type { Agent } from 'undici';
import { setMaxListeners } from 'node:events';
import { appendHeaderValue, type HeaderValues } from '../state/header-values';

/** Sent as `User-Agent` on every delivery, so a destination can tell dev traffic apart. */
const DELIVERY_USER_AGENT = 'mailroom-dev-server';

/** What one attempt sends. */
export interface DeliveryRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The request of one attempt, as service-facts describes a delivery: the method, the raw body with
 * its original `Content-Type`, the forwarded headers under their own names, and the service's
 * `<P>-Message-Id`, `<P>-Retried`, `<P>-Caller-Ip`, `<P>-Topic-Name` (URL groups), `<P>-Schedule-Id`
 * (schedules), `<P>-Region` (when the server plays a region), the workflow
 * headers, a `User-Agent`, and `<P>-Signature` signed with the current key for this exact URL and body.
 */
export function buildDeliveryRequest(
  message: MessageRecord,
  retried: number,
  config: Pick<EngineConfig, 'headerPrefix' | 'region'>,
  sign: TokenSigner,
  /** What to send instead of the message's own body (a workflow run's history). */
  bodyOverride?: Buffer,
): DeliveryRequest {
  const body = bodyOverride ?? bodyBytes(message);
  const names = headerNames(config.headerPrefix);
  const headers: Record<string, string> = { 'User-Agent': DELIVERY_USER_AGENT };
  if (message.contentType !== undefined) headers['Content-Type'] = message.contentType;
  headers[names.messageId] = message.id;
  headers[names.retried] = String(retried);
  if (message.callerIp) headers[names.callerIp] = message.callerIp;
  if (message.topicName !== undefined) headers[names.topicName] = message.topicName;
  if (message.scheduleId !== undefined) headers[names.scheduleId] = message.scheduleId;
  if (config.region !== undefined) headers[names.region] = config.region;
  if (message.workflow) {
    headers[names.workflowRunId] = message.workflow.runId;
    headers[names.workflowUrl] = message.workflow.url;
    headers[names.workflowCreatedAt] = String(message.workflow.createdAt);
  }
  headers[names.signature] = sign(message.url, body);
  const forwarded = Object.keys(message.forwardHeaders);
  return {
    url: message.url,
    method: message.method,
    headers: forwarded.length === 0 ? headers : withForwarded(headers, message.forwardHeaders),
    body,
  };
}

/**
 * The body a delivery of a run's message carries: the run's history as a JSON array. An SDK with
 * `LazyFetch` gets nothing instead when the history is larger than a message may be (`maxBytes`), and
 * fetches it itself; as the service does, a smaller one rides along and saves the SDK that exchange.
 * Messages of no known run keep their own body.
 */
export function workflowDeliveryBody(state: DevState, message: MessageRecord, maxBytes: number): Buffer | undefined {
  const workflow = message.workflow;
  if (!workflow || message.kind !== 'message' || workflow.callType === 'toCallback') return undefined;
  if (!state.runs.has(workflow.runId)) return undefined;
  const history = Buffer.from(JSON.stringify(runHistory(state, workflow.runId, message.id)));
  return workflow.lazyFetch && history.length > maxBytes ? Buffer.alloc(0) : history;
}

// The framing of the hop is the HTTP client's own (undici refuses these, or they would contradict
// the body it sends), so a forwarded one is never sent, nor shown as sent.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'content-length',
]);

/**
 * Adds the forwarded headers, keyed by lower-case name so a forwarded header replaces a default
 * (User-Agent) rather than doubling it, while the service's own headers always win over forwarded
 * ones. The order is the one a single pass would give: defaults, forwarded, then the service's.
 */
function withForwarded(own: Record<string, string>, forwarded: Record<string, string>): Record<string, string> {
  const headers = new Map<string, [string, string]>();
  const set = (name: string, value: string) => headers.set(name.toLowerCase(), [name, value]);
  const ownEntries = Object.entries(own);
  const defaults = 'Content-Type' in own ? 2 : 1;
  for (const [name, value] of ownEntries.slice(0, defaults)) set(name, value);
  for (const [name, value] of Object.entries(forwarded)) if (!HOP_BY_HOP.has(name.toLowerCase())) set(name, value);
  for (const [name, value] of ownEntries.slice(defaults)) set(name, value);
  // fromEntries defines own properties: a forwarded header named `__proto__` stays a header.
  return Object.fromEntries(headers.values());
}

/** One outgoing request of an attempt. */
export interface OutgoingRequest {
  url: string;
  method: string;
  /** Sent as they are; for a URL with `user:password@`, `Authorization` is added unless present. */
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  /** A fault on demand this attempt is sent under, for whoever records attempts (a test service). */
  fault?: 'duplicate' | 'lose-answer' | 'skew-clock';
}

/** What the destination answered, or why it did not. */
export type RequestResult =
  | { ok: true; status: number; headers: HeaderValues; body: Buffer; bytesReceived: number }
  | { ok: false; error: string; aborted: boolean };

/** Response bytes kept for callbacks and the DLQ; the rest is read (and counted) but not stored. */
const MAX_KEPT_RESPONSE_BYTES = 1_048_576;

/** Parsed destination URLs kept; a dev server talks to a handful, so this is only a bound. */
const MAX_CACHED_TARGETS = 1024;

/** Sends attempts: over keep-alive connections of its own, or however an in-process service delivers. */
export interface RequestSender {
  send(request: OutgoingRequest): Promise<RequestResult>;
  /** Aborts every request still running (on shutdown): each resolves with `aborted: true`. */
  abortAll(): void;
  /** Closes the connections, so a closed dev server leaves no socket behind. */
  close(): void;
}

/** Where a URL's requests go, as undici's `dispatch` takes it; parsed once per URL. */
interface Target {
  origin: string;
  path: string;
  /** `Basic ...` for a URL with `user:password@`, as node:http sends it. */
  authorization: string | undefined;
}

interface SenderState {
  /** Made on the first attempt: loading undici takes a tenth of a second, which a start need not wait for. */
  agent: Promise<Agent> | undefined;
  targets: Map<string, Target>;
  /** Aborts every running request at once: one listener each on a shared signal, no controller per attempt. */
  stopAll: AbortController;
}

/**
 * One sender per dev server, over an undici `Agent` (keep-alive pools per origin): its `dispatch`
 * builds no request or response stream per attempt, as node:http does. Owning the agent means
 * closing one server never cuts another's connections (tests run several in one process).
 */
export function createRequestSender(): RequestSender {
  const state: SenderState = {
    agent: undefined,
    targets: new Map(),
    stopAll: unlimitedController(),
  };
  return {
    send: (request) => sendRequest(request, state),
    abortAll() {
      const running = state.stopAll;
      state.stopAll = unlimitedController();
      running.abort(new Error('aborted: the dev server is closing'));
    },
    close() {
      void state.agent?.then((agent) => agent.destroy()).catch(() => {});
    },
  };
}

/** A controller whose signal takes any number of listeners (one per running attempt) without a leak warning. */
function unlimitedController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

function targetOf(url: string, state: SenderState): Target {
  let target = state.targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`unsupported protocol ${parsed.protocol}`);
    const credentials =
      parsed.username || parsed.password ? `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}` : undefined;
    target = {
      origin: parsed.origin,
      path: `${parsed.pathname}${parsed.search}`,
      authorization: credentials === undefined ? undefined : `Basic ${Buffer.from(credentials).toString('base64')}`,
    };
    if (state.targets.size >= MAX_CACHED_TARGETS) state.targets.clear();
    state.targets.set(url, target);
  }
  return target;
}

/**
 * Sends one request with the raw body and exactly the given headers (fetch would add its own, which
 * a destination might sign-check or log; undici adds only Host, Content-Length and Connection). Never
 * rejects: a network error or the timeout is a result, since both are delivery failures.
 */
async function sendRequest(request: OutgoingRequest, state: SenderState): Promise<RequestResult> {
  let target: Target;
  try {
    target = targetOf(request.url, state);
  } catch (error) {
    return { ok: false, error: messageOf(error), aborted: false };
  }
  const stop = state.stopAll.signal;
  state.agent ??= import('undici').then(
    // undici's own header and body timeouts are off: an attempt's timeout is the one deadline.
    ({ Agent }) => new Agent({ keepAliveTimeout: 4_000, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 }),
  );
  const result = await dispatchOnce(await state.agent, {
    origin: target.origin,
    path: target.path,
    method: request.method,
    headers: requestHeaders(request.headers, target.authorization),
    body: request.body,
    timeoutMs: request.timeoutMs,
    signal: stop,
    keepBytes: MAX_KEPT_RESPONSE_BYTES,
  });
  if (!result.ok) return { ok: false, error: messageOf(result.error), aborted: result.aborted };
  return {
    ok: true,
    status: result.status,
    headers: headerValuesOf(result.headers),
    body: result.body,
    bytesReceived: result.bytesReceived,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The attempt's headers, plus `Authorization` for a URL with `user:password@` unless one is given. */
function requestHeaders(headers: Record<string, string>, authorization: string | undefined): Record<string, string> {
  if (authorization === undefined) return headers;
  for (const name in headers) if (name.toLowerCase() === 'authorization') return headers;
  return { ...headers, Authorization: authorization };
}

/** undici's parsed answer headers (lower-case names, arrays for repeats) under the service's names. */
export function headerValuesOf(parsed: Readonly<Record<string, string | string[] | undefined>>): HeaderValues {
  const out: HeaderValues = {};
  for (const name of Object.keys(parsed)) {
    const value = parsed[name];
    if (Array.isArray(value)) for (const one of value) appendHeaderValue(out, name, one);
    else if (value !== undefined) appendHeaderValue(out, name, value);
  }
  return out;
}
