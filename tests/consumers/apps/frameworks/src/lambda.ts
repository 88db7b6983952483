// AWS Lambda handlers behind a local HTTP API stand-in, as `sam local` or serverless-offline run them:
// each request becomes a payload 2.0 event on stage `prod`, configured only by what `mailroom dev` printed.
import { createServer } from 'node:http';
import { createMailroom, type HttpApiEvent, type LambdaHandler } from '@mailroom/adapters/lambda';
import { crashing, orderPlaced, runScenario, seen } from './scenario.js';

const appUrl = process.env.MAILROOM_APP_URL!;
const mailroom = createMailroom();
const handlers: Record<string, LambdaHandler> = {
  [orderPlaced.path]: mailroom.destination(orderPlaced, (message, { event }) => {
    seen.orders.push(message.body);
    seen.frameworkContext.push((event as HttpApiEvent).rawPath);
  }),
  [crashing.path]: mailroom.destination(crashing, () => {
    throw new Error('the handler fails');
  }),
  '/callbacks': mailroom.callback(
    (message) => void seen.callbacks.push({ status: message.status, isFinalAttempt: message.isFinalAttempt }),
  ),
  '/failures': mailroom.failureCallback(
    (message) => void seen.failures.push({ dlqId: message.dlqId, sourceBody: message.sourceBody.data }),
    { source: crashing },
  ),
};

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const [rawPath = '/', rawQueryString = ''] = (req.url ?? '/').split('?', 2);
  const handler = handlers[rawPath];
  if (!handler) return void res.writeHead(404).end();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  const body = Buffer.concat(chunks);
  const event: HttpApiEvent = {
    version: '2.0',
    rawPath,
    rawQueryString,
    headers,
    requestContext: { http: { method: req.method ?? 'GET' } },
    ...(body.length > 0 ? { body: body.toString('base64'), isBase64Encoded: true } : {}),
  };
  const result = await handler(event, { awsRequestId: 'local' });
  res.writeHead(result.statusCode, result.headers).end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
});
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? new URL(appUrl).port), '127.0.0.1', resolve));
console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
await runScenario(appUrl);
server.close();
process.exit(0);
