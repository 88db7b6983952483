import { createHash } from 'node:crypto';
import type { DevState, DedupEntry } from '../state/dev-state';
import { DEDUP_WINDOW_MS } from '../state/expiry';

/** What content-based deduplication compares (service-facts: destination, body, Content-Type, forwarded headers). */
export interface DedupContent {
  destination: string;
  body: Buffer;
  contentType: string | undefined;
  forwardHeaders: Record<string, string>;
}

/**
 * The keys an enqueue is deduplicated by: its `<P>-Deduplication-Id`, and with
 * `<P>-Content-Based-Deduplication: true` a hash of its content. Forwarded headers are sorted so
 * their order does not make two equal messages differ.
 */
export function dedupKeys(deduplicationId: string | undefined, contentBased: boolean, content: DedupContent): string[] {
  const keys: string[] = [];
  if (deduplicationId !== undefined) keys.push(`id:${deduplicationId}`);
  if (contentBased) {
    const headers = Object.entries(content.forwardHeaders).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const hash = createHash('sha256')
      .update(JSON.stringify([content.destination, content.body.toString('base64'), content.contentType ?? '', headers]))
      .digest('hex');
    keys.push(`content:${hash}`);
  }
  return keys;
}

/** The earlier enqueue one of `keys` matches within the 10-minute window, if any. */
export function findDuplicate(state: DevState, keys: readonly string[], now: number): DedupEntry | undefined {
  for (const key of keys) {
    const entry = state.dedup.get(key);
    if (entry && entry.at + DEDUP_WINDOW_MS > now) return entry;
  }
  return undefined;
}
