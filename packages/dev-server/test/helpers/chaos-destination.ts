import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerifier, type NodeVerifier } from '@mailroom/core';

/** What the destination does with one attempt. */
export type Fault = 'ok' | 'slow' | 'error' | 'reset' | 'timeout';

/** The share of attempts given each fault, in order; the rest answer 200 at once. */
interface FaultMix {
  error: number;
  reset: number;
  timeout: number;
  slow: number;
}

/** 30% of attempts fail (500, connection reset, no answer before the timeout); 10% more are slow successes. */
const THIRTY_PERCENT_FAILURES: FaultMix = { error: 0.12, reset: 0.12, timeout: 0.06, slow: 0.1 };

/** The bodies the destination answers, so a test can count the response bytes the server read. */
const ANSWERS = { ok: 'ok', error: 'chaos: injected 500' } as const;

/** Bytes of the answer the destination sends for a fault: none for a reset or a timeout. */
export const answerBytes = (fault: Fault): number =>
  fault === 'error' ? ANSWERS.error.length : fault === 'reset' || fault === 'timeout' ? 0 : ANSWERS.ok.length;

/**
 * The fault of attempt `retried` of message `seq`, a pure function of the seed: a failing run can be
 * replayed exactly, and which attempts fail does not depend on the order in which they arrive.
 * (A 32-bit integer mix for spreading test cases, not for anything secret.)
 */
function faultFor(seed: number, seq: number, retried: number, mix: FaultMix = THIRTY_PERCENT_FAILURES): Fault {
  let h = (seed ^ Math.imul(seq + 1, 0x9e3779b1) ^ Math.imul(retried + 1, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  const unit = ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
  let bound = 0;
  for (const fault of ['error', 'reset', 'timeout', 'slow'] as const) {
    bound += mix[fault];
    if (unit < bound) return fault;
  }
  return 'ok';
}

/** One attempt as the destination saw it. */
export interface Arrival {
  seq: number;
  messageId: string;
  retried: number;
  fault: Fault;
  bodyBytes: number;
}

export interface ChaosDestinationOptions {
  seed: number;
  /** Header prefix of the deliveries (`Service` in tests). */
  headerPrefix: string;
  /** Every attempt must carry a valid signature of these keys, or the test fails. */
  keys: () => { currentSigningKey: string; nextSigningKey: string };
  /** How long a slow success takes. */
  slowMs?: number;
  /** Longer than the message timeout: the server gives up first. */
  hangMs?: number;
}

/** A real HTTP destination that fails a deterministic share of attempts in every way a network can. */
export interface ChaosDestination {
  url: `http://127.0.0.1:${number}`;
  /** Every attempt, in arrival order. */
  arrivals: Arrival[];
  /** Attempts per message id, in arrival order. */
  byMessage: Map<string, Arrival[]>;
  /** Message ids that got a 2xx at least once. */
  succeeded: Set<string>;
  /** Problems the destination saw (bad signature, missing headers): must stay empty. */
  problems: string[];
  close(): Promise<void>;
}

/** Starts a {@link ChaosDestination} on port 0. Bodies are the message's sequence number as text. */
export async function startChaosDestination(options: ChaosDestinationOptions): Promise<ChaosDestination> {
  const { seed, slowMs = 20, hangMs = 2_500 } = options;
  const prefix = options.headerPrefix.toLowerCase();
  const arrivals: Arrival[] = [];
  const byMessage = new Map<string, Arrival[]>();
  const succeeded = new Set<string>();
  const problems: string[] = [];
  const hanging = new Set<NodeJS.Timeout>();
  // Keys are read at the first request: with a data directory they are only known once the server started.
  let verifier: NodeVerifier | undefined;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const messageId = String(req.headers[`${prefix}-message-id`] ?? '');
      const retried = Number(req.headers[`${prefix}-retried`]);
      const seq = Number(body.toString('utf8'));
      verifier ??= createVerifier({ ...options.keys(), implementation: 'node' });
      try {
        verifier.verifySync({ signature: String(req.headers[`${prefix}-signature`] ?? ''), rawBody: body, url: `${url}${req.url ?? ''}` });
      } catch (error) {
        problems.push(`${messageId}: ${String(error)}`);
      }
      if (!messageId || !Number.isSafeInteger(retried) || !Number.isSafeInteger(seq))
        problems.push(`unreadable attempt ${messageId} ${String(retried)} ${body.toString('utf8')}`);
      const fault = faultFor(seed, seq, retried);
      const arrival: Arrival = { seq, messageId, retried, fault, bodyBytes: body.length };
      arrivals.push(arrival);
      const list = byMessage.get(messageId) ?? [];
      list.push(arrival);
      byMessage.set(messageId, list);
      answer(req, res, fault, () => succeeded.add(messageId));
    });
  });

  function answer(req: http.IncomingMessage, res: http.ServerResponse, fault: Fault, onSuccess: () => void): void {
    if (fault === 'reset') {
      // An RST, as a crashed peer or a middlebox sends: no FIN, so no TIME_WAIT left on this side (a
      // later connection from the same port would otherwise wait out a SYN retransmission, ~1 s).
      req.socket.resetAndDestroy();
      return;
    }
    if (fault === 'timeout') {
      // Never answered in time: the server's timeout aborts the request; the timer only frees the socket.
      const timer = setTimeout(() => {
        hanging.delete(timer);
        res.destroy();
      }, hangMs);
      hanging.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        hanging.delete(timer);
      });
      return;
    }
    const send = () => {
      if (res.destroyed) return;
      if (fault !== 'error') onSuccess();
      res.writeHead(fault === 'error' ? 500 : 200, { 'content-type': 'text/plain' });
      res.end(fault === 'error' ? ANSWERS.error : ANSWERS.ok);
    };
    if (fault === 'slow') setTimeout(send, slowMs);
    else send();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}` as const;
  return {
    url,
    arrivals,
    byMessage,
    succeeded,
    problems,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of hanging) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
