// The settings of a message as an application writes them: how the service calls the destination,
// its callbacks and failure callback, and everything else a send can carry. `enqueue-headers.ts`
// turns them into the wire's headers.

import type { RetryDelayExpression } from './retry-delay';

/** Methods the service may use to call a destination. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/** Header values as users hold them: a plain record or a `Headers` object. */
export type HeaderRecord = Readonly<Record<string, string>> | Headers;

/** How the service calls one target: the destination itself, the callback, or the failure callback. */
export interface DeliverySettings {
  /** HTTP method the service uses to call the target. Default `POST`. */
  method?: HttpMethod;
  /** Shortens the plan's timeout for each attempt: `30s`, `5m`, `1h` or seconds as a number. */
  timeout?: Duration;
  /** Retries after the first attempt (total attempts = 1 + retries). Plan default when omitted. */
  retries?: number;
  /** Milliseconds between retries as an expression of `retried`, e.g. `pow(2, retried) * 1000`. */
  retryDelay?: string | RetryDelayExpression;
  /** Wait before the first attempt: `30s`, `1d10h30m` or seconds as a number. */
  delay?: Duration;
  /** Headers the service forwards to the target under their own names. */
  headers?: HeaderRecord;
}

/** A callback or failure-callback target with its own delivery settings. */
export interface CallbackTarget extends DeliverySettings {
  /** Must start with http:// or https://. */
  url: string;
}

/** Every setting of an enqueue request (spec endpoint 8), typed. */
export interface EnqueueOptions extends DeliverySettings {
  /** MIME type of the body; it reaches the destination unchanged. */
  contentType?: string;
  /** Deliver no earlier than this instant: a `Date` or Unix seconds. Cannot be combined with `delay`. */
  notBefore?: Date | number;
  /** Called after every attempt: a URL, or a URL with its own settings. */
  callback?: string | CallbackTarget;
  /** Called once delivery has failed for good: a URL, or a URL with its own settings. */
  failureCallback?: string | CallbackTarget;
  /** Only one message with this id is accepted within the deduplication window. */
  deduplicationId?: string;
  /** Deduplicate by destination, body and headers. */
  contentBasedDeduplication?: boolean;
  /** Labels to find the message by later (logs, DLQ and cancel filters); several are sent comma-separated. */
  label?: string | readonly string[];
  /**
   * Limits shared by every message with the same `key`, across queues and publishes: at most
   * `parallelism` attempts at once, at most `rate` attempts per `period` (default one second).
   */
  flowControl?: FlowControl;
  /** Keeps the body and/or headers out of logs, the DLQ and the console (delivery is unaffected). */
  redact?: RedactFields;
  /**
   * Marks the message as a step of a workflow run (`<Prefix>-Workflow-RunId`, `-Url`, `-CreatedAt`):
   * if it fails for good it becomes a workflow DLQ entry, listable and re-triggerable.
   */
  workflow?: WorkflowTarget;
}

/** A flow-control key and its limits; at least one of `parallelism` and `rate`. */
export interface FlowControl {
  /** Letters, digits, `-`, `_` and `.`. */
  key: string;
  /** Attempts of this key running at once. */
  parallelism?: number;
  /** Attempts of this key started per `period`. */
  rate?: number;
  /** The period of `rate`: `1m`, `1h`, or seconds as a number. Default one second. */
  period?: Duration;
}

/** What to redact: the whole body, every header, or the named headers. */
export interface RedactFields {
  body?: boolean;
  headers?: true | readonly string[];
}

/** The workflow run a message belongs to. */
export interface WorkflowTarget {
  /** Run id, e.g. `wfr_...`. */
  runId: string;
  /** The workflow's URL (http:// or https://). */
  url: string;
  /** When the run started, Unix milliseconds. */
  createdAt?: number;
}

/** Settings of the header builder. */
export interface HeaderPrefixOptions {
  /** Vendor header prefix; default `Service` (the real service uses `Upstash`). */
  headerPrefix?: string;
}

/**
 * A duration as the service writes it: `<n>s`, `<n>m`, `<n>h`, `<n>d`, combinable largest first
 * (`1d10h30m`), or a number of seconds.
 */
export type Duration = number | `${number}${'s' | 'm' | 'h' | 'd'}` | (string & {});

export type DurationUnit = 's' | 'm' | 'h' | 'd';
