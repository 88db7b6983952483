import type { MessagingClient } from '@mailroom/core';
import { useState } from 'preact/hooks';
import { dateTime, decodeBody, devRequest, recentEvents, time, usePoll } from './api';
import { Action, Empty, ErrorLine, Field, ListTable, Notice, State, useAct } from './ui';

// The resource views: both DLQs, queues, schedules, URL groups and the raw event stream, each with
// the actions the interface offers.

export function DlqView({ client }: { client: MessagingClient }) {
  const [view, setView] = useState<'message' | 'workflow'>('message');
  // Filtered on the server, so "all N matching" is what the bulk action will act on.
  const [filter, setFilter] = useState({ url: '', label: '' });
  const serverFilter = {
    ...(filter.url.trim() ? { url: filter.url.trim() } : {}),
    ...(filter.label.trim() ? { label: filter.label.trim() } : {}),
  };
  const filtered = Object.keys(serverFilter).length > 0;
  const messages = usePoll(() => client.dlq.list({ count: 100, ...serverFilter }));
  const workflow = usePoll(() => client.workflowDlq.list({ count: 100 }));
  const { notice, act } = useAct(() => {
    messages.refresh();
    workflow.refresh();
  }, view);
  return (
    <section aria-label="Dead-letter queue">
      <div class="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={view === 'message'} onClick={() => setView('message')}>
          Messages ({messages.data?.messages.length ?? 0})
        </button>
        <button type="button" role="tab" aria-selected={view === 'workflow'} onClick={() => setView('workflow')}>
          Workflow runs ({workflow.data?.messages.length ?? 0})
        </button>
        {view === 'message' && (messages.data?.messages.length ?? 0) > 0 && (
          <>
            <Action
              confirm={`Retry all ${matching(messages.data)} ${filtered ? 'matching ' : ''}DLQ entries? Each is sent again as a new message.`}
              onClick={act(async () => {
                const { responses } = await client.dlq.retryMany(filtered ? { filter: serverFilter } : { all: true });
                return `Retried ${responses.length} entries as new messages`;
              })}
            >
              Retry all {matching(messages.data)}
              {filtered ? ' matching' : ''}
            </Action>
            <Action
              danger
              confirm={`Delete all ${matching(messages.data)} ${filtered ? 'matching ' : ''}DLQ entries? They cannot be retried afterwards.`}
              onClick={act(
                async () => `Deleted ${(await client.dlq.deleteMany(filtered ? { filter: serverFilter } : { all: true })).deleted} entries`,
              )}
            >
              Delete all {matching(messages.data)}
              {filtered ? ' matching' : ''}
            </Action>
          </>
        )}
      </div>
      {view === 'message' && (
        <search class="toolbar">
          <Field label="URL">
            <input
              name="dlq-url"
              value={filter.url}
              onInput={(event) => setFilter({ ...filter, url: (event.target as HTMLInputElement).value })}
            />
          </Field>
          <Field label="Label">
            <input
              name="dlq-label"
              value={filter.label}
              onInput={(event) => setFilter({ ...filter, label: (event.target as HTMLInputElement).value })}
            />
          </Field>
        </search>
      )}
      <Notice notice={notice} />
      <ErrorLine error={messages.error ?? workflow.error} />
      {view === 'message' ? (
        <ListTable
          items={messages.data?.messages}
          empty="The DLQ is empty: messages land here once they exhaust their retries."
          head={['Failed', 'Destination', 'Last answer', 'Body', 'Actions']}
          row={(entry) => (
            <tr data-dlq-id={entry.dlqId}>
              <td>
                <a href={`#/messages/${entry.messageId}`}>{dateTime(Number(entry.dlqId.split('-')[0]))}</a>
                <br />
                <a href={`#/messages/${entry.messageId}`}>
                  <code>{entry.messageId}</code>
                </a>
              </td>
              <td class="url">{entry.url}</td>
              <td>{entry.responseStatus ?? (entry as { error?: string }).error ?? 'no answer'}</td>
              <td class="clip">{entry.body ?? ''}</td>
              <td class="row-actions">
                <Action onClick={act(async () => `Retried as ${(await client.dlq.retry(entry.dlqId)).messageId}`)}>Retry</Action>
                <a class="button" href={`#/messages/${entry.messageId}`}>
                  Edit and resend
                </a>
                <Action
                  danger
                  onClick={act(async () => {
                    await client.dlq.delete(entry.dlqId);
                    return `Deleted ${entry.dlqId}`;
                  })}
                >
                  Delete
                </Action>
              </td>
            </tr>
          )}
        />
      ) : (
        <ListTable
          items={workflow.data?.messages}
          empty="No failed workflow runs."
          head={['Run', 'Destination', 'Last answer', 'Failure callback', 'Actions']}
          row={(entry) => (
            <tr data-dlq-id={entry.dlqId}>
              <td>
                <a href={`#/workflows/${encodeURIComponent(entry.workflowRunId ?? '')}`}>{entry.workflowRunId}</a>
              </td>
              <td class="url">{entry.url}</td>
              <td>{entry.responseStatus ?? 'no answer'}</td>
              <td>{entry.failureCallbackInfo?.state ? <State state={entry.failureCallbackInfo.state} /> : 'none'}</td>
              <td class="row-actions">
                <Action
                  onClick={act(async () => {
                    const [resumed] = await client.workflowDlq.resume(entry.dlqId);
                    return `Resumed from the failed step as run ${resumed?.workflowRunId ?? ''}`;
                  })}
                >
                  Resume
                </Action>
                <Action
                  onClick={act(async () => {
                    const [restarted] = await client.workflowDlq.restart(entry.dlqId);
                    return `Restarted as run ${restarted?.workflowRunId ?? ''}`;
                  })}
                >
                  Restart
                </Action>
                {entry.failureCallbackInfo?.state === 'CALLBACK_FAIL' && (
                  <Action
                    onClick={act(async () => {
                      await client.workflowDlq.retriggerFailureCallback(entry.dlqId);
                      return `Running the failure function of ${entry.workflowRunId} again`;
                    })}
                  >
                    Retry failure function
                  </Action>
                )}
                <Action
                  danger
                  confirm={`Delete the DLQ entry of run ${entry.workflowRunId}? It can no longer be resumed or restarted.`}
                  onClick={act(async () => {
                    await client.workflowDlq.delete(entry.dlqId);
                    return `Deleted the entry of ${entry.workflowRunId}`;
                  })}
                >
                  Delete
                </Action>
              </td>
            </tr>
          )}
        />
      )}
    </section>
  );
}

