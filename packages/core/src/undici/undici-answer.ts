import type { HttpTransportResponse } from '../http/http-transport';
import { toHeaders } from './to-headers';

/**
 * The answer of one undici attempt; `headers` becomes a `Headers` only when someone reads it (the
 * client does so for error answers only). A class rather than an object literal with a getter:
 * V8 builds such a literal through a slow runtime path, about 0.7 µs per answer on Node 20.
 */
export class UndiciAnswer implements HttpTransportResponse {
  readonly status: number;
  readonly statusText: string;
  readonly text: string;
  readonly #parsed: Readonly<Record<string, string | string[] | undefined>>;
  #headers: Headers | undefined;

  constructor(status: number, statusText: string, text: string, parsed: Readonly<Record<string, string | string[] | undefined>>) {
    this.status = status;
    this.statusText = statusText;
    this.text = text;
    this.#parsed = parsed;
  }

  get headers(): Headers {
    return (this.#headers ??= toHeaders(this.#parsed));
  }
}
