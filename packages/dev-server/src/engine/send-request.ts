import http from 'node:http';
import https from 'node:https';
import { headerValuesFromRaw } from '../http/header-names';
import type { HeaderValues } from '../state/records';

/** One outgoing request of an attempt. */
export interface OutgoingRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  /** Aborts on shutdown: the attempt is then not counted. */
  signal: AbortSignal;
}

/** What the destination answered, or why it did not. */
export type RequestResult =
  | { ok: true; status: number; headers: HeaderValues; body: Buffer; bytesReceived: number }
  | { ok: false; error: string; timedOut: boolean; aborted: boolean };

/** Response bytes kept for callbacks and the DLQ; the rest is read (and counted) but not stored. */
const MAX_KEPT_RESPONSE_BYTES = 1_048_576;

/** Sends attempts over keep-alive connections of its own. */
export interface RequestSender {
  send(request: OutgoingRequest): Promise<RequestResult>;
  /** Closes the connections, so a closed dev server leaves no socket behind. */
  close(): void;
}

/**
 * One sender per dev server: keep-alive saves a TCP handshake per attempt, and owning the agents
 * means closing one server never cuts another's connections (tests run several in one process).
 */
export function createRequestSender(): RequestSender {
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  return {
    send: (request) => sendRequest(request, agents),
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/**
 * Sends one request with node:http(s), the raw body and exactly the given headers (fetch would add
 * its own, which a destination might sign-check or log). Never rejects: a network error or the
 * timeout (covering the whole answer, body included) is a result, since both are delivery failures.
 */
function sendRequest(request: OutgoingRequest, agents: { http: http.Agent; https: https.Agent }): Promise<RequestResult> {
  return new Promise((resolve) => {
    const timeout = AbortSignal.timeout(request.timeoutMs);
    const signal = AbortSignal.any([timeout, request.signal]);
    const failed = (error: unknown): void => {
      resolve({
        ok: false,
        error: timeout.aborted ? `timeout after ${request.timeoutMs / 1000}s` : error instanceof Error ? error.message : String(error),
        timedOut: timeout.aborted,
        aborted: request.signal.aborted,
      });
    };
    let url: URL;
    try {
      url = new URL(request.url);
    } catch (error) {
      failed(error);
      return;
    }
    const secure = url.protocol === 'https:';
    const outgoing = (secure ? https : http).request(url, {
      method: request.method,
      headers: { ...request.headers, 'Content-Length': String(request.body.length) },
      agent: secure ? agents.https : agents.http,
      signal,
    });
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
      response.on('end', () => {
        resolve({
          ok: true,
          status: response.statusCode ?? 0,
          headers: headerValuesFromRaw(response.rawHeaders),
          body: Buffer.concat(chunks),
          bytesReceived: received,
        });
      });
    });
    outgoing.end(request.body);
  });
}
