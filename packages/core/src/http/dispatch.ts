// One HTTP request over undici's `dispatch`, as the pooled transport (`@mailroom/core/undici`) and the
// dev server's deliveries both send it: the exact headers and body, a single deadline for the whole
// answer, an optional caller's abort, and a promise that settles exactly once and never rejects.
// undici itself is not imported here (only its types): it stays an optional peer of core.
import type { Dispatcher } from 'undici';

/** One request: where (undici's origin and path), what, and how long the whole answer may take. */
export interface DispatchRequest {
  origin: string;
  /** Path and query. */
  path: string;
  method: string;
  headers: Readonly<Record<string, string>>;
  body: string | Uint8Array | null | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Bytes of the answer kept; the rest is read and counted, not stored. Default: all. */
  keepBytes?: number;
}

/** What the server answered, or why nothing did. */
export type DispatchResult =
  | {
      ok: true;
      status: number;
      statusText: string;
      /** As undici parsed them: lower-case names, arrays for repeated ones. */
      headers: Record<string, string | string[] | undefined>;
      /** The answer's bytes, up to `keepBytes`. */
      body: Buffer;
      /** Every byte of the answer's body, kept or not. */
      bytesReceived: number;
    }
  | { ok: false; error: unknown; timedOut: boolean; aborted: boolean };

/**
 * Sends one request. The deadline covers connecting, sending and the whole answer, body included;
 * an abort of `signal` ends it at once. Once settled, the request is aborted and undici's later
 * report of that abort is ignored. Never sends twice: retries are the caller's decision.
 */
export function dispatchOnce(dispatcher: Dispatcher, request: DispatchRequest): Promise<DispatchResult> {
  return new Promise<DispatchResult>((resolve) => {
    const { signal } = request;
    if (signal?.aborted) {
      resolve({ ok: false, error: signal.reason, timedOut: false, aborted: true });
      return;
    }
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    // Set when we gave up before undici handed over a controller (the request was still queued).
    let giveUpReason: Error | undefined;
    let status = 0;
    let statusText = '';
    let headers: Record<string, string | string[] | undefined> = {};
    const chunks: Buffer[] = [];
    const keepBytes = request.keepBytes ?? Number.POSITIVE_INFINITY;
    let kept = 0;
    let received = 0;

    const finish = (result: DispatchResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    // Settles before aborting: undici may report the abort synchronously, as an error of its own.
    const stop = (error: Error, result: DispatchResult): void => {
      if (settled) return;
      finish(result);
      if (controller) controller.abort(error);
      else giveUpReason = error;
    };
    function onAbort(): void {
      const reason: unknown = signal?.reason;
      stop(reason instanceof Error ? reason : new Error('aborted'), { ok: false, error: reason, timedOut: false, aborted: true });
    }
    // One plain timer per request: AbortSignal.timeout with AbortSignal.any costs several times more.
    const timer = setTimeout(() => {
      const error = new Error(`timeout after ${request.timeoutMs / 1000}s`);
      stop(error, { ok: false, error, timedOut: true, aborted: false });
    }, request.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(start) {
        if (giveUpReason) start.abort(giveUpReason);
        else controller = start;
      },
      onResponseStart(_controller, statusCode, responseHeaders, statusMessage) {
        status = statusCode;
        statusText = statusMessage ?? '';
        headers = responseHeaders;
      },
      onResponseData(_controller, chunk) {
        received += chunk.length;
        if (kept < keepBytes) {
          const part = kept + chunk.length <= keepBytes ? chunk : chunk.subarray(0, keepBytes - kept);
          chunks.push(part);
          kept += part.length;
        }
      },
      onResponseEnd() {
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        finish({ ok: true, status, statusText, headers, body, bytesReceived: received });
      },
      onResponseError(_controller, error) {
        finish({ ok: false, error, timedOut: false, aborted: false });
      },
    };
    try {
      const { origin, path, method, headers: sent, body } = request;
      dispatcher.dispatch({ origin, path, method, headers: sent, body: body ?? null }, handler);
    } catch (error) {
      finish({ ok: false, error, timedOut: false, aborted: false });
    }
  });
}
