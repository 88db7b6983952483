import type { MessagingClient } from '@mailroom/core';
import { useState } from 'preact/hooks';
import { devRequest, pretty, type Story } from './api';
import { Field, Notice, useAct } from './ui';

// What a person does to messages beyond one button: send one again as it was (Replay) or edited
// (Edit and resend), export it as a test fixture, and cancel everything the list shows.

/** Sends the message again as a new one, with every setting the sender gave it (the server copies them). */
export async function replay(id: string): Promise<string> {
  const { messageId } = await devRequest<{ messageId: string }>('POST', `/dev/messages/${encodeURIComponent(id)}/resend`);
  return messageId;
}

/**
 * Downloads a message with its attempts' answers, or a workflow run with what its calls and waits
 * got, as a test fixture (`<id>.fixture.json`), which `service.replay(fixture)` of @mailroom/testing
 * plays again in a test.
 */
export async function exportFixture(id: string, of: 'message' | 'run' = 'message'): Promise<string> {
  const path = of === 'run' ? '/dev/workflows/runs' : '/dev/messages';
  const fixture = await devRequest<unknown>('GET', `${path}/${encodeURIComponent(id)}/fixture`);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([JSON.stringify(fixture, null, 2)], { type: 'application/json' }));
  link.download = `${id}.fixture.json`;
  link.click();
  URL.revokeObjectURL(link.href);
  return `Saved ${link.download}: replay it in a test with service.replay(fixture)`;
}

/** The message's body and delivered headers in an editor; sends the edited copy as a new message and opens it. */
export function ResendEditor({ message }: { message: Story['message'] }) {
  // What the editor shows first: sent back only when edited, so an unedited resend keeps the
  // original's exact bytes (not their pretty-printed text) and every value of a repeated header.
  const [shownBody] = useState(() => pretty(message.body ?? ''));
  const [shownHeaders] = useState(() =>
    Object.entries(message.header ?? {})
      .flatMap(([name, values]) => values.map((value) => `${name}: ${value}`))
      .join('\n'),
  );
  const [body, setBody] = useState(shownBody);
  const [headers, setHeaders] = useState(shownHeaders);
  const { notice, act } = useAct(() => {});
  const send = async () => {
    const parsed: Record<string, string> = {};
    for (const line of headers.split('\n')) {
      if (line.trim() === '') continue;
      const colon = line.indexOf(':');
      if (colon < 1) throw new Error(`"${line}" is not a header line: write Name: value`);
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      // A name given twice keeps both values, joined as HTTP joins them.
      parsed[name] = parsed[name] === undefined ? value : `${parsed[name]}, ${value}`;
    }
    const { messageId } = await devRequest<{ messageId: string }>('POST', `/dev/messages/${encodeURIComponent(message.messageId)}/resend`, {
      ...(body !== shownBody ? { body } : {}),
      ...(headers !== shownHeaders ? { headers: parsed } : {}),
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

/** Cancels every pending message the list's filter matches, on the server as a bulk action, and waits for it to finish. */
export async function cancelMatching(client: MessagingClient, filter: URLSearchParams): Promise<string> {
  const { actionId } = await devRequest<{ actionId: string }>('DELETE', `/dev/messages?${filter}`);
  for (;;) {
    const action = await client.bulkActions.get(actionId);
    if (action.state === 'FINISHED') return `Cancelled ${action.processed} messages (bulk action ${actionId})`;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
