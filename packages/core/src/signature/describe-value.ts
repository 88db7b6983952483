const MAX_SHOWN = 80;

/**
 * Renders a value taken from an untrusted token for an error message: JSON, cut short, so a
 * hostile token cannot flood the logs. Only ever called on token contents, never on a key.
 */
export function describeValue(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? typeof value);
  } catch {
    text = typeof value;
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 3)}...` : text;
}
