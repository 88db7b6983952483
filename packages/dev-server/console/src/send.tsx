import type { MessagingClient } from '@mailroom/core';
import { useMemo, useState } from 'preact/hooks';
import { recentEvents, usePoll, type ConsoleSettings } from './api';
import { Action, ErrorLine, Field } from './ui';

// Sending from a form (checked by the same client an app uses, so the messages are the same), the
// statistics chart, and the settings to copy into an app.

export function SendView({ client }: { client: MessagingClient }) {
  const [form, setForm] = useState({
    destination: '',
    queue: '',
    body: '{\n  "hello": "world"\n}',
    contentType: 'application/json',
    retries: '',
    delay: '',
    label: '',
  });
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const set = (key: keyof typeof form) => (event: Event) => setForm({ ...form, [key]: (event.target as HTMLInputElement).value });
  const send = async () => {
    try {
      const options = {
        destination: form.destination,
        body: form.body,
        ...(form.contentType ? { contentType: form.contentType } : {}),
        ...(form.retries !== '' ? { retries: Number(form.retries) } : {}),
        ...(form.delay !== '' ? { delay: /^\d+$/.test(form.delay) ? Number(form.delay) : form.delay } : {}),
        ...(form.label !== '' ? { label: form.label.split(',').map((part) => part.trim()) } : {}),
      };
      const answer = form.queue ? await client.enqueue({ ...options, queue: form.queue }) : await client.publish(options);
      const ids = Array.isArray(answer) ? answer.map((item) => item.messageId) : [answer.messageId];
      setResult({ ok: true, text: `Sent: ${ids.join(', ')}` });
    } catch (error) {
      setResult({
        ok: false,
        text: error instanceof Error ? error.message : String(error),
      });
    }
  };
  return (
    <section aria-label="Send a message">
      <form
        class="form"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <Field label="Destination" hint="A URL (https://...) or a URL group name">
          <input
            name="destination"
            required
            value={form.destination}
            onInput={set('destination')}
            placeholder="http://localhost:3000/order-placed"
          />
        </Field>
        <Field label="Queue" hint="Leave empty to publish without a queue">
          <input name="queue" value={form.queue} onInput={set('queue')} />
        </Field>
        <Field label="Body">
          <textarea name="body" rows={8} value={form.body} onInput={set('body')} />
        </Field>
        <div class="row">
          <Field label="Content type">
            <input name="contentType" value={form.contentType} onInput={set('contentType')} />
          </Field>
          <Field label="Retries">
            <input name="retries" inputMode="numeric" value={form.retries} onInput={set('retries')} />
          </Field>
          <Field label="Delay" hint="30s, 5m, 1h">
            <input name="delay" value={form.delay} onInput={set('delay')} />
          </Field>
          <Field label="Labels" hint="Comma-separated">
            <input name="label" value={form.label} onInput={set('label')} />
          </Field>
        </div>
        <button type="submit" class="primary">
          Send
        </button>
        {result && (
          <p class={result.ok ? 'notice' : 'error-text'} role={result.ok ? 'status' : 'alert'} data-result={result.ok ? 'sent' : 'refused'}>
            {result.text}
          </p>
        )}
      </form>
    </section>
  );
}

