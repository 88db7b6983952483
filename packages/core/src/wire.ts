/**
 * Every `<Prefix>-*` header of the service's wire, in one table, and the rule for the names it puts
 * in URL paths. The sender's options, the receiver's reader, the testing helpers and the dev server
 * all take their names from here, so a name cannot drift between the side that writes it and the
 * side that reads it.
 */

/** The settings a message, its callback and its failure callback each carry under their own stem. */
export interface DeliverySettingHeaders {
  method: string;
  timeout: string;
  retries: string;
  retryDelay: string;
  delay: string;
  /** Prefix of a forwarded header: `<stem>Forward-X: v` reaches the destination as `X: v`. */
  forwardPrefix: string;
}

/** A callback's URL header and its own settings. */
export interface CallbackHeaders extends DeliverySettingHeaders {
  url: string;
}

/** The header names for one prefix, in the service's canonical spelling (`Service-Retries`). */
export interface ProtocolHeaderNames {
  readonly prefix: string;
  // Set by the sender on an enqueue or publish.
  readonly delivery: DeliverySettingHeaders;
  readonly notBefore: string;
  readonly deduplicationId: string;
  readonly contentBasedDeduplication: string;
  readonly label: string;
  readonly flowControlKey: string;
  /** `parallelism=N, rate=N, period=1m`: the limits of the key, any subset, comma-separated. */
  readonly flowControlValue: string;
  /** `body`, `header` or `header[Name]`, comma-separated: kept out of logs, the DLQ and the console. */
  readonly redactFields: string;
  readonly callback: CallbackHeaders;
  // Set on a schedule's creation.
  readonly cron: string;
  /** Also the schedule's id on each delivery it fires. */
  readonly scheduleId: string;
  /** The queue each firing of a schedule is enqueued on. */
  readonly queueName: string;
  readonly failureCallback: CallbackHeaders;
  // Set by the sender of a workflow step, and carried on to its deliveries.
  readonly workflowRunId: string;
  readonly workflowUrl: string;
  readonly workflowCreatedAt: string;
  /** `true` on the message that starts a run (its trigger), `false` on each step the run publishes. */
  readonly workflowInit: string;
  /** `toCallback` on a `context.call`'s third-party request, which is not a step of the run. */
  readonly workflowCallType: string;
  /** `true` on a trigger sent by `context.invoke`: its body names the invoking run, which gets the result. */
  readonly workflowInvoke: string;
  /** The Workflow SDK's features, e.g. `LazyFetch` (it fetches the run's steps instead of receiving them). */
  readonly featureSet: string;
  // Set by the service on each delivery.
  readonly signature: string;
  readonly messageId: string;
  readonly retried: string;
  readonly callerIp: string;
  readonly topicName: string;
  /** The region that sent the delivery (`eu-central-1`): the receiver picks that region's keys. */
  readonly region: string;
  // Set by a destination on its answer: never retry this message.
  readonly nonRetryableError: string;
  /** Set by the Workflow SDK on a failing answer: the name of the step that threw. */
  readonly errorStepName: string;
}

// Built once per prefix: receivers and the dev server look names up on every request.
const byPrefix = new Map<string, ProtocolHeaderNames>();

/**
 * The wire's header names for `prefix` (`Service` by default, `Upstash` on the real service).
 *
 * @example headerNames('Upstash').signature // 'Upstash-Signature'
 */
export function headerNames(prefix: string): ProtocolHeaderNames {
  let names = byPrefix.get(prefix);
  if (!names) {
    const p = `${prefix}-`;
    names = {
      prefix,
      delivery: settings(p),
      notBefore: `${p}Not-Before`,
      deduplicationId: `${p}Deduplication-Id`,
      contentBasedDeduplication: `${p}Content-Based-Deduplication`,
      label: `${p}Label`,
      flowControlKey: `${p}Flow-Control-Key`,
      flowControlValue: `${p}Flow-Control-Value`,
      redactFields: `${p}Redact-Fields`,
      cron: `${p}Cron`,
      queueName: `${p}Queue-Name`,
      callback: { url: `${p}Callback`, ...settings(`${p}Callback-`) },
      failureCallback: { url: `${p}Failure-Callback`, ...settings(`${p}Failure-Callback-`) },
      workflowRunId: `${p}Workflow-RunId`,
      workflowUrl: `${p}Workflow-Url`,
      workflowCreatedAt: `${p}Workflow-CreatedAt`,
      workflowInit: `${p}Workflow-Init`,
      workflowCallType: `${p}Workflow-CallType`,
      workflowInvoke: `${p}Workflow-Invoke`,
      featureSet: `${p}Feature-Set`,
      signature: `${p}Signature`,
      messageId: `${p}Message-Id`,
      retried: `${p}Retried`,
      callerIp: `${p}Caller-Ip`,
      topicName: `${p}Topic-Name`,
      scheduleId: `${p}Schedule-Id`,
      region: `${p}Region`,
      nonRetryableError: `${p}NonRetryable-Error`,
      errorStepName: `${p}Error-Step-Name`,
    };
    // Prefixes come from settings, not requests: a handful per process.
    byPrefix.set(prefix, names);
  }
  return names;
}

