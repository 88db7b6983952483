import { type HttpMethod, MailroomError, type MessagingClient, ValidationError } from '@mailroom/core';
import { headerNames } from '@mailroom/core/internal-protocol';
import type {
  EmbeddedService,
  InProcessAnswer,
  MessageFixture,
  OutgoingRequest,
  RecordedAttempt,
  RunFixture,
} from '@mailroom/dev-server/internal-embedded';

// A message recorded by `mailroom dev` (`GET /dev/messages/{id}/fixture`, or the console's "Export
// fixture"), sent again into a test service: the same method, headers and body to the same path of
// the app, with the same retries and callbacks. Its answers come from the app under test, or, with
// `answers: 'recorded'`, from the recording (the service then retries, dead-letters and calls back
// exactly as it did), so a bug seen locally becomes a test in one step. A workflow run
// (`GET /dev/workflows/runs/{id}/fixture`) starts again from its trigger, the app running its steps
// while the world outside it answers as recorded: each `context.call` gets the third party's
// recorded answer, each wait the event it got (a wait that timed out times out on the clock).

/** How a replayed message is answered. */
export interface ReplayOptions {
  /** `'app'` (default): the app under test answers. `'recorded'`: each attempt gets its recorded answer, in order. */
  answers?: 'app' | 'recorded';
}

/** What `replay` sent, and what the recording says happened then. */
export interface Replayed {
  messageId: string;
  /** The recorded attempts, oldest first: compare them with `service.attempts(...)`. */
  recorded: readonly RecordedAttempt[];
}

/** The run `replay` started again, and the steps the recording says it ran. */
export interface ReplayedRun {
  workflowRunId: string;
  /** The recorded steps after the trigger, in order: compare them with the replayed run's in `service.runs()`. */
  recorded: RunFixture['steps'];
}

/** Replays into one service; `answer` serves the recorded answers (of calls, and of messages replayed with `answers: 'recorded'`). */
export interface Replays {
  replay(client: MessagingClient, fixture: MessageFixture, options?: ReplayOptions): Promise<Replayed>;
  replayRun(fixture: RunFixture): Promise<ReplayedRun>;
  /** The recorded answer for this attempt, or `undefined` when it is not a replayed message's. */
  answer(request: OutgoingRequest): Promise<InProcessAnswer> | undefined;
}

/** What a replay needs of the service: its wire's prefix, its answers to requests, its token. */
interface ReplayTarget {
  appUrl: string;
  headerPrefix: string;
  /** The service, once it runs (replays are made before it starts, as its deliveries ask them). */
  service: () => Pick<EmbeddedService, 'answer' | 'credentials'>;
}

