// A local stand-in for the service's messaging interface, for measurement 4: node:http on
// 127.0.0.1 that answers every enqueue or publish with the JSON the service sends. It drains and
// counts the request bodies (so a client that sent nothing would be caught) and checks the token.
import http from 'node:http';

const TOKEN = process.env.STUB_TOKEN ?? 'bench-token';
let count = 0;
let bytes = 0;
let bad = 0;
let id = 0;
let last;
// Only the request after a 'record' command is kept, so the hot path stays a counter.
let recordNext = false;

const server = http.createServer((req, res) => {
  let size = 0;
  const chunks = [];
  req.on('data', (chunk) => {
    size += chunk.length;
    if (recordNext) chunks.push(chunk);
  });
  req.on('end', () => {
    if (recordNext) {
      recordNext = false;
      last = {
        method: req.method,
        url: req.url,
        contentType: req.headers['content-type'],
        accept: req.headers.accept,
        userAgent: req.headers['user-agent'],
        body: Buffer.concat(chunks).toString(),
      };
    }
    const authorised = req.headers.authorization === `Bearer ${TOKEN}`;
    const enqueue = req.method === 'POST' && (req.url.startsWith('/v2/enqueue/') || req.url.startsWith('/v2/publish/'));
    if (!authorised || !enqueue || size === 0) {
      bad++;
      res.writeHead(authorised ? 404 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: authorised ? 'not found' : 'unauthorized' }));
      return;
    }
    count++;
    bytes += size;
    const body = JSON.stringify({ messageId: `msg_${(++id).toString(36).padStart(24, '0')}` });
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
// Longer than the whole measurement: the clients' pools keep idle sockets without a timeout of their
// own, and a server closing one while a client reuses it answers "socket hang up" (a full bench on a
// busy machine failed so, between rounds that left a client idle for more than the old 5 s).
server.keepAliveTimeout = 600_000;
server.headersTimeout = 0;
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => process.send({ ready: true, port: server.address().port, token: TOKEN }));
process.on('message', (message) => {
  if (message.cmd === 'stats') process.send({ id: message.id, ok: true, result: { count, bytes, bad, last } });
  if (message.cmd === 'record') {
    recordNext = true;
    last = undefined;
    process.send({ id: message.id, ok: true, result: true });
  }
});
process.on('SIGTERM', () => process.exit(0));