function settings(stem: string): DeliverySettingHeaders {
  return {
    method: `${stem}Method`,
    timeout: `${stem}Timeout`,
    retries: `${stem}Retries`,
    retryDelay: `${stem}Retry-Delay`,
    delay: `${stem}Delay`,
    forwardPrefix: `${stem}Forward-`,
  };
}

/**
 * A name the service puts in a URL path (queue, URL group, schedule id, flow-control key): letters,
 * digits, `-`, `_` and `.`, but not `.` or `..` alone, which a URL resolves away as a dot-segment.
 */
export const RESOURCE_NAME = /^(?!\.{1,2}$)[A-Za-z0-9._-]+$/;
/** {@link RESOURCE_NAME} in words, for the messages that refuse a name. */
export const RESOURCE_NAME_RULE = 'letters, digits, "-", "_" and "." (but not "." or ".." alone)';

/** A message's state in the logs. */
export const MESSAGE_STATES = [
  'CREATED',
  'ACTIVE',
  'RETRY',
  'ERROR',
  'IN_PROGRESS',
  'DELIVERED',
  'FAILED',
  'CANCEL_REQUESTED',
  'CANCELED',
] as const;
/** A message's state in the logs. */
export type MessageState = (typeof MESSAGE_STATES)[number];

/** The states of a workflow run. */
export const WORKFLOW_RUN_STATES = ['RUN_STARTED', 'RUN_SUCCESS', 'RUN_FAILED', 'RUN_CANCELED'] as const;

/** The status the service treats as "never retry": the message goes straight to the DLQ. */
export const NON_RETRYABLE_STATUS = 489;

/**
 * Our receivers' 401 names the check that failed here (`expired`, `issuer`, `subject`, `body-hash`,
 * `bad-signature`, ...; core's `SignatureFailure`) where a person develops (`NODE_ENV` development or
 * test, or dev mode), so the dev console can say why a delivery was refused and how to fix it.
 */
export const SIGNATURE_REFUSED_HEADER = 'Mailroom-Signature-Refused';

/**
 * On the 2xx a Mailroom receiver answers to a delivery of a message its endpoint already handled
 * (the `idempotency` option): the handler did not run again.
 */
export const ALREADY_HANDLED_HEADER = 'Mailroom-Already-Handled';

/**
 * The one rule for "this answer ends the retries at once", read the same by the dev server (deciding
 * the next attempt) and by receivers of callbacks (deciding `isFinalAttempt`): status 489 with
 * `<P>-NonRetryable-Error: true` (any case, spaces trimmed). A 489 without it, or saying `false`,
 * is an ordinary failure and is retried.
 */
function isNonRetryableAnswer(
  status: number | undefined,
  headers: Readonly<Record<string, readonly string[] | undefined>> | undefined,
  headerPrefix: string,
): boolean {
  if (status !== NON_RETRYABLE_STATUS || !headers) return false;
  const wanted = headerNames(headerPrefix).nonRetryableError.toLowerCase();
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === wanted) return headers[name]?.[0]?.trim().toLowerCase() === 'true';
  }
  return false;
}

/**
 * The one rule for "no attempt follows this one", read by the dev server (whether to retry) and by
 * receivers of callbacks (`isFinalAttempt`): a 2xx delivered it, a non-retryable answer failed it, the
 * last retry exhausted it; otherwise (`undefined`) a retry follows. Without a status (no answer, a
 * timeout) only the retry count can tell.
 */
