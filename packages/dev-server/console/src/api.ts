import type { LogEvent, MessagingClient } from '@mailroom/core';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ConsoleSettings } from '../../src/http/console';
import type { MessageStory } from '../../src/http/message-list';
import type { DelaySource } from '../../src/state/records';

export type { ConsoleSettings };

// The console talks to the dev server through Mailroom's own client, with the token the server
// printed: what the console can do, any client can. The token lives in this tab's sessionStorage.

const TOKEN_KEY = 'mailroom-console-token';

/** A log event with the dev server's extra fields for the console. */
export type ConsoleEvent = LogEvent & {
  kind?: 'message' | 'callback' | 'failure-callback';
  sourceMessageId?: string;
  method?: string;
  delaySource?: DelaySource;
  /** When a delayed message is first due (Unix ms), on its events. */
  notBefore?: number;
  /** The message this one was resent from. */
  resentFrom?: string;
  /** The workflow run a step message (or trigger) belongs to. */
  workflowRunId?: string;
  attempt?: {
    retried: number;
    startedAt: number;
    durationMs: number;
    requestHeaders: Record<string, string>;
    /** The sender's trace (its forwarded `traceparent`), when the send was traced. */
    trace?: { traceId: string; spanId: string };
    response?: { status: number; headers: Record<string, string[]>; body: string; truncated: boolean };
    error?: string;
  };
};

/** One message as `/dev/messages/:id` tells it, with its events as the console reads them. */
export type Story = MessageStory<ConsoleEvent>;

/** Reads the token from `#token=...` (then removes it from the address bar) or from this tab's storage. */
export function takeToken(): string | undefined {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match?.[1]) {
    const token = decodeURIComponent(match[1]);
    sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, '', `${location.pathname}#/messages`);
    return token;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/**
 * Mailroom's client, loaded at its first call: core (with its schemas) is most of the console's
 * script, and the first page of rows needs none of it (`devRequest` reads the list). Every method,
 * however deep (`client.dlq.retry`), is a call that waits for the real one.
 */
export function makeClient(token: string, settings: ConsoleSettings): MessagingClient {
  let loaded: Promise<MessagingClient> | undefined;
  const real = () =>
    (loaded ??= import('@mailroom/core').then(({ createMessagingClient }) =>
      createMessagingClient({ baseUrl: location.origin, token, headerPrefix: settings.headerPrefix, retry: false, env: {} }),
    ));
  const at = (path: readonly string[]): unknown =>
    new Proxy(() => undefined, {
      // `then` stays undefined: the client is not itself a promise.
      get: (_target, name) => (typeof name === 'string' && name !== 'then' ? at([...path, name]) : undefined),
      apply: async (_target, _this, args: unknown[]) => {
        const owner = path
          .slice(0, -1)
          .reduce<Record<string, unknown>>((value, name) => value[name] as Record<string, unknown>, (await real()) as never);
        return (owner[path.at(-1)!] as (...values: unknown[]) => unknown).apply(owner, args);
      },
    });
  return at([]) as MessagingClient;
}

/**
 * Calls one of the dev server's own endpoints (`/dev/...`, not part of the service, so not in the
 * client) with this tab's token; a refusal becomes an Error with the server's message.
 */
export async function devRequest<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ''}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new Error(answer.error ?? `${method} ${path} answered ${response.status}`);
  return answer;
}

/** The settings the server put in the page (`withSettings` in src/http/console.ts), else none yet. */
export function pageSettings(): ConsoleSettings | undefined {
  const text = document.getElementById('mailroom-settings')?.textContent;
  return text ? (JSON.parse(text) as ConsoleSettings) : undefined;
}

export async function loadSettings(): Promise<ConsoleSettings> {
  const response = await fetch('/console/settings.json');
  return (await response.json()) as ConsoleSettings;
}

/** The newest log events (up to 1000), polled: the console's live view of everything. */
export async function recentEvents(client: MessagingClient): Promise<ConsoleEvent[]> {
  const page = await client.logs.list({ count: 1000 });
  return page.events as ConsoleEvent[];
}

/**
 * Calls `load` now and every `intervalMs` while mounted; `refresh` runs it at once (after an action).
 * A new `key` (a filter, a page) starts over at once, and an answer for the old key is dropped.
 */
export function usePoll<T>(
  load: () => Promise<T>,
  intervalMs = 1000,
  key = '',
): { data: T | undefined; error: string | undefined; loaded: boolean; refresh: () => void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loaded, setLoaded] = useState(false);
  const loader = useRef(load);
  loader.current = load;
  const [tick, setTick] = useState(0);
  // A layout effect: the request leaves in the task of the click that asked for it, not a frame later.
  useLayoutEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const value = await loader.current();
        if (alive) {
          setData(value);
          setError(undefined);
        }
      } catch (failure) {
        if (alive) setError(failure instanceof Error ? failure.message : String(failure));
      }
      if (alive) setLoaded(true);
      if (alive) timer = setTimeout(run, intervalMs);
    };
    void run();
    return () => {
      alive = false;
      if (timer) clearTimeout(timer);
    };
  }, [intervalMs, tick, key]);
  return { data, error, loaded, refresh: () => setTick((value) => value + 1) };
}

/** Decodes a body the interface gives as base64 into text, pretty-printed when it is JSON. */
export function decodeBody(base64: string | undefined): string {
  if (base64 === undefined || base64 === '') return '';
  if (base64.startsWith('REDACTED')) return base64;
  try {
    return pretty(new TextDecoder().decode(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0))));
  } catch {
    return base64;
  }
}

/** Text read as JSON when it is JSON, else the text itself. */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The fields of a body that holds a JSON object (a callback's report), else none. */
export function jsonFields(text: string | undefined): Record<string, unknown> {
  const value = jsonOrText(text ?? '');
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A message's body as the detail shows it: its text, pretty when JSON, or its base64 when it is not text. */
export function shownBody(message: Story['message']): string {
  if (message.body !== undefined) return pretty(message.body);
  return message.bodyBase64 === undefined ? '' : `(not UTF-8 text; base64) ${message.bodyBase64}`;
}

export function pretty(text: string): string {
  const value = jsonOrText(text);
  return typeof value === 'string' ? text : JSON.stringify(value, null, 2);
}

/** The claims of a signature token (shown, not verified: the receiver verifies). */
export function decodeClaims(token: string | undefined): Record<string, unknown> | undefined {
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

// One formatter each: `toLocaleString` with options builds a new one per call, which at 100 cells a
// page cost more than the rest of the render. The options are those the two calls default to.
const TIME = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: 'numeric', second: 'numeric', hour12: false });
const DATE_TIME = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hour12: false,
  timeZoneName: 'short',
});

export function time(ms: number | undefined): string {
  if (ms === undefined || ms === 0) return '';
  return `${TIME.format(ms)}.${String(ms % 1000).padStart(3, '0')}`;
}

/** A date and time with its zone (`25/11/2026, 13:20:05 UTC`): a schedule's time means nothing without it. */
export function dateTime(ms: number | undefined): string {
  if (ms === undefined || ms === 0) return '';
  return DATE_TIME.format(ms);
}
