import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type MessagingClient, type Schedule, ValidationError } from '@mailroom/core';
import { parseCron, parseDuration } from '@mailroom/core/internal-protocol';

// Schedules kept as code: a file lists them, `mailroom schedules sync` shows what differs from the
// service and, with --apply, makes the service hold exactly those. Each schedule is known by its
// `scheduleId`, so a second run finds nothing to change.

/** One schedule as a file writes it. */
export interface ScheduleSpec {
  scheduleId: string;
  destination: string;
  cron: string;
  /** Text, or a value sent as its JSON. */
  body?: unknown;
  method?: string;
  retries?: number;
  /** `30s`, `5m`, or seconds. */
  delay?: string | number;
  callback?: string;
  failureCallback?: string;
  queue?: string;
}

/** What a sync would do. */
export interface SyncPlan {
  create: ScheduleSpec[];
  update: Array<{ spec: ScheduleSpec; changed: string[] }>;
  delete: string[];
}

const FIELDS = ['scheduleId', 'destination', 'cron', 'body', 'method', 'retries', 'delay', 'callback', 'failureCallback', 'queue'];

/** The schedules of a JSON, JS or TS file: its default export (or `schedules`), an array. */
export async function readScheduleFile(file: string): Promise<ScheduleSpec[]> {
  const path = resolve(file);
  const extension = extname(path);
  let loaded: unknown;
  if (extension === '.json') loaded = JSON.parse(await readFile(path, 'utf8'));
  else if (extension === '.ts' || extension === '.mts' || extension === '.cts') {
    // TypeScript through jiti: Node 20 cannot import .ts itself. Without its disk cache: each run read
    // one small file, and left a transpiled copy of it in the temporary folder for good.
    const { createJiti } = await import('jiti');
    loaded = await createJiti(import.meta.url, { fsCache: false }).import(path);
  } else loaded = await import(pathToFileURL(path).href);
  const module = loaded as { default?: unknown; schedules?: unknown };
  const list = Array.isArray(loaded) ? loaded : (module.schedules ?? module.default);
  const inner = (list as { schedules?: unknown } | undefined)?.schedules ?? list;
  if (!Array.isArray(inner)) {
    throw new ValidationError(
      'schedules',
      `${file} must export an array of schedules (export default [...], or { "schedules": [...] } in JSON)`,
    );
  }
  return inner.map((spec, index) => checkSpec(spec, `${file}[${index}]`));
}

function checkSpec(value: unknown, where: string): ScheduleSpec {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ValidationError(where, 'expected a schedule object');
  const spec = value as Record<string, unknown>;
  for (const key of Object.keys(spec)) {
    if (!FIELDS.includes(key)) throw new ValidationError(`${where}.${key}`, `unknown field; a schedule has ${FIELDS.join(', ')}`);
  }
  for (const key of ['scheduleId', 'destination', 'cron'] as const) {
    if (typeof spec[key] !== 'string' || spec[key] === '') throw new ValidationError(`${where}.${key}`, 'required: a non-empty string');
  }
  try {
    parseCron(spec.cron);
  } catch (error) {
    throw new ValidationError(`${where}.cron`, (error as Error).message);
  }
  return spec as unknown as ScheduleSpec;
}

const bodyText = (body: unknown): string | undefined =>
  body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
const delaySeconds = (delay: string | number | undefined): number | undefined =>
  delay === undefined ? undefined : parseDuration('delay', delay);

/** The fields of `spec` the service holds otherwise, by name. */
function differences(spec: ScheduleSpec, schedule: Schedule): string[] {
  const changed: string[] = [];
  const compare = (name: string, wanted: unknown, held: unknown) => {
    if (wanted !== held) changed.push(name);
  };
  compare('destination', spec.destination, schedule.destination);
  compare('cron', spec.cron, schedule.cron);
  compare('body', bodyText(spec.body) ?? '', schedule.body ?? '');
  compare('method', (spec.method ?? 'POST').toUpperCase(), (schedule.method ?? 'POST').toUpperCase());
  // Unset in the file: left as the plan's default, whatever the service reports for it.
  if (spec.retries !== undefined) compare('retries', spec.retries, schedule.retries);
  compare('delay', delaySeconds(spec.delay) ?? 0, schedule.delay ?? 0);
  compare('callback', spec.callback ?? '', schedule.callback ?? '');
  compare('failureCallback', spec.failureCallback ?? '', schedule.failureCallback ?? '');
  compare('queue', spec.queue ?? '', schedule.queueName ?? '');
  return changed;
}

/** What differs between the file's schedules and the service's. */
export function planScheduleSync(wanted: readonly ScheduleSpec[], held: readonly Schedule[]): SyncPlan {
  const seen = new Set<string>();
  for (const spec of wanted) {
    if (seen.has(spec.scheduleId)) throw new ValidationError('scheduleId', `${spec.scheduleId} is listed twice`);
    seen.add(spec.scheduleId);
  }
  const byId = new Map(held.map((schedule) => [schedule.scheduleId, schedule]));
  const plan: SyncPlan = { create: [], update: [], delete: [] };
  for (const spec of wanted) {
    const schedule = byId.get(spec.scheduleId);
    if (!schedule) plan.create.push(spec);
    else {
      const changed = differences(spec, schedule);
      if (changed.length > 0) plan.update.push({ spec, changed });
    }
  }
  for (const schedule of held) if (!seen.has(schedule.scheduleId)) plan.delete.push(schedule.scheduleId);
  return plan;
}

/** The plan as a person reads it: `+` create, `~` update (the fields), `-` delete. */
export function describeSyncPlan(plan: SyncPlan): string {
  const lines = [
    ...plan.create.map((spec) => `+ ${spec.scheduleId}  ${spec.cron}  ${spec.destination}`),
    ...plan.update.map(({ spec, changed }) => `~ ${spec.scheduleId}  (${changed.join(', ')})`),
    ...plan.delete.map((id) => `- ${id}`),
  ];
  if (lines.length === 0) return 'The service holds exactly these schedules: nothing to change.\n';
  return `${lines.join('\n')}\n${plan.create.length} to create, ${plan.update.length} to update, ${plan.delete.length} to delete.\n`;
}

/** Makes the changes: a create or an update is the same call (a schedule id replaces its schedule). */
export async function applyScheduleSync(client: MessagingClient, plan: SyncPlan): Promise<void> {
  for (const spec of [...plan.create, ...plan.update.map(({ spec }) => spec)]) {
    const body = bodyText(spec.body);
    await client.schedules.create({
      scheduleId: spec.scheduleId,
      destination: spec.destination,
      cron: spec.cron,
      ...(body !== undefined ? { body } : {}),
      ...(typeof spec.body === 'object' && spec.body !== null ? { contentType: 'application/json' } : {}),
      ...(spec.method !== undefined ? { method: spec.method.toUpperCase() as never } : {}),
      ...(spec.retries !== undefined ? { retries: spec.retries } : {}),
      ...(spec.delay !== undefined ? { delay: spec.delay as never } : {}),
      ...(spec.callback !== undefined ? { callback: spec.callback } : {}),
      ...(spec.failureCallback !== undefined ? { failureCallback: spec.failureCallback } : {}),
      ...(spec.queue !== undefined ? { queue: spec.queue } : {}),
    });
  }
  for (const id of plan.delete) await client.schedules.delete(id);
}
