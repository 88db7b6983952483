import { createHash } from 'node:crypto';
import { headerNames } from '@mailroom/core/internal-protocol';
import { badRequest, notFound, planLimit, type ServiceError, CANCELLED_RUN_REFUSAL } from '../errors';
import type { EventBus } from '../events';
import type { PlanLimits, EngineConfig } from '../settings';
import { type DedupEntry, dedupLive, type DevState } from '../state/dev-state';
import { headerSource } from '../state/header-values';
import type { DedupResult, InvokerRecord, MessageRecord, ScheduleRecord } from '../state/records';
import type { Store } from '../state/store';
import type { Engine } from './create-engine';
import { type EnqueueSettings, readEnqueueSettings } from './enqueue-settings';
import { type Destination, enqueueMessage, type EnqueueTarget, invalidScheme, parseDestination } from './enqueue-target';

// Acceptance: what turns a request to send (a publish, an enqueue, a batch item, a schedule's firing,
// a step the service hands back to a workflow run) into committed messages. Deduplication, the
// endpoints of a URL group, the settings a workflow step inherits from its run, the message records.

/** A URL or a URL group: the dev server delivers to nothing else. */
export type DeliverableDestination = Exclude<Destination, { kind: 'api' }>;

/** One request to accept: where to, on which queue, how, and what. */
export interface AcceptRequest {
  destination: DeliverableDestination;
  queue: string | undefined;
  settings: EnqueueSettings;
  body: Buffer;
  callerIp: string;
  now: number;
  /** A schedule's firing: its id and the service-clock time it fired for. */
  schedule?: { id: string; time: number };
}

/** What an acceptance answered: one result per endpoint, and whether they are an earlier duplicate. */
export interface Accepted {
  results: DedupResult[];
  deduplicated: boolean;
  messages: MessageRecord[];
}

/** What acceptance works with: the state, the engine that delivers what it accepts, and the rules. */
export interface AcceptanceParts {
  store: Store;
  engine: Engine;
  events: EventBus;
  plan: PlanLimits;
  config: EngineConfig;
}

/** Every way a message is accepted. */
export interface Acceptance {
  /**
   * Resolves the endpoints, deduplicates, and commits the messages. Nothing awaits between the
   * duplicate check and the commit's state change, so two copies racing in cannot both pass.
   */
  accept(request: AcceptRequest): Promise<Accepted>;
  /**
   * Accepts every request or none (a batch): each is checked again, then all are committed as one
   * journal record. Answers in the requests' order once that record is durable.
   */
  acceptAll(requests: readonly AcceptRequest[]): Promise<Accepted[]>;
  /** Checks what `accept` would refuse about a request without accepting it (every item of a batch first). */
  check(request: AcceptRequest): void;
  /** One firing of a schedule: its stored request read again as a publish, `time` its cron time. */
  fireSchedule(schedule: ScheduleRecord, time: number): Promise<void>;
  /**
   * What the service hands back to a run as one of its steps (an event for a Wait, a webhook call, an
   * invoked run's end): published to the run's URL with the headers the SDK gave for it. Answers the message id.
   */
  returnStep(url: string, headers: Record<string, string[]>, step: Record<string, unknown>, callerIp: string): Promise<string>;
}

