/**
 * The first line of every journal file. A version lets a later format refuse old files clearly (or
 * migrate them) instead of misreading them. It carries no checksum: it is written once, atomically,
 * with the file.
 */
export const JOURNAL_FORMAT = 'mailroom-journal';
export const JOURNAL_VERSION = 1;
export const JOURNAL_HEADER_LINE = `${JSON.stringify({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION })}\n`;

/** Why a first line is not a header this code reads, or `undefined` when it is one. */
export function headerProblem(line: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return 'this is not a Mailroom journal (the first line is not its header)';
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { format?: unknown }).format !== JOURNAL_FORMAT) {
    return 'this is not a Mailroom journal (the first line is not its header)';
  }
  const version = (parsed as { version?: unknown }).version;
  if (version !== JOURNAL_VERSION) {
    return (
      `the journal has format version ${String(version)}, this code reads version ${JOURNAL_VERSION} ` +
      '(was it written by a newer Mailroom?)'
    );
  }
  return undefined;
}
