import type { DurationUnit } from '@mailroom/core';
import {
  forwardedHeaders,
  parseDuration,
  parseEnqueuedRetryDelay,
  headerNames,
  type CallbackHeaders,
  type ProtocolHeaderNames,
} from '@mailroom/core/internal-protocol';
import type { PlanLimits } from '../settings';
import type { CallbackSettings, FlowControlSettings, MessageRecord, RedactSettings, WorkflowInfo } from '../state/records';
import { headerValuesFromRaw, type HeaderSource } from '../state/header-values';
import { badRequest, checkUrl, planLimit, resourceName } from '../errors';

/**
 * Every setting an enqueue request carries in its headers (spec endpoint 8), validated: the message
 * record's own fields (documented there), and what decides how the message is accepted.
 */
export interface EnqueueSettings
  extends Pick<
    MessageRecord,
    | 'method'
    | 'contentType'
    | 'forwardHeaders'
    | 'sourceHeader'
    | 'maxRetries'
    | 'retryDelay'
    | 'timeoutSeconds'
    | 'notBefore'
    | 'callback'
    | 'failureCallback'
    | 'label'
    | 'flowControl'
    | 'redact'
  > {
  deduplicationId?: string;
  contentBasedDeduplication: boolean;
  /** The run this message belongs to; the URL is the destination's unless the trigger names another. */
  workflow?: Omit<WorkflowInfo, 'url'> & { url?: string; invoked?: true };
  /** Whether `<P>-Retries` was given (a workflow step without it takes its run's). */
  retriesGiven: boolean;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const TIMEOUT_UNITS: readonly DurationUnit[] = ['h', 'm', 's'];

/**
 * Reads and validates the headers of an enqueue with the configured prefix: 400 for a malformed
 * value (method, duration, retry-delay expression, URL, number), 412 for a plan limit (retries above
 * `max_retries`, a delay beyond `max_delay`). `<P>-Timeout` only ever shortens the plan's timeout.
 */
export function readEnqueueSettings(req: HeaderSource, prefix: string, plan: PlanLimits, now: number): EnqueueSettings {
  const get = headerReader(req);
  const n = enqueueHeaderKeys(prefix);
  const forwards = hasForwardedHeaders(req);
  const givenRetries = readRetries(get(n.retries), n.wire.delivery.retries, plan);
  const retries = givenRetries ?? plan.defaultRetries;
  const retryDelay = readRetryDelay(get(n.retryDelay), n.wire.delivery.retryDelay);
  const notBefore = readNotBefore(get, n, plan, now);
  const deduplicationId = get(n.deduplicationId);
  const label = get(n.label);
  const contentType = get(n.contentType);
  const callback = readCallback(req, get, n.callback, plan, forwards, prefix);
  const failureCallback = readCallback(req, get, n.failureCallback, plan, forwards, prefix);
  const workflow = readWorkflow(get, n, now);
  const flowControl = readFlowControl(get(n.flowControlKey), get(n.flowControlValue), n.wire);
  const redact = readRedact(get(n.redactFields), n.wire);
  // Optional fields by assignment, not conditional spreads: this runs for every enqueue.
  const settings: EnqueueSettings = {
    method: readMethod(get(n.method), n.wire.delivery.method) ?? 'POST',
    forwardHeaders: forwards ? forwardedHeaders(req.headers, { headerPrefix: prefix }) : {},
    sourceHeader: headerValuesFromRaw(req.rawHeaders, n.isMessageHeader),
    maxRetries: retries,
    timeoutSeconds: readTimeout(get(n.timeout), n.wire.delivery.timeout, plan) ?? plan.timeout,
    notBefore,
    contentBasedDeduplication: get(n.contentBasedDeduplication)?.trim().toLowerCase() === 'true',
    retriesGiven: givenRetries !== undefined,
  };
  if (contentType !== undefined) settings.contentType = contentType;
  if (retryDelay !== undefined) settings.retryDelay = retryDelay;
  if (callback) settings.callback = callback;
  if (failureCallback) settings.failureCallback = failureCallback;
  if (deduplicationId !== undefined && deduplicationId !== '') settings.deduplicationId = deduplicationId;
  if (label !== undefined && label.trim() !== '') {
    settings.label = label
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .join(',');
  }
  if (flowControl) settings.flowControl = flowControl;
  if (redact) settings.redact = redact;
  if (workflow) settings.workflow = workflow;
  return settings;
}

/** Looks a header up by its lower-case name (Node's `req.headers` keys). */
type HeaderGet = (key: string) => string | undefined;

function headerReader(req: HeaderSource): HeaderGet {
  const headers = req.headers;
  return (key) => {
    const value = headers[key];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

/**
 * Whether any header could be a forwarded one (`<P>-Forward-X`, `<P>-Callback-Forward-X`, ...): most
 * enqueues carry none, and a scan of the names is far cheaper than collecting them.
 */
function hasForwardedHeaders(req: HeaderSource): boolean {
  for (const name in req.headers) if (name.includes('-forward-')) return true;
  return false;
}

/** The lower-case names of every header an enqueue may carry, for one prefix; `wire` spells them for messages. */
interface EnqueueHeaderKeys {
  wire: ProtocolHeaderNames;
  retries: string;
  retryDelay: string;
  notBefore: string;
  delay: string;
  deduplicationId: string;
  label: string;
  flowControlKey: string;
  flowControlValue: string;
  redactFields: string;
  contentType: string;
  method: string;
  timeout: string;
  contentBasedDeduplication: string;
  workflowRunId: string;
  workflowUrl: string;
  workflowCreatedAt: string;
  workflowInit: string;
  workflowCallType: string;
  workflowInvoke: string;
  featureSet: string;
  callback: CallbackHeaderNames;
  failureCallback: CallbackHeaderNames;
  /**
   * What a message keeps of its enqueue's headers (its `header` in views, the DLQ and callbacks'
   * `sourceHeader`): its own settings and Content-Type. Never the token, nor what belongs to the
   * sending client or the hop (User-Agent, Accept, Host, Connection, ...).
   */
  isMessageHeader: (lowerCaseName: string) => boolean;
}

/** The lower-case names of one callback's headers. */
interface CallbackHeaderNames {
  wire: CallbackHeaders;
  url: string;
  retries: string;
  retryDelay: string;
  timeout: string;
  delay: string;
  method: string;
}

// Node's `req.headers` keys are lower case: the protocol table's names, lowered once per prefix.
const namesByPrefix = new Map<string, EnqueueHeaderKeys>();

function enqueueHeaderKeys(prefix: string): EnqueueHeaderKeys {
  let names = namesByPrefix.get(prefix);
  if (!names) {
    const wire = headerNames(prefix);
    const key = (name: string) => name.toLowerCase();
    const ownPrefix = `${prefix.toLowerCase()}-`;
    names = {
      wire,
      retries: key(wire.delivery.retries),
      retryDelay: key(wire.delivery.retryDelay),
      notBefore: key(wire.notBefore),
      delay: key(wire.delivery.delay),
      deduplicationId: key(wire.deduplicationId),
      label: key(wire.label),
      flowControlKey: key(wire.flowControlKey),
      flowControlValue: key(wire.flowControlValue),
      redactFields: key(wire.redactFields),
      contentType: 'content-type',
      method: key(wire.delivery.method),
      timeout: key(wire.delivery.timeout),
      contentBasedDeduplication: key(wire.contentBasedDeduplication),
      workflowRunId: key(wire.workflowRunId),
      workflowUrl: key(wire.workflowUrl),
      workflowCreatedAt: key(wire.workflowCreatedAt),
      workflowInit: key(wire.workflowInit),
      workflowCallType: key(wire.workflowCallType),
      workflowInvoke: key(wire.workflowInvoke),
      featureSet: key(wire.featureSet),
      callback: callbackNames(wire.callback),
      failureCallback: callbackNames(wire.failureCallback),
      isMessageHeader: (name) => name === 'content-type' || name.startsWith(ownPrefix),
    };
    namesByPrefix.set(prefix, names);
  }
  return names;
}

function callbackNames(wire: CallbackHeaders): CallbackHeaderNames {
  const key = (name: string) => name.toLowerCase();
  return {
    wire,
    url: key(wire.url),
    retries: key(wire.retries),
    retryDelay: key(wire.retryDelay),
    timeout: key(wire.timeout),
    delay: key(wire.delay),
    method: key(wire.method),
  };
}

function readMethod(value: string | undefined, header: string): string | undefined {
  if (value === undefined) return undefined;
  const method = value.trim().toUpperCase();
  if (!METHODS.has(method)) throw badRequest(`invalid ${header} header ${JSON.stringify(value)}: use one of ${[...METHODS].join(', ')}`);
  return method;
}

function readRetries(value: string | undefined, header: string, plan: PlanLimits): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d+$/.test(value.trim())) throw badRequest(`invalid ${header} header ${JSON.stringify(value)}: expected a whole number`);
  const retries = Number(value.trim());
  if (retries > plan.max_retries) {
    throw planLimit(`${header} ${retries} exceeds the max retries of the ${plan.type} plan (${plan.max_retries})`);
  }
  return retries;
}

function readRetryDelay(value: string | undefined, header: string): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  try {
    return parseEnqueuedRetryDelay(value.trim()).source;
  } catch (error) {
    throw badRequest(`invalid ${header} header: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A duration in seconds: `<n><unit>` combined largest first, or a bare number of seconds. */
function readDurationSeconds(value: string | undefined, header: string, units?: readonly DurationUnit[]): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  try {
    return parseDuration(header, text, units);
  } catch (error) {
    throw badRequest(`invalid ${header} header: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function readTimeout(value: string | undefined, header: string, plan: PlanLimits): number | undefined {
  const seconds = readDurationSeconds(value, header, TIMEOUT_UNITS);
  if (seconds === undefined) return undefined;
  if (seconds <= 0) throw badRequest(`invalid ${header} header ${JSON.stringify(value)}: must be longer than 0s`);
  return Math.min(seconds, plan.timeout);
}

function readNotBefore(get: HeaderGet, n: EnqueueHeaderKeys, plan: PlanLimits, now: number): number {
  const notBefore = get(n.notBefore);
  if (notBefore !== undefined && notBefore.trim() !== '') {
    // Not-Before wins over Delay, as on the service.
    if (!/^\d+$/.test(notBefore.trim()))
      throw badRequest(`invalid ${n.wire.notBefore} header ${JSON.stringify(notBefore)}: expected Unix seconds`);
    const at = Number(notBefore.trim()) * 1000;
    if (at - now > plan.max_delay * 1000)
      throw planLimit(`${n.wire.notBefore} is more than the max delay of the ${plan.type} plan (${plan.max_delay}s) away`);
    return Math.max(at, now);
  }
  const delay = readDurationSeconds(get(n.delay), n.wire.delivery.delay) ?? 0;
  if (delay > plan.max_delay)
    throw planLimit(`${n.wire.delivery.delay} ${delay}s exceeds the max delay of the ${plan.type} plan (${plan.max_delay}s)`);
  return now + delay * 1000;
}

function readCallback(
  req: HeaderSource,
  get: HeaderGet,
  names: CallbackHeaderNames,
  plan: PlanLimits,
  forwards: boolean,
  prefix: string,
): CallbackSettings | undefined {
  const url = get(names.url);
  if (url === undefined || url.trim() === '') return undefined;
  const stem = names.wire.url;
  checkUrl(url.trim(), stem);
  const retries = readRetries(get(names.retries), names.wire.retries, plan);
  const retryDelay = readRetryDelay(get(names.retryDelay), names.wire.retryDelay);
  const timeoutSeconds = readTimeout(get(names.timeout), names.wire.timeout, plan);
  const delaySeconds = readDurationSeconds(get(names.delay), names.wire.delay);
  if (delaySeconds !== undefined && delaySeconds > plan.max_delay) {
    throw planLimit(`${names.wire.delay} ${delaySeconds}s exceeds the max delay of the ${plan.type} plan (${plan.max_delay}s)`);
  }
  return {
    url: url.trim(),
    method: readMethod(get(names.method), names.wire.method) ?? 'POST',
    ...(retries !== undefined ? { retries } : {}),
    ...(retryDelay !== undefined ? { retryDelay } : {}),
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
    ...(delaySeconds !== undefined ? { delaySeconds } : {}),
    // `<P>-Callback-Forward-X`: the stem works as a prefix of its own.
    headers: { ...(forwards ? forwardedHeaders(req.headers, { headerPrefix: stem }) : {}), ...workflowCallbackHeaders(req, stem, prefix) },
  };
}

/**
 * A workflow's failure callback (or a `context.call`'s callback) must reach the SDK as a delivery of
 * its run: the trigger's `<stem>-Workflow-*` and `<stem>-Feature-Set` headers are sent with it as
 * `<P>-Workflow-*` and `<P>-Feature-Set`.
 */
function workflowCallbackHeaders(req: HeaderSource, stem: string, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lowerStem = `${stem.toLowerCase()}-`;
  for (let index = 0; index + 1 < req.rawHeaders.length; index += 2) {
    const name = req.rawHeaders[index]!;
    const lower = name.toLowerCase();
    if (!lower.startsWith(lowerStem)) continue;
    const rest = name.slice(lowerStem.length);
    if (/^workflow-|^feature-set$/i.test(rest)) out[`${prefix}-${rest}`] = req.rawHeaders[index + 1]!;
  }
  return out;
}

function readWorkflow(get: HeaderGet, n: EnqueueHeaderKeys, now: number): EnqueueSettings['workflow'] {
  const runId = get(n.workflowRunId)?.trim();
  if (runId === undefined || runId === '') return undefined;
  const url = get(n.workflowUrl)?.trim();
  if (url !== undefined && url !== '') checkUrl(url, n.wire.workflowUrl);
  const createdAtText = get(n.workflowCreatedAt)?.trim();
  if (createdAtText !== undefined && createdAtText !== '' && !/^\d+$/.test(createdAtText)) {
    throw badRequest(`invalid ${n.wire.workflowCreatedAt} header ${JSON.stringify(createdAtText)}: expected Unix milliseconds`);
  }
  const workflow: NonNullable<EnqueueSettings['workflow']> = { runId, createdAt: createdAtText ? Number(createdAtText) : now };
  if (url !== undefined && url !== '') workflow.url = url;
  if (get(n.workflowInit)?.trim().toLowerCase() === 'true') workflow.init = true;
  if (workflow.init && get(n.workflowInvoke)?.trim().toLowerCase() === 'true') workflow.invoked = true;
  const callType = get(n.workflowCallType)?.trim();
  if (callType) workflow.callType = callType;
  const features = (get(n.featureSet) ?? '').split(',').map((feature) => feature.trim());
  if (features.includes('LazyFetch')) workflow.lazyFetch = true;
  if (features.includes('InitialBody')) workflow.initialBody = true;
  return workflow;
}

/** `<P>-Flow-Control-Key` with `<P>-Flow-Control-Value: parallelism=2, rate=10, period=1m`. */
function readFlowControl(key: string | undefined, value: string | undefined, wire: ProtocolHeaderNames): FlowControlSettings | undefined {
  if (key === undefined || key.trim() === '') {
    if (value !== undefined && value.trim() !== '') throw badRequest(`${wire.flowControlValue} needs ${wire.flowControlKey}`);
    return undefined;
  }
  const settings: FlowControlSettings = { key: resourceName(wire.flowControlKey, key.trim()) };
  for (const part of (value ?? '').split(',')) {
    if (part.trim() === '') continue;
    const [name, raw] = part.split('=').map((side) => side.trim());
    if (name === 'period') {
      settings.periodSeconds = readDurationSeconds(raw, `${wire.flowControlValue} period`);
      if (!settings.periodSeconds) throw badRequest(`invalid ${wire.flowControlValue} period ${JSON.stringify(raw)}: must be at least 1s`);
      continue;
    }
    if ((name !== 'parallelism' && name !== 'rate') || raw === undefined || !/^\d+$/.test(raw) || Number(raw) < 1) {
      throw badRequest(`invalid ${wire.flowControlValue} ${JSON.stringify(value)}: expected parallelism=<n>, rate=<n>, period=<duration>`);
    }
    settings[name] = Number(raw);
  }
  if (settings.parallelism === undefined && settings.rate === undefined) {
    throw badRequest(`${wire.flowControlValue} must set parallelism and/or rate`);
  }
  return settings;
}

/**
 * `<P>-Redact-Fields: body,header[Authorization]` or `header` for every header (also spelled `headers`,
 * as the service's documents do). A header is named as its destination receives it: `X-Token` and
 * `<P>-Forward-X-Token` both name the forwarded `X-Token`.
 */
function readRedact(value: string | undefined, wire: ProtocolHeaderNames): RedactSettings | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const forward = wire.delivery.forwardPrefix.toLowerCase();
  const settings: RedactSettings = { body: false, headers: [] };
  for (const field of value.split(',').map((part) => part.trim())) {
    const named = /^headers?\[([!#$%&'*+.^_`|~0-9A-Za-z-]+)\]$/.exec(field);
    if (field === 'body') settings.body = true;
    else if (field === 'header' || field === 'headers') settings.headers = true;
    else if (named) {
      const name = named[1]!.toLowerCase();
      if (settings.headers !== true) settings.headers.push(name.startsWith(forward) ? name.slice(forward.length) : name);
    } else throw badRequest(`invalid ${wire.redactFields} field ${JSON.stringify(field)}: use body, header or header[Name]`);
  }
  return settings;
}
