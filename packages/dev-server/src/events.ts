import type { DelaySource, MessageKind } from './state/records';

/**
 * What the dev server did, one object per event. Logs are printed from these, and tests wait on them
 * (`server.subscribe`) instead of sleeping. No event ever carries a token or a signing key.
 */
export type DevServerEvent =
  | { type: 'listening'; url: string; managementUrl: string; dataDir: string | undefined; recovered: number }
  | {
      type: 'accepted';
      messageId: string;
      kind: MessageKind;
      url: string;
      queue?: string;
      topicName?: string;
      sourceMessageId?: string;
      delayMs: number;
    }
  | { type: 'deduplicated'; messageId: string; url: string }
  | { type: 'delivered'; messageId: string; kind: MessageKind; url: string; status: number; retried: number }
  | {
      type: 'retry';
      messageId: string;
      kind: MessageKind;
      url: string;
      retried: number;
      status?: number;
      error?: string;
      /** The delay as the service would wait it, before the time scale. */
      delayMs: number;
      /** What the dev server really waits: `delayMs * timeScale`. */
      scaledDelayMs: number;
      /** Where the delay came from. */
      delaySource: DelaySource;
    }
  | {
      type: 'failed';
      messageId: string;
      kind: MessageKind;
      url: string;
      retried: number;
      status?: number;
      error?: string;
      reason: 'retries-exhausted' | 'non-retryable';
    }
  | { type: 'dlq'; dlqId: string; messageId: string; workflowRunId?: string }
  | { type: 'callback'; messageId: string; kind: 'callback' | 'failure-callback'; url: string; sourceMessageId: string; retried?: number }
  | { type: 'failure-callback-state'; dlqId: string; state: string }
  | {
      /** Opening `--data-dir` dropped a torn last line (a crash mid-write) or skipped damaged records. */
      type: 'journal-recovered';
      file: string;
      tornBytesDropped: number;
      damagedRecordsSkipped: number;
      damagedBytesSkipped: number;
      damagedFile?: string;
    }
  /**
   * Writing `--data-dir` failed (a full disk): changes are refused and deliveries stop (`refusing`),
   * until the disk takes writes again and they resume by themselves (`resumed`).
   */
  | { type: 'storage'; state: 'refusing' | 'resumed'; reason: string }
  /** A workflow run ended: its route returned, it was cancelled, or a step failed for good. */
  | { type: 'workflow-run'; runId: string; state: 'RUN_SUCCESS' | 'RUN_CANCELED' | 'RUN_FAILED' }
  | { type: 'error'; message: string };

/** Receives every event. */
export type DevServerEventListener = (event: DevServerEvent) => void;

/** A tiny synchronous event bus: a listener that throws never breaks delivery. */
export interface EventBus {
  emit(event: DevServerEvent): void;
  subscribe(listener: DevServerEventListener): () => void;
}

