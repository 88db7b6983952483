import type { EmbeddedReply, EmbeddedRequest } from '@mailroom/dev-server/internal-embedded';

// Node's global fetch to a test service's own URL, answered in-process. The vendor's SDKs can only
// reach the service by URL, and a loopback round trip through undici was the largest single part of
// a workflow step's CPU, about a sixth (docs/benchmarks.md, section 8). Every other request goes to
// the fetch that was there before, untouched.

type Answer = (request: EmbeddedRequest) => Promise<EmbeddedReply>;

/** The interface's paths; the console and `/mcp` stay on the socket, where their guard is. */
const INTERFACE_PATH = /^\/(v2|dev)\//;

/** Services answering in-process, by origin (`http://127.0.0.1:port`). */
const answering = new Map<string, Answer>();
let installed: { wrapper: typeof fetch; previous: typeof fetch } | undefined;

/**
 * Answers the global fetch's requests to `url`'s origin with `answer` until the returned function is
 * called. Several services share one wrapper; the last one out restores the fetch it found, unless
 * something wrapped fetch since (a mock library), which then keeps a wrapper that passes everything on.
 */
export function answerGlobalFetch(url: string, answer: Answer): () => void {
  const origin = new URL(url).origin;
  answering.set(origin, answer);
  if (!installed || globalThis.fetch !== installed.wrapper) {
    const previous = globalThis.fetch;
    const wrapper = ((input: string | URL | Request, init?: RequestInit) => fetchThrough(previous, input, init)) as typeof fetch;
    installed = { wrapper, previous };
    globalThis.fetch = wrapper;
  }
  return () => {
    if (answering.get(origin) !== answer) return;
    answering.delete(origin);
    if (answering.size === 0 && installed && globalThis.fetch === installed.wrapper) {
      globalThis.fetch = installed.previous;
      installed = undefined;
    }
  };
}

function fetchThrough(previous: typeof fetch, input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const url = URL.canParse(href) ? new URL(href) : undefined;
  const answer = url && INTERFACE_PATH.test(url.pathname) ? answering.get(url.origin) : undefined;
  if (!url || !answer) return previous(input, init);
  return answerInProcess(answer, url, input, init);
}

async function answerInProcess(answer: Answer, url: URL, input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
  // The common call (`fetch(url, { method, headers, body: string })`) read directly; anything else
  // (a Request, a stream, form data) through a Request, as fetch itself would read it.
  const simple = !(input instanceof Request) && (init?.body == null || typeof init.body === 'string' || init.body instanceof Uint8Array);
  const request = simple ? undefined : new Request(input, init);
  const signal = request?.signal ?? init?.signal;
  signal?.throwIfAborted();
  const method = (request?.method ?? init?.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  for (const [name, value] of request?.headers ?? new Headers(init?.headers)) headers[name] = value;
  headers.host = url.host;
  const body = request
    ? Buffer.from(await request.arrayBuffer())
    : init?.body == null
      ? Buffer.alloc(0)
      : Buffer.from(init.body as string | Uint8Array);
  if (body.length > 0 && headers['content-type'] === undefined && typeof init?.body === 'string') {
    headers['content-type'] = 'text/plain;charset=UTF-8';
  }
  const reply = await answer({ method, target: `${url.pathname}${url.search}`, headers, body });
  signal?.throwIfAborted();
  const empty = method === 'HEAD' || reply.status === 204 || reply.status === 205 || reply.status === 304;
  // Bytes, not a string: a string body would add a content type the port's answer does not have.
  const response = new Response(empty ? null : Buffer.from(reply.body), { status: reply.status, headers: reply.headers });
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}
