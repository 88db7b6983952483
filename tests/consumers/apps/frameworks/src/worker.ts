// A Cloudflare Worker without a framework (`export default { fetch }`), as
// docs/frameworks/cloudflare.md shows it: the Cloudflare entry of @mailroom/adapters, every setting
// (keys, token, URLs) from the Worker's bindings, none from process.env. `/run` is this test's own
// route: it runs the shared scenario inside the Worker and answers its report.
import { createMailroom } from '@mailroom/adapters/cloudflare';
import { crashing, orderPlaced, runScenario, seen } from './scenario.js';

type Bindings = Record<string, string>;

const mailroom = createMailroom();
const routes: Record<string, (request: Request, env: Bindings, ctx: unknown) => Promise<Response>> = {
  [orderPlaced.path]: mailroom.destination(orderPlaced, (message, { env }) => {
    seen.orders.push(message.body);
    // What the handler is handed besides the message: the request's own bindings.
    seen.frameworkContext.push((env as Bindings).MAILROOM_APP_URL === undefined ? 'no bindings' : 'bindings');
  }),
  [crashing.path]: mailroom.destination(crashing, () => {
    throw new Error('the handler fails');
  }),
  '/callbacks': mailroom.callback(
    (message) => void seen.callbacks.push({ status: message.status, isFinalAttempt: message.isFinalAttempt }),
  ),
  '/failures': mailroom.failureCallback(
    (message) => void seen.failures.push({ dlqId: message.dlqId, sourceBody: message.sourceBody.data }),
    {
      source: crashing,
    },
  ),
};

export default {
  fetch(request: Request, env: Bindings, ctx: unknown): Promise<Response> | Response {
    const path = new URL(request.url).pathname;
    if (path === '/run') return runScenario(env.MAILROOM_APP_URL!, env).then((report) => Response.json(report));
    return routes[path]?.(request, env, ctx) ?? new Response('Not found', { status: 404 });
  },
};
