/**
 * Realistic answers of the service, written from the spec and reference/service-facts.md. Shared
 * with the HTTP client tests, so they are complete: every documented field, the optional extras real
 * answers carry, and the awkward variants (no `modifying_state`, empty cursor, string timestamps).
 *
 * They are plain JSON values; `satisfies` only checks them against the schemas' input types. The
 * statistics timestamps are built here by hand, not with the formatter under test.
 */
import type { z } from 'zod';
import type { CreateSearchIndexInput } from '../../src/management-vocabulary';
import { PLAN_LIMITS } from '../../src/plans';
import type {
  callbackBodySchema,
  dlqListResponseSchema,
  dlqWorkflowMessageSchema,
  enqueueResultSchema,
  errorBodySchema,
  failureCallbackBodySchema,
  messagingStatsSchema,
  messagingUserSchema,
  retriggerResponseSchema,
  searchIndexSchema,
  urlGroupEnqueueResultSchema,
  urlGroupSchema,
} from '../../src/schemas';

type In<S extends z.ZodType> = z.input<S>;

/** Go's `time.Time.String()` for a whole-second instant plus a fraction already trimmed as Go trims it. */
function goTimestamp(wholeSecondMs: number, fraction = ''): string {
  const iso = new Date(wholeSecondMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction === '' ? '' : `.${fraction}`} +0000 UTC`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** "Now" for every fixture: 2025-10-14 11:33:05.585757103 UTC. */
const NOW_WHOLE_SECOND = Date.UTC(2025, 9, 14, 11, 33, 5);
const NOW_FRACTION = '585757103';
const OCTOBER_1 = Date.UTC(2025, 9, 1);

// ---------------------------------------------------------------------------------------------
// Management: messaging users
// ---------------------------------------------------------------------------------------------

const { defaultRetries: _defaultRetries, ...freeLimits } = PLAN_LIMITS.free;

/** A free-plan user with no change in progress: `modifying_state` and `reserved_type` are absent. */
export const messagingUserFree = {
  customer_id: 'ops@example.com',
  id: '3f1c2b9e-5d4a-4e8f-9b2a-7c6d5e4f3a21',
  token: 'eyJVc2VySUQiOiJkZW1vLXVzZXIiLCJQYXNzd29yZCI6ImZpeHR1cmUifQ==',
  read_only_token: 'eyJVc2VySUQiOiJkZW1vLXVzZXIiLCJQYXNzd29yZCI6InJlYWQtb25seSJ9',
  active: true,
  state: 'active',
  last_plan_upgrade_time: 0,
  // The free plan's limits, from the one table the dev server answers with.
  ...freeLimits,
  prometheus_enabled: 'false',
  region: 'eu-central-1',
  reserved_price: 0,
  created_by: 'ops@example.com',
  creation_time: 1_727_776_800,
  deletion_time: 0,
  // Undocumented fields, as real answers carry: they must survive parsing.
  max_workflow_steps: 1000,
  flow_control_enabled: false,
} satisfies In<typeof messagingUserSchema>;

/** A pay-as-you-go user: `reserved_type` present but empty, a budget, a plan upgrade. */
export const messagingUserPaid = {
  ...messagingUserFree,
  customer_id: 'team_8f2a61c4',
  id: '9b8a7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d',
  token: 'eyJVc2VySUQiOiJ0ZWFtLXBhaWQiLCJQYXNzd29yZCI6InBhaWQifQ==',
  read_only_token: 'eyJVc2VySUQiOiJ0ZWFtLXBhaWQiLCJQYXNzd29yZCI6InJvIn0=',
  last_plan_upgrade_time: 1_735_689_600,
  max_requests_per_day: 1_000_000_000,
  max_requests_per_day_hard: 1_000_000_000,
  max_retries: 20,
  max_topics: 1000,
  max_queues: 1000,
  max_schedules: 1000,
  max_dlq_retention_time_milis: 604_800_000,
  max_delay: 31_536_000,
  prod_pack_enabled: true,
  prometheus_enabled: 'true',
  type: 'paid',
  region: 'us-east-1',
  reserved_type: '',
  created_by: 'lead@example.com',
  budget: 200,
} satisfies In<typeof messagingUserSchema>;

/** A fixed-tier user being suspended: `modifying_state` present, state `passive`. */
export const messagingUserFixedSuspended = {
  ...messagingUserPaid,
  id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  active: false,
  state: 'passive',
  modifying_state: 'suspended',
  reserved_type: 'messaging_fixed_10m',
  reserved_price: 180,
} satisfies In<typeof messagingUserSchema>;

/** An enterprise account: `enterprise: { enabled: true }` and an `enterprise:` reserved type. */
export const messagingUserEnterprise = {
  ...messagingUserPaid,
  id: '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9',
  customer_id: 'team_ent_0042',
  reserved_type: 'enterprise:acme-42',
  reserved_price: 2500,
  region: 'eu-central-1',
  enterprise: { enabled: true },
} satisfies In<typeof messagingUserSchema>;

/** The answer of `GET /messaging/users`. */
export const messagingUsers = [messagingUserFree, messagingUserPaid, messagingUserFixedSuspended, messagingUserEnterprise];

// ---------------------------------------------------------------------------------------------
// Management: statistics
// ---------------------------------------------------------------------------------------------

const DAYS_IN_OCTOBER = 31;
const TODAY_INDEX = 13; // October 14: later days of the month are in the future and count 0.

/** Day names of the current month, future days included, as the spec describes. */
const octoberDays = Array.from({ length: DAYS_IN_OCTOBER }, (_, i) => new Date(OCTOBER_1 + i * DAY).toISOString().slice(0, 10));

function dailyValue(i: number, scale: number): number {
  return i > TODAY_INDEX ? 0 : ((i * 37 + 11) % 29) * scale;
}

/** A 60-point series one minute apart ending now, with 9-digit fractions (`.585757103`). */
function lastHour(scale: number): { x: string; y: number }[] {
  return Array.from({ length: 60 }, (_, i) => ({
    x: goTimestamp(NOW_WHOLE_SECOND - (59 - i) * MINUTE, NOW_FRACTION),
    y: ((i * 13 + 7) % 17) * scale,
  }));
}

/** A 240-point series 3 hours apart (period `30d`), with 7-digit fractions. */
function lastThirtyDays(scale: number): { x: string; y: number }[] {
  return Array.from({ length: 240 }, (_, i) => ({
    x: goTimestamp(NOW_WHOLE_SECOND - (239 - i) * 3 * HOUR, '5857571'),
    y: ((i * 7 + 3) % 19) * scale,
  }));
}

/**
 * Statistics for period `1h`. Fraction lengths vary as on the real service: daily points at
 * midnight have none (`2025-10-01 00:00:00 +0000 UTC`), billings have 3 digits, the per-minute
 * series have 9.
 */
export const messagingStats1h = {
  days: octoberDays,
  daily_requests: octoberDays.map((_, i) => ({
    x: goTimestamp(OCTOBER_1 + i * DAY),
    y: dailyValue(i, 10),
    workflow_message: dailyValue(i, 4),
    workflow_run: dailyValue(i, 1),
  })),
  daily_billings: octoberDays.map((_, i) => ({ x: goTimestamp(OCTOBER_1 + i * DAY, '125'), y: dailyValue(i, 0.01) })),
  daily_bandwidths: octoberDays.map((_, i) => ({ x: goTimestamp(OCTOBER_1 + i * DAY), y: dailyValue(i, 2048) })),
  daily_used: lastHour(1),
  daily_used_workflow: lastHour(0),
  daily_messaging_messages: [
    { id: 'delivered', data_points: lastHour(1) },
    { id: 'retry', data_points: lastHour(0) },
  ],
  daily_workflow_messages: [{ id: 'canceled', data_points: lastHour(0) }],
  dlq_message_count: 3,
  daily_bandwidth_used: lastHour(512),
  total_monthly_billing: 1.24,
} satisfies In<typeof messagingStatsSchema>;

/** Statistics for period `30d`: 240 points at 3-hour steps in the period-based series. */
export const messagingStats30d = {
  ...messagingStats1h,
  daily_used: lastThirtyDays(40),
  daily_used_workflow: lastThirtyDays(3),
  daily_messaging_messages: [{ id: 'delivered', data_points: lastThirtyDays(40) }],
  daily_workflow_messages: [{ id: 'canceled', data_points: lastThirtyDays(0) }],
  daily_bandwidth_used: lastThirtyDays(20_480),
} satisfies In<typeof messagingStatsSchema>;

/** A new account with no traffic: Go nil slices arrive as `null`. */
export const messagingStatsEmpty = {
  days: octoberDays,
  daily_requests: null,
  daily_billings: null,
  daily_bandwidths: null,
  daily_used: null,
  daily_used_workflow: null,
  daily_messaging_messages: null,
  daily_workflow_messages: null,
  dlq_message_count: 0,
  daily_bandwidth_used: null,
  total_monthly_billing: 0,
} satisfies In<typeof messagingStatsSchema>;

// ---------------------------------------------------------------------------------------------
// Management: search indexes
// ---------------------------------------------------------------------------------------------

/** The body of `POST /search`. */
export const createSearchIndexInput = { name: 'products', region: 'us-central1', type: 'payg' } satisfies CreateSearchIndexInput;

/** A pay-as-you-go index: `-1` (unlimited) on the daily and monthly limits, a short throughput vector. */
export const searchIndexPayg = {
  customer_id: 'ops@example.com',
  id: '7c1e4d2a-9f3b-4c5d-8e6f-1a2b3c4d5e6f',
  name: 'products',
  endpoint: 'glowing-baboon-15797-us1',
  type: 'payg',
  region: 'us-central1',
  integration_email: '',
  token: 'ABQFMGdsb3dpbmctYmFib29uLTE1Nzk3LXVzMWFkbWluZml4dHVyZQ==',
  read_only_token: 'ABQIMGdsb3dpbmctYmFib29uLTE1Nzk3LXVzMXJlYWRvbmx5Zml4',
  max_vector_count: 2_000_000_000,
  max_monthly_reranks: -1,
  max_daily_updates: -1,
  max_daily_queries: -1,
  max_monthly_bandwidth: -1,
  max_writes_per_second: 1000,
  max_query_per_second: 1000,
  max_reads_per_request: 1000,
  max_writes_per_request: 1000,
  creation_time: 1_760_441_585,
  input_enrichment_enabled: true,
  throughput_vector: [
    { x: goTimestamp(NOW_WHOLE_SECOND - 2 * MINUTE), y: 0 },
    { x: goTimestamp(NOW_WHOLE_SECOND - MINUTE, '25'), y: 12 },
    { x: goTimestamp(NOW_WHOLE_SECOND, NOW_FRACTION), y: 4 },
  ],
} satisfies In<typeof searchIndexSchema>;

/** A free index in the other region, from a third-party integration, with finite limits and no throughput yet. */
export const searchIndexFree = {
  ...searchIndexPayg,
  id: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
  name: 'docs',
  endpoint: 'quiet-otter-40211-eu1',
  type: 'free',
  region: 'eu-west-1',
  integration_email: 'billing@vercel-partner.example',
  max_vector_count: 200_000,
  max_monthly_reranks: 0,
  max_daily_updates: 10_000,
  max_daily_queries: 10_000,
  max_monthly_bandwidth: 53_687_091_200,
  max_writes_per_second: 1000,
  max_query_per_second: 1000,
  input_enrichment_enabled: false,
  throughput_vector: [],
} satisfies In<typeof searchIndexSchema>;

// ---------------------------------------------------------------------------------------------
// Messaging: URL groups and enqueue
// ---------------------------------------------------------------------------------------------

/** The answer of `GET /v2/topics`: named endpoints, an endpoint with no name and one with `""`. */
export const urlGroups = [
  {
    createdAt: 1_760_000_000_000,
    updatedAt: 1_760_441_585_757,
    name: 'orders',
    endpoints: [
      { name: 'billing', url: 'https://billing.example.com/api/orders' },
      { name: 'shipping', url: 'https://shipping.example.com/hooks/order-created' },
    ],
  },
  {
    createdAt: 1_759_300_000_000,
    updatedAt: 1_759_300_000_000,
    name: 'audit.events_v2',
    endpoints: [{ url: 'https://audit.example.com/ingest' }, { name: '', url: 'http://localhost:3000/api/audit' }],
  },
] satisfies In<typeof urlGroupSchema>[];

/** Enqueue to a URL or API destination. */
export const enqueueResult = { messageId: 'msg_26hZCxZCuWyyTWPmSVBrNB882AMRP1TsgzpygELRcLWep5QtLwRNRGFwCb5ub' } satisfies In<
  typeof enqueueResultSchema
>;

/** A duplicate: the existing message id and `deduplicated: true`. */
export const enqueueResultDeduplicated = { ...enqueueResult, deduplicated: true } satisfies In<typeof enqueueResultSchema>;

/** Enqueue to the `orders` URL group: one element per endpoint, with its url. */
export const urlGroupEnqueueResult = [
  { messageId: 'msg_7YoJxFpwkEy5zBp378JgvD6YBDPBEqkBPje2JGTCEUiASMJQ1FwY9', url: 'https://billing.example.com/api/orders' },
  {
    messageId: 'msg_7YoJxFpwkEy5zBp378JgvD6YBDPBEqkBPje2JGTCEUiASMJQ1FwYA',
    url: 'https://shipping.example.com/hooks/order-created',
    deduplicated: false,
  },
] satisfies In<typeof urlGroupEnqueueResultSchema>;

// ---------------------------------------------------------------------------------------------
// Messaging: workflow DLQ
// ---------------------------------------------------------------------------------------------

/** A failed workflow run with every field of the spec's table plus the extras real entries carry. */
export const dlqWorkflowMessageFull = {
  dlqId: '1760441585757-0',
  messageId: 'msg_26hZCxZCuWyyTWPmSVBrNB882AMRP1TsgzpygELRcLWep5QtLwRNRGFwCb5ub',
  url: 'https://app.example.com/api/workflow/checkout',
  method: 'POST',
  header: {
    'Content-Type': ['application/json'],
    'Upstash-Workflow-Runid': ['wfr_QXBwbGVQaWU3NzE4'],
    'Upstash-Workflow-Url': ['https://app.example.com/api/workflow/checkout'],
  },
  maxRetries: 3,
  notBefore: 1_760_441_525_000,
  createdAt: 1_760_441_525_112,
  failureCallback: 'https://app.example.com/api/workflow/checkout/failure',
  callerIP: '203.0.113.42',
  workflowRunId: 'wfr_QXBwbGVQaWU3NzE4',
  workflowCreatedAt: 1_760_441_525_001,
  workflowUrl: 'https://app.example.com/api/workflow/checkout',
  responseStatus: 500,
  responseHeader: { 'Content-Type': ['application/json'], Date: ['Tue, 14 Oct 2025 11:33:05 GMT'] },
  responseBody: '{"error":"payment service unavailable"}',
  failureCallbackInfo: {
    state: 'CALLBACK_FAIL',
    responseStatus: 502,
    responseBody: 'Bad Gateway',
    responseHeaders: { 'Content-Type': ['text/plain; charset=utf-8'] },
  },
  label: 'checkout',
  body: '{"orderId":42,"status":"paid"}',
  failureCallbackHeader: { 'X-Tenant': ['acme'] },
} satisfies In<typeof dlqWorkflowMessageSchema>;

const { body: _utf8Body, responseBody: _utf8ResponseBody, ...dlqWithoutBodies } = dlqWorkflowMessageFull;

/** A run whose bodies are not UTF-8 (base64 fields), whose failure callback succeeded. */
export const dlqWorkflowMessageBinary = {
  ...dlqWithoutBodies,
  dlqId: '1760441500001-3',
  messageId: 'msg_2kqoqQ1xLbKf2GwN9X8mEuWBFnh3AaT6Yv4tJzCdRmPsHgUeN5',
  bodyBase64: 'eyJvcmRlcklkIjo0Miwic3RhdHVzIjoicGFpZCJ9',
  responseBodyBase64: 'eyJlcnJvciI6InBheW1lbnQgc2VydmljZSB1bmF2YWlsYWJsZSJ9',
  failureCallbackInfo: { state: 'CALLBACK_SUCCESS', responseStatus: 200, responseBody: '{"received":true}', responseHeaders: {} },
} satisfies In<typeof dlqWorkflowMessageSchema>;

/** A sparse entry as Go's `omitempty` writes it after a timeout: no response, no failure callback, string timestamp. */
export const dlqWorkflowMessageSparse = {
  dlqId: '1760440000000-1',
  messageId: 'msg_4F9hVq2sXc8LmNp0RtYu7WzAeBd3GjKo1iEy6HnTfQwS5v',
  url: 'https://app.example.com/api/workflow/report',
  method: 'POST',
  createdAt: 1_760_439_990_000,
  callerIP: '198.51.100.7',
  workflowRunId: 'wfr_c2xvdy1yZXBvcnQ',
  workflowCreatedAt: '1760439989500',
  workflowUrl: 'https://app.example.com/api/workflow/report',
} satisfies In<typeof dlqWorkflowMessageSchema>;

/** A first page: a cursor to continue from. */
export const dlqPageWithCursor = {
  cursor: '1760440000000-1',
  messages: [dlqWorkflowMessageFull, dlqWorkflowMessageBinary],
} satisfies In<typeof dlqListResponseSchema>;

/** The last page as the spec describes it: no cursor at all. */
export const dlqPageNoCursor = { messages: [dlqWorkflowMessageSparse] } satisfies In<typeof dlqListResponseSchema>;

/** The last page as the service also writes it: an empty-string cursor. */
export const dlqPageEmptyCursor = { cursor: '', messages: [dlqWorkflowMessageSparse] } satisfies In<typeof dlqListResponseSchema>;

/** An empty DLQ: a nil Go slice arrives as `null`. */
export const dlqPageEmpty = { cursor: '', messages: null } satisfies In<typeof dlqListResponseSchema>;

/** The answer of `POST /v2/workflows/dlq/callback/{dlqId}`. */
export const retriggerResponse = { workflowRunId: 'wfr_QXBwbGVQaWU3NzE4', workflowCreatedAt: 1_760_441_525_001 } satisfies In<
  typeof retriggerResponseSchema
>;

/** The same answer with the timestamp as a numeric string, as some clients see it. */
export const retriggerResponseStringTimestamp = { ...retriggerResponse, workflowCreatedAt: '1760441525001' } satisfies In<
  typeof retriggerResponseSchema
>;

// ---------------------------------------------------------------------------------------------
// Callbacks
// ---------------------------------------------------------------------------------------------

/** A callback after a successful attempt, written as the service's docs show it: string timestamps, single-string source headers. */
export const callbackBody = {
  status: 200,
  header: { 'Content-Type': ['application/json'], 'X-Request-Id': ['req_81c2'] },
  body: 'eyJyZWNlaXZlZCI6dHJ1ZX0=',
  retried: 0,
  maxRetries: 3,
  sourceMessageId: 'msg_26hZCxZCuWyyTWPmSVBrNB882AMRP1TsgzpygELRcLWep5QtLwRNRGFwCb5ub',
  topicName: 'orders',
  endpointName: 'billing',
  url: 'https://billing.example.com/api/orders',
  method: 'POST',
  sourceHeader: { 'Content-Type': 'application/json', 'X-Tenant': 'acme' },
  sourceBody: 'eyJvcmRlcklkIjo0Miwic3RhdHVzIjoicGFpZCJ9',
  notBefore: '1760441585000',
  createdAt: '1760441585757',
  scheduleId: 'scd_7Fg2hJ9kL1mN3pQ5rS8tU0vW',
  callerIP: '203.0.113.42',
} satisfies In<typeof callbackBodySchema>;

const { scheduleId: _scheduleId, ...callbackWithoutSchedule } = callbackBody;

/** A callback after a failed attempt (not from a schedule), with numeric timestamps and array header values. */
export const callbackBodyRetrying = {
  ...callbackWithoutSchedule,
  status: 503,
  header: { 'Content-Type': ['text/plain'], 'Retry-After': ['30'] },
  body: 'dXBzdHJlYW0gdGltZW91dA==',
  retried: 1,
  sourceHeader: { 'Content-Type': ['application/json'], 'X-Tenant': ['acme'] },
  notBefore: 1_760_441_585_000,
  createdAt: 1_760_441_585_757,
} satisfies In<typeof callbackBodySchema>;

/** The failure callback of a plain message once retries are exhausted: adds `dlqId`. */
export const failureCallbackBody = {
  ...callbackBodyRetrying,
  status: 500,
  header: { 'Content-Type': ['application/json'] },
  body: 'eyJlcnJvciI6InBheW1lbnQgc2VydmljZSB1bmF2YWlsYWJsZSJ9',
  retried: 3,
  maxRetries: 3,
  dlqId: '1760441600000-0',
} satisfies In<typeof failureCallbackBodySchema>;

/** The failure callback of a workflow run: adds `workflowRunId` and `workflowCreatedAt` (as a string here). */
export const workflowFailureCallbackBody = {
  status: 500,
  header: { 'Content-Type': ['application/json'] },
  body: 'eyJlcnJvciI6InBheW1lbnQgc2VydmljZSB1bmF2YWlsYWJsZSJ9',
  retried: 3,
  maxRetries: 3,
  sourceMessageId: 'msg_26hZCxZCuWyyTWPmSVBrNB882AMRP1TsgzpygELRcLWep5QtLwRNRGFwCb5ub',
  url: 'https://app.example.com/api/workflow/checkout',
  method: 'POST',
  sourceHeader: { 'Content-Type': ['application/json'], 'Upstash-Workflow-Runid': ['wfr_QXBwbGVQaWU3NzE4'] },
  sourceBody: 'eyJvcmRlcklkIjo0Miwic3RhdHVzIjoicGFpZCJ9',
  notBefore: 1_760_441_525_000,
  createdAt: 1_760_441_525_112,
  callerIP: '203.0.113.42',
  dlqId: '1760441585757-0',
  workflowRunId: 'wfr_QXBwbGVQaWU3NzE4',
  workflowCreatedAt: '1760441525001',
} satisfies In<typeof failureCallbackBodySchema>;

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** A 404 body. */
export const errorBodyNotFound = { error: 'topic orders not found' } satisfies In<typeof errorBodySchema>;

/** A 400 body for a destination without a scheme. */
export const errorBodyInvalidDestination = {
  error: 'invalid destination url: endpoint has invalid scheme, add http:// or https://',
} satisfies In<typeof errorBodySchema>;
