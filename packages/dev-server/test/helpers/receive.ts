import { createReceiver, type CallbackMessage, type FailureCallbackMessage } from '@mailroom/core';
import { pipelineOf } from '@mailroom/core/adapter';
import type { Received } from './destination';
import type { TestServer } from './test-server';

/** Runs recorded requests through core's receiving pipeline, signature and URL checks included. */
export function receiverFor(t: TestServer, publicUrl: string) {
  const receiver = createReceiver({
    currentSigningKey: t.server.currentSigningKey,
    nextSigningKey: t.server.nextSigningKey,
    headerPrefix: t.server.headerPrefix,
    issuer: t.server.issuer,
    publicUrl,
    methods: ['POST', 'PUT', 'PATCH', 'DELETE'],
    env: {},
    onError: () => {},
  });
  const input = (request: Received) => ({
    method: request.method,
    url: request.url,
    headers: request.headers,
    rawBody: new Uint8Array(request.body),
  });
  return {
    /** The callback as a handler sees it; rejects when the pipeline refuses it. */
    async callback(request: Received): Promise<CallbackMessage> {
      let seen: CallbackMessage | undefined;
      const response = await receiver.callback((message) => void (seen = message)).handle(input(request));
      if (!seen) throw new Error(`callback refused with ${response.status}: ${response.body}`);
      return seen;
    },
    async failureCallback(request: Received): Promise<FailureCallbackMessage> {
      let seen: FailureCallbackMessage | undefined;
      const response = await receiver.failureCallback((message) => void (seen = message)).handle(input(request));
      if (!seen) throw new Error(`failure callback refused with ${response.status}: ${response.body}`);
      return seen;
    },
    /** A plain delivery: resolves with the handler's view of it. */
    async message(request: Received) {
      return pipelineOf(receiver).receive(input(request));
    },
  };
}
