import type { MessagingClient, WorkflowRunFilter } from '@mailroom/core';
import { useState } from 'preact/hooks';
import { dateTime, usePoll } from './api';
import { duration, type Run, RunPage } from './run-page';
import { ErrorLine, Field, ListTable, Pager, State } from './ui';

// Workflow runs, as the Workflow SDK drives them: the runs, paged and filtered by the service, and
// the run asked for (by id, on any page) on its own page.

const RUN_STATES: Array<NonNullable<WorkflowRunFilter['state']> | ''> = ['', 'RUN_STARTED', 'RUN_SUCCESS', 'RUN_FAILED', 'RUN_CANCELED'];
const PAGE_SIZE = 50;

export function WorkflowsView({ client, selected }: { client: MessagingClient; selected: string | undefined }) {
  const [filter, setFilter] = useState({ state: '' as (typeof RUN_STATES)[number], workflowUrl: '', workflowRunId: '' });
  // The cursors of the pages before this one: Older pushes, Newer pops. The service pages and filters.
  const [cursors, setCursors] = useState<string[]>([]);
  const query: WorkflowRunFilter = {
    count: PAGE_SIZE,
    ...(filter.state ? { state: filter.state } : {}),
    ...(filter.workflowUrl.trim() ? { workflowUrl: filter.workflowUrl.trim() } : {}),
    ...(filter.workflowRunId.trim() ? { workflowRunId: filter.workflowRunId.trim() } : {}),
    ...(cursors.length > 0 ? { cursor: cursors.at(-1) } : {}),
  };
  // Each page remembers how deep it is, so the pager names the rows on screen while the next page loads.
  const depth = cursors.length;
  const { data, error, refresh } = usePoll(async () => ({ ...(await client.workflows.logs(query)), depth }), 1000, JSON.stringify(query));
  // The run shown is asked for by id: it need not be on this page.
  const shown = usePoll(
    () =>
      selected
        ? client.workflows.logs({ workflowRunId: selected }).then((page) => page.runs[0] as Run | undefined)
        : Promise.resolve(undefined),
    1000,
    selected,
  );
  const runs = data?.runs as Run[] | undefined;
  const run = shown.data?.workflowRunId === selected ? shown.data : undefined;
  const set = (name: keyof typeof filter) => (event: Event) => {
    setCursors([]);
    setFilter({ ...filter, [name]: (event.target as HTMLInputElement).value });
  };
  return (
    <section aria-label="Workflow runs" class={selected ? 'split' : undefined}>
      <div>
        <search class="toolbar">
          <Field label="Run state">
            <select value={filter.state} onChange={set('state')}>
              {RUN_STATES.map((state) => (
                <option value={state}>{state || 'any'}</option>
              ))}
            </select>
          </Field>
          <Field label="Workflow URL">
            <input name="workflow-url" value={filter.workflowUrl} onInput={set('workflowUrl')} placeholder="the whole URL" />
          </Field>
          <Field label="Run id">
            <input name="run-id" value={filter.workflowRunId} onInput={set('workflowRunId')} placeholder="wfr_..." />
          </Field>
        </search>
        <ErrorLine error={error} />
        <ListTable
          items={runs}
          empty="No workflow runs yet: trigger a workflow of the Workflow SDK against this dev server, and its runs appear here."
          head={['Run', 'State', 'Workflow URL', 'Created', 'Duration']}
          row={(item) => (
            <tr data-run-id={item.workflowRunId} aria-selected={item.workflowRunId === selected}>
              <td>
                <a href={`#/workflows/${encodeURIComponent(item.workflowRunId)}`}>
                  <code>{item.workflowRunId}</code>
                </a>
              </td>
              <td>
                <State state={item.workflowState} />
              </td>
              <td class="url">{item.workflowUrl}</td>
              <td>{dateTime(item.workflowRunCreatedAt)}</td>
              <td>{duration(item)}</td>
            </tr>
          )}
        />
        {(cursors.length > 0 || data?.cursor) && (
          <Pager cursors={cursors} setCursors={setCursors} next={data?.cursor}>
            page {(data?.depth ?? 0) + 1}
          </Pager>
        )}
      </div>
      {selected &&
        (run ? (
          <RunPage
            client={client}
            run={run}
            refresh={() => {
              refresh();
              shown.refresh();
            }}
          />
        ) : (
          shown.loaded && <p class="empty">No run {selected} here.</p>
        ))}
    </section>
  );
}
