// Runs @mailroom/dev-server in its own process, as `mailroom dev` runs, for the scale and console
// measurements (--expose-gc), and reports its memory after a full collection on request.
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
    // Twice: the second collection gives back the pages the first one's sweeping emptied. (An idle
    // process collects nothing by itself: without a collection RSS stays at the burst's high-water mark.)
    global.gc();
    global.gc();
    const { rss, heapUsed, external } = process.memoryUsage();
    const cpu = process.cpuUsage();
    process.send({ id: message.id, ok: true, result: { rss, heapUsed, external, cpuMs: (cpu.user + cpu.system) / 1000 } });
  }
});
process.on('SIGTERM', async () => {
  await server.close();
  process.exit(0);
});
