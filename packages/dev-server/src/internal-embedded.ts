// The service embedded in another process: the same service as `mailroom dev` (engine, acceptance,
// routes, views), on a clock and a sender the embedder provides, answering requests in-process.
// `@mailroom/testing` is built on it; it is an internal entry point, not part of the public surface.
import type { AddressInfo } from 'node:net';
import { generateCredentials, keysInForce, type DevCredentials } from './credentials';
import { createEventBus, type DevServerEventListener } from './events';
import { createRequestGuard } from './http/console';
import { createHttpServer } from './http/node-server';
import { allRoutes } from './http/routes';
import { type Answering, answerRequest, replyBody, replyHeaders, type ServiceRequest } from './http/router';
import {
  createRequestSender,
  headerValuesOf,
  type OutgoingRequest,
  type RequestResult,
  type RequestSender,
} from './engine/delivery-request';
import type { Faults } from './engine/faults';
import type { TimerClock } from './engine/timers';
import { ServiceError } from './errors';
import { MANAGEMENT_BASE_PATH } from './management/routes';
import type { McpSettings } from './mcp/mcp-endpoint';
import { environmentLines } from './start-dev-server';
import { closeService, createService, startService, secretValues } from './service';
import { type EngineConfig, PLANS, type PlanName } from './settings';
import { openStore } from './state/store';
import type { MessageKind } from './state/records';

export type { TimerClock } from './engine/timers';
export type { OutgoingRequest, RequestResult } from './engine/delivery-request';
export type { DevServerEvent, DevServerEventListener } from './events';
export type { DevCredentials } from './credentials';
export type { PlanName } from './settings';
export type { Faults } from './engine/faults';
export type { FaultInput, FaultRecord } from './state/records';
export type { MessageKind } from './state/records';
export type { MessageFixture, RecordedAttempt, RunFixture } from './http/fixtures';

/** How the embedded service runs. */
export interface EmbeddedServiceOptions {
  /** The service's clock: message times, schedules, retention. */
  now: () => number;
  /** When timers fall due on that clock. */
  clock: TimerClock;
  /**
   * Delivers an attempt in-process, or answers `undefined` for a URL left to the network. A rejection
   * is a failed attempt with its message (no answer, as after a timeout).
   */
  deliver: (request: OutgoingRequest) => Promise<InProcessAnswer> | undefined;
  /** Whether the service delivers an attempt twice, loses its answer or skews its clock, beyond the faults in force (see `EngineDeps.freedom`). */
  freedom?: (kind: 'duplicate' | 'lose-answer' | 'skew-clock', url: string) => boolean;
  /** Answers a sending call 429 or 503 with `Retry-After`, beyond the throttle faults in force, when it returns one. */
  throttleSend?: () => { status: 429 | 503; retryAfterSeconds: number } | undefined;
  /** Told of every attempt's request, in-process or over the network, and what came back. */
  onAttempt?: (request: OutgoingRequest, result: RequestResult) => void;
  /** The time a delivery to `url` is signed at. Default: `now`. */
  signingNow?: (url: string) => number;
  /** Signing keys to use instead of fresh ones (an app that reads its keys when its modules load). */
  signingKeys?: { current: string; next: string };
  headerPrefix: string;
  issuer: string;
  plan: PlanName;
  region?: string;
  /** Also serve on 127.0.0.1, port 0, for code that can only reach the service by URL. */
  listen: boolean;
  onEvent?: DevServerEventListener;
}

/** What the app answered to an attempt delivered in-process. */
export interface InProcessAnswer {
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
}

