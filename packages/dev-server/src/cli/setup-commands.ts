import {
  BODY_OPTIONS,
  bodyOf,
  type Command,
  type Context,
  confirm,
  ids,
  PAGE_OPTIONS,
  print,
  retriesOf,
  text,
  time,
  UsageError,
  wholeNumber,
} from './command-kit';
import { applyScheduleSync, describeSyncPlan, planScheduleSync, readScheduleFile } from './schedules-sync';

// Commands on what the service is set up with (queues, URL groups, schedules) and on workflow runs.

/** Acts on each named thing in turn, then prints what was done to which (`paused  orders, emails`). */
async function onEach(context: Context, verb: string, names: readonly string[], act: (name: string) => Promise<void>): Promise<void> {
  for (const name of names) await act(name);
  print(context, { [verb]: names }, [verb], [{ [verb]: names.join(', ') }]);
}

export const SETUP_COMMANDS: readonly Command[] = [
  {
    name: 'queues',
    summary: 'Queues with their parallelism and lag',
    example: 'mailroom queues --json',
    run: async (context) => {
      const queues = await context.client.queues.list();
      print(context, queues, ['name', 'parallelism', 'lag', 'paused'], queues as Array<Record<string, unknown>>);
    },
  },
  {
    name: 'queues set',
    summary: 'Create a queue, or change its parallelism or pause it',
    example: 'mailroom queues set orders --parallelism 5',
    options: {
      parallelism: { type: 'string', description: 'messages delivered at once (default 1: strict order)' },
      paused: { type: 'boolean', description: 'hold deliveries until `mailroom queues resume`' },
    },
    run: async (context) => {
      const [name] = ids(context, 'queue names');
      const parallelism = wholeNumber(context, 'parallelism');
      await context.client.queues.upsert({
        name: name!,
        ...(parallelism !== undefined ? { parallelism } : {}),
        ...(context.values.paused === true ? { paused: true } : {}),
      });
      const queue = await context.client.queues.get(name!);
      print(context, queue, ['name', 'parallelism', 'lag', 'paused'], [queue as Record<string, unknown>]);
    },
  },
  ...(['pause', 'resume'] as const).map(
    (change): Command => ({
      name: `queues ${change}`,
      summary: change === 'pause' ? 'Hold deliveries of queues (messages are still accepted)' : 'Deliver from paused queues again',
      example: `mailroom queues ${change} orders`,
      run: async (context) => {
        const names = ids(context, 'queue names');
        await onEach(context, `${change}d`, names, (name) => context.client.queues[change](name));
      },
    }),
  ),
  {
    name: 'queues delete',
    summary: 'Delete queues (their pending messages go with them)',
    example: 'mailroom queues delete orders --yes',
    run: async (context) => {
      const names = ids(context, 'queue names');
      await confirm(context, `Delete ${names.join(', ')} and every message waiting in it`);
      await onEach(context, 'deleted', names, (name) => context.client.queues.delete(name));
    },
  },
  {
    name: 'url-groups',
    summary: 'URL groups and their endpoints',
    example: 'mailroom url-groups',
    run: async (context) => {
      const groups = await context.client.urlGroups.list();
      print(
        context,
        groups,
        ['name', 'endpoints'],
        groups.map((group) => ({ name: group.name, endpoints: group.endpoints.map((endpoint) => endpoint.url).join(', ') })),
      );
    },
  },
  {
    name: 'url-groups add',
    summary: 'Add endpoints to a URL group, creating it if needed',
    example: 'mailroom url-groups add orders https://a.example.com/api/orders https://b.example.com/api/orders',
    run: async (context) => {
      const [group, ...urls] = context.positionals;
      if (!group || urls.length === 0) throw new UsageError('give the URL group, then one or more endpoint URLs');
      await context.client.urlGroups.addEndpoints(
        group,
        urls.map((url) => ({ url })),
      );
      const saved = await context.client.urlGroups.get(group);
      print(context, saved, ['name', 'endpoints'], [{ name: saved.name, endpoints: saved.endpoints.map((each) => each.url).join(', ') }]);
    },
  },
  {
    name: 'url-groups remove',
    summary: 'Remove endpoints from a URL group',
    example: 'mailroom url-groups remove orders https://b.example.com/api/orders',
    run: async (context) => {
      const [group, ...urls] = context.positionals;
      if (!group || urls.length === 0) throw new UsageError('give the URL group, then one or more endpoint URLs');
      await context.client.urlGroups.removeEndpoints(
        group,
        urls.map((url) => ({ url })),
      );
      print(context, { removed: urls }, ['removed'], [{ removed: urls.join(', ') }]);
    },
  },
  {
    name: 'url-groups delete',
    summary: 'Delete URL groups',
    example: 'mailroom url-groups delete orders --yes',
    run: async (context) => {
      const names = ids(context, 'URL group names');
      await confirm(context, `Delete the URL group(s) ${names.join(', ')}`);
      await onEach(context, 'deleted', names, (name) => context.client.urlGroups.delete(name));
    },
  },
  {
    name: 'schedules list',
    summary: 'Schedules with their cron and next firing',
    example: 'mailroom schedules list',
    run: async (context) => {
      const schedules = await context.client.schedules.list();
      print(
        context,
        schedules,
        ['scheduleId', 'cron', 'destination', 'isPaused', 'nextScheduleTime'],
        schedules.map((schedule) => ({ ...schedule, nextScheduleTime: time(schedule.nextScheduleTime) })),
      );
    },
  },
  {
    name: 'schedules create',
    summary: 'Create a schedule (or replace the one with --schedule-id); the body from --body or --file',
    example: "mailroom schedules create https://app.example.com/api/report --cron '0 3 * * *' --schedule-id nightly-report",
    options: {
      cron: { type: 'string', description: "five cron fields, UTC unless it starts with CRON_TZ=Area/City (e.g. '0 3 * * *')" },
      'schedule-id': { type: 'string', description: 'your own id: an existing one is replaced' },
      body: { type: 'string', description: 'the body each firing sends' },
      ...BODY_OPTIONS,
      queue: { type: 'string', description: 'enqueue each firing on this queue' },
    },
    run: async (context) => {
      const [destination] = context.positionals;
      const cron = text(context, 'cron');
      if (!destination || !cron) throw new UsageError('give the destination (a URL or URL group) and --cron');
      const body = await bodyOf(context, () => text(context, 'body'));
      const retries = retriesOf(context);
      const created = await context.client.schedules.create({
        destination,
        cron,
        ...(body !== undefined ? { body, contentType: text(context, 'content-type') ?? 'application/json' } : {}),
        ...(text(context, 'schedule-id') ? { scheduleId: text(context, 'schedule-id') } : {}),
        ...(text(context, 'queue') ? { queue: text(context, 'queue') } : {}),
        ...(retries !== undefined ? { retries } : {}),
      });
      print(context, created, ['scheduleId'], [created]);
    },
  },
  ...(['pause', 'resume'] as const).map(
    (change): Command => ({
      name: `schedules ${change}`,
      summary: change === 'pause' ? 'Stop schedules firing until resumed' : 'Let paused schedules fire again',
      example: `mailroom schedules ${change} nightly-report`,
      run: async (context) => {
        const names = ids(context, 'schedule ids');
        await onEach(context, `${change}d`, names, (name) => context.client.schedules[change](name));
      },
    }),
  ),
  {
    name: 'schedules delete',
    summary: 'Delete schedules',
    example: 'mailroom schedules delete nightly-report --yes',
    run: async (context) => {
      const names = ids(context, 'schedule ids');
      await confirm(context, `Delete the schedule(s) ${names.join(', ')}`);
      await onEach(context, 'deleted', names, (name) => context.client.schedules.delete(name));
    },
  },
  {
    name: 'schedules sync',
    summary: 'Make the service hold exactly the schedules of a file (JSON, JS or TS): shows the diff, applies with --apply',
    example: 'mailroom schedules sync schedules.ts --apply',
    options: { apply: { type: 'boolean', description: 'make the changes (without it, only show them)' } },
    run: async (context) => {
      const [file] = context.positionals;
      if (!file) throw new UsageError('give the file that lists the schedules');
      const wanted = await readScheduleFile(file);
      const plan = planScheduleSync(wanted, await context.client.schedules.list());
      if (context.json) context.io.out(`${JSON.stringify(plan, null, 2)}\n`);
      else context.io.out(describeSyncPlan(plan));
      const changes = plan.create.length + plan.update.length + plan.delete.length;
      if (changes === 0 || context.values.apply !== true) {
        if (changes > 0 && !context.json) context.io.out('Run again with --apply to make these changes.\n');
        return;
      }
      if (plan.delete.length > 0) await confirm(context, `Delete ${plan.delete.length} schedule(s) not in ${file}`);
      await applyScheduleSync(context.client, plan);
      if (!context.json) context.io.out(`Applied ${changes} change(s).\n`);
    },
  },
  {
    name: 'workflows runs',
    summary: 'Workflow runs, newest first, with their state',
    example: 'mailroom workflows runs --count 10',
    options: { ...PAGE_OPTIONS, 'run-id': { type: 'string', description: 'only this run' } },
    run: async (context) => {
      const page = await context.client.workflows.logs({
        ...(text(context, 'run-id') ? { workflowRunId: text(context, 'run-id') } : {}),
        count: wholeNumber(context, 'count'),
        cursor: text(context, 'cursor'),
      });
      print(
        context,
        page,
        ['workflowRunId', 'workflowState', 'workflowUrl', 'workflowRunCreatedAt'],
        page.runs.map((run) => ({ ...run, workflowRunCreatedAt: time(run.workflowRunCreatedAt) })),
      );
    },
  },
  {
    name: 'workflows cancel',
    summary: 'Cancel workflow runs by id',
    example: 'mailroom workflows cancel wfr_1 wfr_2',
    run: async (context) => {
      const result = await context.client.workflows.cancel(ids(context, 'run ids'));
      print(context, result, ['cancelled'], [result]);
    },
  },
  {
    name: 'workflows dlq',
    summary: 'Failed workflow runs, newest first',
    example: 'mailroom workflows dlq --count 10',
    options: { ...PAGE_OPTIONS },
    run: async (context) => {
      const page = await context.client.workflowDlq.list({ count: wholeNumber(context, 'count'), cursor: text(context, 'cursor') });
      print(
        context,
        page,
        ['dlqId', 'workflowRunId', 'workflowUrl', 'responseStatus'],
        page.messages.map((entry) => entry as Record<string, unknown>),
      );
    },
  },
  ...(['restart', 'resume'] as const).map(
    (how): Command => ({
      name: `workflows ${how}`,
      summary:
        how === 'restart'
          ? 'Start failed runs over, each as a new run (by workflow DLQ id)'
          : 'Resume failed runs from their failed step (by workflow DLQ id)',
      example: `mailroom workflows ${how} 1795804419065-0`,
      run: async (context) => {
        const runs = await context.client.workflowDlq[how](ids(context, 'workflow DLQ ids'));
        print(context, runs, ['workflowRunId', 'workflowCreatedAt'], runs as Array<Record<string, unknown>>);
      },
    }),
  ),
];
