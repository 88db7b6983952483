// Delivery options -> `<Prefix>-*` request headers, checked before anything is sent; durations.

import { resolveHeaderPrefix } from './config';
import { expectObject, describeValue, ValidationError } from './errors';
import {
  headerNames,
  RESOURCE_NAME,
  RESOURCE_NAME_RULE,
  type CallbackHeaders,
  type DeliverySettingHeaders,
  type ProtocolHeaderNames,
} from './wire';
import { parseEnqueuedRetryDelay, type RetryDelayExpression } from './retry-delay';
import { unsignableUrl } from './signature/token';
import type {
  Duration,
  DurationUnit,
  CallbackTarget,
  DeliverySettings,
  EnqueueOptions,
  FlowControl,
  HeaderPrefixOptions,
  HeaderRecord,
  RedactFields,
  WorkflowTarget,
} from './delivery-options';

export type * from './delivery-options';

const UNIT_SECONDS: Record<DurationUnit, number> = { d: 86_400, h: 3_600, m: 60, s: 1 };
const ORDER: readonly DurationUnit[] = ['d', 'h', 'm', 's'];
const PART = /(\d+)([dhms])/y;

/**
 * Parses a duration to whole seconds, refusing units the header does not take (the spec allows only
 * s, m and h in `Timeout`).
 *
 * @example parseDuration('delay', '1d10h30m') // 124200
 */
export function parseDuration(path: string, value: Duration, units: readonly DurationUnit[] = ORDER): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new ValidationError(path, `a duration in seconds must be a non-negative whole number, got ${value}`);
    }
    return value;
  }
  if (typeof value !== 'string' || value === '') {
    throw new ValidationError(path, `expected a duration like "30s", "5m", "1h" or "1d10h30m", got ${JSON.stringify(value)}`);
  }
  let seconds = 0;
  let lastRank = -1;
  PART.lastIndex = 0;
  while (PART.lastIndex < value.length) {
    const start = PART.lastIndex;
    const match = PART.exec(value);
    if (!match) {
      throw new ValidationError(
        path,
        `malformed duration ${JSON.stringify(value)} at position ${start}: expected <number><unit> with unit ${units.join(', ')}`,
      );
    }
    const unit = match[2] as DurationUnit;
    const rank = ORDER.indexOf(unit);
    if (!units.includes(unit)) {
      throw new ValidationError(path, `unit "${unit}" is not allowed here; use ${units.join(', ')}`);
    }
    if (rank <= lastRank) {
      throw new ValidationError(path, `malformed duration ${JSON.stringify(value)}: give each unit once, largest first (e.g. "1d10h30m")`);
    }
    lastRank = rank;
    seconds += Number(match[1]) * UNIT_SECONDS[unit];
  }
  if (!Number.isSafeInteger(seconds)) throw new ValidationError(path, `duration ${JSON.stringify(value)} is too large`);
  return seconds;
}

/**
 * The header form of a duration. Strings pass through as written (after validation) so the
 * service sees exactly what the user wrote; numbers become seconds.
 */
function formatDuration(path: string, value: Duration, units?: readonly DurationUnit[]): string {
  parseDuration(path, value, units);
  return typeof value === 'number' ? `${value}s` : value;
}

// RFC 9110 token characters. Anything else in a name is either rejected by fetch at send time or,
// worse, smuggles a second header; we refuse it before a request exists.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible ASCII, obs-text and horizontal whitespace. CR, LF and NUL are how header
// injection happens, so they are the ones that must never pass.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Throws unless `name` is a valid HTTP header name. */
function assertHeaderName(path: string, name: unknown): asserts name is string {
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new ValidationError(path, `invalid header name ${JSON.stringify(name)}: use letters, digits and - only`);
  }
}

