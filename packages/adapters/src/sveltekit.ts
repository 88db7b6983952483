// @mailroom/adapters/sveltekit: SvelteKit request handlers for `+server.ts` (`export const POST`).
// SvelteKit hands a handler its Web `Request` in `event.request`, so the pipeline is core's Web path.
// Settings come from the code, else from the platform's bindings (`event.platform.env` under
// adapter-cloudflare), else from `process.env` (adapter-node, `vite dev`, `vite preview`).
import type { ReceiverOptions } from '@mailroom/core';
import { bindReceiverPerEnvironment, type Endpoint, type EndpointFactories } from '@mailroom/core/adapter';

// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/**
 * The part of SvelteKit's `RequestEvent` Mailroom reads, typed by its shape: a handler fits
 * `RequestHandler` of any route (its params, its `App.Platform`) without importing `@sveltejs/kit`.
 */
export interface SvelteKitEvent {
  request: Request;
  platform?: { env?: unknown } | undefined;
}

/** A `+server.ts` handler: `export const POST = mailroom.destination(...)` (or `fallback`, for every method). */
export type MailroomRequestHandler = (event: SvelteKitEvent) => Promise<Response>;

function toRequestHandler(endpointFor: (env: unknown) => Endpoint): MailroomRequestHandler {
  return (event) => endpointFor(event.platform?.env).fetch(event.request, event);
}

/** `destination`, `callback` and `failureCallback` handlers; handlers get the message and SvelteKit's `RequestEvent`. */
export type SvelteKitMailroom = EndpointFactories<MailroomRequestHandler, SvelteKitEvent>;

/**
 * Binds receiver settings once for every route of an app (make it in `src/lib/server/mailroom.ts`).
 * Settings not given fall back to their `MAILROOM_*` variables, from `event.platform.env` when the
 * platform has bindings, else from `process.env`.
 *
 * @example
 * // src/routes/api/orders/+server.ts
 * import { mailroom } from '$lib/server/mailroom';
 * import { orderPlaced } from '$lib/destinations';
 *
 * export const POST = mailroom.destination(orderPlaced, async (message, event) => save(message.body, event.locals));
 */
export function createMailroom(options: ReceiverOptions = {}): SvelteKitMailroom {
  return bindReceiverPerEnvironment<MailroomRequestHandler, ReceiverOptions, SvelteKitEvent>(options, toRequestHandler);
}
