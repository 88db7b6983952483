import { headerNames } from '@mailroom/core/internal-protocol';
import { z } from 'zod';
import { calling, done, id, listed, type McpTool, path } from './tool-kit';

// Tools for what the service is set up with: URL groups, queues and schedules, listed, created,
// changed, paused and deleted, each through the route the client would call.

const endpointsInput = {
  name: id('the URL group name'),
  urls: z.array(z.string().url()).min(1).describe('endpoint URLs, e.g. http://localhost:3000/api/orders'),
};

/** A tool whose body is built from its arguments. */
function withBody(
  name: string,
  title: string,
  description: string,
  route: string,
  input: z.ZodRawShape,
  body: (args: Record<string, unknown>) => unknown,
  summary: McpTool['summary'],
): McpTool {
  const [method = 'POST', pattern = '/'] = route.split(' ');
  return {
    name,
    title,
    description,
    route,
    input,
    filters: false,
    call: (args) => ({ method, target: path(pattern, args), body: body(args) }),
    summary,
  };
}

/** Pause and resume of a queue or a schedule: the same tool twice. */
const pausing = (what: 'queue' | 'schedule', route: (change: string) => string, param: string) =>
  (['pause', 'resume'] as const).map((change) =>
    calling(
      `${change}_${what}`,
      `${change === 'pause' ? 'Pause' : 'Resume'} a ${what}`,
      change === 'pause'
        ? what === 'queue'
          ? 'Hold the deliveries of a queue (messages are still accepted) until resumed.'
          : 'Stop a schedule firing until resumed.'
        : `Let a paused ${what} ${what === 'queue' ? 'deliver' : 'fire'} again.`,
      route(change),
      { [param]: id(`the ${what} ${what === 'queue' ? 'name' : 'id'}`) },
      false,
      done(`${change}d`),
    ),
  );

export const SETUP_TOOLS: readonly McpTool[] = [
  calling(
    'list_url_groups',
    'List URL groups',
    'URL groups (topics) and their endpoints.',
    'GET /v2/topics',
    {},
    false,
    listed('URL groups'),
  ),
  withBody(
    'add_url_group_endpoints',
    'Add endpoints to a URL group',
    'Add endpoint URLs to a URL group (a message to the group goes to each), creating the group if needed.',
    'POST /v2/topics/:name/endpoints',
    endpointsInput,
    (args) => ({ endpoints: (args.urls as string[]).map((url) => ({ url })) }),
    done('added'),
  ),
  withBody(
    'remove_url_group_endpoints',
    'Remove endpoints from a URL group',
    'Remove endpoint URLs from a URL group.',
    'DELETE /v2/topics/:name/endpoints',
    endpointsInput,
    (args) => ({ endpoints: (args.urls as string[]).map((url) => ({ url })) }),
    done('removed'),
  ),
  calling(
    'delete_url_group',
    'Delete a URL group',
    'Delete a URL group and its endpoints.',
    'DELETE /v2/topics/:name',
    { name: id('the URL group name') },
    false,
    done('deleted'),
  ),
  calling(
    'list_queues',
    'List queues',
    'Queues with their parallelism, lag and whether paused.',
    'GET /v2/queues',
    {},
    false,
    listed('queues'),
  ),
  withBody(
    'set_queue',
    'Create or change a queue',
    'Create a queue, or change its parallelism (messages delivered at once; 1 keeps strict order) or pause it.',
    'POST /v2/queues',
    {
      queueName: id('the queue name'),
      parallelism: z.number().int().positive().optional(),
      paused: z.boolean().optional(),
    },
    (args) => args,
    done('saved'),
  ),
  ...pausing('queue', (change) => `POST /v2/queues/:name/${change}`, 'name'),
  calling(
    'delete_queue',
    'Delete a queue',
    'Delete a queue; the messages waiting in it go with it.',
    'DELETE /v2/queues/:name',
    { name: id('the queue name') },
    false,
    done('deleted'),
  ),
  calling(
    'list_schedules',
    'List schedules',
    'Schedules with their cron, destination and next firing.',
    'GET /v2/schedules',
    {},
    false,
    listed('schedules'),
  ),
  {
    name: 'create_schedule',
    title: 'Create a schedule',
    description: 'Send a message on a cron, each firing a normal message. With the id of an existing schedule, replaces it.',
    route: 'POST /v2/schedules/*',
    input: {
      destination: z.string().min(1).describe('a URL (http://localhost:3000/api/report) or a URL group name'),
      cron: z.string().min(1).describe('five cron fields, UTC unless it starts with CRON_TZ=Area/City, e.g. 0 3 * * *'),
      scheduleId: z.string().min(1).optional().describe('your own id; the service picks one when absent'),
      body: z.unknown().optional().describe('the JSON body each firing sends'),
      retries: z.number().int().min(0).optional(),
      queue: z.string().min(1).optional().describe('enqueue each firing on this queue'),
    },
    filters: false,
    call: (args, { headerPrefix }) => {
      const names = headerNames(headerPrefix);
      const headers: Record<string, string> = { 'content-type': 'application/json', [names.cron.toLowerCase()]: String(args.cron) };
      if (typeof args.scheduleId === 'string') headers[names.scheduleId.toLowerCase()] = args.scheduleId;
      if (typeof args.queue === 'string') headers[names.queueName.toLowerCase()] = args.queue;
      if (typeof args.retries === 'number') headers[names.delivery.retries.toLowerCase()] = String(args.retries);
      return { method: 'POST', target: `/v2/schedules/${String(args.destination)}`, body: args.body, headers };
    },
    summary: (answer) =>
      `created schedule ${(answer.json as { scheduleId?: string } | undefined)?.scheduleId ?? `nothing (${answer.status})`}`,
  },
  ...pausing('schedule', (change) => `PATCH /v2/schedules/:id/${change}`, 'id'),
  calling(
    'fire_schedule',
    'Fire a schedule now',
    'Publish a schedule now, as its cron would.',
    'POST /dev/schedules/:scheduleId/fire',
    { scheduleId: id('the schedule id') },
    false,
    done('fired'),
  ),
  calling(
    'delete_schedule',
    'Delete a schedule',
    'Delete a schedule: it fires no more.',
    'DELETE /v2/schedules/:id',
    { id: id('the schedule id') },
    false,
    done('deleted'),
  ),
];
