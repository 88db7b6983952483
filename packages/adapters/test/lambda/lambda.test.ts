import { ValidationError } from '@mailroom/core';
import { delivery, order, orderPlacedAt, receiverOptions } from '@mailroom/test-support';
import { describe, expect, it, vi } from 'vitest';
import { createMailroom, type HttpApiEvent, type LambdaHttpEvent, type RestApiEvent } from '../../src/lambda';

// Each event shape Lambda hands an HTTP function, as AWS documents it (payload 1.0 of REST APIs,
// 2.0 of HTTP APIs and function URLs, an ALB with and without multi-value headers), carrying a
// delivery signed for the URL the service called.

const HOST = 'abc123.execute-api.eu-west-1.amazonaws.com';

/** A REST API event on stage `prod`: `path` without the stage, `requestContext.path` with it. */
async function restApiEvent(path: string, body: unknown, options: { base64?: boolean; stage?: string } = {}): Promise<RestApiEvent> {
  const stage = options.stage ?? 'prod';
  const signed = await delivery(`https://${HOST}/${stage}${path}`, body);
  const headers: Record<string, string> = { Host: HOST, 'User-Agent': 'Upstash-QStash', ...signed.headers };
  return {
    httpMethod: 'POST',
    path,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { path: `/${stage}${path}`, stage },
    body: options.base64 ? signed.body.toString('base64') : signed.body.toString('utf8'),
    isBase64Encoded: options.base64 === true,
  };
}

/** An HTTP API (or function URL) event, payload 2.0: lower-case headers, `rawPath` as called. */
async function httpApiEvent(rawPath: string, body: unknown, options: { base64?: boolean; query?: string } = {}): Promise<HttpApiEvent> {
  const signed = await delivery(`https://${HOST}${rawPath}${options.query ? `?${options.query}` : ''}`, body);
  return {
    version: '2.0',
    rawPath,
    rawQueryString: options.query ?? '',
    headers: Object.fromEntries(Object.entries({ host: HOST, ...signed.headers }).map(([name, value]) => [name.toLowerCase(), value])),
    requestContext: { http: { method: 'POST' } },
    body: options.base64 ? signed.body.toString('base64') : signed.body.toString('utf8'),
    isBase64Encoded: options.base64 === true,
  };
}

/** An ALB event: no stage, `requestContext.elb`, headers in one shape or the other. */
async function albEvent(path: string, body: unknown, multiValue: boolean): Promise<RestApiEvent> {
  const signed = await delivery(`https://orders.example.com${path}`, body);
  const headers = { host: 'orders.example.com', ...signed.headers };
  return {
    httpMethod: 'POST',
    path,
    ...(multiValue
      ? { multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])) }
      : { headers }),
    requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:eu-west-1:123:targetgroup/orders/1' } },
    body: signed.body.toString('base64'),
    isBase64Encoded: true,
  };
}

const orders = orderPlacedAt('/orders');
const lambdaContext = { awsRequestId: 'req-1', functionName: 'orders' };

function handlerFor(seen: unknown[]) {
  return createMailroom(receiverOptions).destination(orders, (message, { event, context }) => {
    seen.push({ body: message.body, context, shape: 'version' in event ? 'v2' : 'v1' });
  });
}

