import { resolveHeaderPrefix } from '../config/header-prefix';
import { headerNames, type CallbackHeaders, type DeliverySettingHeaders, type ProtocolHeaderNames } from '../protocol/header-names';
import { ValidationError } from '../errors/validation-error';
import { parseRetryDelay, type RetryDelayExpression } from '../retry-delay';
import { formatDuration } from './duration';
import type {
  CallbackTarget,
  DeliverySettings,
  EnqueueOptions,
  HeaderPrefixOptions,
  HeaderRecord,
  WorkflowTarget,
} from './enqueue-options';
import { assertHeaderName, assertHeaderValue, describe } from './header-syntax';

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
  'workflow',
]);
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
  if (options === null || typeof options !== 'object') {
    throw new ValidationError('options', `expected an object of enqueue options, got ${describe(options)}`);
  }
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
      throw new ValidationError('contentBasedDeduplication', `expected true or false, got ${describe(options.contentBasedDeduplication)}`);
    }
    if (options.contentBasedDeduplication) out[names.contentBasedDeduplication] = 'true';
  }
  if (options.label !== undefined) {
    assertNonEmpty('label', options.label);
    out[names.label] = options.label;
  }
  if (options.workflow !== undefined) addWorkflow(out, names, options.workflow);
  return out;
}

function addWorkflow(out: Record<string, string>, names: ProtocolHeaderNames, workflow: WorkflowTarget): void {
  if (workflow === null || typeof workflow !== 'object') throw new ValidationError('workflow', 'expected { runId, url, createdAt? }');
  rejectUnknownKeys('workflow', workflow, WORKFLOW_KEYS);
  assertNonEmpty('workflow.runId', workflow.runId);
  out[names.workflowRunId] = workflow.runId;
  out[names.workflowUrl] = checkHttpUrl('workflow.url', workflow.url);
  if (workflow.createdAt !== undefined) {
    if (!Number.isSafeInteger(workflow.createdAt) || workflow.createdAt < 0) {
      throw new ValidationError('workflow.createdAt', `expected Unix milliseconds, got ${describe(workflow.createdAt)}`);
    }
    out[names.workflowCreatedAt] = String(workflow.createdAt);
  }
}

/** The settings shared by the destination, the callback and the failure callback; only the header names differ. */
function addDeliverySettings(out: Record<string, string>, names: DeliverySettingHeaders, path: string, settings: DeliverySettings): void {
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (settings.method !== undefined) {
    if (typeof settings.method !== 'string' || !METHODS.has(settings.method)) {
      throw new ValidationError(at('method'), `expected one of ${[...METHODS].join(', ')}, got ${describe(settings.method)}`);
    }
    out[names.method] = settings.method;
  }
  if (settings.timeout !== undefined) out[names.timeout] = formatDuration(at('timeout'), settings.timeout, ['h', 'm', 's']);
  if (settings.retries !== undefined) {
    if (typeof settings.retries !== 'number' || !Number.isSafeInteger(settings.retries) || settings.retries < 0) {
      throw new ValidationError(at('retries'), `expected a whole number of retries >= 0, got ${describe(settings.retries)}`);
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
    throw new ValidationError('notBefore', `expected a Date or Unix seconds, got ${describe(options.notBefore)}`);
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
    throw new ValidationError(path, `expected a URL or { url, ...settings }, got ${describe(target)}`);
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
    throw new ValidationError(path, `expected a record of header names to values or a Headers object, got ${describe(headers)}`);
  }
  return Object.entries(headers);
}

function retryDelaySource(path: string, value: string | RetryDelayExpression): string {
  let source: string;
  if (typeof value === 'object' && value !== null && typeof value.source === 'string') {
    source = value.source;
  } else if (typeof value !== 'string') {
    throw new ValidationError(path, `expected an expression such as "pow(2, retried) * 1000", got ${describe(value)}`);
  } else {
    // Parsing here means a typo is reported with its position now, not as a 400 from the service.
    source = parseRetryDelay(value).source;
  }
  // The expression grammar allows line breaks as whitespace, and a hand-made { source } is not parsed
  // at all; either way the text goes on the wire verbatim, so it must be a safe header value.
  assertHeaderValue(path, source);
  return source;
}

/** The service refuses destinations and callbacks without an http(s) scheme; so do we, earlier. */
export function checkHttpUrl(path: string, url: unknown): string {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) {
    throw new ValidationError(path, `must start with http:// or https://, got ${describe(url)}`);
  }
  try {
    new URL(url);
  } catch {
    throw new ValidationError(path, `is not a valid URL: ${JSON.stringify(url)}`);
  }
  assertHeaderValue(path, url);
  return url;
}

function assertNonEmpty(path: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError(path, `expected a non-empty string, got ${describe(value)}`);
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