/** Creates an {@link EventBus}. */
export function createEventBus(): EventBus {
  const listeners = new Set<DevServerEventListener>();
  return {
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // A broken log sink or test hook must not stop the engine.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** How the dev server logs: readable lines, JSON lines, nothing, or your own function. */
export type LogOption = 'text' | 'json' | 'silent' | DevServerEventListener;

/**
 * The listener that prints events the chosen way. Events carry no secrets by construction; URLs
 * are still stripped of embedded credentials (`https://user:pass@host`) before printing.
 *
 * @example createLogger('json', (line) => process.stdout.write(line + '\n'))
 */
export function createLogger(option: LogOption, write: (line: string) => void = defaultWrite): DevServerEventListener | undefined {
  if (typeof option === 'function') return option;
  if (option === 'silent') return undefined;
  if (option === 'json') return (event) => write(JSON.stringify({ time: new Date().toISOString(), ...redactEvent(event) }));
  // One event, one line: a message that brought its own line breaks (a stack) is folded, and every
  // other control character a URL or an answer brought (`\u001b[2J` clears a terminal) is escaped.
  return (event) =>
    write(
      `${clockTime(new Date())} ${formatEvent(redactEvent(event))}`
        .replace(/\s*[\r\n]+\s*/g, ' ')
        .replace(CONTROL_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`),
    );
}

// C0 and C1 control characters and DEL: a terminal acts on them instead of printing them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** One readable line per event. */
export function formatEvent(event: DevServerEvent): string {
  switch (event.type) {
    case 'listening':
      return `listening on ${event.url} (management ${event.managementUrl})${event.dataDir ? `, data in ${event.dataDir}` : ', in memory'}${event.recovered ? `, resumed ${event.recovered} pending message(s)` : ''}`;
    case 'accepted':
      return `accepted ${event.messageId} ${event.kind === 'message' ? '' : `(${event.kind}) `}-> ${event.url}${event.queue ? ` queue=${event.queue}` : ''}${event.topicName ? ` group=${event.topicName}` : ''}${event.delayMs > 0 ? ` delay=${formatMs(event.delayMs)}` : ''}`;
    case 'deduplicated':
      return `deduplicated: answered with existing ${event.messageId} -> ${event.url}`;
    case 'delivered':
      return `delivered ${event.messageId} -> ${event.url} status=${event.status} retried=${event.retried}`;
    case 'retry':
      return `retry scheduled ${event.messageId} -> ${event.url} after ${describeFailure(event)} retried=${event.retried}, next in ${formatMs(event.delayMs)} (${event.delaySource}${event.scaledDelayMs !== event.delayMs ? `, waits ${formatMs(event.scaledDelayMs)} scaled` : ''})`;
    case 'failed':
      return `failed ${event.messageId} -> ${event.url} after ${describeFailure(event)} retried=${event.retried} (${event.reason})`;
    case 'dlq':
      return `dlq ${event.dlqId} holds ${event.messageId}${event.workflowRunId ? ` (workflow run ${event.workflowRunId})` : ''}`;
    case 'callback':
      return `${event.kind} ${event.messageId} -> ${event.url} for ${event.sourceMessageId}${event.retried !== undefined ? ` attempt retried=${event.retried}` : ''}`;
    case 'failure-callback-state':
      return `dlq ${event.dlqId} failure callback ${event.state}`;
    case 'journal-recovered': {
      const parts: string[] = [];
      if (event.tornBytesDropped > 0)
        parts.push(`dropped a torn last line (${event.tornBytesDropped} bytes, a write cut short by a crash)`);
      if (event.damagedRecordsSkipped > 0) {
        parts.push(
          `skipped ${event.damagedRecordsSkipped} damaged record(s) (${event.damagedBytesSkipped} bytes, saved to ${event.damagedFile}) and kept every intact one`,
        );
      }
      return `journal ${event.file}: ${parts.join('; ')}`;
    }
    case 'storage':
      return event.state === 'refusing'
        ? `storage: ${event.reason}; refusing changes and holding deliveries until it can write again`
        : `storage: writing again (${event.reason}); deliveries resume`;
    case 'workflow-run':
      return `workflow run ${event.runId} ended: ${event.state}`;
    case 'error':
      return `error: ${event.message}`;
  }
}

function describeFailure(event: { status?: number; error?: string }): string {
  return event.status !== undefined ? `status=${event.status}` : `error=${JSON.stringify(event.error ?? 'unknown')}`;
}

function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms * 1000) / 1000}ms`;
  return `${Math.round(ms) / 1000}s`;
}

function clockTime(date: Date): string {
  return date.toISOString().slice(11, 23);
}

// URLs come from users and may embed basic-auth credentials; nothing else in an event is secret.
function redactEvent(event: DevServerEvent): DevServerEvent {
  const copy: Record<string, unknown> = { ...event };
  for (const key of ['url', 'managementUrl']) {
    const value = copy[key];
    if (typeof value === 'string') copy[key] = value.replace(/\/\/[^/@]*@/, '//***@');
  }
  return copy as DevServerEvent;
}

let stdoutWriter: ((text: string) => void) | undefined;

// Made on first use, not at import: watching stdout is only ours to do once the server logs there.
function defaultWrite(line: string): void {
  stdoutWriter ??= lineWriter(process.stdout);
  stdoutWriter(line);
}

// Streams that failed once (EPIPE: `mailroom dev | head -1`, a supervisor that dropped the pipe).
const closedStreams = new WeakSet<NodeJS.WritableStream>();
const watchedStreams = new WeakSet<NodeJS.WritableStream>();

/**
 * Writes lines to `stream` until it fails, then nowhere: a closed stdout must never take the server
 * down (an unhandled `error` event would), and the messages it holds stay served.
 */
export function lineWriter(stream: NodeJS.WritableStream): (text: string) => void {
  if (!watchedStreams.has(stream)) {
    watchedStreams.add(stream);
    stream.on('error', () => closedStreams.add(stream));
  }
  return (text) => {
    if (closedStreams.has(stream) || !stream.writable) return;
    stream.write(text.endsWith('\n') ? text : `${text}\n`);
  };
}
