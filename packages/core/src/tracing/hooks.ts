import { ALREADY_HANDLED } from '../idempotency/guard';
import { NonRetryableError, RetryAfterError, ValidationError } from '../errors';
import type { ProtocolHeaderNames } from '../wire';

// What the clients and the receivers ask of tracing, without naming OpenTelemetry: the root entry
// point never loads `@opentelemetry/api`, so an app without it pays nothing. `@mailroom/core/tracing`
// implements this over the API (open-telemetry.ts).

/** One send to the service, as its producer span describes it. */
export interface TracedSend {
  operation: 'send' | 'publish' | 'enqueue' | 'batch';
  /** The destination's name: a definition's, a URL without its query, a URL group or API name. */
  destination: string;
  messageCount: number;
}

/** One verified delivery, as its consumer span describes it. */
export interface TracedDelivery {
  kind: 'message' | 'callback' | 'failureCallback';
  /** The definition's name, else the path the delivery arrived at. */
  destination: string;
  messageId: string | undefined;
  retried: number | undefined;
  /** The headers the sender forwarded (`traceparent`, `tracestate` among them). */
  forwarded: () => Record<string, string>;
  /** A callback's: the headers of the message it reports on, whose trace it links to. */
  sourceHeaders?: Record<string, string[] | string>;
  sourceMessageId?: string;
}

/**
 * Tracing as the messaging client and the receivers use it: `createMessagingClient({ tracing })` and
 * `createReceiver({ tracing })` (or an adapter's `createMailroom`). Made by `openTelemetry()` from
 * `@mailroom/core/tracing`.
 */
export interface MessageTracing {
  /**
   * Runs one request to the service in a producer span. `request` gets the trace context to forward
   * (`traceparent`, `tracestate`); `messageIds` names what the service accepted.
   */
  traceSend<R>(send: TracedSend, request: (context: Record<string, string>) => Promise<R>, messageIds: (result: R) => string[]): Promise<R>;
  /** Runs a delivery's handler in a consumer span that continues the sender's trace; answers what `handle` does. */
  traceDelivery<R>(delivery: TracedDelivery, handle: () => R): R;
}

/** What became of a delivery, as its span's `mailroom.outcome` says. */
export type DeliveryOutcome = 'handled' | 'already_handled' | 'retry_later' | 'non_retryable' | 'failed';

/** The outcome a handler's result (or `undefined` with its error) stands for; also whether it is an error. */
export function deliveryOutcome(result: unknown, error?: unknown): { outcome: DeliveryOutcome; isError: boolean } {
  if (error === undefined) return { outcome: result === ALREADY_HANDLED ? 'already_handled' : 'handled', isError: false };
  // A handler that asks for later decided so: the retry is the plan, not a failure.
  if (error instanceof RetryAfterError) return { outcome: 'retry_later', isError: false };
  return { outcome: error instanceof NonRetryableError ? 'non_retryable' : 'failed', isError: true };
}

/**
 * Adds the trace context to a send's headers, forwarded to the destination and to the callbacks the
 * send asks for, so their deliveries continue the trace. A context the sender forwards itself wins.
 */
export function forwardTraceContext(
  headers: Record<string, string>,
  context: Record<string, string>,
  names: ProtocolHeaderNames,
  callbacks: { callback: boolean; failureCallback: boolean },
): void {
  const taken = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const stems = [names.delivery.forwardPrefix];
  if (callbacks.callback) stems.push(names.callback.forwardPrefix);
  if (callbacks.failureCallback) stems.push(names.failureCallback.forwardPrefix);
  for (const [name, value] of Object.entries(context)) {
    for (const stem of stems) {
      if (!taken.has(`${stem}${name}`.toLowerCase())) headers[`${stem}${name}`] = value;
    }
  }
}

/** Checks the `tracing` option of a client or receiver: made by `openTelemetry()`, or absent. */
export function checkTracing(tracing: unknown, path: string): MessageTracing | undefined {
  if (tracing === undefined) return undefined;
  const candidate = tracing as Partial<MessageTracing> | null;
  if (typeof candidate?.traceSend !== 'function' || typeof candidate.traceDelivery !== 'function') {
    throw new ValidationError(path, "expected openTelemetry() from '@mailroom/core/tracing', or nothing to trace nothing");
  }
  return tracing as MessageTracing;
}

/** A destination URL as a span names it: without its query or credentials, which may hold secrets. */
export function destinationLabel(destination: string): string {
  if (!/^https?:\/\//i.test(destination)) return destination;
  try {
    const url = new URL(destination);
    return `${url.origin}${url.pathname}`;
  } catch {
    return destination;
  }
}
