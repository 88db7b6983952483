import type { MessagingClient } from '@mailroom/core';
import { headerNames } from '@mailroom/core/internal-protocol';
import { useState } from 'preact/hooks';
import type { MessagePage } from '../../src/http/message-list';
import { decodeBody, decodeClaims, devRequest, jsonFields, pretty, shownBody, type Story, time, usePoll, type ConsoleEvent } from './api';
import { exportFixture, cancelMatching, replay, ResendEditor } from './message-actions';
import { explainRefusal, type Signing } from './refusals';
import { Action, Empty, ErrorLine, Field, Notice, Pager, State, useAct } from './ui';

// Messages, live: one page of rows, filtered and paged by the server, and a message's timeline: every attempt as sent
// and answered, the wait before the next one and why, its callbacks with their own attempts.

const STATES = ['', 'CREATED', 'ACTIVE', 'RETRY', 'DELIVERED', 'FAILED', 'CANCELED'];
const FINISHED = ['DELIVERED', 'FAILED', 'CANCELED'];
const PAGE_SIZE = 50;

type Filter = { state: string; queue: string; url: string; label: string; text: string; run: string; steps: boolean };
const NO_FILTER: Filter = { state: '', queue: '', url: '', label: '', text: '', run: '', steps: true };

/** The list's filter as `/dev/messages` takes it (the server filters and pages: the tab holds one page). */
function filterQuery(filter: Filter): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ['state', 'queue', 'url', 'label', 'text', 'run'] as const)
    if (filter[name].trim()) query.set(name, filter[name].trim());
  if (!filter.steps) query.set('steps', 'false');
  return query;
}

