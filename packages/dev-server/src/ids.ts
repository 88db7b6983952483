import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from node:crypto in blocks: one call per id cost a system call and a buffer
 * each, for 18 bytes. The block is only ever read forward, so no byte is handed out twice.
 */
const BLOCK_BYTES = 4096;
const block = Buffer.alloc(BLOCK_BYTES);
let used = BLOCK_BYTES;

function take(bytes: number): Buffer {
  if (used + bytes > BLOCK_BYTES) {
    randomFillSync(block);
    used = 0;
  }
  const out = block.subarray(used, used + bytes);
  used += bytes;
  return out;
}

/** A message id as the service writes them: `msg_` and random characters. */
export function newMessageId(): string {
  return `msg_${take(18).toString('base64url')}`;
}

/** `bytes` random bytes as lowercase hex digits (twice as many). */
export function randomHex(bytes: number): string {
  return take(bytes).toString('hex');
}

/** A DLQ id as the service writes them: `<unix-ms>-<seq>`. */
export function newDlqId(at: number, order: number): string {
  return `${at}-${order}`;
}