/** One request answered in-process. */
export interface EmbeddedRequest {
  method: string;
  /** Path and query. */
  target: string;
  /** Lower-case names. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

/** Its answer. */
export interface EmbeddedReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A running embedded service. */
export interface EmbeddedService {
  /** Where it listens (`listen`), else `undefined`. */
  url: string | undefined;
  credentials: DevCredentials;
  /** The signing keys in force (a rotation changes them). */
  keys(): { current: string; next: string };
  answer(request: EmbeddedRequest): Promise<EmbeddedReply>;
  /** Whether nothing runs: no attempt, nothing due now, no request being answered. */
  settled(): boolean;
  /** What a pending message is: a message, or the callback or failure callback of another. */
  messageKind(id: string): MessageKind | undefined;
  /** Faults on demand: the same rules as `mailroom dev --fault`. */
  faults: Faults;
  close(): Promise<void>;
}

/** Starts a service in memory with fresh credentials of its own. */
export async function startEmbeddedService(options: EmbeddedServiceOptions): Promise<EmbeddedService> {
  const events = createEventBus();
  if (options.onEvent) events.subscribe(options.onEvent);
  const plan = PLANS[options.plan];
  const fresh = generateCredentials(options.now);
  const credentials = options.signingKeys
    ? { ...fresh, currentSigningKey: options.signingKeys.current, nextSigningKey: options.signingKeys.next }
    : fresh;
  const config: EngineConfig = {
    headerPrefix: options.headerPrefix,
    issuer: options.issuer,
    currentSigningKey: credentials.currentSigningKey,
    timeScale: 1,
    maxInFlight: plan.max_global_parallelism,
    planTimeoutSeconds: plan.timeout,
    maxMessageSize: plan.max_message_size,
    region: options.region,
    now: options.now,
    unrefTimers: true,
  };
  const store = await openStore({
    dataDir: undefined,
    now: options.now,
    dlqRetentionMs: plan.max_dlq_retention_time_milis,
    onCompactionError: () => {},
  });
  const service = createService({
    store,
    events,
    credentials,
    plan,
    config,
    engine: {
      clock: options.clock,
      sender: inProcessSender(options.deliver, options.onAttempt),
      ...(options.signingNow ? { signingNow: options.signingNow } : {}),
      ...(options.freedom ? { freedom: options.freedom } : {}),
    },
  });
  const answering: Answering = {
    routes: allRoutes(service),
    credentials,
    readOnly: { secrets: () => secretValues(service) },
    refuseIfThrottled: () => {
      service.faults.refuseIfThrottled();
      const throttled = options.throttleSend?.();
      if (throttled) {
        throw new ServiceError(throttled.status, 'throttled: the service used its freedom to refuse a sending call now and then', {
          'Retry-After': String(throttled.retryAfterSeconds),
        });
      }
    },
  };
  let requestsInFlight = 0;
  // Listening, it is an MCP server too, for an agent driving a test (docs/mcp.md).
  const mcp: McpSettings = {
    headerPrefix: options.headerPrefix,
    environment: () => {
      const base = url ?? '';
      const { current, next } = keysInForce(store.state, credentials);
      return environmentLines({
        url: base,
        token: credentials.token,
        currentSigningKey: current,
        nextSigningKey: next,
        managementUrl: `${base}${MANAGEMENT_BASE_PATH}`,
        managementUser: credentials.managementUser,
        managementPassword: credentials.managementPassword,
        headerPrefix: options.headerPrefix,
        issuer: options.issuer,
      }).filter((line) => !line.startsWith('MAILROOM_APP_URL='));
    },
  };
  const server = options.listen
    ? await listen(
        { ...answering, mcp },
        events,
        () => requestsInFlight++,
        () => requestsInFlight--,
      )
    : undefined;
  startService(service);
  const url = server ? `http://127.0.0.1:${(server.address() as AddressInfo).port}` : undefined;
  let closing: Promise<void> | undefined;
  return {
    url,
    credentials,
    keys: () => keysInForce(store.state, credentials),
    async answer(request) {
      requestsInFlight++;
      try {
        const reply = await answerRequest(answering, inProcess(request));
        const body = replyBody(reply);
        return { status: reply.status ?? 200, headers: lowerCase(replyHeaders(reply, body)), body };
      } finally {
        requestsInFlight--;
      }
    },
    settled: () => requestsInFlight === 0 && service.engine.settled(),
    messageKind: (id) => store.state.pending.get(id)?.kind,
    faults: service.faults,
    close() {
      closing ??= (async () => {
        if (server) {
          await new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          });
        }
        await closeService(service);
      })();
      return closing;
    },
  };
}

async function listen(
  answering: Answering & { mcp: McpSettings },
  events: ReturnType<typeof createEventBus>,
  started: () => void,
  ended: () => void,
) {
  let port = 0;
  const server = createHttpServer({
    ...answering,
    events,
    guard: createRequestGuard(() => port, []),
    consoleSettings: () => {
      throw new Error('the embedded service has no console');
    },
  });
  server.on('request', (_req, res) => {
    started();
    res.once('close', ended);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  // A test runner exits by itself: an idle connection or the listening socket never holds it.
  server.unref();
  server.on('connection', (socket) => socket.unref());
  return server;
}

/** Attempts go to `deliver`, and to the network (undici) where it declines them; each is told to `onAttempt`. */
function inProcessSender(deliver: EmbeddedServiceOptions['deliver'], onAttempt: EmbeddedServiceOptions['onAttempt']): RequestSender {
  const network = createRequestSender();
  const send = async (request: OutgoingRequest): Promise<RequestResult> => {
    const answering = deliver(request);
    if (!answering) return network.send(request);
    try {
      const answer = await answering;
      return {
        ok: true,
        status: answer.status,
        headers: headerValuesOf(answer.headers),
        body: answer.body,
        bytesReceived: answer.body.length,
      };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error), aborted: false };
    }
  };
  return {
    async send(request) {
      const result = await send(request);
      // A stopped attempt (the service closing) is no attempt: it is made again after a restart.
      if (!(!result.ok && result.aborted)) onAttempt?.(request, result);
      return result;
    },
    abortAll: () => network.abortAll(),
    close: () => network.close(),
  };
}

function inProcess(request: EmbeddedRequest): ServiceRequest {
  const rawHeaders = Object.entries(request.headers).flat();
  return {
    method: request.method,
    target: request.target,
    // As Node gives a request's headers: by lower-case name.
    headers: lowerCase(request.headers),
    rawHeaders,
    callerIp: '127.0.0.1',
    body: async (limit, tooLarge) => {
      if (request.body.length > limit) throw tooLarge();
      return request.body;
    },
  };
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