export function createReplays({ appUrl, headerPrefix, service }: ReplayTarget): Replays {
  const origin = new URL(appUrl).origin;
  // Recorded answers by destination URL, each handed out in order (the last again past the end).
  const byUrl = new Map<string, { answers: RecordedAttempt[]; next: number }>();
  const replayedRuns = new Set<string>();
  const call = async (target: string, headers: Record<string, string>, body: Buffer, what: string): Promise<void> => {
    const running = service();
    const authorization = `Bearer ${running.credentials.token}`;
    const reply = await running.answer({ method: 'POST', target, headers: { authorization, ...headers }, body });
    if (reply.status >= 300) throw new MailroomError('REPLAY_REFUSED', `the test service refused ${what} (${reply.status}): ${reply.body}`);
  };
  const onApp = (url: string) => {
    const recorded = new URL(url);
    return `${origin}${recorded.pathname}${recorded.search}`;
  };
  return {
    async replay(client, fixture, options = {}) {
      const { message, attempts } = checkFixture(fixture);
      const answers = options.answers ?? 'app';
      if (answers !== 'app' && answers !== 'recorded')
        throw new ValidationError('answers', `expected "app" or "recorded", got ${JSON.stringify(answers)}`);
      const destination = onApp(message.url);
      if (answers === 'recorded') {
        if (attempts.length === 0)
          throw new ValidationError('fixture', 'the recording holds no attempt to answer with: replay it with answers: "app"');
        byUrl.set(destination, { answers: attempts, next: 0 });
      }
      // The body's type is the client's `contentType`; the rest are forwarded as they are.
      const contentTypeName = Object.keys(message.headers).find((name) => name.toLowerCase() === 'content-type');
      const { [contentTypeName ?? '']: contentType, ...headers } = message.headers;
      const sent = await client.publish({
        destination,
        method: message.method as HttpMethod,
        headers,
        ...(contentType !== undefined ? { contentType } : {}),
        body: Buffer.from(message.bodyBase64, 'base64'),
        retries: message.retries,
        timeout: message.timeoutSeconds,
        ...(message.retryDelay !== undefined ? { retryDelay: message.retryDelay } : {}),
        ...(message.callback !== undefined ? { callback: onApp(message.callback) } : {}),
        ...(message.failureCallback !== undefined ? { failureCallback: onApp(message.failureCallback) } : {}),
      });
      // A URL answers one result (a URL group would answer a list).
      const messageId = Array.isArray(sent) ? (sent[0]?.messageId ?? '') : sent.messageId;
      return { messageId, recorded: attempts };
    },
    async replayRun(fixture) {
      const { run, calls, events, steps } = checkRunFixture(fixture);
      if (replayedRuns.has(run.workflowRunId))
        throw new ValidationError(
          'fixture',
          `run ${run.workflowRunId} was replayed in this service already: replay it again in a new test service`,
        );
      replayedRuns.add(run.workflowRunId);
      for (const { url, status, headers, body } of calls) {
        const answers = byUrl.get(url) ?? { answers: [], next: 0 };
        answers.answers.push({ retried: 0, status, headers, bodyBase64: Buffer.from(body).toString('base64') });
        byUrl.set(url, answers);
      }
      // The trigger as the Workflow SDK publishes it: the run's id and URL, its features, its settings.
      const names = headerNames(headerPrefix);
      const destination = onApp(run.url);
      const headers: Record<string, string> = {
        [names.workflowInit]: 'true',
        [names.workflowRunId]: run.workflowRunId,
        [names.workflowUrl]: destination,
        [names.delivery.method]: run.method,
        [names.delivery.retries]: String(run.retries),
        [names.delivery.timeout]: `${run.timeoutSeconds}s`,
        ...(run.retryDelay !== undefined ? { [names.delivery.retryDelay]: run.retryDelay } : {}),
        ...(run.features.length > 0 ? { [names.featureSet]: run.features.join(',') } : {}),
        ...(run.failureCallback !== undefined ? { [names.failureCallback.url]: onApp(run.failureCallback) } : {}),
      };
      for (const [name, value] of Object.entries(run.headers)) {
        headers[name.toLowerCase() === 'content-type' ? name : `${names.delivery.forwardPrefix}${name}`] = value;
      }
      for (const [name, value] of Object.entries(run.failureCallbackHeaders ?? {}))
        headers[`${names.failureCallback.forwardPrefix}${name}`] = value;
      await call(`/v2/publish/${destination}`, headers, Buffer.from(run.bodyBase64, 'base64'), "the run's trigger");
      // Each event, named for the run: kept until the run waits for it, as the service keeps early events.
      for (const event of events) {
        if (!('dataBase64' in event)) continue;
        const target = `/v2/notify/${encodeURIComponent(run.workflowRunId)}/${encodeURIComponent(event.eventId)}`;
        await call(target, {}, Buffer.from(event.dataBase64, 'base64'), `the event ${event.eventId}`);
      }
      return { workflowRunId: run.workflowRunId, recorded: steps };
    },
    answer(request) {
      const replayed = byUrl.get(request.url);
      if (!replayed) return undefined;
      const recorded = replayed.answers[Math.min(replayed.next, replayed.answers.length - 1)]!;
      replayed.next += 1;
      if ('error' in recorded) return Promise.reject(new Error(recorded.error));
      return Promise.resolve({ status: recorded.status, headers: recorded.headers, body: Buffer.from(recorded.bodyBase64, 'base64') });
    },
  };
}

const FIXTURE_HINT =
  'expected a fixture from mailroom dev: GET /dev/messages/{id}/fixture or /dev/workflows/runs/{id}/fixture, or the console\'s "Export fixture"';

/** Whether a fixture is a workflow run's (else it is a message's). */
export function isRunFixture(fixture: MessageFixture | RunFixture): fixture is RunFixture {
  return fixture !== null && typeof fixture === 'object' && 'run' in fixture;
}

function checkRunFixture(fixture: RunFixture): RunFixture {
  if (fixture.fixture !== 1) throw new ValidationError('fixture', FIXTURE_HINT);
  const { run, calls, events, steps } = fixture;
  if (
    run === null ||
    typeof run !== 'object' ||
    typeof run.workflowRunId !== 'string' ||
    run.workflowRunId === '' ||
    typeof run.url !== 'string' ||
    !URL.canParse(run.url) ||
    typeof run.method !== 'string' ||
    typeof run.bodyBase64 !== 'string' ||
    !Number.isSafeInteger(run.retries) ||
    !Array.isArray(run.features) ||
    !Array.isArray(calls) ||
    !calls.every((each) => typeof each?.url === 'string' && typeof each.status === 'number' && typeof each.body === 'string') ||
    !Array.isArray(events) ||
    !events.every((each) => typeof each?.eventId === 'string') ||
    !Array.isArray(steps)
  ) {
    throw new ValidationError('fixture', FIXTURE_HINT);
  }
  return fixture;
}

function checkFixture(fixture: MessageFixture): MessageFixture {
  if (fixture === null || typeof fixture !== 'object' || fixture.fixture !== 1) throw new ValidationError('fixture', FIXTURE_HINT);
  const { message, attempts } = fixture;
  if (
    message === null ||
    typeof message !== 'object' ||
    typeof message.url !== 'string' ||
    !URL.canParse(message.url) ||
    typeof message.method !== 'string' ||
    typeof message.bodyBase64 !== 'string' ||
    !Number.isSafeInteger(message.retries) ||
    !Array.isArray(attempts)
  ) {
    throw new ValidationError('fixture', FIXTURE_HINT);
  }
  return fixture;
}
