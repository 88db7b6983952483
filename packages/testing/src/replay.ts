import { type HttpMethod, type MessagingClient, ValidationError } from '@mailroom/core';
import type { InProcessAnswer, MessageFixture, OutgoingRequest, RecordedAttempt } from '@mailroom/dev-server/embedded';

// A message recorded by `mailroom dev` (`GET /dev/messages/{id}/fixture`, or the console's "Export
// fixture"), sent again into a test service: the same method, headers and body to the same path of
// the app, with the same retries and callbacks. Its answers come from the app under test, or, with
// `answers: 'recorded'`, from the recording (the service then retries, dead-letters and calls back
// exactly as it did), so a bug seen locally becomes a test in one step.

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

/** Replays into one service; `answer` serves the recorded answers of messages replayed with `answers: 'recorded'`. */
export interface Replays {
  replay(client: MessagingClient, fixture: MessageFixture, options?: ReplayOptions): Promise<Replayed>;
  /** The recorded answer for this attempt, or `undefined` when it is not a replayed message's. */
  answer(request: OutgoingRequest): Promise<InProcessAnswer> | undefined;
}

export function createReplays(appUrl: string): Replays {
  const origin = new URL(appUrl).origin;
  // Recorded answers by destination URL, each handed out in order (the last again past the end).
  const byUrl = new Map<string, { answers: readonly RecordedAttempt[]; next: number }>();
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

function checkFixture(fixture: MessageFixture): MessageFixture {
  const hint = 'expected a fixture from mailroom dev: GET /dev/messages/{id}/fixture, or the console\'s "Export fixture"';
  if (fixture === null || typeof fixture !== 'object' || fixture.fixture !== 1) throw new ValidationError('fixture', hint);
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
    throw new ValidationError('fixture', hint);
  }
  return fixture;
}
