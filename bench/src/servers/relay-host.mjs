// The floors of measurement 5: a bare relay in its own process, doing the least a delivery service
// can: accept POST /v2/enqueue/<queue>/<url>, answer a message id, POST the body on to the URL over
// keep-alive. No signing, retries or queues. The dev server's CPU per message is compared with this
// one's.
// env: BENCH_RELAY_JOURNAL=<file> makes it the durable floor of --data-dir: each message is appended
// as a JSON line and fdatasync'ed (group commit: one write + sync per batch) before it is answered and
// sent on, and its delivery is appended after. Still no replay, compaction, checksums or queues.
import fs from 'node:fs';
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 100 });
let seq = 0;
const counts = { accepted: 0, delivered: 0, failed: 0 };
const journal = process.env.BENCH_RELAY_JOURNAL ? openJournal(process.env.BENCH_RELAY_JOURNAL) : undefined;

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
    const url = decodeURIComponent(match[1]);
    const accepted = () => {
      counts.accepted++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId }));
      relay(url, messageId, req.headers['content-type'], body);
    };
    if (!journal) return accepted();
    const line = { id: messageId, url, at: Date.now(), headers: req.headers, body: body.toString('base64') };
    journal.append(line, accepted);
  });
});

function relay(url, messageId, contentType, body) {
  const onward = http.request(
    url,
    {
      method: 'POST',
      agent,
      headers: {
        'content-type': contentType ?? 'application/json',
        'content-length': body.byteLength,
        'upstash-message-id': messageId,
      },
    },
    (answer) => {
      answer.resume();
      answer.on('end', () => {
        counts[answer.statusCode === 200 ? 'delivered' : 'failed']++;
        journal?.append({ id: messageId, at: Date.now(), status: answer.statusCode }, () => {});
      });
    },
  );
  onward.on('error', () => counts.failed++);
  onward.end(body);
}

/** Appends JSON lines; the lines queued while a write + fdatasync runs share the next one. */
function openJournal(file) {
  const fd = fs.openSync(file, 'a');
  let queued = [];
  let busy = false;
  const flush = () => {
    const batch = queued;
    queued = [];
    busy = true;
    fs.write(fd, batch.map((entry) => entry.line).join(''), (writeError) => {
      if (writeError) throw writeError;
      fs.fdatasync(fd, (syncError) => {
        if (syncError) throw syncError;
        busy = false;
        for (const entry of batch) entry.done();
        if (queued.length > 0) flush();
      });
    });
  };
  return {
    append(record, done) {
      queued.push({ line: `${JSON.stringify(record)}\n`, done });
      if (!busy && queued.length === 1) setImmediate(flush);
    },
  };
}

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
