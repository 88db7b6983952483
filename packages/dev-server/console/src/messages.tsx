import type { MessagingClient } from '@mailroom/core';
import { headerNames } from '@mailroom/core/protocol';
import { useMemo, useState } from 'preact/hooks';
import { bodyFields, decodeBody, decodeClaims, pretty, recentEvents, time, usePoll, type ConsoleEvent } from './api';
import { cancelMatching, replay, ResendEditor } from './message-actions';
import { type MessageSummary, summarise } from './message-summary';
import { explainRefusal, type Signing } from './refusals';
import { Action, Empty, ErrorLine, Field, Notice, State, useAct } from './ui';

// Messages, live: one row per message from the logs, and a message's timeline: every attempt as sent
// and answered, the wait before the next one and why, its callbacks with their own attempts.

const STATES = ['', 'CREATED', 'ACTIVE', 'RETRY', 'DELIVERED', 'FAILED', 'CANCELED'];

export function MessagesView({ client, settings, selected }: { client: MessagingClient; settings: Signing; selected: string | undefined }) {
  const { data, error, refresh } = usePoll(() => recentEvents(client));
  const [filter, setFilter] = useState({ state: '', queue: '', url: '', label: '', text: '', run: '', steps: true });
  const all = useMemo(() => summarise(data ?? []), [data]);
  const messages = all.filter(
    (message) =>
      message.kind === 'message' &&
      (!filter.state || message.state === filter.state) &&
      (!filter.queue || message.queue === filter.queue) &&
      (!filter.url || message.url.includes(filter.url)) &&
      (!filter.label || (message.label ?? '').split(',').includes(filter.label)) &&
      (!filter.run || message.run?.id === filter.run.trim()) &&
      (filter.steps || message.run === undefined) &&
      (!filter.text || JSON.stringify(message.events).toLowerCase().includes(filter.text.toLowerCase())),
  );
  const current = selected ? all.find((message) => message.id === selected) : undefined;
  const pendingMatching = messages.filter((message) => !['DELIVERED', 'FAILED', 'CANCELED'].includes(message.state));
  const { notice, act } = useAct(refresh);
  const set = (key: keyof typeof filter) => (event: Event) => setFilter({ ...filter, [key]: (event.target as HTMLInputElement).value });
  return (
    <div class={current ? 'split' : ''}>
      <section aria-label="Messages">
        <search class="toolbar">
          <Field label="State">
            <select value={filter.state} onChange={set('state')}>
              {STATES.map((state) => (
                <option value={state}>{state || 'any'}</option>
              ))}
            </select>
          </Field>
          <Field label="Queue">
            <input value={filter.queue} onInput={set('queue')} placeholder="emails" />
          </Field>
          <Field label="URL contains">
            <input value={filter.url} onInput={set('url')} placeholder="/orders" />
          </Field>
          <Field label="Label">
            <input value={filter.label} onInput={set('label')} />
          </Field>
          <Field label="Text">
            <input value={filter.text} onInput={set('text')} placeholder="anything in the message" />
          </Field>
          <Field label="Workflow run">
            <input name="run" value={filter.run} onInput={set('run')} placeholder="wfr_..." />
          </Field>
          <label class="check">
            <input
              type="checkbox"
              checked={filter.steps}
              onChange={(event) => setFilter({ ...filter, steps: (event.target as HTMLInputElement).checked })}
            />{' '}
            Workflow steps
          </label>
        </search>
        {pendingMatching.length > 0 && (filter.queue || filter.label || filter.url || filter.text || filter.state || filter.run) && (
          <div class="actions">
            <Action
              danger
              confirm={`Cancel all ${pendingMatching.length} matching messages? They are not delivered, and do not go to the DLQ.`}
              onClick={act(() => cancelMatching(client, filter, pendingMatching))}
            >
              Cancel all {pendingMatching.length} matching
            </Action>
          </div>
        )}
        <Notice notice={notice} />
        <ErrorLine error={error} />
        {messages.length === 0 ? (
          <Empty>No messages yet. Send one from the Send view or from your app; it appears here within a second.</Empty>
        ) : (
          <table class="list">
            <thead>
              <tr>
                <th>State</th>
                <th>Destination</th>
                <th class="extra">Queue / group</th>
                <th class="extra">Label</th>
                <th>Created</th>
                <th class="extra">Next delivery</th>
              </tr>
            </thead>
            <tbody>
              {messages.map((message) => (
                <tr class={message.id === selected ? 'selected' : ''} data-message-id={message.id}>
                  <td>
                    <State state={message.state} />
                  </td>
                  <td class="url">
                    <a href={`#/messages/${message.id}`}>{message.url}</a>
                    {message.run && (
                      <small class="run-step">
                        {' '}
                        <a href={`#/workflows/${encodeURIComponent(message.run.id)}`}>{message.run.id}</a> · {message.run.step}
                      </small>
                    )}
                  </td>
                  <td class="extra">{message.queue ?? message.group ?? ''}</td>
                  <td class="extra">{message.label ?? ''}</td>
                  <td>{time(message.createdAt)}</td>
                  <td class="extra">{time(message.next)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {current && <MessageDetail key={current.id} client={client} settings={settings} message={current} all={all} refresh={refresh} />}
    </div>
  );
}

function MessageDetail({
  client,
  settings,
  message,
  all,
  refresh,
}: {
  client: MessagingClient;
  settings: Signing;
  message: MessageSummary;
  all: MessageSummary[];
  refresh: () => void;
}) {
  // Whether it is in the DLQ now (retried, deleted or expired entries are not): asked, not assumed.
  const inDlq = usePoll(() =>
    message.state === 'FAILED' ? client.dlq.list({ messageId: message.id }).then((page) => page.messages[0]) : Promise.resolve(undefined),
  );
  const { notice, act: run } = useAct(() => {
    refresh();
    inDlq.refresh();
  });
  // Oldest first, as the attempts they report on happened.
  const callbacks = all.filter((other) => other.sourceMessageId === message.id).sort((a, b) => a.createdAt - b.createdAt);
  const resends = all.filter((other) => other.resentFrom === message.id);
  const [editing, setEditing] = useState(false);
  const created = message.events[0];
  const pending = !['DELIVERED', 'FAILED', 'CANCELED'].includes(message.state);
  // Waiting on time (a delay, a sleep, a retry's backoff), so the service's retry now applies; not in a queue.
  const waiting = message.next !== undefined && message.next > Date.now() && message.queue === undefined;
  return (
    <aside class="detail" aria-label={`Message ${message.id}`}>
      <header>
        <h2>
          <State state={message.state} /> <code>{message.id}</code>
        </h2>
        <a class="close" href="#/messages" aria-label="Close the message">
          ×
        </a>
      </header>
      <dl class="facts">
        <dt>Destination</dt>
        <dd class="url">
          {created?.method ?? 'POST'} {message.url}
        </dd>
        {message.queue && (
          <>
            <dt>Queue</dt>
            <dd>{message.queue}</dd>
          </>
        )}
        {message.group && (
          <>
            <dt>URL group</dt>
            <dd>{message.group}</dd>
          </>
        )}
        {message.label && (
          <>
            <dt>Label</dt>
            <dd>{message.label}</dd>
          </>
        )}
        {message.resentFrom && (
          <>
            <dt>Resent from</dt>
            <dd>
              <a href={`#/messages/${message.resentFrom}`}>{message.resentFrom}</a>
            </dd>
          </>
        )}
        {resends.length > 0 && (
          <>
            <dt>Resent as</dt>
            <dd class="resends">
              {resends.map((resend) => (
                <a href={`#/messages/${resend.id}`}>{resend.id}</a>
              ))}
            </dd>
          </>
        )}
      </dl>
      <div class="actions">
        {waiting && (
          <Action onClick={run(async () => (await client.messages.runNow(message.id), 'Released: it is attempted now'))}>
            {message.state === 'RETRY' ? 'Retry now' : 'Run now'}
          </Action>
        )}
        {pending && (
          <Action onClick={run(async () => `Cancelled ${(await client.messages.cancel(message.id)).cancelled} message`)}>Cancel</Action>
        )}
        {message.state === 'FAILED' &&
          (inDlq.data ? (
            <Action onClick={run(async () => `Retried as ${(await client.dlq.retry(inDlq.data!.dlqId)).messageId}`)}>Retry from DLQ</Action>
          ) : (
            inDlq.loaded && <span class="muted">Not in the DLQ any more (retried, deleted or expired).</span>
          ))}
        <Action onClick={run(async () => `Replayed as ${await replay(message)}`)}>Replay</Action>
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit and resend
        </button>
      </div>
      <Notice notice={notice} />
      {editing && created && <ResendEditor message={message} created={created} />}
      <h3>Body</h3>
      <pre class="body">{decodeBody(created?.body) || '(empty)'}</pre>
      <h3>Timeline</h3>
      <Timeline events={message.events} settings={settings} />
      {callbacks.map((callback) => (
        <section class="callback">
          <h3>
            {callback.kind === 'failure-callback' ? 'Failure callback' : 'Callback'} <State state={callback.state} />{' '}
            <span class="muted">{callback.url}</span> <span class="reports-on">{reportsOn(callback)}</span>
          </h3>
          <Timeline events={callback.events} settings={settings} />
        </section>
      ))}
    </aside>
  );
}

const WHY: Record<string, string> = {
  'retry-delay': "the message's Retry-Delay expression",
  'default-backoff': 'the default backoff',
  'retry-after': "the destination's Retry-After",
};

function Timeline({ events, settings }: { events: ConsoleEvent[]; settings: Signing }) {
  return (
    <ol class="timeline">
      {events.map((event) => (
        <li class={`event state-${event.state.toLowerCase()}`}>
          <div class="line">
            <State state={event.state} /> <span class="muted">{time(event.time)}</span>
            {event.state === 'RETRY' && event.nextDeliveryTime !== undefined && (
              <span>
                {' '}
                next attempt at {time(event.nextDeliveryTime)}, in {Math.max(0, event.nextDeliveryTime - event.time)} ms, chosen by{' '}
                {WHY[event.delaySource ?? ''] ?? 'the service'}
              </span>
            )}
            {event.error && event.state === 'ERROR' && <span class="error-text"> {event.error}</span>}
          </div>
          {event.attempt && <Attempt attempt={event.attempt} url={event.url ?? ''} settings={settings} />}
        </li>
      ))}
    </ol>
  );
}

function Attempt({ attempt, url, settings }: { attempt: NonNullable<ConsoleEvent['attempt']>; url: string; settings: Signing }) {
  const refusal = attempt.response && explainRefusal(attempt.response, url, settings);
  const wanted = headerNames(settings.headerPrefix).signature.toLowerCase();
  const signature = Object.entries(attempt.requestHeaders).find(([name]) => name.toLowerCase() === wanted)?.[1];
  const claims = decodeClaims(signature);
  return (
    <details class="attempt">
      <summary>
        Attempt {attempt.retried + 1}: {attempt.response ? `answered ${attempt.response.status}` : (attempt.error ?? 'no answer')} in{' '}
        {attempt.durationMs} ms
      </summary>
      {refusal && (
        <div class="refusal" role="note">
          <strong>{refusal.what}</strong> {refusal.fix}
        </div>
      )}
      <div class="columns">
        <div>
          <h4>Request sent</h4>
          <Headers headers={Object.entries(attempt.requestHeaders).map(([name, value]) => [name, value])} />
          {claims && (
            <>
              <h4>Signature claims</h4>
              <pre>{pretty(JSON.stringify(claims))}</pre>
            </>
          )}
        </div>
        <div>
          <h4>Answer</h4>
          {attempt.response ? (
            <>
              <p>Status {attempt.response.status}</p>
              <Headers
                headers={Object.entries(attempt.response.headers).flatMap(([name, values]) =>
                  values.map((value) => [name, value] as [string, string]),
                )}
              />
              <pre class="body">
                {decodeBody(attempt.response.body) || '(empty)'}
                {attempt.response.truncated ? '\n… (first 4 KiB)' : ''}
              </pre>
            </>
          ) : (
            <p class="error-text">{attempt.error ?? 'no answer'}</p>
          )}
        </div>
      </div>
    </details>
  );
}

function Headers({ headers }: { headers: Array<[string, string]> }) {
  return (
    <table class="headers">
      <tbody>
        {headers.map(([name, value]) => (
          <tr>
            <th>{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Which attempt a callback reports on, from the body the service gave it (`retried`, `status`). */
function reportsOn(callback: MessageSummary): string {
  const { retried, status } = bodyFields(callback.events[0]?.body);
  if (typeof retried !== 'number') return '';
  return `on attempt ${retried + 1}${typeof status === 'number' ? `, answered ${status}` : ''}`;
}
