import type { Service } from '../service';
import { badRequest, notFound } from '../errors';
import { type DevState, loggedMessage } from '../state/dev-state';
import { loggedEntries } from '../state/message-index';
import { type LogRecord, type MessageRecord, bodyBytes } from '../state/records';
import { turnTaker } from '../engine/timers';
import { readCount } from './messages';
import type { Filters } from './filters';
import { type Shown, shownAsIs } from './read-only';
import { json, type Reply, type Route } from './router';
import { labelFields, logView, messageFields } from './views';

// The console's Messages at any scale: the pending messages and those the logs still hold, filtered
// and paged here (newest first) so the browser holds one page, and one message's whole story.
// Not the service's interface: under `/dev/`, like the rest of the workbench.

const FILTERS = ['state', 'queue', 'url', 'label', 'text', 'run', 'steps', 'from', 'to'] as const;
const PAGE = 50;
const MAX_PAGE = 500;

export function messageListRoutes(service: Service): Route[] {
  return [
    {
      method: 'GET',
      path: '/dev/messages',
      auth: 'messaging',
      readOnly: 'answer',
      query: [...FILTERS, 'count', 'cursor'],
      handler: (request) => listMessages(service, request.query, request.shown),
    },
    {
      method: 'GET',
      path: '/dev/messages/:messageId',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: (request) => messageStory(service, request.params.messageId ?? ''),
    },
    {
      method: 'DELETE',
      path: '/dev/messages',
      auth: 'messaging',
      readOnly: 'refuse',
      // "Cancel all matching": the pending messages the list's filter matches, as a bulk action in the background.
      query: [...FILTERS],
      handler: async (request) => {
        const ids = await pendingMatching(service.store.state, readFilter(request.query, request.shown));
        const action = service.actions.cancelInBackground(ids, request.query.described());
        return { status: 202, json: { actionId: action.actionId, total: action.total } };
      },
    },
  ];
}

/** A row of the console's list: one message, folded from its record and its last log entry. */
interface MessageRow {
  messageId: string;
  /** Its last log entry's state (CREATED, ACTIVE, RETRY, DELIVERED, FAILED, CANCELED). */
  state: string;
  method: string;
  url: string;
  createdAt: number;
  /** A pending message's next attempt: its retry's, or a delayed message's first. */
  nextDeliveryTime?: number;
  /** A pending message's attempts so far. */
  retried?: number;
  queueName?: string;
  topicName?: string;
  label?: string;
  labels?: string[];
  resentFrom?: string;
  /** Absent for an application's message. */
  kind?: 'callback' | 'failure-callback';
  workflowRunId?: string;
  /** The step a run's message carries (`name (Type)`), or `trigger`. */
  step?: string;
}

/** `GET /dev/messages`. */
export interface MessagePage {
  messages: MessageRow[];
  /** How many messages match, on every page. */
  total: number;
  /** How many of those are pending (what "Cancel all matching" cancels). */
  pending: number;
  cursor?: string;
}

/** A message as the detail shows it: its row, its headers as delivered, its body (text, or base64 when not UTF-8), redacted where asked. */
type MessageView = MessageRow & { header?: Record<string, string[]>; body?: string; bodyBase64?: string };

/** `GET /dev/messages/:id`. */
export interface MessageStory<Event = Record<string, unknown>> {
  message: MessageView;
  /** Its log events the server still holds, oldest first. */
  events: Event[];
  /** Its callbacks and failure callbacks, oldest first, each with its own events. */
  callbacks: Array<MessageView & { events: Event[] }>;
  /** Messages sent again from it (Replay, Edit and resend). */
  resentAs: string[];
}

/** A message as a row of the list knows it. */
interface Found {
  record: MessageRecord;
  state: string;
  pending: boolean;
  /** Attempts made so far. */
  retried: number;
  last: LogRecord | undefined;
}