export function createAcceptance(parts: AcceptanceParts): Acceptance {
  const { store, engine, events, plan, config } = parts;

  const targetsOf = (destination: DeliverableDestination): EnqueueTarget[] => {
    if (destination.kind === 'url') return [{ url: destination.url }];
    const group = store.state.groups.get(destination.name);
    if (!group) {
      if (destination.looksLikeHost) throw invalidScheme();
      throw notFound(`topic ${destination.name} not found`);
    }
    return group.endpoints.map((endpoint) => ({
      url: endpoint.url,
      topicName: group.name,
      ...(endpoint.name ? { endpointName: endpoint.name } : {}),
    }));
  };

  // Everything `stage` can refuse, so a batch checked item by item is never refused half applied.
  const check = (request: AcceptRequest): void => {
    takeInvocation(request.settings, request.body);
    targetsOf(request.destination);
    refuseStepOfCancelledRun(store.state, request.settings);
  };

  /**
   * Applies one request's messages to the state; `commits` gets what makes them durable. Nothing
   * awaits between the duplicate check and the state change, so two copies racing in cannot both pass.
   */
  const stage = (request: AcceptRequest, commits: Promise<void>[]): Accepted => {
    const { destination, now } = request;
    const { settings, body } = takeInvocation(request.settings, request.body);
    const targets = targetsOf(destination);
    refuseStepOfCancelledRun(store.state, settings);
    const keys = dedupKeys(settings, destination.kind === 'url' ? destination.url : destination.name, body);
    const duplicate = findDuplicate(store.state, keys, now) ?? existingRun(store.state, settings);
    if (duplicate) {
      for (const result of duplicate.results) events.emit({ type: 'deduplicated', messageId: result.messageId, url: result.url });
      return { results: duplicate.results, deduplicated: true, messages: [] };
    }
    const messages = targets.map((target, index) =>
      enqueueMessage({
        settings,
        target,
        queue: request.queue,
        body,
        seq: store.state.nextSeq + index,
        now,
        callerIp: request.callerIp,
        timeScale: config.timeScale,
        ...(request.schedule ? { scheduleId: request.schedule.id } : {}),
      }),
    );
    for (const message of messages) inheritRunSettings(store.state, message, settings.retriesGiven);
    if (request.queue !== undefined && !store.state.queues.has(request.queue)) {
      if (store.state.queues.size >= plan.max_queues) throw queueLimit(plan);
      // The service creates a queue on its first message.
      const queue = { name: request.queue, parallelism: 1, paused: false, createdAt: now, updatedAt: now };
      addCommit(commits, store.commit({ type: 'queue.updated', name: request.queue, queue }));
    }
    addCommit(
      commits,
      store.commit({
        type: 'messages.accepted',
        at: now,
        messages,
        ...(keys.length > 0 ? { dedupKeys: keys } : {}),
        ...(request.schedule ? { schedule: request.schedule } : {}),
      }),
    );
    return { results: messages.map((message) => ({ messageId: message.id, url: message.url })), deduplicated: false, messages };
  };

  /** Once durable: told to whoever listens, and handed to the engine to deliver. */
  const admit = (accepted: Accepted, now: number): void => {
    for (const message of accepted.messages) reportAccepted(events, message, now);
    if (accepted.messages.length > 0) engine.admit(accepted.messages);
  };

  const accept = async (request: AcceptRequest): Promise<Accepted> => {
    const commits: Promise<void>[] = [];
    const accepted = stage(request, commits);
    await Promise.all(commits);
    admit(accepted, request.now);
    return accepted;
  };

  return {
    accept,
    async acceptAll(requests) {
      // All or none: every request staged in one synchronous pass, written as one journal record (a
      // crash keeps all or none), then answered once that record is durable. One set of commits for
      // all, not a suspended call per request: a batch of 50,000 kept 50,000 of them alive.
      const commits: Promise<void>[] = [];
      const accepted = store.transaction(() => {
        for (const request of requests) check(request);
        const newQueues = new Set<string>();
        for (const { queue } of requests) if (queue !== undefined && !store.state.queues.has(queue)) newQueues.add(queue);
        if (store.state.queues.size + newQueues.size > plan.max_queues) throw queueLimit(plan);
        return requests.map((request) => stage(request, commits));
      });
      await Promise.all(commits);
      for (const [index, one] of accepted.entries()) admit(one, requests[index]!.now);
      return accepted;
    },
    check,
    async fireSchedule(schedule, time) {
      const names = headerNames(config.headerPrefix);
      const source = headerSource(schedule.rawHeaders);
      const queueHeader = source.headers[names.queueName.toLowerCase()];
      const queue = typeof queueHeader === 'string' && queueHeader.trim() !== '' ? queueHeader.trim() : undefined;
      const now = config.now();
      await accept({
        destination: deliverable(parseDestination(schedule.destination)),
        queue,
        settings: readEnqueueSettings(source, config.headerPrefix, plan, now),
        body: Buffer.from(schedule.bodyBase64, 'base64'),
        callerIp: schedule.callerIp,
        now,
        schedule: { id: schedule.scheduleId, time },
      });
    },
    async returnStep(url, headers, step, callerIp) {
      const now = config.now();
      // The SDK names the run id twice, spelt `RunId` and `Runid`: one name, the later spelling wins.
      const byName = new Map<string, [string, string[]]>();
      for (const [name, values] of Object.entries(headers)) byName.set(name.toLowerCase(), [name, values]);
      const rawHeaders = [...byName.values()].flatMap(([name, values]) => values.flatMap((value) => [name, value]));
      const accepted = await accept({
        destination: deliverable(parseDestination(url)),
        queue: undefined,
        settings: readEnqueueSettings(headerSource(rawHeaders), config.headerPrefix, plan, now),
        body: Buffer.from(JSON.stringify(step)),
        callerIp,
        now,
      });
      return accepted.results[0]?.messageId ?? '';
    },
  };
}

