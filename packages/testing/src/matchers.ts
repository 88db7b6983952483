import type { DestinationDefinition } from '@mailroom/core';
import type { Attempt } from './recording';
import type { TestService } from './test-service';

// Assertions on what a test service did, for vitest and jest alike (`expect.extend(matchers)`):
// each failure lists the attempts it looked at, so the diff shows what did happen.

type Target = DestinationDefinition | string;

/** The matchers' types: add them to your runner's `expect` (see `docs/testing.md`). */
export interface MailroomMatchers<R = unknown> {
  /** Some attempt to `to` was answered 2xx, with a body containing `body` (a partial match; asymmetric matchers work). */
  toHaveDelivered(to: Target, body?: unknown): R;
  /** Some message to `to` was retried exactly `times` times (attempted `times + 1` times). */
  toHaveRetried(to: Target, times: number): R;
  /** A message to `to` (with a body containing `body`) is in the DLQ. Await it. */
  toHaveEndedInDlq(to: Target, body?: unknown): Promise<R>;
}

/** What vitest's, jest's and bun's `this` in a matcher offer and these use (bun's `equals` must be called on it). */
interface MatcherContext {
  isNot: boolean;
  equals(a: unknown, b: unknown): boolean;
  utils: { printExpected(value: unknown): string; printReceived(value: unknown): string };
}

interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/**
 * A matcher as vitest's and jest's `expect.extend` both take it: their `this` types differ, so it is
 * typed loosely here and checked inside.
 */
// biome-ignore lint/suspicious/noExplicitAny: each runner's own matcher context, which the two type differently.
type RunnerMatcher = (this: any, received: unknown, ...expected: any[]) => MatcherResult | Promise<MatcherResult>;

/** The matchers, for `expect.extend(matchers)` in vitest or jest. */
export const matchers: Record<keyof MailroomMatchers, RunnerMatcher> = {
  toHaveDelivered(this: MatcherContext, received: unknown, to: Target, ...body: [unknown?]): MatcherResult {
    const attempts = attemptsOf(received, to, 'toHaveDelivered');
    // A body given as `undefined` is matched as one; none given matches any.
    const pass = attempts.some(
      (attempt) => delivered(attempt) && (body.length === 0 || containsPart(attempt.body, body[0], (a, b) => this.equals(a, b))),
    );
    const wanted = `${pathOf(to)}${body.length === 0 ? '' : ` with a body containing ${this.utils.printExpected(body[0])}`}`;
    return {
      pass,
      message: () => `expected the service ${this.isNot ? 'not ' : ''}to have delivered to ${wanted}\n${listed(attempts, this)}`,
    };
  },
  toHaveRetried(this: MatcherContext, received: unknown, to: Target, times: number): MatcherResult {
    if (!Number.isSafeInteger(times) || times < 0)
      throw new TypeError(`toHaveRetried: times must be a whole number >= 0, got ${String(times)}`);
    const attempts = attemptsOf(received, to, 'toHaveRetried');
    const most = new Map<string, number>();
    for (const attempt of attempts) most.set(attempt.messageId, Math.max(most.get(attempt.messageId) ?? 0, attempt.retried));
    const pass = [...most.values()].some((retried) => retried === times);
    return {
      pass,
      message: () =>
        `expected a message to ${pathOf(to)} ${this.isNot ? 'not ' : ''}to have been retried ${times} time(s)\n${listed(attempts, this)}`,
    };
  },
  async toHaveEndedInDlq(this: MatcherContext, received: unknown, to: Target, body?: unknown): Promise<MatcherResult> {
    const attempts = attemptsOf(received, to, 'toHaveEndedInDlq');
    const path = pathOf(to);
    const entries = (await (received as TestService).dlq()).filter(
      (entry) => entry.url !== undefined && (entry.url === path || new URL(entry.url).pathname === path),
    );
    const withBody =
      body === undefined ? entries : entries.filter((entry) => containsPart(parse(entry.body), body, (a, b) => this.equals(a, b)));
    return {
      pass: withBody.length > 0,
      message: () =>
        `expected a message to ${path} ${this.isNot ? 'not ' : ''}to have ended in the DLQ${body === undefined ? '' : ` with a body containing ${this.utils.printExpected(body)}`} (DLQ entries for it: ${entries.length})\n${listed(attempts, this)}`,
    };
  },
};

function attemptsOf(received: unknown, to: Target, matcher: string): Attempt[] {
  if (typeof (received as TestService | null)?.attempts !== 'function') {
    throw new TypeError(`${matcher}: expect() a test service (from createTestService), got ${typeof received}`);
  }
  return (received as TestService).attempts(to);
}

function pathOf(to: Target): string {
  if (typeof to === 'string') return to;
  if (typeof to?.path === 'string') return to.path;
  throw new TypeError('expected a destination made by defineDestination, a URL or a path');
}

const delivered = (attempt: Attempt) => attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;

/** The attempts looked at, one line each: what the diff of a failed assertion shows. */
function listed(attempts: readonly Attempt[], context: MatcherContext): string {
  if (attempts.length === 0) return 'It made no attempt there.';
  return `Its attempts there:\n${attempts
    .map(
      (attempt, index) =>
        `  ${index + 1}. ${attempt.messageId} retried=${attempt.retried} ${attempt.status === undefined ? `no answer (${attempt.error ?? 'unknown'})` : `status=${attempt.status}`}${attempt.fault ? ` fault=${attempt.fault}` : ''} body=${context.utils.printReceived(oneLine(attempt.body))}`,
    )
    .join('\n')}`;
}

/** A body on one line of the list, cut to a readable length. */
function oneLine(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/** `expected`'s own keys match, recursively; anything else (a leaf, an asymmetric matcher) by the runner's `equals`. */
function containsPart(actual: unknown, expected: unknown, equals: (a: unknown, b: unknown) => boolean): boolean {
  const plain = (value: unknown) =>
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { asymmetricMatch?: unknown }).asymmetricMatch !== 'function';
  if (!plain(expected) || typeof actual !== 'object' || actual === null) return equals(actual, expected);
  return Object.entries(expected as Record<string, unknown>).every(([key, value]) =>
    containsPart((actual as Record<string, unknown>)[key], value, equals),
  );
}

/** A DLQ entry's body as the attempts' are: JSON when it is JSON. */
function parse(body: string | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