/** Deliveries and failures per minute over the last 30 minutes, from the logs. */
export function StatsView({ client }: { client: MessagingClient }) {
  const { data, error } = usePoll(() => recentEvents(client), 2000);
  const buckets = useMemo(() => {
    const now = Date.now();
    const minutes = Array.from({ length: 30 }, (_, index) => ({
      start: Math.floor(now / 60_000) * 60_000 - (29 - index) * 60_000,
      delivered: 0,
      failed: 0,
      errors: 0,
    }));
    for (const event of data ?? []) {
      const bucket = minutes.find((minute) => event.time >= minute.start && event.time < minute.start + 60_000);
      if (!bucket) continue;
      if (event.state === 'DELIVERED') bucket.delivered += 1;
      else if (event.state === 'FAILED') bucket.failed += 1;
      else if (event.state === 'ERROR') bucket.errors += 1;
    }
    return minutes;
  }, [data]);
  const max = Math.max(1, ...buckets.map((bucket) => bucket.delivered + bucket.failed + bucket.errors));
  const totals = buckets.reduce(
    (sum, bucket) => ({
      delivered: sum.delivered + bucket.delivered,
      failed: sum.failed + bucket.failed,
      errors: sum.errors + bucket.errors,
    }),
    { delivered: 0, failed: 0, errors: 0 },
  );
  const width = 720;
  const height = 220;
  // Room for the counts on the left and the times below.
  const left = 36;
  const bar = (width - left) / buckets.length;
  const ticks = [...new Set([0, Math.round(max / 2), max])];
  const clock = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour12: false, hour: '2-digit', minute: '2-digit' });
  const scale = (value: number) => (value / max) * height;
  return (
    <section aria-label="Statistics">
      <ErrorLine error={error} />
      <p>
        Last 30 minutes: <strong>{totals.delivered}</strong> delivered, <strong>{totals.errors}</strong> failed attempts,{' '}
        <strong>{totals.failed}</strong> failed for good.
      </p>
      <svg class="chart" viewBox={`0 -12 ${width} ${height + 36}`} role="img" aria-label="Deliveries and failures per minute">
        {ticks.map((tick) => (
          <g>
            <line x1={left} y1={height - scale(tick)} x2={width} y2={height - scale(tick)} class="grid" />
            <text x={left - 6} y={height - scale(tick) + 4} class="axis-label" text-anchor="end" data-axis="y">
              {tick}
            </text>
          </g>
        ))}
        {buckets.map((bucket, index) => {
          const delivered = scale(bucket.delivered);
          const errors = scale(bucket.errors);
          const failed = scale(bucket.failed);
          const x = left + index * bar + 2;
          return (
            <g>
              <title>{`${new Date(bucket.start).toLocaleTimeString(undefined, { hour12: false })}: ${bucket.delivered} delivered, ${bucket.errors} failed attempts, ${bucket.failed} failed`}</title>
              <rect class="bar-delivered" x={x} y={height - delivered} width={bar - 4} height={delivered} />
              <rect class="bar-error" x={x} y={height - delivered - errors} width={bar - 4} height={errors} />
              <rect class="bar-failed" x={x} y={height - delivered - errors - failed} width={bar - 4} height={failed} />
            </g>
          );
        })}
        <line x1={left} y1={height} x2={width} y2={height} class="axis" />
        {[0, Math.floor(buckets.length / 2), buckets.length - 1].map((index, position) => (
          <text
            x={left + index * bar + (position === 2 ? bar : 0)}
            y={height + 18}
            class="axis-label"
            text-anchor={position === 0 ? 'start' : position === 1 ? 'middle' : 'end'}
            data-axis="x"
          >
            {clock(buckets[index]!.start + (position === 2 ? 60_000 : 0))}
          </text>
        ))}
      </svg>
      <p class="legend">
        <span class="key bar-delivered" /> delivered <span class="key bar-error" /> failed attempt <span class="key bar-failed" /> failed
        for good
      </p>
    </section>
  );
}

export function SettingsView({ client, settings, token }: { client: MessagingClient; settings: ConsoleSettings; token: string }) {
  const keys = usePoll(() => client.signingKeys.get(), 5000);
  const [copied, setCopied] = useState(false);
  const lines = [
    'MAILROOM_APP_URL=http://localhost:3000',
    `MAILROOM_URL=${settings.url}`,
    `MAILROOM_TOKEN=${token}`,
    `MAILROOM_CURRENT_SIGNING_KEY=${keys.data?.current ?? ''}`,
    `MAILROOM_NEXT_SIGNING_KEY=${keys.data?.next ?? ''}`,
    `MAILROOM_HEADER_PREFIX=${settings.headerPrefix}`,
  ].join('\n');
  return (
    <section aria-label="Settings">
      <p>
        Paste these lines into your app's <code>.env</code> (or set <code>MAILROOM_DEV=1</code> and skip them all):
      </p>
      <pre class="env" data-env>
        {lines}
      </pre>
      <div class="actions">
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(lines);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <Action
          danger
          confirm="The next key becomes current and a new next key is made. Apps configured with both old keys keep verifying after one rotation, not after two: paste the new lines above into them. Apps in dev mode (MAILROOM_DEV=1) pick up the new keys themselves."
          onClick={async () => {
            await client.signingKeys.rotate();
            keys.refresh();
          }}
        >
          Rotate signing keys
        </Action>
      </div>
      <dl class="facts">
        <dt>Header prefix</dt>
        <dd>{settings.headerPrefix}</dd>
        <dt>Issuer</dt>
        <dd>{settings.issuer}</dd>
        <dt>Plan</dt>
        <dd>{settings.plan}</dd>
        <dt>Time scale</dt>
        <dd>{settings.timeScale === 1 ? 'real time' : `${settings.timeScale} (waits run ${1 / settings.timeScale}x faster)`}</dd>
        <dt>Region</dt>
        <dd>{settings.region ?? 'none'}</dd>
        <dt>Data</dt>
        <dd>{settings.dataDir ? 'kept in a data directory' : 'in memory'}</dd>
      </dl>
    </section>
  );
}
