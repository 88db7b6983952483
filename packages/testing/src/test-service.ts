import {
  type BodyOf,
  ConfigError,
  createMessagingClient,
  type DestinationDefinition,
  type DlqMessage,
  type Duration,
  type MessagingClient,
  type Schedule,
  ValidationError,
  type HttpTransport,
  type WorkflowRun,
} from '@mailroom/core';
import { headerNames, parseDuration, preloadResponseSchemas } from '@mailroom/core/internal-protocol';
import { type EmbeddedService, type MessageFixture, type RunFixture, startEmbeddedService } from '@mailroom/dev-server/internal-embedded';
import { type InProcessDelivery, inProcessDelivery } from './app';
import { createClockDriver, realClock, type TestClock, virtualClock } from './clock';
import { faultsOver, type Faults } from './faults';
import { answerGlobalFetch } from './global-fetch';
import { type Attempt, createRecording } from './recording';
import { createReplays, isRunFixture, type Replayed, type ReplayedRun, type ReplayOptions } from './replay';
import { resolveSettings, type Settings, type TestServiceOptions } from './settings';

// Core checks the service's answers with schemas it loads on first use. A test reads runs and the DLQ
// in its first test: they load while the file is collected, not in that test's time.
preloadResponseSchemas();

/** The service in the test. */
export interface TestService {
  /** A messaging client bound to the service (in-process: no port). */
  readonly client: MessagingClient;
  /** `MAILROOM_*` (and `QSTASH_*`) settings for the code under test; `MAILROOM_URL` only when listening (the default). */
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
  /** Every attempt so far, in-process or over the network, whatever its outcome, oldest first; to one destination, URL or path. */
  attempts(to?: DestinationDefinition | string): Attempt[];
  /** The attempts the app answered with 2xx, typed by the destination. */
  deliveries<D extends DestinationDefinition>(to: D): Attempt<BodyOf<D>>[];
  deliveries(to?: string): Attempt[];
  /** Callbacks and failure callbacks delivered (answered 2xx) so far. */
  callbacks(): Attempt[];
  dlq(): Promise<DlqMessage[]>;
  schedules(): Promise<Schedule[]>;
  /** Workflow runs, newest first, with their steps. */
  runs(): Promise<WorkflowRun[]>;
  /**
   * Sends a message `mailroom dev` recorded (`GET /dev/messages/{id}/fixture`, or the console's "Export
   * fixture") again, to the same path on `appUrl`'s origin; `answers: 'recorded'` answers its attempts
   * from the recording instead of the app. Run the clock to deliver it.
   */
  replay(fixture: MessageFixture, options?: ReplayOptions): Promise<Replayed>;
  /**
   * Starts a workflow run `mailroom dev` recorded (`GET /dev/workflows/runs/{id}/fixture`, or the run
   * page's "Export fixture") again at the same path: the app runs its steps, each `context.call` gets
   * the recorded answer and each wait the recorded event. Run the clock to play it out.
   */
  replay(fixture: RunFixture): Promise<ReplayedRun>;
  /** Gives `data` to the workflow runs waiting for `eventId`, and runs what follows. */
  notify(eventId: string, data?: unknown): Promise<void>;
  /** Stops the service; nothing is left open. */
  close(): Promise<void>;
}

/** Starts the service in-process, its deliveries going to `options.app`. */
export function createTestService(options: TestServiceOptions): Promise<TestService> {
  return startTestService(options, undefined);
}

/** How the service uses its freedoms beyond the faults a test sets (`explore` decides them). */
export interface ServiceFreedoms {
  freedom: (kind: 'duplicate' | 'lose-answer' | 'skew-clock', url: string) => boolean;
  /** Whether this delivery reaches the app after the ones started with it. */
  reorder: (url: string) => boolean;
  throttleSend: () => { status: 429 | 503; retryAfterSeconds: number } | undefined;
}

