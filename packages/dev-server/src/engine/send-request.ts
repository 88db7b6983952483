import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { headerValuesFromRaw } from '../http/header-names';
import type { HeaderValues } from '../state/records';

/** One outgoing request of an attempt. */
export interface OutgoingRequest {
  url: string;
  method: string;
  /** The attempt's own headers: the sender adds `Content-Length` to them. */
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
}

/** What the destination answered, or why it did not. */
export type RequestResult =
  | { ok: true; status: number; headers: HeaderValues; body: Buffer; bytesReceived: number }
  | { ok: false; error: string; timedOut: boolean; aborted: boolean };

/** Response bytes kept for callbacks and the DLQ; the rest is read (and counted) but not stored. */
const MAX_KEPT_RESPONSE_BYTES = 1_048_576;

/** Parsed destination URLs kept; a dev server talks to a handful, so this is only a bound. */
const MAX_CACHED_TARGETS = 1024;

/** Sends attempts over keep-alive connections of its own. */
export interface RequestSender {
  send(request: OutgoingRequest): Promise<RequestResult>;
  /** Aborts every request still running (on shutdown): each resolves with `aborted: true`. */
  abortAll(): void;
  /** Closes the connections, so a closed dev server leaves no socket behind. */
  close(): void;
}

interface Target {
  secure: boolean;
  options: http.RequestOptions;
}

interface SenderState {
  agents: { http: http.Agent; https: https.Agent };
  targets: Map<string, Target>;
  /** Cancels every running request: one function each, no AbortController per attempt. */
  running: Set<() => void>;
}

/**
 * One sender per dev server: keep-alive saves a TCP handshake per attempt, and owning the agents
 * means closing one server never cuts another's connections (tests run several in one process).
 */
export function createRequestSender(): RequestSender {
  const state: SenderState = {
    agents: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
    targets: new Map(),
    running: new Set(),
  };
  return {
    send: (request) => sendRequest(request, state),
    abortAll() {
      for (const cancel of [...state.running]) cancel();
    },
    close() {
      state.agents.http.destroy();
      state.agents.https.destroy();
    },
  };
}

/** The request options of a URL, parsed once per URL rather than once per attempt. */
function targetOf(url: string, state: SenderState): Target {
  let target = state.targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    // Only what http.request reads: the rest of urlToHttpOptions (href, hash, ...) would be copied
    // into every request's options for nothing.
    const { protocol, hostname, port, path, auth } = urlToHttpOptions(parsed);
    const options: http.RequestOptions = { protocol, hostname, path };
    if (port !== undefined && port !== '') options.port = port;
    if (auth !== undefined) options.auth = auth;
    target = { secure: parsed.protocol === 'https:', options };
    if (state.targets.size >= MAX_CACHED_TARGETS) state.targets.clear();
    state.targets.set(url, target);
  }
  return target;
}

/**
 * Sends one request with node:http(s), the raw body and exactly the given headers (fetch would add
 * its own, which a destination might sign-check or log). Never rejects: a network error or the
 * timeout (covering the whole answer, body included) is a result, since both are delivery failures.
 */
function sendRequest(request: OutgoingRequest, state: SenderState): Promise<RequestResult> {
  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let target: Target;
    try {
      target = targetOf(request.url, state);
    } catch (error) {
      resolve({ ok: false, error: error instanceof Error ? error.message : String(error), timedOut, aborted });
      return;
    }
    // The request's headers are its own (built per attempt), so the length is added in place.
    request.headers['Content-Length'] = String(request.body.length);
    const { options } = target;
    const outgoing = (target.secure ? https : http).request({
      protocol: options.protocol,
      hostname: options.hostname,
      port: options.port,
      path: options.path,
      auth: options.auth,
      method: request.method,
      headers: request.headers,
      agent: target.secure ? state.agents.https : state.agents.http,
    });
    const cancel = (): void => {
      aborted = true;
      outgoing.destroy(new Error('aborted: the dev server is closing'));
    };
    // One plain timer: AbortSignal.timeout plus AbortSignal.any per attempt cost several times more.
    const timer = setTimeout(() => {
      timedOut = true;
      outgoing.destroy(new Error('timeout'));
    }, request.timeoutMs);
    state.running.add(cancel);
    const finish = (result: RequestResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      state.running.delete(cancel);
      resolve(result);
    };
    const failed = (error: unknown): void => {
      finish({
        ok: false,
        error: timedOut ? `timeout after ${request.timeoutMs / 1000}s` : error instanceof Error ? error.message : String(error),
        timedOut,
        aborted,
      });
    };
    outgoing.on('error', failed);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (kept < MAX_KEPT_RESPONSE_BYTES) {
          const part = chunk.subarray(0, MAX_KEPT_RESPONSE_BYTES - kept);
          chunks.push(part);
          kept += part.length;
        }
      });
      response.on('error', failed);
      // A connection cut mid-answer (or destroyed by the timeout) may end with `close` alone.
      response.on('close', () => {
        if (!response.complete) failed(new Error('the destination closed the connection before the whole answer arrived'));
      });
      response.on('end', () => {
        finish({
          ok: true,
          status: response.statusCode ?? 0,
          headers: headerValuesFromRaw(response.rawHeaders),
          body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
          bytesReceived: received,
        });
      });
    });
    outgoing.end(request.body);
  });
}
