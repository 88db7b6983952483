// The load generator: autocannon in its own process, driven over IPC, so the client's CPU work
// never shares an event loop with the server under test. It only ever targets 127.0.0.1.
import { createTokenSigner } from '@mailroom/core/internal-protocol';
import autocannon from 'autocannon';

function run({ url, method = 'POST', headers = {}, body, connections = 10, durationSeconds, uniqueHeader, signAs }) {
  if (!new URL(url).hostname.startsWith('127.')) throw new Error(`load-worker only targets 127.0.0.1, got ${url}`);
  // `uniqueHeader`: a new value of that header on every request (a new message id, as the service sends).
  // `signAs`: a new token on every request too, as the service signs each delivery (a receiver with an
  // idempotency store refuses a token it has seen). Signed here, in the load's process, not the server's.
  let sequence = 0;
  const sign = signAs ? createTokenSigner({ key: signAs.key, issuer: signAs.issuer, now: Date.now }) : undefined;
  const bytes = Buffer.from(body ?? '');
  const requests = uniqueHeader
    ? [
        {
          setupRequest: (request) => ({
            ...request,
            headers: {
              ...request.headers,
              [uniqueHeader]: `msg_load_${process.pid}_${sequence++}`,
              ...(sign ? { [signAs.header]: sign(signAs.url, bytes) } : {}),
            },
          }),
        },
      ]
    : undefined;
  return new Promise((resolve, reject) => {
    const options = {
      url,
      method,
      headers,
      body,
      connections,
      duration: durationSeconds,
      pipelining: 1,
      timeout: 10,
      ...(requests ? { requests } : {}),
    };
    autocannon(options, (error, result) => {
      if (error) reject(error);
      else
        resolve({
          rate: result['2xx'] / result.duration,
          ok: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodes: result.statusCodeStats,
          latencyP50: result.latency.p50,
          latencyP99: result.latency.p99,
          seconds: result.duration,
        });
    });
  });
}

process.on('message', async (message) => {
  if (message.cmd === 'exit') process.exit(0);
  try {
    process.send({ id: message.id, ok: true, result: await run(message.options) });
  } catch (error) {
    process.send({ id: message.id, ok: false, error: String(error?.stack ?? error) });
  }
});
process.send({ ready: true });