/** Inside a transaction every commit answers the same promise: it is kept once. */
function addCommit(commits: Promise<void>[], commit: Promise<void>): void {
  if (commits.at(-1) !== commit) commits.push(commit);
}

/** A URL or a URL group; an `api/...` destination is refused with what to do instead. */
export function deliverable(destination: Destination): DeliverableDestination {
  if (destination.kind === 'api') {
    throw badRequest(
      `${destination.name} is not supported by the dev server: the service forwards api/... destinations to an LLM provider with your provider key, which a local emulator cannot. Send to the provider's own URL instead (e.g. https://api.openai.com/v1/chat/completions, its key in a Forward-Authorization header) with a callback for the answer, or try api/... against the real service`,
    );
  }
  return destination;
}

/** 412: one queue more than the plan allows. */
export function queueLimit(plan: PlanLimits): ServiceError {
  return planLimit(`the ${plan.type} plan allows ${plan.max_queues} queues; delete one or use an existing queue`);
}

/** The `accepted` event of a message, built here for every way one is accepted. */
export function reportAccepted(events: EventBus, message: MessageRecord, now: number): void {
  events.emit({
    type: 'accepted',
    messageId: message.id,
    kind: message.kind,
    url: message.url,
    ...(message.queue !== undefined ? { queue: message.queue } : {}),
    ...(message.topicName !== undefined ? { topicName: message.topicName } : {}),
    delayMs: Math.max(0, message.notBefore - now),
  });
}

/**
 * The keys an enqueue is deduplicated by: its `<P>-Deduplication-Id`, and with
 * `<P>-Content-Based-Deduplication: true` a hash of what service-facts compares (destination, body,
 * Content-Type, forwarded headers). Forwarded headers are sorted so their order does not make two
 * equal messages differ.
 */
function dedupKeys(settings: EnqueueSettings, destination: string, body: Buffer): string[] {
  const keys: string[] = [];
  if (settings.deduplicationId !== undefined) keys.push(`id:${settings.deduplicationId}`);
  if (settings.contentBasedDeduplication) {
    const headers = Object.entries(settings.forwardHeaders).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const hash = createHash('sha256')
      .update(JSON.stringify([destination, body.toString('base64'), settings.contentType ?? '', headers]))
      .digest('hex');
    keys.push(`content:${hash}`);
  }
  return keys;
}

