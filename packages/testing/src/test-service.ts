import {
  type BodyOf,
  ConfigError,
  createMessagingClient,
  type DestinationDefinition,
  type DlqMessage,
  type Duration,
  MailroomError,
  type MessagingClient,
  type Schedule,
  ValidationError,
  type HttpTransport,
  type WorkflowRun,
} from '@mailroom/core';
import { headerNames, parseDuration } from '@mailroom/core/protocol';
import { type EmbeddedService, type MessageKind, startEmbeddedService } from '@mailroom/dev-server/embedded';
import { type InProcessDelivery, inProcessDelivery } from './app';
import { realClock, settle, type TestClock, virtualClock } from './clock';
import { faultsOver, type Faults } from './faults';
import { resolveSettings, type Settings, type TestServiceOptions } from './settings';

/** One attempt delivered to the app (or, for a URL not under `appUrl`, over the network), with its answer. */
export interface Attempt<B = unknown> {
  messageId: string;
  /** `message`, or the `callback` / `failure-callback` of another message. */
  kind: MessageKind;
  url: string;
  method: string;
  headers: Readonly<Record<string, string>>;
  /** The body as JSON when it is JSON, else its text. */
  body: B;
  /** How many times this message was tried before. */
  retried: number;
  /** The service's (virtual) time of the attempt, in ms since the epoch. */
  at: number;
  /** What the app answered; `undefined` when it did not (an error, or a lost answer). */
  status: number | undefined;
  /** Set when a fault changed this attempt. */
  fault?: 'duplicate' | 'loseAnswer';
}

/** The service in the test. */
export interface TestService {
  /** A messaging client bound to the service (in-process: no port). */
  readonly client: MessagingClient;
  /** `MAILROOM_*` (and `QSTASH_*`) settings for the code under test; the URLs only when listening. */
  readonly env: Readonly<Record<string, string>>;
  /** The service's base URL when listening. */
  readonly url: string | undefined;
  /** The service's time, in ms since the epoch. */
  now(): number;
  /** Runs everything due within `duration` (seconds, or `"2h"`), in time order, each instant to completion. */
  advance(duration: Duration): Promise<void>;
  /** Runs until nothing more is due; stops with an error after `maxSteps` instants (a schedule never ends). */
  runUntilIdle(options?: { maxSteps?: number }): Promise<void>;
  readonly faults: Faults;
  /** Every attempt so far, oldest first; to one destination, URL or path. */
  attempts(to?: DestinationDefinition | string): Attempt[];
  /** The attempts the app answered with 2xx, typed by the destination. */
  deliveries<D extends DestinationDefinition>(to: D): Attempt<BodyOf<D>>[];
  deliveries(to?: string): Attempt[];
  /** Callbacks and failure callbacks delivered so far. */
  callbacks(): Attempt[];
  dlq(): Promise<DlqMessage[]>;
  schedules(): Promise<Schedule[]>;
  /** Workflow runs, newest first, with their steps. */
  runs(): Promise<WorkflowRun[]>;
  /** Gives `data` to the workflow runs waiting for `eventId`, and runs what follows. */
  notify(eventId: string, data?: unknown): Promise<void>;
  /** Stops the service; nothing is left open. */
  close(): Promise<void>;
}