interface ListFilter {
  state: string;
  queue: string;
  url: string;
  label: string;
  /** The text searched for, in any case. */
  text: RegExp | undefined;
  asciiText: boolean;
  run: string;
  /** Whether a workflow run's own messages (its trigger and steps) are listed. */
  steps: boolean;
  from: number | undefined;
  to: number | undefined;
  /** A stored value as the caller's role is shown it: the URL and the text are matched against that. */
  shown: Shown;
}

function readFilter(query: Filters, shown: Shown): ListFilter {
  const text = (name: string) => query.get(name) ?? '';
  const steps = text('steps');
  return {
    state: text('state').toUpperCase(),
    queue: text('queue'),
    url: text('url'),
    label: text('label'),
    text: text('text') ? new RegExp(text('text').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i') : undefined,
    asciiText: /^[\x20-\x7e]*$/.test(text('text')),
    run: text('run'),
    steps: steps !== 'false',
    from: query.has('from') ? Number(query.get('from')) : undefined,
    to: query.has('to') ? Number(query.get('to')) : undefined,
    shown,
  };
}

/** `GET /dev/messages`: one page, newest first, with how many match in all and how many of them are pending. */
function listMessages(service: Service, query: Filters, shown: Shown): Reply {
  const filter = readFilter(query, shown);
  const count = readCount(query, PAGE, MAX_PAGE);
  const before = readCursor(query.get('cursor'));
  // One pass, oldest first, keeping the newest `count` matches below the cursor in a ring of reused
  // rows: at 100,000 pending messages the pass is what costs, so it stays a loop of comparisons.
  const ring: Found[] = [];
  let below = 0;
  let total = 0;
  let pending = 0;
  const { settle } = scan(
    service.store.state,
    (each) => {
      if (!matches(each, filter)) return;
      total += 1;
      if (each.pending) pending += 1;
      if (before !== undefined && each.record.seq >= before) return;
      const slot = ring[below % count];
      if (slot) {
        slot.record = each.record;
        slot.state = each.state;
        slot.pending = each.pending;
        slot.retried = each.retried;
        slot.last = each.last;
      } else ring.push({ ...each });
      below += 1;
    },
    filter.state !== '',
  );
  const page = [...ring.slice(below % count), ...ring.slice(0, below % count)].reverse();
  for (const each of page) if (each.state === '') settle(each);
  const last = page.at(-1)?.record;
  const more = below > count;
  const answer: MessagePage = { messages: page.map(row), total, pending, ...(more && last ? { cursor: String(last.seq) } : {}) };
  return json(answer);
}

/** `GET /dev/messages/:id`: the message, its events oldest first, its callbacks with theirs, and what was resent from it. */
function messageStory(service: Service, id: string): Reply {
  const { state } = service.store;
  const related = [...(state.offspring.get(id) ?? [])];
  const logged = loggedEntries(state, new Set([id, ...related]));
  const message = knownAsFound(state, id, logged);
  if (!message) throw notFound(`message ${id} not found: it is neither pending nor in the logs the server keeps`);
  const events = (messageId: string) => {
    const kept = logged.get(messageId);
    return kept ? kept.entries.map((entry, index) => logView(entry, kept.messages[index]!, service.config)) : [];
  };
  const others = related.flatMap((other) => knownAsFound(state, other, logged) ?? []);
  const story: MessageStory = {
    message: view(message),
    events: events(id),
    callbacks: others
      .filter((other) => other.record.sourceMessageId === id)
      .sort((a, b) => a.record.createdAt - b.record.createdAt || a.record.seq - b.record.seq)
      .map((callback) => ({ ...view(callback), events: events(callback.record.id) })),
    resentAs: others
      .filter((other) => other.record.resentFrom === id)
      .sort((a, b) => a.record.seq - b.record.seq)
      .map((other) => other.record.id),
  };
  return json(story);
}

/** A pending message's state as the list shows it: its last kept log entry's, else from its attempts so far. */
function pendingState(last: LogRecord | undefined, retried: number): string {
  return last?.state ?? (retried > 0 ? 'RETRY' : 'CREATED');
}

/** A message the server knows (pending, or in the kept logs) as the list shows it. */
function knownAsFound(state: DevState, id: string, logged: ReturnType<typeof loggedEntries>): Found | undefined {
  const pending = state.pending.get(id);
  const kept = logged.get(id);
  const last = kept?.entries.at(-1);
  if (pending) {
    const retried = state.pending.retried(id);
    return { record: pending, pending: true, retried, last, state: pendingState(last, retried) };
  }
  const record = kept?.messages.at(-1);
  return record && last ? { record, pending: false, retried: 0, last, state: last.state } : undefined;
}

/**
 * The ids of the pending messages the filter matches, a slice at a time so that other requests are
 * answered meanwhile; a message accepted after the call is not among them.
 */
async function pendingMatching(state: DevState, filter: ListFilter): Promise<string[]> {
  const ids: string[] = [];
  const newest = state.nextSeq;
  // Each message's state is its last kept log entry's, as the list shows it when asked.
  const lastEntry = new Map<string, LogRecord>();
  for (const entry of state.logs) lastEntry.set(entry.messageId, entry);
  const found: Found = { record: undefined as never, state: '', pending: true, retried: 0, last: undefined };
  const turns = turnTaker();
  for (const record of state.pending.values()) {
    if (turns.due()) await turns.yield();
    if (record.seq >= newest) continue;
    const retried = state.pending.retried(record.id);
    found.record = record;
    found.retried = retried;
    found.last = lastEntry.get(record.id);
    found.state = pendingState(found.last, retried);
    if (matches(found, filter)) ids.push(record.id);
  }
  return ids;
}

/**
 * Visits every message the server knows, oldest (first accepted) first: the pending ones and the
 * finished ones the logs still hold, merged by acceptance order. `found` is reused between calls.
 * Without `withState`, a pending message is visited without its state and last log entry (the
 * lookup is most of the cost at 100,000 pending): `settle` from the answer fills them in.
 */
function scan(state: DevState, visit: (found: Found) => void, withState = true): { settle: (found: Found) => void } {
  const { logs } = state;
  const lastEntry = new Map<string, number>();
  for (let index = 0; index < logs.length; index += 1) lastEntry.set(logs[index]!.messageId, index);
  const finished: Array<{ record: MessageRecord; last: LogRecord }> = [];
  for (const [id, index] of lastEntry) {
    if (!state.pending.has(id)) finished.push({ record: loggedMessage(state, index), last: logs[index]! });
  }
  finished.sort((a, b) => a.record.seq - b.record.seq);
  const settle = (each: Found) => {
    if (!each.pending) return;
    const at = lastEntry.get(each.record.id);
    each.last = at === undefined ? undefined : logs[at];
    each.state = pendingState(each.last, each.retried);
  };
  const found: Found = { record: undefined as never, state: '', pending: false, retried: 0, last: undefined };
  const visitFinished = (done: { record: MessageRecord; last: LogRecord }) => {
    found.record = done.record;
    found.state = done.last.state;
    found.pending = false;
    found.retried = 0;
    found.last = done.last;
    visit(found);
  };
  let next = 0;
  state.pending.forEachInAcceptanceOrder((record, retried) => {
    while (next < finished.length && finished[next]!.record.seq < record.seq) visitFinished(finished[next++]!);
    found.record = record;
    found.pending = true;
    found.retried = retried;
    found.last = undefined;
    found.state = '';
    if (withState) settle(found);
    visit(found);
  });
  while (next < finished.length) visitFinished(finished[next++]!);
  return { settle };
}

/** Whether an application's message matches the filter (callbacks are shown with the message they report on). */
function matches(each: Found, filter: ListFilter): boolean {
  const message = each.record;
  if (message.kind !== 'message') return false;
  if (filter.state && each.state !== filter.state) return false;
  if (filter.queue && message.queue !== filter.queue) return false;
  if (filter.url && !filter.shown(message.url).includes(filter.url)) return false;
  if (filter.label && !hasLabel(message.label, filter.label)) return false;
  if (filter.run && message.workflow?.runId !== filter.run) return false;
  if (!filter.steps && message.workflow !== undefined) return false;
  if (filter.from !== undefined && message.createdAt < filter.from) return false;
  if (filter.to !== undefined && message.createdAt > filter.to) return false;
  return !filter.text || mentions(message, filter.text, filter.asciiText, filter.shown);
}

/** Whether a message's labels (comma-separated when several) hold `wanted`; most have one, so no split. */
const hasLabel = (labels: string | undefined, wanted: string): boolean =>
  labels === wanted || (labels?.includes(',') === true && labels.split(',').includes(wanted));

/**
 * Whether the message's id, URL, label, shown headers or body hold the text, in any case; what is
 * redacted is never searched. The body is tested as stored (its bytes as latin1): for ASCII text
 * that matches exactly where its UTF-8 would, without decoding every body of a large list.
 */
function mentions(message: MessageRecord, text: RegExp, ascii: boolean, shown: Shown): boolean {
  const has = (value: string | undefined) => value !== undefined && text.test(shown(value));
  if (has(message.id) || has(message.url) || has(message.label)) return true;
  const redact = message.redact;
  if (redact?.headers !== true) {
    for (const name in message.forwardHeaders) {
      if (redact?.headers.includes(name.toLowerCase())) continue;
      if (has(name) || has(message.forwardHeaders[name])) return true;
    }
  }
  if (redact?.body) return false;
  return ascii && shown === shownAsIs ? has(message.body) : has(bodyBytes(message).toString('utf8'));
}

function row(found: Found): MessageRow {
  const message = found.record;
  const last = found.last;
  // When it is next attempted on the server's clock (`dueAt`, scaled by --time-scale), for a retry
  // and a delay alike: one clock, so two rows compare.
  const next =
    last?.state === 'RETRY'
      ? last.nextDeliveryTime
      : found.state === 'CREATED' && message.notBefore > message.createdAt
        ? message.dueAt
        : undefined;
  return {
    messageId: message.id,
    state: found.state,
    method: message.method,
    url: message.url,
    createdAt: message.createdAt,
    ...(next !== undefined && found.pending ? { nextDeliveryTime: next } : {}),
    ...(found.pending && found.retried > 0 ? { retried: found.retried } : {}),
    ...(message.queue !== undefined ? { queueName: message.queue } : {}),
    ...(message.topicName !== undefined ? { topicName: message.topicName } : {}),
    ...(labelFields(message.label) as Pick<MessageRow, 'label' | 'labels'>),
    ...(message.resentFrom !== undefined ? { resentFrom: message.resentFrom } : {}),
    ...(message.kind !== 'message' ? { kind: message.kind } : {}),
    ...(message.workflow ? { workflowRunId: message.workflow.runId, step: stepOf(message) } : {}),
  };
}

/** A row with what the detail shows besides: the headers as delivered and the body, redacted where asked. */
function view(found: Found): MessageView {
  const { header, body, bodyBase64 } = messageFields(found.record) as Pick<MessageView, 'header' | 'body' | 'bodyBase64'>;
  return {
    ...row(found),
    ...(header ? { header } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(bodyBase64 !== undefined ? { bodyBase64 } : {}),
  };
}

/** The step a run's message carries, as the SDK published it (`{ stepName, stepType }`), else its trigger. */
function stepOf(message: MessageRecord): string {
  if (message.redact?.body) return 'step';
  try {
    const step = JSON.parse(bodyBytes(message).toString('utf8')) as { stepName?: unknown; stepType?: unknown };
    if (typeof step.stepName === 'string') return typeof step.stepType === 'string' ? `${step.stepName} (${step.stepType})` : step.stepName;
  } catch {
    // Not JSON: the trigger's own body.
  }
  return 'trigger';
}

/** `cursor`: the acceptance order of the last message of the page before. */
function readCursor(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`invalid cursor ${JSON.stringify(value)}: pass the cursor of the page before, as given`);
  return Number(value);
}
