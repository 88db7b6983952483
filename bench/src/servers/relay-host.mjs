// The floor of measurement 5: a bare relay in its own process, doing the least a delivery service
// can: accept POST /v2/enqueue/<queue>/<url>, answer a message id, POST the body on to the URL over
// keep-alive. No signing, retries, queues or journal. The dev server's CPU per message is compared
// with this one's.
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 100 });
let seq = 0;
const counts = { accepted: 0, delivered: 0, failed: 0 };

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const match = /^\/v2\/enqueue\/[^/]+\/(.+)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) {
      res.writeHead(404).end();
      return;
    }
    const body = Buffer.concat(chunks);
    const messageId = `msg_relay_${seq++}`;
    counts.accepted++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId }));
    const onward = http.request(
      decodeURIComponent(match[1]),
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': req.headers['content-type'] ?? 'application/json',
          'content-length': body.byteLength,
          'upstash-message-id': messageId,
        },
      },
      (answer) => {
        answer.resume();
        answer.on('end', () => counts[answer.statusCode === 200 ? 'delivered' : 'failed']++);
      },
    );
    onward.on('error', () => counts.failed++);
    onward.end(body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.send({ ready: true, url: `http://127.0.0.1:${server.address().port}`, token: 'relay' });
});
process.on('message', (message) => {
  if (message.cmd === 'stats') {
    const cpu = process.cpuUsage();
    process.send({ id: message.id, ok: true, result: { ...counts, cpuMs: Math.round((cpu.user + cpu.system) / 1000) } });
  }
});
process.on('SIGTERM', () => process.exit(0));
