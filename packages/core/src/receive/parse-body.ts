import { InvalidBodyError } from '../errors/receive-errors';

const decoder = new TextDecoder();
// JSON text is UTF-8 (RFC 8259 section 8.1). Decoding it leniently would hand the handler U+FFFD in
// place of the bytes that were sent, and a message that can never be read right must go to the DLQ.
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** `application/json`, `application/cloudevents+json`, `text/json`: anything whose subtype is JSON. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  // What the service sends for JSON, answered without splitting and lower-casing a copy.
  if (contentType === 'application/json') return true;
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return essence === 'application/json' || essence === 'text/json' || essence.endsWith('+json');
}

/** UTF-8 text of the body; invalid sequences become U+FFFD rather than an error (the bytes stay exact). */
export function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * The body as the handler's schema will see it: parsed JSON for JSON content types (an empty body is
 * `undefined`), the text otherwise. Only JSON content types are parsed, so a text body that happens
 * to look like JSON stays text.
 */
export function parseBody(bytes: Uint8Array, contentType: string | undefined): unknown {
  if (!isJsonContentType(contentType)) return decodeText(bytes);
  if (bytes.length === 0) return undefined;
  let text: string;
  try {
    text = strictDecoder.decode(bytes);
  } catch (cause) {
    throw new InvalidBodyError(`The body is declared as ${contentType} but is not valid UTF-8, which JSON must be.`, { cause });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new InvalidBodyError(`The body is declared as ${contentType} but is not valid JSON.`, { cause });
  }
}