/** Throws unless `value` is a string that is safe as an HTTP header value (no CR, LF or NUL). */
export function assertHeaderValue(path: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') {
    throw new ValidationError(path, `header value must be a string, got ${describeValue(value)}`);
  }
  if (!FIELD_VALUE.test(value)) {
    throw new ValidationError(
      path,
      'header value contains a line break, NUL or a character outside Latin-1; remove it or encode the value',
    );
  }
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const KNOWN_KEYS = new Set<string>([
  'method',
  'timeout',
  'retries',
  'retryDelay',
  'delay',
  'headers',
  'contentType',
  'notBefore',
  'callback',
  'failureCallback',
  'deduplicationId',
  'contentBasedDeduplication',
  'label',
  'flowControl',
  'redact',
  'workflow',
]);
const FLOW_CONTROL_KEYS = new Set<string>(['key', 'parallelism', 'rate', 'period']);
const REDACT_KEYS = new Set<string>(['body', 'headers']);
const TARGET_KEYS = new Set<string>(['url', 'method', 'timeout', 'retries', 'retryDelay', 'delay', 'headers']);
const WORKFLOW_KEYS = new Set<string>(['runId', 'url', 'createdAt']);

/**
 * Turns typed enqueue options into the service's request headers, validating every value first so a
 * mistake is a `ValidationError` here and never a 400 (or a silently ignored header) later.
 *
 * @example
 * buildEnqueueHeaders({ retries: 3, callback: { url: 'https://app.test/cb', retries: 1 } })
 * // { 'Service-Retries': '3', 'Service-Callback': 'https://app.test/cb', 'Service-Callback-Retries': '1' }
 */
export function buildEnqueueHeaders(options: EnqueueOptions = {}, settings: HeaderPrefixOptions = {}): Record<string, string> {
  expectObject(options, 'options', 'an object of enqueue options');
  rejectUnknownKeys('', options, KNOWN_KEYS);
  const names = headerNames(resolveHeaderPrefix(settings.headerPrefix));
  const out: Record<string, string> = {};

  if (options.contentType !== undefined) {
    assertHeaderValue('contentType', options.contentType);
    out['Content-Type'] = options.contentType;
  }
  addDeliverySettings(out, names.delivery, '', options);
  addSchedule(out, names, options);
  addCallback(out, names.callback, 'callback', options.callback);
  addCallback(out, names.failureCallback, 'failureCallback', options.failureCallback);

  if (options.deduplicationId !== undefined) {
    assertNonEmpty('deduplicationId', options.deduplicationId);
    out[names.deduplicationId] = options.deduplicationId;
  }
  if (options.contentBasedDeduplication !== undefined) {
    if (typeof options.contentBasedDeduplication !== 'boolean') {
      throw new ValidationError(
        'contentBasedDeduplication',
        `expected true or false, got ${describeValue(options.contentBasedDeduplication)}`,
      );
    }
    if (options.contentBasedDeduplication) out[names.contentBasedDeduplication] = 'true';
  }
  if (options.label !== undefined) out[names.label] = formatLabels(options.label);
  if (options.flowControl !== undefined) addFlowControl(out, names, options.flowControl);
  if (options.redact !== undefined) addRedact(out, names, options.redact);
  if (options.workflow !== undefined) addWorkflow(out, names, options.workflow);
  return out;
}

function formatLabels(labels: string | readonly string[]): string {
  const list = typeof labels === 'string' ? [labels] : labels;
  if (!Array.isArray(list) || list.length === 0) {
    throw new ValidationError('label', `expected a label or a non-empty array of labels, got ${describeValue(labels)}`);
  }
  list.forEach((label, index) => {
    assertNonEmpty(typeof labels === 'string' ? 'label' : `label.${index}`, label);
    // The service separates labels with commas, so a comma inside one would split it in two.
    if (label.includes(',')) throw new ValidationError('label', `a label cannot contain ",", got ${JSON.stringify(label)}`);
  });
  return list.join(',');
}

function addFlowControl(out: Record<string, string>, names: ProtocolHeaderNames, flow: FlowControl): void {
  if (flow === null || typeof flow !== 'object') {
    throw new ValidationError('flowControl', `expected { key, parallelism?, rate?, period? }, got ${describeValue(flow)}`);
  }
  rejectUnknownKeys('flowControl', flow, FLOW_CONTROL_KEYS);
  checkName('flowControl.key', flow.key);
  const parts: string[] = [];
  for (const name of ['parallelism', 'rate'] as const) {
    const value = flow[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new ValidationError(`flowControl.${name}`, `expected a whole number >= 1, got ${describeValue(value)}`);
    }
    parts.push(`${name}=${value}`);
  }
  if (parts.length === 0) throw new ValidationError('flowControl', 'give at least one of parallelism and rate');
  if (flow.period !== undefined) {
    if (flow.rate === undefined) throw new ValidationError('flowControl.period', 'period is the period of rate: give rate too');
    const period = formatDuration('flowControl.period', flow.period);
    if (parseDuration('flowControl.period', flow.period) < 1) throw new ValidationError('flowControl.period', 'must be at least 1s');
    parts.push(`period=${period}`);
  }
  out[names.flowControlKey] = flow.key;
  out[names.flowControlValue] = parts.join(', ');
}