/** Starts the service in-process, its deliveries going to `options.app`. */
export async function createTestService(options: TestServiceOptions): Promise<TestService> {
  if (options === null || typeof options !== 'object') throw new ValidationError('options', 'expected { app }');
  const settings = resolveSettings(options);
  const clock: TestClock = settings.virtual ? virtualClock(settings.startAt) : realClock();
  let deliverToApp: InProcessDelivery | undefined;
  const appOrigin = new URL(settings.appUrl).origin;
  const names = headerNames(settings.headerPrefix);
  const attempts: Attempt[] = [];
  let embedded: EmbeddedService | undefined;
  let sends = 0;

  const record = (
    request: { url: string; method: string; headers: Record<string, string>; body: Buffer },
    status: number | undefined,
    fault?: Attempt['fault'],
  ) => {
    const messageId = request.headers[names.messageId] ?? '';
    attempts.push({
      messageId,
      kind: embedded?.messageKind(messageId) ?? 'message',
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: bodyOf(request.body),
      retried: Number(request.headers[names.retried] ?? 0),
      at: clock.now(),
      status,
      ...(fault ? { fault } : {}),
    });
  };

  embedded = await startEmbeddedService({
    now: clock.now,
    clock,
    // Receivers check a token's age on their own (real) clock; a skew fault moves it from there.
    signingNow: () => Date.now(),
    headerPrefix: settings.headerPrefix,
    issuer: settings.issuer,
    plan: settings.plan,
    listen: settings.listen,
    ...(settings.signingKeys ? { signingKeys: settings.signingKeys } : {}),
    deliver(request) {
      if (!deliverToApp || new URL(request.url).origin !== appOrigin) return undefined;
      return (async () => {
        sends++;
        try {
          const answer = await deliverToApp(request);
          if (request.fault === 'lose-answer') {
            record(request, undefined, 'loseAnswer');
            return answer;
          }
          record(request, answer.status, request.fault === 'duplicate' ? 'duplicate' : undefined);
          return answer;
        } finally {
          sends--;
        }
      })();
    },
  });
  const service = embedded;
  const faults = faultsOver(service.faults);
  try {
    const app = options.createApp ? await options.createApp(environment(service, settings)) : options.app!;
    deliverToApp = await inProcessDelivery(app);
  } catch (error) {
    await service.close();
    throw error;
  }
  const quiet = {
    settled: () => sends === 0 && service.settled(),
    describeBusy: () => (sends > 0 ? `${sends} delivery(ies) the app has not answered` : 'the service to finish its work'),
  };
  const inspector = createMessagingClient({
    baseUrl: 'http://mailroom.test',
    token: service.credentials.token,
    headerPrefix: settings.headerPrefix,
    env: {},
    retry: false,
    transport: inProcessTransport(service),
  });
  const client = createMessagingClient({
    baseUrl: service.url ?? 'http://mailroom.test',
    token: service.credentials.token,
    headerPrefix: settings.headerPrefix,
    appUrl: settings.appUrl,
    env: {},
    transport: inProcessTransport(service),
  });
  const wait = () => settle(quiet, settings.settleTimeoutMs);

  const filtered = (to: DestinationDefinition | string | undefined): Attempt[] => {
    if (to === undefined) return [...attempts];
    const path = typeof to === 'string' ? to : to?.path;
    if (typeof path !== 'string') throw new ValidationError('to', 'expected a destination made by defineDestination, a URL or a path');
    return attempts.filter((attempt) => attempt.url === path || new URL(attempt.url).pathname === path);
  };

  let closed = false;
  const open = (what: string): void => {
    if (closed) throw new ConfigError('service', undefined, `${what} after close(): create a new test service`);
  };

  return {
    client,
    get env() {
      return environment(service, settings);
    },
    url: service.url,
    now: () => clock.now(),
    async advance(duration) {
      open('advance()');
      const target = clock.now() + parseDuration('duration', duration) * 1000;
      await wait();
      for (let at = clock.alarmAt(); at !== undefined && at <= target; at = clock.alarmAt()) {
        clock.moveTo(at);
        await wait();
      }
      clock.moveTo(target);
      await wait();
    },
    async runUntilIdle(runOptions = {}) {
      open('runUntilIdle()');
      const maxSteps = runOptions.maxSteps ?? 10_000;
      if (!Number.isSafeInteger(maxSteps) || maxSteps < 1)
        throw new ValidationError('maxSteps', `expected a whole number >= 1, got ${maxSteps}`);
      if (!clock.virtual) clock.moveTo(0);
      await wait();
      for (let steps = 0; ; steps++) {
        const at = clock.alarmAt();
        if (at === undefined) return;
        if (steps >= maxSteps) {
          throw new MailroomError(
            'TEST_SERVICE_NEVER_IDLE',
            `runUntilIdle() ran ${maxSteps} instants and something is still due (at ${new Date(at).toISOString()}): a schedule fires forever, or a message keeps being retried. Use advance(duration) with schedules, or raise maxSteps`,
          );
        }
        clock.moveTo(at);
        await wait();
      }
    },
    faults,
    attempts: filtered,
    deliveries: ((to?: DestinationDefinition | string) =>
      filtered(to).filter(
        (attempt) => attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300,
      )) as TestService['deliveries'],
    callbacks: () => attempts.filter((attempt) => attempt.kind !== 'message'),
    async dlq() {
      const entries: DlqMessage[] = [];
      for await (const entry of inspector.dlq.iterate()) entries.push(entry);
      return entries;
    },
    schedules: () => inspector.schedules.list(),
    async runs() {
      const runs: WorkflowRun[] = [];
      for await (const run of inspector.workflows.iterate()) runs.push(run);
      return runs;
    },
    async notify(eventId, data) {
      open('notify()');
      await inspector.workflows.notify(eventId, data);
      await wait();
    },
    async close() {
      if (closed) return;
      closed = true;
      await service.close();
    },
  };
}

function environment(service: EmbeddedService, settings: Settings): Record<string, string> {
  const keys = service.keys();
  const env: Record<string, string> = {
    MAILROOM_TOKEN: service.credentials.token,
    MAILROOM_CURRENT_SIGNING_KEY: keys.current,
    MAILROOM_NEXT_SIGNING_KEY: keys.next,
    MAILROOM_HEADER_PREFIX: settings.headerPrefix,
    MAILROOM_ISSUER: settings.issuer,
    MAILROOM_APP_URL: settings.appUrl,
    QSTASH_TOKEN: service.credentials.token,
    QSTASH_CURRENT_SIGNING_KEY: keys.current,
    QSTASH_NEXT_SIGNING_KEY: keys.next,
  };
  if (service.url) {
    env.MAILROOM_URL = service.url;
    env.QSTASH_URL = service.url;
  }
  return env;
}

/** Requests answered by the service in-process (a throttle fault refuses its sending calls there too). */
function inProcessTransport(service: EmbeddedService): HttpTransport {
  return {
    async send(request) {
      const url = new URL(request.url);
      const body =
        request.body === undefined
          ? Buffer.alloc(0)
          : typeof request.body === 'string'
            ? Buffer.from(request.body)
            : Buffer.from(request.body);
      const reply = await service.answer({
        method: request.method,
        target: `${url.pathname}${url.search}`,
        headers: request.headers,
        body,
      });
      return { status: reply.status, statusText: '', headers: new Headers(reply.headers), text: reply.body };
    },
  };
}

function bodyOf(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