describe('AWS Lambda', () => {
  it('takes a REST API event: the stage in requestContext.path is the signed path, headers in both shapes', async () => {
    const seen: unknown[] = [];
    const result = await handlerFor(seen)(await restApiEvent('/orders', order), lambdaContext);
    expect(result).toMatchObject({ statusCode: 200, isBase64Encoded: false });
    expect(result.multiValueHeaders).toEqual({});
    expect(result.headers).toBeUndefined();
    expect(seen).toEqual([{ body: order, context: lambdaContext, shape: 'v1' }]);
  });

  it('takes a base64 body (binary media types) as the exact bytes', async () => {
    const seen: unknown[] = [];
    expect((await handlerFor(seen)(await restApiEvent('/orders', order, { base64: true }))).statusCode).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('takes an HTTP API or function URL event (payload 2.0) with its raw path and query', async () => {
    const seen: unknown[] = [];
    const handler = createMailroom(receiverOptions).destination(orderPlacedAt('/prod/orders'), (message) => void seen.push(message.body));
    const result = await handler(await httpApiEvent('/prod/orders', order, { query: 'tenant=acme' }));
    expect(result).toMatchObject({ statusCode: 200, headers: {} });
    expect(result.multiValueHeaders).toBeUndefined();
    expect(seen).toEqual([order]);
  });

  it('takes an ALB event, answering with a status line, and multi-value headers back when they came so', async () => {
    for (const multiValue of [false, true]) {
      const seen: unknown[] = [];
      const result = await handlerFor(seen)(await albEvent('/orders', order, multiValue));
      expect(result).toMatchObject({ statusCode: 200, statusDescription: '200 OK' });
      expect(multiValue ? result.multiValueHeaders : result.headers).toBeDefined();
      expect(seen).toHaveLength(1);
    }
  });

  it('refuses a token signed for another stage, and one whose body API Gateway changed', async () => {
    const handler = handlerFor([]);
    // Signed for /staging/orders, called on /prod/orders: bound to the endpoint it was signed for.
    const wrongStage = await restApiEvent('/orders', order, { stage: 'staging' });
    const calledOnProd: LambdaHttpEvent = { ...wrongStage, requestContext: { path: '/prod/orders', stage: 'prod' } };
    expect((await handler(calledOnProd)).statusCode).toBe(401);
    const changed = await restApiEvent('/orders', order);
    expect((await handler({ ...changed, body: JSON.stringify({ ...order, total: 0 }) })).statusCode).toBe(401);
  });

  it("answers the pipeline's refusals in the event's shape: 489 for a body the schema refuses, 405 with Allow, 413", async () => {
    const handler = handlerFor([]);
    expect((await handler(await restApiEvent('/orders', { orderId: 7 }))).statusCode).toBe(489);
    const get = { ...(await httpApiEvent('/orders', order)), requestContext: { http: { method: 'GET' } } };
    const refused = await handler(get);
    expect(refused).toMatchObject({ statusCode: 405, headers: { allow: 'POST' } });
    const small = createMailroom({ ...receiverOptions, maxBodyBytes: 8 }).destination(orders, () => {});
    expect((await small(await httpApiEvent('/orders', order))).statusCode).toBe(413);
  });

  it('answers 500 without a stack when the handler throws, and reports it once', async () => {
    const onError = vi.fn();
    const handler = createMailroom({ ...receiverOptions, onError }).destination(orders, () => {
      throw new Error('database down at 10.0.0.7');
    });
    const result = await handler(await httpApiEvent('/orders', order));
    expect(result).toMatchObject({ statusCode: 500, body: '{"error":"handler failed"}' });
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('says what to do when it is given an event that is not an HTTP one', async () => {
    const handler = handlerFor([]);
    const sqs = { Records: [{ messageId: '1', body: '{}' }] } as unknown as LambdaHttpEvent;
    await expect(handler(sqs)).rejects.toThrow(ValidationError);
    await expect(handler(sqs)).rejects.toThrow(/expected an HTTP event .*Records/);
    await expect(handler(null as never)).rejects.toThrow(/got object|got undefined|HTTP event/);
  });

  it('gives callbacks and failure callbacks the same translation', async () => {
    const mailroom = createMailroom(receiverOptions);
    const statuses: number[] = [];
    const callback = mailroom.callback((message) => void statuses.push(message.status ?? -1));
    const body = {
      status: 200,
      body: 'b2s=',
      retried: 0,
      maxRetries: 3,
      sourceMessageId: 'msg_1',
      url: 'https://x',
      method: 'POST',
      sourceHeader: {},
      sourceBody: 'e30=',
      notBefore: 0,
      createdAt: 0,
      scheduleId: '',
      callerIP: '',
    };
    expect((await callback(await httpApiEvent('/callbacks', body))).statusCode).toBe(200);
    expect(statuses).toEqual([200]);
  });
});