export function QueuesView({ client }: { client: MessagingClient }) {
  const { data, error, refresh } = usePoll(() => client.queues.list());
  const { notice, act } = useAct(refresh);
  return (
    <section aria-label="Queues">
      <Notice notice={notice} />
      <ErrorLine error={error} />
      <ListTable
        items={data}
        empty="No queues yet: a queue is created by its first message, or with queues.upsert."
        head={['Queue', 'State', 'Parallelism', 'Waiting', 'Actions']}
        row={(queue) => (
          <tr data-queue={queue.name}>
            <td>{queue.name}</td>
            <td>
              <State state={queue.paused ? 'PAUSED' : 'ACTIVE'} />
            </td>
            <td>{queue.parallelism}</td>
            <td>{queue.lag ?? 0}</td>
            <td class="row-actions">
              {queue.paused ? (
                <Action
                  onClick={act(async () => {
                    await client.queues.resume(queue.name);
                    return `Resumed ${queue.name}`;
                  })}
                >
                  Resume
                </Action>
              ) : (
                <Action
                  onClick={act(async () => {
                    await client.queues.pause(queue.name);
                    return `Paused ${queue.name}`;
                  })}
                >
                  Pause
                </Action>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}

export function SchedulesView({ client }: { client: MessagingClient }) {
  const { data, error, refresh } = usePoll(() => client.schedules.list());
  const { notice, act } = useAct(refresh);
  return (
    <section aria-label="Schedules">
      <Notice notice={notice} />
      <ErrorLine error={error} />
      <ListTable
        items={data}
        empty="No schedules. Create one with client.schedules.create({ destination, cron })."
        head={['Schedule', 'Cron', 'Destination', 'Next firing', 'Last firing', 'Actions']}
        row={(schedule) => (
          <tr data-schedule={schedule.scheduleId}>
            <td>
              {schedule.scheduleId} {schedule.isPaused && <State state="PAUSED" />}
            </td>
            <td>
              <code>{schedule.cron}</code>
            </td>
            <td class="url">{schedule.destination}</td>
            <td>{schedule.isPaused ? 'paused' : dateTime(schedule.nextScheduleTime)}</td>
            <td>{dateTime(schedule.lastScheduleTime)}</td>
            <td class="row-actions">
              {schedule.isPaused ? (
                <Action
                  onClick={act(async () => {
                    await client.schedules.resume(schedule.scheduleId);
                    return `Resumed ${schedule.scheduleId}`;
                  })}
                >
                  Resume
                </Action>
              ) : (
                <Action
                  onClick={act(async () => {
                    await client.schedules.pause(schedule.scheduleId);
                    return `Paused ${schedule.scheduleId}`;
                  })}
                >
                  Pause
                </Action>
              )}
              <Action
                onClick={act(async () => {
                  await devRequest('POST', `/dev/schedules/${encodeURIComponent(schedule.scheduleId)}/fire`);
                  return `Fired ${schedule.scheduleId} now; its next firing stays as it was`;
                })}
              >
                Fire now
              </Action>
              <Action
                danger
                onClick={act(async () => {
                  await client.schedules.delete(schedule.scheduleId);
                  return `Deleted ${schedule.scheduleId}`;
                })}
              >
                Delete
              </Action>
            </td>
          </tr>
        )}
      />
    </section>
  );
}

export function UrlGroupsView({ client }: { client: MessagingClient }) {
  const { data, error } = usePoll(() => client.urlGroups.list(), 2000);
  return (
    <section aria-label="URL groups">
      <ErrorLine error={error} />
      {(data?.length ?? 0) === 0 ? (
        <Empty>No URL groups. Add endpoints with client.urlGroups.addEndpoints(name, [...]).</Empty>
      ) : (
        data!.map((group) => (
          <article class="card">
            <h3>{group.name}</h3>
            <ul>
              {group.endpoints.map((endpoint) => (
                <li class="url">
                  {endpoint.name ? <strong>{endpoint.name}: </strong> : null}
                  {endpoint.url}
                </li>
              ))}
            </ul>
          </article>
        ))
      )}
    </section>
  );
}

const LOG_STATES = ['', 'CREATED', 'ACTIVE', 'RETRY', 'ERROR', 'DELIVERED', 'FAILED', 'CANCEL_REQUESTED', 'CANCELED'] as const;

export function LogsView({ client }: { client: MessagingClient }) {
  const { data, error } = usePoll(() => recentEvents(client));
  const [filter, setFilter] = useState({ state: '', messageId: '', url: '', queue: '' });
  const set = (key: keyof typeof filter) => (event: Event) =>
    setFilter({ ...filter, [key]: (event.target as HTMLInputElement).value.trim() });
  const events = (data ?? []).filter(
    (event) =>
      (!filter.state || event.state === filter.state) &&
      (!filter.messageId || event.messageId === filter.messageId || event.sourceMessageId === filter.messageId) &&
      (!filter.url || (event.url ?? '').includes(filter.url)) &&
      (!filter.queue || event.queueName === filter.queue),
  );
  return (
    <section aria-label="Logs">
      <search class="toolbar">
        <Field label="State">
          <select value={filter.state} onChange={set('state')}>
            {LOG_STATES.map((state) => (
              <option value={state}>{state || 'any'}</option>
            ))}
          </select>
        </Field>
        <Field label="Message id">
          <input value={filter.messageId} onInput={set('messageId')} placeholder="msg_..." />
        </Field>
        <Field label="URL contains">
          <input value={filter.url} onInput={set('url')} placeholder="/orders" />
        </Field>
        <Field label="Queue">
          <input value={filter.queue} onInput={set('queue')} placeholder="emails" />
        </Field>
      </search>
      <ErrorLine error={error} />
      <ListTable
        items={events.slice(0, 300)}
        empty={data && data.length > 0 ? 'No event matches these filters.' : 'No events yet.'}
        head={['Time', 'State', 'Message', 'Destination', 'Detail']}
        row={(event) => (
          <tr data-log-state={event.state}>
            <td>{time(event.time)}</td>
            <td>
              <State state={event.state} />
            </td>
            <td>
              <a href={`#/messages/${event.sourceMessageId ?? event.messageId}`}>
                <code>{event.messageId}</code>
              </a>
              {event.kind && event.kind !== 'message' ? <span class="muted"> {event.kind}</span> : null}
            </td>
            <td class="url">{event.url}</td>
            <td class="clip">
              {event.error ?? (event.responseStatus !== undefined ? `status ${event.responseStatus}` : '')}
              {event.state === 'CREATED' && event.body ? decodeBody(event.body).slice(0, 80) : ''}
            </td>
          </tr>
        )}
      />
    </section>
  );
}

/** How many entries a bulk action over the listing acts on: the page's, or "100+" past one page (the DLQ's largest). */
function matching(page: { messages: unknown[]; cursor?: string | undefined } | undefined): string {
  const count = page?.messages.length ?? 0;
  return page?.cursor ? `${count}+` : String(count);
}
