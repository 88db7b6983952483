import type { MessagingClient } from '@mailroom/core';

/** Messages per load test: 2,000 in `npm test`; `MAILROOM_SOAK_MESSAGES=50000` for a release check. */
export function soakMessages(): number {
  const configured = Number(process.env.MAILROOM_SOAK_MESSAGES ?? '');
  return Number.isSafeInteger(configured) && configured >= 100 ? configured : 2_000;
}

/** How long a load test may wait for its messages to settle: grows with the count. */
export const settleTimeoutMs = (messages: number): number => Math.max(150_000, messages * 75);

/**
 * The fault seed: fixed in `npm test`, so a failure replays exactly; in the long mode
 * (`MAILROOM_SOAK_MESSAGES` set) a fresh one per run, printed, unless `MAILROOM_SOAK_SEED` pins it.
 */
export function soakSeed(fixed: number): number {
  const pinned = process.env.MAILROOM_SOAK_SEED;
  if (pinned !== undefined && pinned !== '' && Number.isSafeInteger(Number(pinned))) return Number(pinned);
  if (process.env.MAILROOM_SOAK_MESSAGES === undefined) return fixed;
  const seed = Math.floor(Math.random() * 2 ** 31);
  console.log(`fault seed ${seed} (replay with MAILROOM_SOAK_SEED=${seed})`);
  return seed;
}

export interface EnqueueAllOptions {
  seqs: Iterable<number>;
  /** Destination URL; the body of each message is its sequence number as text. */
  url: `http://${string}`;
  queues: number;
  retries: (seq: number) => number;
  /** A retry-delay expression (milliseconds); default: the service's backoff. */
  retryDelay?: string;
  /** Enqueues in flight at once. */
  concurrency?: number;
  /** Called after each accepted enqueue (a crash test kills the server from here). */
  onAccepted?: (accepted: number) => void;
}

/**
 * Enqueues one message per sequence number, a few at a time, and answers the accepted ones:
 * sequence number -> message id. An enqueue that fails (the server was killed) is simply not accepted.
 */
export async function enqueueAll(client: MessagingClient, options: EnqueueAllOptions): Promise<Map<number, string>> {
  const accepted = new Map<number, string>();
  const pending = [...options.seqs];
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      const seq = pending[next++]!;
      try {
        const { messageId } = await client.enqueue({
          queue: `soak-${seq % options.queues}`,
          destination: options.url,
          body: String(seq),
          retries: options.retries(seq),
          timeout: '1s',
          ...(options.retryDelay !== undefined ? { retryDelay: options.retryDelay } : {}),
        });
        accepted.set(seq, messageId);
        options.onAccepted?.(accepted.size);
      } catch {
        // Not accepted: nothing is promised about it.
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker));
  return accepted;
}

/** One entry of the DLQ listing, as far as these tests read it. */
export interface DlqListing {
  messageId: string;
  maxRetries: number;
  responseStatus?: number;
}

/** The whole message DLQ, page by page, by message id (`GET /v2/dlq`, read over plain HTTP). */
export async function listDlq(baseUrl: string, token: string): Promise<Map<string, DlqListing>> {
  const entries = new Map<string, DlqListing>();
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ count: '100', ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${baseUrl}/v2/dlq?${query}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`GET /v2/dlq answered ${response.status}: ${await response.text()}`);
    const page = (await response.json()) as { messages: DlqListing[]; cursor?: string };
    for (const entry of page.messages) {
      if (entries.has(entry.messageId)) throw new Error(`${entry.messageId} is listed twice in the DLQ`);
      entries.set(entry.messageId, entry);
    }
    cursor = page.cursor || undefined;
  } while (cursor);
  return entries;
}

/** Sum of a statistics series. */
export const sumSeries = (points: ReadonlyArray<{ y: number }>): number => points.reduce((sum, point) => sum + point.y, 0);

/** `from`, `from + 1`, ..., `to - 1`. */
export const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_, index) => from + index);
