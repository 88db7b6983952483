import type { IncomingMessage } from 'node:http';
import type { Endpoint, HandledResponse } from '../receive/create-receiver';
import type { InboundRequest } from '../receive/inbound-request';
import { readInboundNow } from './read-inbound';

/** How a Node framework names the request URL and explains a body its parser already consumed. */
export interface HandleNodeRequestOptions {
  /** The URL as the app sees it, mount path included (Express: `req.originalUrl`). Default `req.url`. */
  url?: string;
  /** The framework's own fix when a parser ate the body (ends the 500's message). */
  consumedHint?: string;
}

/**
 * The whole Node side of one delivery: exact bytes in as `readInbound` reads them (limit enforced while
 * streaming), the endpoint's pipeline, and one answer. A failure while reading maps to the same
 * statuses as failures inside the pipeline, so 413, 400 and the fix-it 500 read alike in every adapter.
 *
 * @example
 * const out = await handleNodeRequest(endpoint, req, { url: req.originalUrl });
 * writeOutbound(res, out);
 */
export async function handleNodeRequest(
  endpoint: Endpoint,
  req: IncomingMessage,
  options: HandleNodeRequestOptions = {},
): Promise<HandledResponse> {
  const url = options.url ?? req.url;
  let input: InboundRequest;
  try {
    const read = readInboundNow(req, { maxBodyBytes: endpoint.maxBodyBytes, url, consumedHint: options.consumedHint });
    input = read instanceof Promise ? await read : read;
  } catch (error) {
    return endpoint.errorResponse(error, {
      method: req.method ?? 'GET',
      ...(url !== undefined ? { url } : {}),
      headers: req.headers,
      rawBody: new Uint8Array(0),
    });
  }
  // `return await`: adopting a returned promise costs two more microtasks than awaiting it.
  return await endpoint.handle(input);
}
