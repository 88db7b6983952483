import { useState } from 'preact/hooks';
import type { FaultRecord } from '../../src/state/records';
import { devRequest, usePoll } from './api';
import { Action, Field, ListTable, Notice, useAct } from './ui';

// Faults on demand: the dev server's `/dev/faults` rules (the same as `--fault` and
// @mailroom/testing), listed with how often each applied, set from a form, and named in a banner on
// every page while any is in force, so nobody debugs a duplicate the server was told to make.

type Polled = ReturnType<typeof usePoll<FaultRecord[]>>;

/** The faults in force, polled every second; the shell shares one poll between the banner and the page. */
export function useFaults(): Polled {
  return usePoll(() => devRequest<{ faults: FaultRecord[] }>('GET', '/dev/faults').then((answer) => answer.faults));
}

/** What a fault does, in a few words: `duplicate deliveries to /orders, 1 of 2 times`. */
function describeFault(fault: FaultRecord): string {
  const what = {
    duplicate: 'duplicate deliveries',
    'lose-answer': 'lost answers',
    throttle: `${fault.status ?? 429} to senders, Retry-After ${fault.retryAfterSeconds ?? 1} s`,
    'skew-clock': `signing clock ${fault.skewMs !== undefined && fault.skewMs < 0 ? '' : '+'}${(fault.skewMs ?? 0) / 1000} s`,
  }[fault.kind];
  const where = fault.kind === 'throttle' ? '' : fault.to ? ` to ${fault.to}` : ' to every destination';
  const times = fault.times === undefined ? `applied ${fault.count}×` : `${fault.count} of ${fault.times} times`;
  return `${what}${where}, ${times}`;
}

export function FaultBanner({ faults }: { faults: FaultRecord[] | undefined }) {
  const active = (faults ?? []).filter((fault) => fault.times === undefined || fault.count < fault.times);
  if (active.length === 0) return null;
  return (
    <div class="fault-banner" role="status" aria-label="Faults in force">
      <strong>
        {active.length} fault{active.length === 1 ? '' : 's'} in force:
      </strong>{' '}
      {active.map(describeFault).join('; ')} · <a href="#/faults">Manage faults</a>
    </div>
  );
}

const KINDS = [
  ['duplicate', 'Deliver twice'],
  ['lose-answer', 'Lose the app’s answer'],
  ['throttle', '429/503 to senders'],
  ['skew-clock', 'Skew the signing clock'],
] as const;

export function FaultsView({ faults }: { faults: Polled }) {
  const { notice, act } = useAct(faults.refresh);
  const [form, setForm] = useState({ kind: 'duplicate', to: '', times: '', status: '429', retryAfter: '1s', by: '-10m' });
  const set = (key: keyof typeof form) => (event: Event) => setForm({ ...form, [key]: (event.target as HTMLInputElement).value });
  const add = async () => {
    const rule: Record<string, unknown> = { kind: form.kind };
    if (form.to.trim() && form.kind !== 'throttle') rule.to = form.to.trim();
    if (form.times.trim()) rule.times = Number(form.times);
    if (form.kind === 'throttle') Object.assign(rule, { status: Number(form.status), retryAfter: form.retryAfter });
    if (form.kind === 'skew-clock') rule.by = form.by;
    const fault = await devRequest<FaultRecord>('POST', '/dev/faults', rule);
    return `Set ${fault.id}: ${describeFault(fault)}`;
  };
  return (
    <section aria-label="Faults">
      <p class="muted">
        What the service does now and then, made to happen: each rule applies to the deliveries it names (a path such as{' '}
        <code>/orders</code>, or a whole URL) as many times as you say, and counts how often it did. The same rules as{' '}
        <code>mailroom dev --fault</code> and <code>@mailroom/testing</code>.
      </p>
      <form
        class="toolbar fault-form"
        onSubmit={(event) => {
          event.preventDefault();
          void act(add)();
        }}
      >
        <Field label="Fault">
          <select name="kind" value={form.kind} onChange={set('kind')}>
            {KINDS.map(([kind, label]) => (
              <option value={kind}>{label}</option>
            ))}
          </select>
        </Field>
        {form.kind !== 'throttle' && (
          <Field label="To (path or URL)">
            <input name="to" value={form.to} onInput={set('to')} placeholder="every destination" />
          </Field>
        )}
        <Field label="Times">
          <input name="times" value={form.times} onInput={set('times')} placeholder="until removed" inputMode="numeric" />
        </Field>
        {form.kind === 'throttle' && (
          <>
            <Field label="Status">
              <select name="status" value={form.status} onChange={set('status')}>
                <option value="429">429</option>
                <option value="503">503</option>
              </select>
            </Field>
            <Field label="Retry-After">
              <input name="retry-after" value={form.retryAfter} onInput={set('retryAfter')} />
            </Field>
          </>
        )}
        {form.kind === 'skew-clock' && (
          <Field label="By" hint="-10m: tokens already expired; 10m: not valid yet">
            <input name="by" value={form.by} onInput={set('by')} />
          </Field>
        )}
        <button type="submit" class="primary">
          Set fault
        </button>
      </form>
      <Notice notice={notice} />
      <ListTable
        items={faults.data}
        empty="No fault in force: deliveries behave."
        head={['Fault', 'Set at', 'Actions']}
        row={(fault) => (
          <tr data-fault-id={fault.id}>
            <td>
              <code>{fault.id}</code> {describeFault(fault)}
            </td>
            <td>{new Date(fault.createdAt).toLocaleTimeString(undefined, { hour12: false })}</td>
            <td>
              <Action
                onClick={act(async () => {
                  await devRequest('DELETE', `/dev/faults/${fault.id}`);
                  return `Removed ${fault.id}`;
                })}
              >
                Remove
              </Action>
            </td>
          </tr>
        )}
      />
      {(faults.data?.length ?? 0) > 1 && (
        <Action
          danger
          confirm={`Remove all ${faults.data?.length} faults?`}
          onClick={act(async () => `Removed ${(await devRequest<{ removed: number }>('DELETE', '/dev/faults')).removed} faults`)}
        >
          Remove all
        </Action>
      )}
    </section>
  );
}