/** {@link createTestService}, with the service's freedoms decided by the caller. */
export async function startTestService(options: TestServiceOptions, freedoms: ServiceFreedoms | undefined): Promise<TestService> {
  if (options === null || typeof options !== 'object') throw new ValidationError('options', 'expected { app }');
  const settings = resolveSettings(options);
  const clock: TestClock = settings.virtual ? virtualClock(settings.startAt) : realClock();
  let deliverToApp: InProcessDelivery | undefined;
  const underAppUrl = appUrlMatcher(settings.appUrl);
  let embedded: EmbeddedService | undefined;
  const replays = createReplays({ appUrl: settings.appUrl, headerPrefix: settings.headerPrefix, service: () => embedded! });
  const recording = createRecording(headerNames(settings.headerPrefix), (id) => embedded?.messageKind(id), clock.now);
  let sends = 0;

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
      const recorded = replays.answer(request);
      if (recorded) return recorded;
      if (!deliverToApp || !underAppUrl(request.url)) return undefined;
      const deliver = deliverToApp;
      return (async () => {
        sends++;
        try {
          // Held back a turn (the service still busy): the deliveries started with it reach the app first.
          if (freedoms?.reorder(request.url)) await new Promise((resolve) => setImmediate(resolve));
          return await deliver(request);
        } finally {
          sends--;
        }
      })();
    },
    onAttempt: (request, result) => recording.record(request, result),
    ...(freedoms ? { freedom: freedoms.freedom, throttleSend: freedoms.throttleSend } : {}),
  });
  const service = embedded;
  let closed = false;
  const open = (what: string): void => {
    if (closed) throw new ConfigError('service', undefined, `${what} after close(): create a new test service`);
  };
  const faults = faultsOver(service.faults, open);
  const restoreFetch =
    service.url && settings.fetchInProcess ? answerGlobalFetch(service.url, (request) => service.answer(request)) : () => {};
  try {
    const app = options.createApp ? await options.createApp(environment(service, settings)) : options.app!;
    deliverToApp = await inProcessDelivery(app);
  } catch (error) {
    restoreFetch();
    await service.close();
    throw error;
  }
  const driver = createClockDriver(
    clock,
    {
      settled: () => sends === 0 && service.settled(),
      describeBusy: () => (sends > 0 ? `${sends} delivery(ies) the app has not answered` : 'the service to finish its work'),
    },
    settings.settleTimeoutMs,
  );
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
    // The client's own waits between retries pass on the service's clock: a virtual one moves on by
    // them. Called from inside a delivery (the app sends with this client), the clock only moves:
    // waiting for quiet there would wait for that very delivery.
    now: clock.now,
    ...(clock.virtual
      ? {
          sleep: async (ms: number) => {
            if (sends > 0) clock.moveTo(clock.now() + Math.ceil(ms));
            else await driver.advance(Math.ceil(ms));
          },
        }
      : {}),
  });

  return {
    client,
    get env() {
      return environment(service, settings);
    },
    url: service.url,
    now: () => clock.now(),
    async advance(duration) {
      open('advance()');
      await driver.advance(parseDuration('duration', duration) * 1000);
    },
    async runUntilIdle(runOptions = {}) {
      open('runUntilIdle()');
      await driver.runUntilIdle(runOptions.maxSteps ?? 10_000);
    },
    faults,
    attempts: recording.attempts,
    deliveries: recording.deliveries as TestService['deliveries'],
    callbacks: recording.callbacks,
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
    replay: (async (fixture: MessageFixture | RunFixture, replayOptions?: ReplayOptions) => {
      open('replay()');
      if (isRunFixture(fixture)) {
        if (replayOptions !== undefined)
          throw new ValidationError('options', 'a workflow run replays with the app answering its steps: pass no options');
        return replays.replayRun(fixture);
      }
      return replays.replay(client, fixture, replayOptions);
    }) as TestService['replay'],
    async notify(eventId, data) {
      open('notify()');
      await inspector.workflows.notify(eventId, data);
      await driver.settle();
    },
    async close() {
      if (closed) return;
      closed = true;
      restoreFetch();
      await service.close();
    },
  };
}

/** Whether a URL is under the app's base URL: the same origin, and its path at or below the base's path. */
function appUrlMatcher(appUrl: string): (url: string) => boolean {
  const base = new URL(appUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  return (url) => {
    const target = new URL(url);
    return target.origin === base.origin && (prefix === '' || target.pathname === prefix || target.pathname.startsWith(`${prefix}/`));
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
