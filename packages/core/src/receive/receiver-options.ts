import type { IdempotencyOption } from '../idempotency/guard';
import type { MessageTracing } from '../tracing/hooks';
import { ValidationError } from '../errors';
import type { Environment } from '../config';
import type { DestinationDefinition } from '../contract';
import type { DevOption } from '../dev-mode';
import type { HeaderLookup } from './delivery-headers';
import type { CallbackOptions } from './received-messages';
import type { StandardSchemaV1 } from '@standard-schema/spec';

/**
 * What every adapter hands the receiving pipeline: plain data, no framework objects, so one pipeline
 * serves Express, Next.js, NestJS and the Web `Request` alike.
 */
export interface InboundRequest {
  method: string;
  /** The path and query as received (e.g. Express `req.originalUrl`), or an absolute URL. */
  url?: string;
  headers: HeaderLookup;
  /** The exact bytes of the body: the signature covers these, never a re-serialisation. */
  rawBody: Uint8Array;
  /** The framework's own request object (Hono's `Context`, Fastify's request and reply): handlers get it second. */
  context?: unknown;
}

/** What the pipeline answers; adapters copy it onto their framework's response. */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * What a handler threw, when the answer is the 500 for a crash (already reported through
   * `onError`): for adapters whose users asked for it in the framework's error handling (Express
   * `forwardErrors`). Never written to the wire.
   */
  error?: unknown;
}

/** Where in the pipeline a request was stopped, for logs. */
export type ReceiveStage = 'method' | 'body' | 'signature' | 'parse' | 'schema' | 'store' | 'handler' | 'config';

/** Settings shared by every receiving endpoint. Each falls back to its `MAILROOM_*` variable. */
export interface ReceiverOptions {
  /** Env: `MAILROOM_CURRENT_SIGNING_KEY`. */
  currentSigningKey?: string;
  /** Env: `MAILROOM_NEXT_SIGNING_KEY`. Tried when the current key does not match (rotation). */
  nextSigningKey?: string;
  /**
   * Key pairs per region, for deliveries that name one in `<Prefix>-Region` (`eu-central-1`): keyed
   * by region in either spelling (`EU_CENTRAL_1`). Env: `MAILROOM_<REGION>_CURRENT_SIGNING_KEY` and
   * `..._NEXT_SIGNING_KEY`. A delivery from a region without keys is checked with the default pair.
   */
  regions?: Readonly<Record<string, { currentSigningKey?: string; nextSigningKey?: string }>>;
  /**
   * Dev mode (env `MAILROOM_DEV=1`): verify with the documented keys of `mailroom dev`, so a local
   * app needs no `.env`. Keys passed in code still win. Refused with `NODE_ENV=production` and
   * during `next build`.
   */
  dev?: DevOption;
  /** Vendor header prefix. Env: `MAILROOM_HEADER_PREFIX`; default `Service`. */
  headerPrefix?: string;
  /** Expected `iss` claim. Env: `MAILROOM_ISSUER`; default `Service`; the real service uses `Upstash`. */
  issuer?: string;
  /**
   * Public origin (and path prefix) under which this app's paths are reachable, e.g.
   * `https://app.example.com`. Env: `MAILROOM_PUBLIC_URL`. Without it, the path of the signed URL
   * must equal the path the request arrived at (mount prefix included); with it, the whole signed URL
   * must equal it plus the request's path and query. Set it behind a proxy or rewrite that changes
   * the path.
   */
  publicUrl?: string;
  /**
   * `true` accepts a token signed for any path of this app. Not recommended: a token captured for one
   * endpoint can then be replayed at another. Prefer `publicUrl` behind proxies and rewrites.
   */
  allowAnyPath?: boolean;
  /** Largest body accepted, in bytes; larger gives 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Seconds of clock skew tolerated on `exp`/`nbf`. Default 5. */
  clockToleranceSeconds?: number;
  /** Methods accepted. Default `['POST']`; add others when you enqueue with `method`. */
  methods?: readonly string[];
  /** Clock in Unix milliseconds, like `Date.now`. Injected by tests. */
  now?: () => number;
  /**
   * `false` skips signature verification. Only for tests of your own handler logic; never in
   * production. Any other value verifies.
   */
  verify?: boolean;
  /** `auto` (default) uses node:crypto where it exists, jose over Web Crypto elsewhere. */
  implementation?: 'auto' | 'node' | 'webcrypto';
  /**
   * Called when a request is refused or a handler fails, with the reason (never a key or token), and
   * once at creation when no signing key is configured (stage `config`, no `request`).
   * Default: one `console.warn` line for refusals and `console.error` for handler failures.
   */
  onError?: (error: unknown, context: { stage: ReceiveStage; request?: InboundRequest }) => void;
  /** Where `MAILROOM_*` variables are read from. Default `process.env`. */
  env?: Environment;
  /**
   * Every endpoint handles each message once, however often the service delivers it: a store from
   * `@mailroom/core/idempotency` (or `{ store, leaseSeconds, ttlSeconds }`). An endpoint's own
   * `idempotency` option wins; `false` there opts it out. See docs/idempotency.md.
   */
  idempotency?: IdempotencyOption;
  /**
   * `openTelemetry()` from `@mailroom/core/tracing`: each handler runs in a consumer span that
   * continues the sender's trace. See docs/tracing.md.
   */
  tracing?: MessageTracing;
}

/** 1 MiB: far above any message the service sends, small enough that a flood cannot exhaust memory. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** Any Standard Schema (zod, valibot, arktype, ...). */
export type Schema = StandardSchemaV1;

/** What a callback's `sourceBody` may be checked with: a schema, or the destination it was sent to. */
export type SourceSchema = Schema | DestinationDefinition | undefined;

/** What a callback's `body` (the destination's answer) may be checked with. */
export type ResponseSchema = Schema | undefined;

/** Receiver settings plus a callback's own schemas, for one-call `callback(handler, options)` helpers. */
export type CallbackHandlerOptions<S extends SourceSchema = undefined, R extends ResponseSchema = undefined> = ReceiverOptions &
  CallbackOptions<S, R>;

/** The limit to enforce, validated so a typo (a string, a negative number) cannot disable it silently. */
export function resolveBodyLimit(maxBodyBytes: number | undefined): number {
  if (maxBodyBytes === undefined) return DEFAULT_MAX_BODY_BYTES;
  const valid =
    typeof maxBodyBytes === 'number' &&
    maxBodyBytes >= 0 &&
    (Number.isSafeInteger(maxBodyBytes) || maxBodyBytes === Number.POSITIVE_INFINITY);
  if (!valid) {
    throw new ValidationError(
      'maxBodyBytes',
      `must be a whole number of bytes >= 0 (or Infinity for no limit), got ${typeof maxBodyBytes === 'string' ? JSON.stringify(maxBodyBytes) : String(maxBodyBytes)}`,
    );
  }
  return maxBodyBytes;
}
