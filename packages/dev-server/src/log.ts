import type { DevServerEvent, DevServerEventListener } from './events';

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