/** The earlier enqueue one of `keys` matches within the 10-minute window, if any. */
function findDuplicate(state: DevState, keys: readonly string[], now: number): DedupEntry | undefined {
  for (const key of keys) {
    const entry = state.dedup.get(key);
    if (entry && dedupLive(entry.at, now)) return entry;
  }
  return undefined;
}

/**
 * A second trigger of a run id that already exists is a duplicate of the first, as on the service:
 * the Workflow SDK reads `deduplicated` as "workflow-run-already-exists" and starts nothing.
 */
function existingRun(state: DevState, settings: EnqueueSettings): DedupEntry | undefined {
  const workflow = settings.workflow;
  const run = workflow?.init ? state.runs.get(workflow.runId) : undefined;
  return run && { at: run.createdAt, results: [{ messageId: run.trigger.id, url: run.trigger.url }] };
}

/** A step published for a cancelled run is refused with the 400 the Workflow SDK reads as "the run was cancelled". */
function refuseStepOfCancelledRun(state: DevState, settings: EnqueueSettings): void {
  const workflow = settings.workflow;
  if (!workflow || workflow.init) return;
  if (state.runs.get(workflow.runId)?.state === 'RUN_CANCELED') {
    throw badRequest(CANCELLED_RUN_REFUSAL);
  }
}

/**
 * A step published without the run's settings gets them from the trigger (the SDK sends them once):
 * retries, retry delay, flow control, the failure callback and forwarded headers apply to every message of a run.
 */
function inheritRunSettings(state: DevState, message: MessageRecord, retriesGiven: boolean): void {
  const workflow = message.workflow;
  if (!workflow || workflow.init) return;
  const run = state.runs.get(workflow.runId);
  if (!run) return;
  const { settings } = run;
  if (!retriesGiven) message.maxRetries = settings.maxRetries;
  if (message.retryDelay === undefined && settings.retryDelay !== undefined) message.retryDelay = settings.retryDelay;
  if (!message.flowControl && settings.flowControl) message.flowControl = settings.flowControl;
  if (!message.failureCallback && settings.failureCallback) message.failureCallback = settings.failureCallback;
  // The run's labels: its DLQ entry and its filters find every message of it by them.
  if (message.label === undefined && run.trigger.label !== undefined) message.label = run.trigger.label;
  // The SDK forwards the trigger's headers once; every step of the run sees them (a third party does not).
  if (workflow.callType !== 'toCallback') message.forwardHeaders = { ...run.trigger.forwardHeaders, ...message.forwardHeaders };
  // The run's creation time on every delivery, not the step's.
  message.workflow = { ...workflow, createdAt: run.createdAt };
}

/**
 * A trigger sent by `context.invoke` (`<P>-Workflow-Invoke: true`) carries the invoking request:
 * the new run gets its `body`, and remembers who invoked it to send the result back.
 */
function takeInvocation(settings: EnqueueSettings, body: Buffer): { settings: EnqueueSettings; body: Buffer } {
  const workflow = settings.workflow;
  if (!workflow?.invoked) return { settings, body };
  let request: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (isObject(parsed)) request = parsed;
  } catch {
    // Refused below.
  }
  const { workflowRunId, workflowUrl, headers, step } = request ?? {};
  if (typeof workflowRunId !== 'string' || typeof workflowUrl !== 'string' || !isObject(headers) || !isObject(step)) {
    throw badRequest('an invoke trigger must carry { workflowRunId, workflowUrl, headers, step, body? } as JSON');
  }
  const invoker: InvokerRecord = {
    runId: workflowRunId,
    url: workflowUrl,
    createdAt: typeof request?.workflowRunCreatedAt === 'number' ? request.workflowRunCreatedAt : 0,
    headers: headers as Record<string, string[]>,
    step,
  };
  const { invoked: _invoked, ...rest } = workflow;
  const given = request?.body;
  return {
    settings: { ...settings, workflow: { ...rest, invoker } },
    body: Buffer.from(typeof given === 'string' ? given : given === undefined ? '' : JSON.stringify(given)),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
