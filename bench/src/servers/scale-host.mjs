// Runs @mailroom/dev-server in its own process, as `mailroom dev` runs, for the scale and console
// measurements, and reports its memory on request (as it is: no collection forced).
// env: BENCH_DATA_DIR (optional) -> --data-dir
import { startDevServer } from '@mailroom/dev-server';

const server = await startDevServer({
  port: 0,
  host: '127.0.0.1',
  headerPrefix: 'Upstash',
  issuer: 'Upstash',
  plan: 'paid',
  log: 'silent',
  ...(process.env.BENCH_DATA_DIR ? { dataDir: process.env.BENCH_DATA_DIR } : {}),
});
process.send({
  ready: true,
  url: server.url,
  token: server.token,
  consoleUrl: server.consoleUrl,
  currentSigningKey: server.currentSigningKey,
  nextSigningKey: server.nextSigningKey,
});
process.on('message', (message) => {
  if (message.cmd === 'memory') {
    // As `ps` shows it: no collection is forced, so this is what V8 chose to keep at this moment.
    const { rss, heapUsed, external } = process.memoryUsage();
    process.send({ id: message.id, ok: true, result: { rss, heapUsed, external } });
  }
});
process.on('SIGTERM', async () => {
  await server.close();
  process.exit(0);
});
