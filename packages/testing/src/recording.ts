import { type DestinationDefinition, ValidationError } from '@mailroom/core';
import type { ProtocolHeaderNames } from '@mailroom/core/internal-protocol';
import type { MessageKind, OutgoingRequest, RequestResult } from '@mailroom/dev-server/internal-embedded';

// What the test service saw: every attempt the service made, to the app in-process or over the
// network, whatever came of it (an answer, a thrown handler, a lost answer), with the fault that
// touched it. Recorded where the service sends, so no route or outcome escapes it.

/** One attempt to deliver a message, a callback or a failure callback, with what came back. */
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
  /** What the app answered; `undefined` when it did not (it threw, the connection failed, the answer was lost). */
  status: number | undefined;
  /** The answer's headers, lower-case names (several values joined by `, `); empty without an answer. */
  answerHeaders: Readonly<Record<string, string>>;
  /** Why there was no answer: the handler's error, a network error, or the lost-answer fault. */
  error?: string;
  /** Set when a fault changed this attempt. */
  fault?: 'duplicate' | 'loseAnswer' | 'skewClock';
}

/** Where attempts are kept, and the views a test reads them through. */
export interface Recording {
  /** Records one attempt as the service reports it. */
  record(request: OutgoingRequest, result: RequestResult): void;
  attempts(to?: DestinationDefinition | string): Attempt[];
  /** The attempts answered with 2xx. */
  deliveries(to?: DestinationDefinition | string): Attempt[];
  /** Callbacks and failure callbacks answered with 2xx. */
  callbacks(): Attempt[];
}

const FAULTS = { duplicate: 'duplicate', 'lose-answer': 'loseAnswer', 'skew-clock': 'skewClock' } as const;

/** Starts an empty recording; `kindOf` tells a pending message's kind, `now` the service's time. */
export function createRecording(
  names: ProtocolHeaderNames,
  kindOf: (messageId: string) => MessageKind | undefined,
  now: () => number,
): Recording {
  const attempts: Attempt[] = [];
  const delivered = (attempt: Attempt) => attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;
  const filtered = (to: DestinationDefinition | string | undefined): Attempt[] => {
    if (to === undefined) return [...attempts];
    const path = typeof to === 'string' ? to : to?.path;
    if (typeof path !== 'string') throw new ValidationError('to', 'expected a destination made by defineDestination, a URL or a path');
    return attempts.filter((attempt) => attempt.url === path || new URL(attempt.url).pathname === path);
  };
  return {
    record(request, result) {
      const messageId = request.headers[names.messageId] ?? '';
      const answered = result.ok && request.fault !== 'lose-answer';
      attempts.push({
        messageId,
        kind: kindOf(messageId) ?? 'message',
        url: request.url,
        method: request.method,
        headers: request.headers,
        body: bodyOf(request.body),
        retried: Number(request.headers[names.retried] ?? 0),
        at: now(),
        status: answered ? result.status : undefined,
        answerHeaders: answered ? joined(result.headers) : {},
        ...(!result.ok ? { error: result.error } : answered ? {} : { error: 'the answer was lost (a fault set on the service)' }),
        ...(request.fault ? { fault: FAULTS[request.fault] } : {}),
      });
    },
    attempts: filtered,
    deliveries: (to) => filtered(to).filter(delivered),
    callbacks: () => attempts.filter((attempt) => attempt.kind !== 'message' && delivered(attempt)),
  };
}

function joined(headers: Readonly<Record<string, string[]>>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, values] of Object.entries(headers)) flat[name.toLowerCase()] = values.join(', ');
  return flat;
}

/** Text that could be JSON: what it may start with, after white space. */
const JSON_START = /^\s*[[{"0-9tfn-]/;

function bodyOf(body: Buffer): unknown {
  const text = body.toString('utf8');
  // A failed parse throws, and a thrown error's stack costs more than the rest of a recording.
  if (!JSON_START.test(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
