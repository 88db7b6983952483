import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { destinationLabel, parseTraceParent } from '@mailroom/core/internal-protocol';
import type { AttemptSpans } from './engine/attempt';

// The dev server's own spans, exported over OTLP/HTTP when asked (`--otlp-endpoint`): one per attempt
// of a traced message, between the sender's span and the handler's. Loaded only then, and never
// registered globally: an app that embeds the server keeps its own tracing to itself. An export
// gives up after 3 s, so a collector that is down never holds up Ctrl+C for long.

/** Starts exporting attempt spans to `tracesUrl` (the full `/v1/traces` URL). */
export function startAttemptSpans(tracesUrl: string): AttemptSpans {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'mailroom-dev' }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: tracesUrl, timeoutMillis: 3000 }) })],
  });
  const tracer = provider.getTracer('@mailroom/dev-server');
  return {
    start({ traceParent, url, method, messageId, retried, at }) {
      const sender = parseTraceParent(traceParent);
      if (!sender) return undefined;
      const parent = trace.setSpanContext(ROOT_CONTEXT, { ...sender, traceFlags: TraceFlags.SAMPLED, isRemote: true });
      const target = new URL(url);
      const span = tracer.startSpan(
        `deliver ${target.pathname}`,
        {
          kind: SpanKind.CLIENT,
          startTime: at,
          attributes: {
            'messaging.system': 'qstash',
            'messaging.operation.type': 'send',
            'messaging.operation.name': 'deliver',
            'messaging.message.id': messageId,
            'mailroom.delivery.retried': retried,
            'http.request.method': method,
            'url.full': destinationLabel(url),
          },
        },
        parent,
      );
      const { traceId, spanId, traceFlags } = span.spanContext();
      return {
        spanId,
        traceParent: `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`,
        end({ outcome, status, error }, endAt) {
          span.setAttribute('mailroom.outcome', outcome);
          if (status !== undefined) span.setAttribute('http.response.status_code', status);
          if (outcome !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: error ?? `answered ${status}` });
          span.end(endAt);
        },
      };
    },
    close: () => provider.shutdown(),
  };
}