export function MessagesView({ client, settings, selected }: { client: MessagingClient; settings: Signing; selected: string | undefined }) {
  const [filter, setFilter] = useState(NO_FILTER);
  // The cursors of the pages before this one: Older pushes, Newer pops.
  const [cursors, setCursors] = useState<string[]>([]);
  const query = filterQuery(filter);
  const cursor = cursors.at(-1);
  query.set('count', String(PAGE_SIZE));
  if (cursor) query.set('cursor', cursor);
  // Each page remembers how deep it is, so the pager names the rows on screen while the next page loads.
  const depth = cursors.length;
  const { data, error, refresh } = usePoll(
    async () => ({ ...(await devRequest<MessagePage>('GET', `/dev/messages?${query}`)), depth }),
    1000,
    query.toString(),
  );
  const messages = data?.messages ?? [];
  const { notice, act } = useAct(refresh);
  const set = (name: keyof Filter) => (event: Event) => {
    setCursors([]);
    setFilter({ ...filter, [name]: (event.target as HTMLInputElement).value });
  };
  const filtered = filterQuery(filter).size > 0;
  const first = (data?.depth ?? 0) * PAGE_SIZE + 1;
  return (
    <div class={selected ? 'split' : ''}>
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
              onChange={(event) => {
                setCursors([]);
                setFilter({ ...filter, steps: (event.target as HTMLInputElement).checked });
              }}
            />{' '}
            Workflow steps
          </label>
        </search>
        {data && data.pending > 0 && filtered && (
          <div class="actions">
            <Action
              danger
              confirm={`Cancel all ${data.pending} matching messages? They are not delivered, and do not go to the DLQ.`}
              onClick={act(() => cancelMatching(client, filterQuery(filter)))}
            >
              Cancel all {data.pending} matching
            </Action>
          </div>
        )}
        <Notice notice={notice} />
        <ErrorLine error={error} />
        {messages.length === 0 ? (
          data && (
            <Empty>
              {filtered
                ? 'No message matches.'
                : 'No messages yet. Send one from the Send view or from your app; it appears here within a second.'}
            </Empty>
          )
        ) : (
          <>
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
                  <tr class={message.messageId === selected ? 'selected' : ''} data-message-id={message.messageId}>
                    <td>
                      <State state={message.state} />
                    </td>
                    <td class="url">
                      <a href={`#/messages/${message.messageId}`}>{message.url}</a>
                      {message.workflowRunId && (
                        <small class="run-step">
                          {' '}
                          <a href={`#/workflows/${encodeURIComponent(message.workflowRunId)}`}>{message.workflowRunId}</a> · {message.step}
                        </small>
                      )}
                    </td>
                    <td class="extra">{message.queueName ?? message.topicName ?? ''}</td>
                    <td class="extra">{message.labels?.join(',') ?? ''}</td>
                    <td>{time(message.createdAt)}</td>
                    <td class="extra">{time(message.nextDeliveryTime)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager cursors={cursors} setCursors={setCursors} next={data?.cursor}>
              {first.toLocaleString()}–{(first + messages.length - 1).toLocaleString()} of {(data?.total ?? 0).toLocaleString()}
            </Pager>
          </>
        )}
      </section>
      {selected && <MessageDetail key={selected} client={client} settings={settings} id={selected} refresh={refresh} />}
    </div>
  );
}

function MessageDetail({ client, settings, id, refresh }: { client: MessagingClient; settings: Signing; id: string; refresh: () => void }) {
  const story = usePoll(() => devRequest<Story>('GET', `/dev/messages/${encodeURIComponent(id)}`));
  const message = story.data?.message;
  // Whether it is in the DLQ now (retried, deleted or expired entries are not): asked, not assumed.
  const inDlq = usePoll(() =>
    message?.state === 'FAILED' ? client.dlq.list({ messageId: id }).then((page) => page.messages[0]) : Promise.resolve(undefined),
  );
  const { notice, act: run } = useAct(() => {
    refresh();
    story.refresh();
    inDlq.refresh();
  });
  const [editing, setEditing] = useState(false);
  const close = (
    <a class="close" href="#/messages" aria-label="Close the message">
      ×
    </a>
  );
  if (!message) {
    return (
      <aside class="detail" aria-label={`Message ${id}`}>
        <header>
          <h2>
            <code>{id}</code>
          </h2>
          {close}
        </header>
        <ErrorLine error={story.error} />
      </aside>
    );
  }
  const pending = !FINISHED.includes(message.state);
  // Waiting on time (a delay, a sleep, a retry's backoff), so the service's retry now applies; not in a queue.
  const waiting = message.nextDeliveryTime !== undefined && message.nextDeliveryTime > Date.now() && message.queueName === undefined;
  const resentAs = story.data?.resentAs ?? [];
  return (
    <aside class="detail" aria-label={`Message ${id}`}>
      <header>
        <h2>
          <State state={message.state} /> <code>{id}</code>
        </h2>
        {close}
      </header>
      <dl class="facts">
        <dt>Destination</dt>
        <dd class="url">
          {message.method} {message.url}
        </dd>
        {message.queueName && (
          <>
            <dt>Queue</dt>
            <dd>{message.queueName}</dd>
          </>
        )}
        {message.topicName && (
          <>
            <dt>URL group</dt>
            <dd>{message.topicName}</dd>
          </>
        )}
        {message.labels && (
          <>
            <dt>Label</dt>
            <dd>{message.labels.join(',')}</dd>
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
        {resentAs.length > 0 && (
          <>
            <dt>Resent as</dt>
            <dd class="resends">
              {resentAs.map((resend) => (
                <a href={`#/messages/${resend}`}>{resend}</a>
              ))}
            </dd>
          </>
        )}
      </dl>
      <div class="actions">
        {waiting && (
          <Action
            onClick={run(async () => {
              await client.messages.runNow(id);
              return 'Released: it is attempted now';
            })}
          >
            {message.state === 'RETRY' ? 'Retry now' : 'Run now'}
          </Action>
        )}
        {pending && <Action onClick={run(async () => `Cancelled ${(await client.messages.cancel(id)).cancelled} message`)}>Cancel</Action>}
        {message.state === 'FAILED' &&
          (inDlq.data ? (
            <Action onClick={run(async () => `Retried as ${(await client.dlq.retry(inDlq.data!.dlqId)).messageId}`)}>Retry from DLQ</Action>
          ) : (
            inDlq.loaded && <span class="muted">Not in the DLQ any more (retried, deleted or expired).</span>
          ))}
        <Action onClick={run(async () => `Replayed as ${await replay(id)}`)}>Replay</Action>
        <Action onClick={run(() => exportFixture(id))}>Export fixture</Action>
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit and resend
        </button>
      </div>
      <Notice notice={notice} />
      {editing && <ResendEditor message={message} />}
      <h3>Body</h3>
      <pre class="body">{shownBody(message) || '(empty)'}</pre>
      <h3>Timeline</h3>
      {story.data?.events.length === 0 && <p class="muted">Its events are older than the logs the server keeps.</p>}
      <Timeline events={story.data?.events ?? []} settings={settings} />
      {story.data?.callbacks.map((callback) => (
        <section class="callback">
          <h3>
            {callback.kind === 'failure-callback' ? 'Failure callback' : 'Callback'} <State state={callback.state} />{' '}
            <span class="muted">{callback.url}</span> <span class="reports-on">{reportsOn(callback.body)}</span>
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
        {attempt.trace && (
          <span class="muted" title={`sent from span ${attempt.trace.spanId}`}>
            {' '}
            · trace <code class="trace-id">{attempt.trace.traceId}</code>
          </span>
        )}
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
function reportsOn(body: string | undefined): string {
  const { retried, status } = jsonFields(body);
  if (typeof retried !== 'number') return '';
  return `on attempt ${retried + 1}${typeof status === 'number' ? `, answered ${status}` : ''}`;
}
