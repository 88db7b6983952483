// One-off requests for the correctness checks, over a plain node:http connection to 127.0.0.1.
import http from 'node:http';

export function post(url, { headers = {}, body = '' } = {}) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', headers: { 'content-length': Buffer.byteLength(body), ...headers }, agent: false },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error(`no answer from ${url} within 10 s`)));
    request.end(body);
  });
}
