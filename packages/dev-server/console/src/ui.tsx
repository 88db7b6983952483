import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

// Small pieces every view uses: a labelled field, a state badge, an action button that shows it is
// working, an empty state, an error line.

export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is `children`, which the label wraps.
    <label class="field">
      <span>{label}</span>
      {children}
      {hint && <small>{hint}</small>}
    </label>
  );
}

export function State({ state }: { state: string }) {
  return <span class={`badge badge-${state.toLowerCase().replace(/_/g, '-')}`}>{state}</span>;
}

/**
 * A button that shows it is working. With `confirm`, the first click asks (the sentence says what
 * will happen) and only "Yes" acts: for actions that cannot be undone or that break running apps.
 */
export function Action({
  onClick,
  children,
  danger,
  confirm,
}: {
  onClick: () => unknown;
  children: ComponentChildren;
  danger?: boolean;
  confirm?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const run = async () => {
    setAsking(false);
    setBusy(true);
    try {
      await onClick();
    } finally {
      setBusy(false);
    }
  };
  if (asking) {
    return (
      <span class="confirm" role="alertdialog" aria-label="Confirm">
        <span>{confirm}</span>
        <button type="button" class={danger ? 'danger' : ''} onClick={run}>
          Yes
        </button>
        <button type="button" onClick={() => setAsking(false)}>
          Cancel
        </button>
      </span>
    );
  }
  return (
    <button type="button" class={danger ? 'danger' : ''} disabled={busy} onClick={confirm ? () => setAsking(true) : run}>
      {children}
    </button>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function ErrorLine({ error }: { error: string | undefined }) {
  return error ? (
    <p class="error-text" role="alert">
      {error}
    </p>
  ) : null;
}

/** A list as a table, or its empty state: one place for the shape every resource view shares. */
export function ListTable<T>({
  items,
  empty,
  head,
  row,
}: {
  items: readonly T[] | undefined;
  empty: ComponentChildren;
  head: readonly string[];
  row: (item: T) => ComponentChildren;
}) {
  if (!items || items.length === 0) return <Empty>{empty}</Empty>;
  return (
    <table class="list">
      <thead>
        <tr>
          {head.map((title) => (
            <th>{title}</th>
          ))}
        </tr>
      </thead>
      <tbody>{items.map(row)}</tbody>
    </table>
  );
}

/** What an action said: success in the status colour, a refusal or failure as an error. */
export interface NoticeText {
  text: string;
  failed: boolean;
}

/** Message ids in a notice become links to the message. */
/**
 * Newer and Older over a cursor listing: `cursors` are the pages walked so far (the newest page has
 * none), `next` the listing's cursor for the page after this one.
 */
export function Pager({
  cursors,
  setCursors,
  next,
  children,
}: {
  cursors: string[];
  setCursors: (cursors: string[]) => void;
  next: string | undefined;
  /** Where in the listing this page is. */
  children: ComponentChildren;
}) {
  return (
    <nav class="pager" aria-label="Pages">
      <span class="muted">{children}</span>
      <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
        Newer
      </button>
      <button type="button" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
        Older
      </button>
    </nav>
  );
}

export function Notice({ notice }: { notice: NoticeText | undefined }) {
  if (!notice) return null;
  const parts = notice.text.split(/(msg_[A-Za-z0-9_-]+)/);
  return (
    <p class={notice.failed ? 'notice error-text' : 'notice'} role={notice.failed ? 'alert' : 'status'}>
      {parts.map((part) => (/^msg_[A-Za-z0-9_-]+$/.test(part) ? <a href={`#/messages/${part}`}>{part}</a> : part))}
    </p>
  );
}

/**
 * Runs an action and keeps what it said, until `scope` changes (another tab, another message): a
 * notice belongs to where it was given.
 */
export function useAct(refresh: () => void, scope: unknown = undefined) {
  const [notice, setNotice] = useState<(NoticeText & { scope: unknown }) | undefined>(undefined);
  const act = (what: () => Promise<string | undefined>) => async () => {
    try {
      const text = await what();
      setNotice(text === undefined ? undefined : { text, failed: false, scope });
    } catch (error) {
      setNotice({ text: error instanceof Error ? error.message : String(error), failed: true, scope });
    }
    refresh();
  };
  return { notice: notice && notice.scope === scope ? notice : undefined, act };
}
