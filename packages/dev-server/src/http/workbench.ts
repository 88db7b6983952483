import type { MessageRecord } from '../state/records';
import type { DevState } from '../state/dev-state';
import { newMessageId } from '../ids';
import { notFound, json, type Reply } from './exchange';
import type { Route, ServerContext } from './router';

// What only a local server offers, for the console and scripts: not part of the service's interface,
// under `/dev/` so no client of the service ever calls it by mistake. Each one that writes takes the
// full token (a POST, which the read-only token may not make).

export function workbenchRoutes(ctx: ServerContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/dev/messages/:messageId/resend',
      auth: 'messaging',
      handler: ({ params }) => resend(ctx, params.messageId ?? ''),
    },
  ];
}

/**
 * Sends a message again as a new one, with every setting of the original (retries, callbacks, flow
 * control, redaction, headers, body): what the console's Replay does, exactly as the sender asked.
 */
async function resend(ctx: ServerContext, messageId: string): Promise<Reply> {
  const original = findMessage(ctx.store.state, messageId);
  if (!original) throw notFound(`message ${messageId} not found (it may be older than the logs the server keeps)`);
  const now = ctx.config.now();
  const message: MessageRecord = {
    ...original,
    id: newMessageId(),
    seq: ctx.store.state.nextSeq,
    notBefore: now,
    dueAt: now,
    createdAt: now,
  };
  await ctx.store.commit({ type: 'messages.accepted', at: now, messages: [message] });
  ctx.events.emit({
    type: 'accepted',
    messageId: message.id,
    kind: message.kind,
    url: message.url,
    ...(message.queue !== undefined ? { queue: message.queue } : {}),
    delayMs: 0,
  });
  ctx.engine.admit([message]);
  return json({ messageId: message.id });
}

/** A message the server still knows: pending, in the DLQ, or in the logs it keeps. */
function findMessage(state: DevState, messageId: string): MessageRecord | undefined {
  const pending = state.messages.get(messageId)?.record;
  if (pending) return pending;
  for (const entry of state.dlq.values()) if (entry.message.id === messageId) return entry.message;
  for (let index = state.logMessages.length - 1; index >= 0; index -= 1) {
    const message = state.logMessages[index]!;
    if (message.id === messageId) return message;
  }
  return undefined;
}
