import type { MessagingClient } from '@mailroom/core';
import { useState } from 'preact/hooks';
import { type ConsoleEvent, decodeBody, devRequest } from './api';
import type { MessageSummary } from './message-summary';
import { Field, Notice, useAct } from './ui';

// What a person does to messages beyond one button: send one again as it was (Replay) or edited
// (Edit and resend), and cancel everything the list shows.

/** Sends the message again as a new one, with every setting the sender gave it (the server copies them). */
export async function replay(message: MessageSummary): Promise<string> {
  const { messageId } = await devRequest<{ messageId: string }>('POST', `/dev/messages/${encodeURIComponent(message.id)}/resend`);
  return messageId;
}

/** The message's body and delivered headers in an editor; sends the edited copy as a new message and opens it. */
export function ResendEditor({ message, created }: { message: MessageSummary; created: ConsoleEvent }) {
  const [body, setBody] = useState(() => decodeBody(created.body));
  const [headers, setHeaders] = useState(() =>
    Object.entries(created.header ?? {})
      .flatMap(([name, values]) => values.map((value) => `${name}: ${value}`))
      .join('\n'),
  );
  const { notice, act } = useAct(() => {});
  const send = async () => {
    const parsed: Record<string, string> = {};
    for (const line of headers.split('\n')) {
      if (line.trim() === '') continue;
      const colon = line.indexOf(':');
      if (colon < 1) throw new Error(`"${line}" is not a header line: write Name: value`);
      parsed[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
    const { messageId } = await devRequest<{ messageId: string }>('POST', `/dev/messages/${encodeURIComponent(message.id)}/resend`, {
      body,
      headers: parsed,
    });
    location.hash = `#/messages/${messageId}`;
    return `Sent as ${messageId}`;
  };
  return (
    <form
      class="card resend-editor"
      aria-label="Edit and resend"
      onSubmit={(event) => {
        event.preventDefault();
        void act(send)();
      }}
    >
      <p class="muted">
        A new message with every setting of this one (retries, callbacks, queue, flow control), and the body and headers below.
      </p>
      <Field label="Body">
        <textarea name="resend-body" rows={8} value={body} onInput={(event) => setBody((event.target as HTMLTextAreaElement).value)} />
      </Field>
      <Field label="Headers" hint="One per line, Name: value, as the destination receives them">
        <textarea
          name="resend-headers"
          rows={4}
          value={headers}
          onInput={(event) => setHeaders((event.target as HTMLTextAreaElement).value)}
        />
      </Field>
      <button type="submit" class="primary">
        Send as a new message
      </button>
      <Notice notice={notice} />
    </form>
  );
}

/**
 * Cancels what the list shows: by the service's own filter as a bulk action in the background when
 * the list is filtered only by queue and label (the service matches exactly those), else by id.
 */
export async function cancelMatching(
  client: MessagingClient,
  filter: { state: string; queue: string; url: string; label: string; text: string; run: string; steps: boolean },
  shown: MessageSummary[],
): Promise<string> {
  if (filter.url || filter.text || filter.state || filter.run || !filter.steps) {
    const { cancelled } = await client.messages.cancelMany({ messageIds: shown.map((message) => message.id) });
    return `Cancelled ${cancelled} messages`;
  }
  const { actionId } = await client.messages.cancelInBackground({
    filter: { ...(filter.queue ? { queue: filter.queue } : {}), ...(filter.label ? { label: filter.label } : {}) },
  });
  for (;;) {
    const action = await client.bulkActions.get(actionId);
    if (action.state === 'FINISHED') return `Cancelled ${action.processed} messages (bulk action ${actionId})`;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
