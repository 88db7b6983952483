import { createMemoryStore } from '@mailroom/core/idempotency';
import { openTelemetry } from '@mailroom/core/tracing';
import { createMailroom } from '@mailroom/adapters/next';

// Keys from MAILROOM_CURRENT_SIGNING_KEY / MAILROOM_NEXT_SIGNING_KEY; without them every delivery
// is answered 500 with a message saying so (fail closed), never accepted unverified. Each message is
// handled once per server process (memory; Redis or Postgres across instances), and each handler runs
// in a span of the sender's trace once an OpenTelemetry SDK is registered (instrumentation.ts, docs/tracing.md).
export const mailroom = createMailroom({ idempotency: createMemoryStore(), tracing: openTelemetry() });