function addRedact(out: Record<string, string>, names: ProtocolHeaderNames, redact: RedactFields): void {
  if (redact === null || typeof redact !== 'object') {
    throw new ValidationError('redact', `expected { body?: true, headers?: true | string[] }, got ${describeValue(redact)}`);
  }
  rejectUnknownKeys('redact', redact, REDACT_KEYS);
  const fields: string[] = [];
  if (redact.body !== undefined) {
    if (typeof redact.body !== 'boolean')
      throw new ValidationError('redact.body', `expected true or false, got ${describeValue(redact.body)}`);
    if (redact.body) fields.push('body');
  }
  if (redact.headers === true) {
    fields.push('header');
  } else if (redact.headers !== undefined) {
    if (!Array.isArray(redact.headers) || redact.headers.length === 0) {
      throw new ValidationError(
        'redact.headers',
        `expected true or a non-empty array of header names, got ${describeValue(redact.headers)}`,
      );
    }
    redact.headers.forEach((name, index) => {
      assertHeaderName(`redact.headers.${index}`, name);
      fields.push(`header[${name}]`);
    });
  }
  if (fields.length === 0) throw new ValidationError('redact', 'nothing to redact: set body: true and/or headers');
  out[names.redactFields] = fields.join(',');
}

function addWorkflow(out: Record<string, string>, names: ProtocolHeaderNames, workflow: WorkflowTarget): void {
  if (workflow === null || typeof workflow !== 'object') throw new ValidationError('workflow', 'expected { runId, url, createdAt? }');
  rejectUnknownKeys('workflow', workflow, WORKFLOW_KEYS);
  assertNonEmpty('workflow.runId', workflow.runId);
  out[names.workflowRunId] = workflow.runId;
  out[names.workflowUrl] = checkHttpUrl('workflow.url', workflow.url);
  if (workflow.createdAt !== undefined) {
    if (!Number.isSafeInteger(workflow.createdAt) || workflow.createdAt < 0) {
      throw new ValidationError('workflow.createdAt', `expected Unix milliseconds, got ${describeValue(workflow.createdAt)}`);
    }
    out[names.workflowCreatedAt] = String(workflow.createdAt);
  }
}

/** The settings shared by the destination, the callback and the failure callback; only the header names differ. */
function addDeliverySettings(out: Record<string, string>, names: DeliverySettingHeaders, path: string, settings: DeliverySettings): void {
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (settings.method !== undefined) {
    if (typeof settings.method !== 'string' || !METHODS.has(settings.method)) {
      throw new ValidationError(at('method'), `expected one of ${[...METHODS].join(', ')}, got ${describeValue(settings.method)}`);
    }
    out[names.method] = settings.method;
  }
  if (settings.timeout !== undefined) out[names.timeout] = formatDuration(at('timeout'), settings.timeout, ['h', 'm', 's']);
  if (settings.retries !== undefined) {
    if (typeof settings.retries !== 'number' || !Number.isSafeInteger(settings.retries) || settings.retries < 0) {
      throw new ValidationError(at('retries'), `expected a whole number of retries >= 0, got ${describeValue(settings.retries)}`);
    }
    out[names.retries] = String(settings.retries);
  }
  if (settings.retryDelay !== undefined) out[names.retryDelay] = retryDelaySource(at('retryDelay'), settings.retryDelay);
  if (settings.delay !== undefined) out[names.delay] = formatDuration(at('delay'), settings.delay);
  if (settings.headers !== undefined) addForwardHeaders(out, names.forwardPrefix, at('headers'), settings.headers);
}