export function attemptEnding(
  attempt: {
    status: number | undefined;
    headers: Readonly<Record<string, readonly string[] | undefined>> | undefined;
    retried: number | undefined;
    maxRetries: number | undefined;
  },
  headerPrefix: string,
): 'delivered' | 'non-retryable' | 'retries-exhausted' | undefined {
  const { status, retried, maxRetries } = attempt;
  if (status !== undefined && status >= 200 && status < 300) return 'delivered';
  if (isNonRetryableAnswer(status, attempt.headers, headerPrefix)) return 'non-retryable';
  if (retried !== undefined && maxRetries !== undefined && retried >= maxRetries) return 'retries-exhausted';
  return undefined;
}

// The query parameters of the service's listings and bulk actions, grouped as its SDKs group them.
const UNIVERSAL_FILTERS = ['fromDate', 'toDate', 'callerIp', 'callerIP', 'label', 'flowControlKey'] as const;
const MESSAGE_FILTERS = ['url', 'topicName', 'urlGroup', 'scheduleId', 'queueName'] as const;
const URL_PART_FILTERS = ['host', 'path'] as const;
const PAGING = ['cursor', 'count'] as const;
const RUN_FILTERS = ['workflowRunId', 'workflowUrl', 'workflowCreatedAt'] as const;
const CALLBACK_STATE_FILTERS = ['failureCallbackState', 'failureFunctionState'] as const;

/**
 * Every query parameter each listing and bulk action takes. Anything else is refused, by the client
 * before sending and by the dev server, as the service does: a misspelt filter (`labeel`) must never
 * read as no filter, which for a bulk delete means everything.
 */
export const QUERY_PARAMETERS = {
  /** `GET /v2/events`. `api` is deprecated and ignored. */
  logs: [...UNIVERSAL_FILTERS, ...MESSAGE_FILTERS, ...URL_PART_FILTERS, ...PAGING, 'messageId', 'messageIds', 'state', 'api'],
  /** `DELETE /v2/messages`: no filter at all cancels every pending message (the SDKs' `{ all: true }`); `async=true` runs it in the background as a bulk action. */
  cancelMessages: [...UNIVERSAL_FILTERS, ...MESSAGE_FILTERS, ...URL_PART_FILTERS, ...PAGING, 'messageIds', 'async'],
  /** `GET`/`DELETE /v2/dlq`, `POST /v2/dlq/retry` (`source=workflow` lists failed runs). */
  dlq: [
    ...UNIVERSAL_FILTERS,
    ...MESSAGE_FILTERS,
    ...PAGING,
    ...RUN_FILTERS,
    ...CALLBACK_STATE_FILTERS,
    'dlqIds',
    'messageId',
    'responseStatus',
    'api',
    'source',
  ],
  /** `GET /v2/workflows/dlq`, its resume, restart and delete. */
  workflowDlq: [...UNIVERSAL_FILTERS, ...PAGING, ...RUN_FILTERS, ...CALLBACK_STATE_FILTERS, 'dlqIds', 'url', 'responseStatus'],
  /** `GET /v2/workflows/events`. */
  workflowLogs: [...UNIVERSAL_FILTERS, ...URL_PART_FILTERS, ...PAGING, ...RUN_FILTERS, 'groupBy', 'state', 'workflowState', 'messageId'],
  /** `DELETE /v2/workflows/runs`: `workflowUrl` is a prefix unless `workflowUrlExactMatch=true`. */
  workflowCancel: [...UNIVERSAL_FILTERS, ...URL_PART_FILTERS, ...PAGING, 'workflowRunIds', 'workflowUrl', 'workflowUrlExactMatch'],
} as const satisfies Record<string, readonly string[]>;

/** The W3C Trace Context header a traced send forwards with its message (docs/tracing.md). */
export const TRACE_PARENT_HEADER = 'traceparent';

const TRACE_PARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}/;

/**
 * The trace and the sending span a `traceparent` value names, or `undefined` for anything else
 * (an all-zero id is invalid by the W3C rule).
 *
 * @example parseTraceParent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')
 * // { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' }
 */
export function parseTraceParent(value: string | undefined): { traceId: string; spanId: string } | undefined {
  const match = value === undefined ? null : TRACE_PARENT.exec(value.trim());
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined;
  return { traceId: match[1]!, spanId: match[2]! };
}
