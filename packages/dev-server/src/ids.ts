import { randomBytes } from 'node:crypto';

/** A message id as the service writes them: `msg_` and random characters. */
export function newMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/** A DLQ id as the service writes them: `<unix-ms>-<seq>`. */
export function newDlqId(at: number, order: number): string {
  return `${at}-${order}`;
}
