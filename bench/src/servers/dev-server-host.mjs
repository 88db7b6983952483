// Runs @mailroom/dev-server in its own process for measurement 5 and reports what it did.
// env: BENCH_DATA_DIR (optional) -> --data-dir
import { startDevServer } from '@mailroom/dev-server';

const counts = { accepted: 0, delivered: 0, retry: 0, failed: 0, error: 0 };
let lastError;
const server = await startDevServer({
  port: 0,
  host: '127.0.0.1',
  headerPrefix: 'Upstash',
  issuer: 'Upstash',
  plan: 'paid',
  log: 'silent',
  ...(process.env.BENCH_DATA_DIR ? { dataDir: process.env.BENCH_DATA_DIR } : {}),
  onEvent: (event) => {
    if (event.type in counts) counts[event.type]++;
    if (event.type === 'retry' || event.type === 'failed' || event.type === 'error') lastError = event;
  },
});
process.send({
  ready: true,
  url: server.url,
  token: server.token,
  currentSigningKey: server.currentSigningKey,
  nextSigningKey: server.nextSigningKey,
  dataDir: server.dataDir ?? null,
});
process.on('message', async (message) => {
  if (message.cmd === 'stats') {
    const cpu = process.cpuUsage();
    process.send({ id: message.id, ok: true, result: { ...counts, lastError, cpuMs: Math.round((cpu.user + cpu.system) / 1000) } });
  }
});
process.on('SIGTERM', async () => {
  await server.close();
  process.exit(0);
});
