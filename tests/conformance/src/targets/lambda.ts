import { createMailroom, type LambdaHandler, type LambdaHttpEvent, type LambdaHttpResult } from '@mailroom/adapters/lambda';
import type { ConformanceTarget, TargetRequest, TargetResponse } from '../target';

/**
 * The shapes Lambda hands an HTTP function: a REST API (payload 1.0, on the execute-api domain with
 * its stage in the path), an HTTP API or function URL (payload 2.0), an ALB with multi-value headers.
 */
type EventShape = 'rest-api' | 'http-api' | 'alb';

const HOST = 'abc123.execute-api.eu-west-1.amazonaws.com';
const STAGE = 'prod';

/**
 * Each request becomes the event API Gateway or the ALB would make of it, and the handler's result
 * becomes the response they would send; no AWS is needed, as in a Lambda's own unit tests. A REST API
 * is called at `/prod/...` while its `path` leaves the stage out: the trap the adapter must handle.
 * With `publicUrl` it stands behind a custom domain mapped to the stage, which adds no stage.
 */
function lambdaTarget(name: string, shape: EventShape): ConformanceTarget {
  return {
    name,
    start: async (setup) => {
      const mailroom = createMailroom(setup.options);
      const routes = new Map<string, LambdaHandler>([
        [setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler)],
        [setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions)],
        [setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
      ]);
      const stagePrefix = shape === 'rest-api' && setup.options.publicUrl === undefined ? `/${STAGE}` : '';
      return {
        origin: shape === 'alb' ? 'https://orders.example.com' : `https://${HOST}${stagePrefix}`,
        pathPrefix: stagePrefix,
        send: async (request) => {
          const path = request.path.split('?', 1)[0] ?? '/';
          const route = routes.get(path);
          if (!route) return { status: 404, headers: {}, body: 'Not found' };
          const event = eventOf(shape, request, stagePrefix);
          return fromResult(await route(event, { awsRequestId: 'conformance' }));
        },
        close: async () => {},
      };
    },
  };
}

function eventOf(shape: EventShape, request: TargetRequest, stagePrefix: string): LambdaHttpEvent {
  const [path = '/', query = ''] = request.path.split('?', 2);
  // API Gateway passes a body as text unless its media type is binary; a delivery's bytes are sent as base64 here.
  const body = request.body.byteLength > 0 ? Buffer.from(request.body).toString('base64') : null;
  if (shape === 'http-api') {
    return {
      version: '2.0',
      rawPath: `${stagePrefix}${path}`,
      rawQueryString: query,
      headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value])),
      requestContext: { http: { method: request.method } },
      ...(body !== null ? { body } : {}),
      isBase64Encoded: body !== null,
    };
  }
  // A REST API hands the parameters decoded; an ALB as the client sent them ("the load balancer does
  // not decode them"). Either way a parameter without `=` (`?flag`) arrives with an empty value.
  const multiValueQueryStringParameters: Record<string, string[]> = {};
  for (const [key, value] of shape === 'alb' ? rawParameters(query) : new URLSearchParams(query))
    (multiValueQueryStringParameters[key] ??= []).push(value);
  return {
    httpMethod: request.method,
    path,
    multiValueHeaders: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, [value]])),
    multiValueQueryStringParameters: query ? multiValueQueryStringParameters : null,
    requestContext:
      shape === 'alb'
        ? { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:::targetgroup/orders/1' } }
        : { path: `${stagePrefix}${path}`, stage: STAGE },
    body,
    isBase64Encoded: body !== null,
  };
}

function rawParameters(query: string): Array<[string, string]> {
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)];
    });
}

function fromResult(result: LambdaHttpResult): TargetResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = value;
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name.toLowerCase()] = values.join(', ');
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
  return { status: result.statusCode, headers, body };
}

export const lambdaRestApiTarget = lambdaTarget('aws lambda, REST API (payload 1.0, stage in the path)', 'rest-api');
export const lambdaHttpApiTarget = lambdaTarget('aws lambda, HTTP API or function URL (payload 2.0)', 'http-api');
export const lambdaAlbTarget = lambdaTarget('aws lambda, ALB (multi-value headers)', 'alb');