function addSchedule(out: Record<string, string>, names: ProtocolHeaderNames, options: EnqueueOptions): void {
  if (options.notBefore === undefined) return;
  if (options.delay !== undefined) {
    // The service silently lets Not-Before win; two contradictory settings are a bug in the caller.
    throw new ValidationError('notBefore', 'give either delay or notBefore, not both');
  }
  const seconds = options.notBefore instanceof Date ? Math.floor(options.notBefore.getTime() / 1000) : options.notBefore;
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < 0) {
    throw new ValidationError('notBefore', `expected a Date or Unix seconds, got ${describeValue(options.notBefore)}`);
  }
  if (seconds > 1e11) {
    throw new ValidationError('notBefore', `${seconds} looks like milliseconds; pass Unix seconds or a Date`);
  }
  out[names.notBefore] = String(seconds);
}

function addCallback(out: Record<string, string>, names: CallbackHeaders, path: string, target: string | CallbackTarget | undefined): void {
  if (target === undefined) return;
  const normalized: CallbackTarget = typeof target === 'string' ? { url: target } : target;
  if (normalized === null || typeof normalized !== 'object') {
    throw new ValidationError(path, `expected a URL or { url, ...settings }, got ${describeValue(target)}`);
  }
  rejectUnknownKeys(path, normalized, TARGET_KEYS);
  out[names.url] = checkHttpUrl(typeof target === 'string' ? path : `${path}.url`, normalized.url);
  addDeliverySettings(out, names, path, normalized);
}

function addForwardHeaders(out: Record<string, string>, stem: string, path: string, headers: HeaderRecord): void {
  const entries = headers instanceof Headers ? [...headers.entries()] : objectEntries(path, headers);
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    assertHeaderName(`${path}.${name}`, name);
    assertHeaderValue(`${path}.${name}`, value);
    const lower = name.toLowerCase();
    if (seen.has(lower)) throw new ValidationError(`${path}.${name}`, 'the same header is given twice with different letter case');
    seen.add(lower);
    out[`${stem}${name}`] = value;
  }
}

function objectEntries(path: string, headers: unknown): Array<[string, unknown]> {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw new ValidationError(path, `expected a record of header names to values or a Headers object, got ${describeValue(headers)}`);
  }
  return Object.entries(headers);
}

function retryDelaySource(path: string, value: string | RetryDelayExpression): string {
  let source: string;
  if (typeof value === 'object' && value !== null && typeof value.source === 'string') {
    source = value.source;
  } else if (typeof value !== 'string') {
    throw new ValidationError(path, `expected an expression such as "pow(2, retried) * 1000", got ${describeValue(value)}`);
  } else {
    // Parsing here means a typo is reported with its position now, not as a 400 from the service.
    source = parseEnqueuedRetryDelay(value).source;
  }
  // The expression grammar allows line breaks as whitespace, and a hand-made { source } is not parsed
  // at all; either way the text goes on the wire verbatim, so it must be a safe header value.
  assertHeaderValue(path, source);
  return source;
}

/** Queue, URL-group, schedule and flow-control key names share the service's naming rule. */
export function checkName(path: string, value: unknown): string {
  if (typeof value !== 'string' || !RESOURCE_NAME.test(value)) {
    throw new ValidationError(path, `expected ${RESOURCE_NAME_RULE}, got ${describeValue(value)}`);
  }
  return value;
}

/** The service refuses destinations and callbacks without an http(s) scheme; so do we, earlier. */
export function checkHttpUrl(path: string, url: unknown): string {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) {
    throw new ValidationError(path, `must start with http:// or https://, got ${describeValue(url)}`);
  }
  try {
    new URL(url);
  } catch {
    throw new ValidationError(path, `is not a valid URL: ${JSON.stringify(url)}`);
  }
  assertHeaderValue(path, url);
  const unsignable = unsignableUrl(url);
  if (unsignable) throw new ValidationError(path, unsignable);
  return url;
}

function assertNonEmpty(path: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError(path, `expected a non-empty string, got ${describeValue(value)}`);
  }
  assertHeaderValue(path, value);
}

function rejectUnknownKeys(path: string, value: object, known: ReadonlySet<string>): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) {
      const where = path ? `${path}.${key}` : key;
      throw new ValidationError(where, `unknown option; known options are ${[...known].join(', ')}`);
    }
  }
}
