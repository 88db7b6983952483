// What createNodeFetch would cost on undici instead of node:http: undici's Pool.request under the
// same buffered-Response idea (a Response subclass whose small body is read from memory, no stream).
// Only here to inform the choice of transport; undici is not a dependency of @mailroom/core.
const decoder = new TextDecoder();

class BufferedResponse extends Response {
  #bytes;
  #used = false;
  constructor(bytes, init) {
    super(null, init);
    this.#bytes = bytes;
  }
  get bodyUsed() {
    return this.#used;
  }
  #take() {
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    return Promise.resolve(this.#bytes);
  }
  text() {
    return this.#take().then((bytes) => decoder.decode(bytes));
  }
  json() {
    return this.text().then(JSON.parse);
  }
  arrayBuffer() {
    return this.#take().then((bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  }
}

/** A fetch over one undici Pool, for the transport comparison in measurement 4. */
export function undiciPoolFetch(pool) {
  return async (url, init) => {
    const headers = {};
    init.headers.forEach((value, name) => (headers[name] = value));
    const { pathname, search } = new URL(url);
    try {
      const answer = await pool.request({ method: init.method, headers, body: init.body, signal: init.signal, path: pathname + search });
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) responseHeaders.append(name, Array.isArray(value) ? value.join(', ') : value);
      return new BufferedResponse(bytes, { status: answer.statusCode, headers: responseHeaders });
    } catch (cause) {
      if (init.signal?.aborted) throw init.signal.reason;
      throw new TypeError('fetch failed', { cause });
    }
  };
}
