import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { expectObject, ValidationError } from '../errors';
import { isThenable } from '../maybe-promise';
import { deliveryOutcome, type MessageTracing, type TracedDelivery, type TracedSend } from './hooks';

/** Settings of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /** Where spans go. Default: the global provider, the one `NodeSDK.start()` or `provider.register()` sets. */
  tracerProvider?: TracerProvider;
  /** `messaging.system` on every span. Default `qstash`, the service's name. */
  system?: string;
}

const TRACER_NAME = '@mailroom/core';

/**
 * Tracing through `@opentelemetry/api`: `send`, `publish`, `enqueue` and `batch` run in a producer span
 * whose W3C trace context travels with the message (as forwarded headers), and each delivery's
 * handler runs in a consumer span that continues it. Pass it as `tracing` to the messaging client and
 * to the receiver (or an adapter's `createMailroom`).
 *
 * @example
 * const tracing = openTelemetry();
 * const client = createMessagingClient({ tracing });
 * const mailroom = createMailroom({ tracing });
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): MessageTracing {
  expectObject(options, 'options', '{ tracerProvider?, system? }');
  const { tracerProvider, system = 'qstash' } = options;
  if (tracerProvider !== undefined && typeof (tracerProvider as Partial<TracerProvider>)?.getTracer !== 'function') {
    throw new ValidationError('tracerProvider', 'expected an OpenTelemetry TracerProvider (with getTracer), or nothing for the global one');
  }
  if (typeof system !== 'string' || system === '') throw new ValidationError('system', 'expected a non-empty string such as "qstash"');
  // The global tracer is a proxy: it follows an SDK registered after this call.
  const tracer: Tracer = tracerProvider ? tracerProvider.getTracer(TRACER_NAME) : trace.getTracer(TRACER_NAME);
  return {
    traceSend: (send, request, messageIds) => traceSend(tracer, system, send, request, messageIds),
    traceDelivery: (delivery, handle) => traceDelivery(tracer, system, delivery, handle),
  };
}

function traceSend<R>(
  tracer: Tracer,
  system: string,
  send: TracedSend,
  request: (carrier: Record<string, string>) => Promise<R>,
  messageIds: (result: R) => string[],
): Promise<R> {
  const attributes: Attributes = {
    'messaging.system': system,
    'messaging.operation.type': 'send',
    'messaging.operation.name': send.operation,
    'messaging.destination.name': send.destination,
  };
  if (send.operation === 'batch') attributes['messaging.batch.message_count'] = send.messageCount;
  const span = tracer.startSpan(`${send.operation} ${send.destination}`, { kind: SpanKind.PRODUCER, attributes });
  const spanContext = trace.setSpan(context.active(), span);
  const carrier: Record<string, string> = {};
  propagation.inject(spanContext, carrier);
  let pending: Promise<R>;
  try {
    pending = context.with(spanContext, () => request(carrier));
  } catch (error) {
    endWithError(span, error);
    throw error;
  }
  return pending.then(
    (result) => {
      if (span.isRecording()) {
        const ids = messageIds(result);
        if (ids.length === 1) span.setAttribute('messaging.message.id', ids[0] as string);
      }
      span.end();
      return result;
    },
    (error: unknown) => {
      endWithError(span, error);
      throw error;
    },
  );
}

function traceDelivery<R>(tracer: Tracer, system: string, delivery: TracedDelivery, handle: () => R): R {
  const active = context.active();
  // The delivery itself is the carrier: its forwarded headers are only gathered if a propagator reads them.
  const parent = parentOf(active, propagation.extract(active, delivery, deliveryGetter));
  const attributes: Attributes = {
    'messaging.system': system,
    'messaging.operation.type': 'process',
    'messaging.operation.name': delivery.kind === 'message' ? 'process' : delivery.kind === 'callback' ? 'callback' : 'failure_callback',
    'messaging.destination.name': delivery.destination,
  };
  if (delivery.messageId !== undefined) attributes['messaging.message.id'] = delivery.messageId;
  if (delivery.retried !== undefined) attributes['mailroom.delivery.retried'] = delivery.retried;
  if (delivery.sourceMessageId !== undefined) attributes['mailroom.source_message.id'] = delivery.sourceMessageId;
  const links = sourceLinks(delivery, parent);
  const name = `${attributes['messaging.operation.name']} ${delivery.destination}`;
  const span = tracer.startSpan(name, { kind: SpanKind.CONSUMER, attributes, ...(links.length ? { links } : {}) }, parent);
  let result: R;
  try {
    result = context.with(trace.setSpan(parent, span), handle);
  } catch (error) {
    endDelivery(span, undefined, failure(error));
    throw error;
  }
  if (!isThenable(result)) {
    endDelivery(span, result);
    return result;
  }
  return Promise.resolve(result).then(
    (value) => {
      endDelivery(span, value);
      return value;
    },
    (error: unknown) => {
      endDelivery(span, undefined, failure(error));
      throw error;
    },
  ) as R;
}

/** A handler that threw or rejected failed, whatever it threw: `throw undefined` too, thrown or rejected alike. */
const failure = (error: unknown): unknown => error ?? new Error('the handler failed without a reason (it threw undefined)');

/** Under the app's own server span when it already continues the sender's trace (HTTP instrumentation). */
function parentOf(active: Context, extracted: Context): Context {
  const server = trace.getSpanContext(active);
  const sender = trace.getSpanContext(extracted);
  return server && sender && server.traceId === sender.traceId ? active : extracted;
}

/** A callback links to the trace of the message it reports on, when it is not already that trace. */
function sourceLinks(delivery: TracedDelivery, parent: Context): Link[] {
  if (!delivery.sourceHeaders) return [];
  const source = trace.getSpanContext(propagation.extract(context.active(), delivery.sourceHeaders, recordGetter));
  if (!source || trace.getSpanContext(parent)?.spanId === source.spanId) return [];
  return [{ context: source }];
}

function endDelivery(span: Span, result: unknown, error?: unknown): void {
  const { outcome, isError } = deliveryOutcome(result, error);
  span.setAttribute('mailroom.outcome', outcome);
  if (isError) endWithError(span, error);
  else span.end();
}

function endWithError(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setAttribute('error.type', error.name);
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.end();
}

/** Reads a header record whatever the case of its names, and whether a value is one string or several. */
const recordGetter: TextMapGetter<Record<string, string | string[]>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const direct = carrier[key];
    if (direct !== undefined) return direct;
    // A callback's source headers may still carry the sender's `<Prefix>-Forward-` spelling.
    for (const name of Object.keys(carrier)) {
      const lower = name.toLowerCase();
      if (lower === key || lower.endsWith(`-forward-${key}`)) return carrier[name];
    }
    return undefined;
  },
};

/** A delivery's forwarded headers, read through {@link recordGetter} when a propagator asks. */
const deliveryGetter: TextMapGetter<TracedDelivery> = {
  keys: (delivery) => Object.keys(delivery.forwarded()),
  get: (delivery, key) => recordGetter.get(delivery.forwarded(), key),
};
