import { InvalidBodyError } from '../errors/receive-errors';

const decoder = new TextDecoder();

/** `application/json`, `application/cloudevents+json`, `text/json`: anything whose subtype is JSON. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
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
  try {
    return JSON.parse(decodeText(bytes));
  } catch (cause) {
    throw new InvalidBodyError(`The body is declared as ${contentType} but is not valid JSON.`, { cause });
  }
}
