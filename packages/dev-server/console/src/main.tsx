import type { MessagingClient } from '@mailroom/core';
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { devRequest, forgetToken, loadSettings, makeClient, pageSettings, saveToken, takeToken, type ConsoleSettings } from './api';
import { FaultBanner, FaultsView, useFaults } from './faults';
import { MessagesView } from './messages';
import { DlqView, LogsView, QueuesView, SchedulesView, UrlGroupsView } from './resources';
import { SendView, SettingsView, StatsView } from './send';
import { WorkflowsView } from './workflows';
import './styles.css';

// The console's shell: sign-in with the printed token, the views in the URL's hash (so back and
// forward work, and a link opens the same view), light and dark themes.

const VIEWS = [
  ['messages', 'Messages'],
  ['workflows', 'Workflows'],
  ['dlq', 'DLQ'],
  ['queues', 'Queues'],
  ['schedules', 'Schedules'],
  ['url-groups', 'URL groups'],
  ['logs', 'Logs'],
  ['stats', 'Statistics'],
  ['faults', 'Faults'],
  ['send', 'Send'],
  ['settings', 'Settings'],
] as const;

type View = (typeof VIEWS)[number][0];

function route(hash = location.hash): { view: View; id: string | undefined } {
  const [, view, id] = /^#\/([a-z-]+)(?:\/(.+))?$/.exec(hash) ?? [];
  const known = VIEWS.some(([name]) => name === view);
  return { view: known ? (view as View) : 'messages', id: id ? decodeURIComponent(id) : undefined };
}

function useRoute() {
  const [current, setCurrent] = useState(route);
  useEffect(() => {
    const update = (hash?: string) =>
      setCurrent((old) => {
        const next = route(hash);
        return next.view === old.view && next.id === old.id ? old : next;
      });
    const onHashChange = () => update();
    // An in-app link is followed at its click: Chromium fires `hashchange` some 15 ms later.
    const onClick = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = event.target instanceof Element ? event.target.closest('a[href^="#/"]') : null;
      if (link) update(link.getAttribute('href') ?? undefined);
    };
    addEventListener('hashchange', onHashChange);
    addEventListener('click', onClick);
    return () => {
      removeEventListener('hashchange', onHashChange);
      removeEventListener('click', onClick);
    };
  }, []);
  return current;
}

function useTheme(): [string, () => void] {
  const [theme, setTheme] = useState(
    () => localStorage.getItem('mailroom-console-theme') ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'),
  );
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('mailroom-console-theme', theme);
  }, [theme]);
  return [theme, () => setTheme(theme === 'dark' ? 'light' : 'dark')];
}

function SignIn({ onToken, error }: { onToken: (token: string) => void; error: string | undefined }) {
  const [value, setValue] = useState('');
  return (
    <main class="signin">
      <h1>Mailroom dev console</h1>
      <p>
        Open the console link <code>mailroom dev</code> printed (it carries the token), or paste the token it printed. The console never
        opens without it: a page on another site must not be able to send or delete here.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onToken(value.trim());
        }}
      >
        <label class="field">
          <span>Token</span>
          <input
            name="token"
            type="password"
            autocomplete="off"
            value={value}
            onInput={(event) => setValue((event.target as HTMLInputElement).value)}
            required
          />
        </label>
        <button type="submit" class="primary">
          Open the console
        </button>
      </form>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </main>
  );
}

function Console({
  client,
  settings,
  token,
  onSignOut,
}: {
  client: MessagingClient;
  settings: ConsoleSettings;
  token: string;
  onSignOut: () => void;
}) {
  const { view, id } = useRoute();
  const [theme, toggleTheme] = useTheme();
  const faults = useFaults();
  const title = VIEWS.find(([name]) => name === view)?.[1] ?? 'Messages';
  useEffect(() => {
    document.title = `${title} · Mailroom dev console`;
  }, [title]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && (view === 'messages' || view === 'workflows') && id) location.hash = `#/${view}`;
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [view, id]);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <nav class="views" aria-label="Views">
        <div class="brand">
          <span class="logo" aria-hidden="true">
            ✉
          </span>{' '}
          Mailroom <small>dev</small>
        </div>
        <ul>
          {VIEWS.map(([name, label]) => (
            <li>
              <a href={`#/${name}`} aria-current={view === name ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
        <div class="nav-foot">
          <button type="button" onClick={toggleTheme} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}>
            {theme === 'dark' ? '☀ Light' : '☾ Dark'}
          </button>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </nav>
      <main id="main" tabIndex={-1}>
        <header class="page-head">
          <h1>{title}</h1>
          <span class="muted">
            {settings.url} · prefix {settings.headerPrefix}
            {settings.timeScale !== 1 ? ` · time ×${1 / settings.timeScale}` : ''}
          </span>
        </header>
        <FaultBanner faults={faults.data} />
        {view === 'messages' && <MessagesView client={client} settings={settings} selected={id} />}
        {view === 'workflows' && <WorkflowsView client={client} selected={id} />}
        {view === 'dlq' && <DlqView client={client} />}
        {view === 'queues' && <QueuesView client={client} />}
        {view === 'schedules' && <SchedulesView client={client} />}
        {view === 'url-groups' && <UrlGroupsView client={client} />}
        {view === 'logs' && <LogsView client={client} />}
        {view === 'stats' && <StatsView client={client} />}
        {view === 'faults' && <FaultsView faults={faults} />}
        {view === 'send' && <SendView client={client} />}
        {view === 'settings' && <SettingsView client={client} settings={settings} token={token} />}
      </main>
    </div>
  );
}

function App() {
  const [token, setToken] = useState(takeToken);
  // In the page as served; fetched only when the page came from elsewhere (a dev build of the console).
  const [settings, setSettings] = useState<ConsoleSettings | undefined>(pageSettings);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!settings) loadSettings().then(setSettings, (failure: unknown) => setError(String(failure)));
  }, []);
  const client = useMemo(() => (token && settings ? makeClient(token, settings) : undefined), [token, settings]);
  useEffect(() => {
    if (!client) return;
    // One call that needs the token, so a wrong one is caught at sign-in, not on every view. It runs
    // beside the view's first requests: the rows do not wait a round trip for it.
    devRequest('GET', '/v2/keys').catch((failure: unknown) => {
      forgetToken();
      setToken(undefined);
      setError(failure instanceof Error ? `That token does not open this dev server: ${failure.message}` : String(failure));
    });
  }, [client]);
  if (!token || !client || !settings) {
    return (
      <SignIn
        error={error}
        onToken={(value) => {
          saveToken(value);
          setError(undefined);
          setToken(value);
        }}
      />
    );
  }
  return (
    <Console
      client={client}
      settings={settings}
      token={token}
      onSignOut={() => {
        forgetToken();
        setToken(undefined);
      }}
    />
  );
}

render(<App />, document.getElementById('app')!);
