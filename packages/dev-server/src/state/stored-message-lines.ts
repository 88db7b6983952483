// Which journal lines are plain messages, read without parsing them (stored-messages.ts keeps them
// as where they are). A plain message's journal tuple has no object of other fields, or one of fields
// nothing reads while it waits (a content type, a label; no queue, flow control, workflow, callback,
// origin): the form most sends and their snapshot take. All a replay and the scheduler read of it is
// in the tuple's first fields, read here without parsing the rest.

/** One journal line that is one plain message, as {@link scanStoredMessageLine} read it. Reused: copy what you keep. */
export interface StoredMessageLine {
  /** `accepted` (a send; `at` is its time) or `restored` (a snapshot's pending message, as it was accepted). */
  kind: 'accepted' | 'restored';
  at: number;
  id: string;
  seq: number;
  /** `notBefore`, which is also the first attempt's due time for a message never attempted. */
  dueAt: number;
  /** The message's tuple: `line[tupleStart, tupleEnd)`. */
  tupleStart: number;
  tupleEnd: number;
}

const ACCEPTED = Buffer.from('{"type":"accepted","at":');
const ACCEPTED_MESSAGES = Buffer.from(',"m":[');
const RESTORED = Buffer.from('{"type":"message.restored","message":');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const scanned: StoredMessageLine = { kind: 'accepted', at: 0, id: '', seq: 0, dueAt: 0, tupleStart: 0, tupleEnd: 0 };

/**
 * Reads the line's JSON `line[start, end)` (checksum verified) when it is `{"type":"accepted","at":N,"m":[T]}`
 * or `{"type":"message.restored","message":T}` for a plain message's tuple T, and nothing else; any other
 * record (deduplicated, scheduled, several messages, a message with progress) is `undefined`, to parse.
 *
 * The tuple `[id, seq, url, body, sourceHeader, maxRetries, timeoutSeconds, created, delay, callerIp, rest?]`
 * (message-codec.ts) is read from both ends: the id and `seq` from its start, the due time from its end,
 * and the body between them not at all (walking it was most of this function's time). That relies on
 * what the encoder writes: the tuple last in either record, and `rest` always an object, so a tuple
 * ending in a string is one without it. A tuple ending in `rest` is read when `rest` (found from the
 * end) holds only {@link NEUTRAL_FIELDS}.
 */
export function scanStoredMessageLine(line: Buffer, start: number, end: number): StoredMessageLine | undefined {
  let at = 0;
  let position: number;
  let tupleEnd: number;
  if (startsWith(line, start, ACCEPTED)) {
    const time = readNumber(line, start + ACCEPTED.length, end);
    if (time === undefined || !startsWith(line, time.end, ACCEPTED_MESSAGES)) return undefined;
    at = time.value;
    position = time.end + ACCEPTED_MESSAGES.length;
    // `]}` closes the list of messages and the record.
    tupleEnd = end - 2;
    if (line[tupleEnd] !== CLOSE_BRACKET) return undefined;
    scanned.kind = 'accepted';
  } else if (startsWith(line, start, RESTORED)) {
    position = start + RESTORED.length;
    tupleEnd = end - 1;
    scanned.kind = 'restored';
  } else {
    return undefined;
  }
  // The tuple ends `"callerIp"]` or `"callerIp",{rest}]`, and no progress field follows it in a restored one.
  if (line[end - 1] !== CLOSE_BRACE || line[tupleEnd - 1] !== CLOSE_BRACKET || line[position] !== OPEN_BRACKET) return undefined;
  const idEnd = skipPlainString(line, position + 1, tupleEnd);
  const seq = idEnd !== undefined && line[idEnd] === COMMA ? readNumber(line, idEnd + 1, tupleEnd) : undefined;
  if (seq === undefined || line[seq.end] !== COMMA) return undefined;
  const seqValue = seq.value;
  const headEnd = seq.end;
  // Where the caller address ends (after its closing quote): before the tuple's `]`, or before `,{rest}`.
  let valuesEnd = tupleEnd - 1;
  if (line[valuesEnd - 1] === CLOSE_BRACE) {
    const restStart = neutralRestStart(line, headEnd, valuesEnd);
    if (restStart === undefined) return undefined;
    valuesEnd = restStart - 1;
  }
  if (line[valuesEnd - 1] !== QUOTE) return undefined;
  // From the end: `,created,delay,"callerIp"`. The last quote before the closing one opens the string
  // when a comma is before it (an escaped one has a backslash).
  let ipStart = valuesEnd - 2;
  // By hand: the address is short, and Buffer's lastIndexOf costs more to call than this walk.
  while (ipStart > headEnd && line[ipStart] !== QUOTE) ipStart -= 1;
  if (ipStart <= headEnd || line[ipStart - 1] !== COMMA) return undefined;
  const delay = readNumberBefore(line, ipStart - 1, headEnd);
  if (delay === undefined) return undefined;
  const { value: delayValue, end: delayStart } = delay;
  const created = readNumberBefore(line, delayStart - 1, headEnd);
  if (created === undefined) return undefined;
  // One message: the next of a batch would start `],["`, which no string holds (its quotes are escaped).
  if (scanned.kind === 'accepted') {
    for (
      let bracket = line.indexOf(CLOSE_BRACKET, headEnd);
      bracket !== -1 && bracket < ipStart;
      bracket = line.indexOf(CLOSE_BRACKET, bracket + 1)
    ) {
      if (line[bracket + 1] === COMMA && line[bracket + 2] === OPEN_BRACKET && line[bracket + 3] === QUOTE) return undefined;
    }
  }
  scanned.id = line.toString('latin1', position + 2, idEnd! - 1);
  scanned.seq = seqValue;
  scanned.dueAt = at + created.value + delayValue;
  scanned.at = at;
  scanned.tupleStart = position;
  scanned.tupleEnd = tupleEnd;
  return scanned;
}

function startsWith(line: Buffer, start: number, prefix: Buffer): boolean {
  for (let index = 0; index < prefix.length; index++) if (line[start + index] !== prefix[index]) return false;
  return true;
}

/** The end of the JSON string at `position` (after its closing quote) when it is printable ASCII without an escape: an id, read without decoding. */
function skipPlainString(line: Buffer, position: number, end: number): number | undefined {
  if (line[position] !== QUOTE) return undefined;
  for (let index = position + 1; index < end; index++) {
    const byte = line[index]!;
    if (byte === QUOTE) return index + 1;
    if (byte > 0x7e || byte < 0x20 || byte === BACKSLASH) return undefined;
  }
  return undefined;
}

const numberBefore = { value: 0, end: 0 };

/**
 * The JSON number that ends at `end` after a comma, found walking back no further than `floor`: its
 * value, and in `end` where it starts. Reused: read it at once.
 */
function readNumberBefore(line: Buffer, end: number, floor: number): typeof numberBefore | undefined {
  let start = end;
  while (start > floor + 1 && isNumberByte(line[start - 1]!)) start -= 1;
  if (start === end || line[start - 1] !== COMMA) return undefined;
  const read = readNumber(line, start, end);
  if (read === undefined || read.end !== end) return undefined;
  numberBefore.value = read.value;
  numberBefore.end = start;
  return numberBefore;
}

/** A byte a JSON number can have: a digit, a sign, a point or an exponent. */
const isNumberByte = (byte: number): boolean =>
  (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45;

const number = { value: 0, end: 0 };

/** The JSON number at `position` (an integer read by hand; any other form by `Number`). Reused: read it at once. */
function readNumber(line: Buffer, position: number, end: number): typeof number | undefined {
  let index = position;
  let integer = true;
  while (index < end) {
    const byte = line[index]!;
    if (byte >= 0x30 && byte <= 0x39) index += 1;
    else if (byte === 0x2d && index === position) index += 1;
    else if (byte === 0x2e || byte === 0x65 || byte === 0x45 || byte === 0x2b || byte === 0x2d) {
      integer = false;
      index += 1;
    } else break;
  }
  if (index === position) return undefined;
  let value: number;
  if (integer && index - position < 16) {
    const negative = line[position] === 0x2d;
    value = 0;
    for (let digit = negative ? position + 1 : position; digit < index; digit++) value = value * 10 + (line[digit]! - 0x30);
    if (negative) value = -value;
    if (negative && index === position + 1) return undefined;
  } else {
    value = Number(line.toString('latin1', position, index));
  }
  if (!Number.isFinite(value)) return undefined;
  number.value = value;
  number.end = index;
  return number;
}

const BATCH = Buffer.from('{"type":"batch","records":[');

/**
 * The fields of a message's `rest` that nothing reads while the message waits in the journal: its
 * replay (which indexes queues, runs, origins and schedules), the scheduler (queues, flow control, a
 * due time of its own) and the queues' counts need none of them. A message with any other is parsed.
 */
const NEUTRAL_FIELDS = new Set(['contentType', 'method', 'forwardHeaders', 'label', 'retryDelay', 'redact']);
/** Verdicts on `rest` texts seen; and the last neutral one, compared byte by byte first, as most sends repeat one (`{"contentType":"application/json"}`). */
const neutralRests = new Map<string, boolean>();
let lastNeutral = Buffer.alloc(0);

/**
 * Where the tuple's `rest` starts: walked back from `restEnd` (the tuple's `]`) to the `{` that opens
 * it (a quote after an even run of backslashes opens or closes a string, read backwards as forwards),
 * after `",` (the caller address's end); `undefined` when it is not so, or `rest` holds a field not in
 * {@link NEUTRAL_FIELDS}. `rest` is short: the body before it is never walked.
 */
function neutralRestStart(line: Buffer, headEnd: number, restEnd: number): number | undefined {
  // Most sends repeat the last neutral `rest`: when the line ends in it after `",`, that is the rest
  // (an object that closes where the tuple does, its `{` outside any string: JSON has no raw quote in one).
  const repeated = restEnd - lastNeutral.length;
  if (
    lastNeutral.length > 0 &&
    repeated > headEnd + 2 &&
    line[repeated - 1] === COMMA &&
    line[repeated - 2] === QUOTE &&
    // By hand: Buffer's compare costs more to call than a short `rest` takes to compare.
    startsWith(line, repeated, lastNeutral)
  ) {
    return repeated;
  }
  let depth = 0;
  let inString = false;
  let restStart = -1;
  for (let index = restEnd - 1; index > headEnd; index--) {
    const byte = line[index]!;
    if (byte === QUOTE) {
      if (!escapedAt(line, index)) inString = !inString;
    } else if (inString) {
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth += 1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth -= 1;
      if (depth === 0) {
        restStart = index;
        break;
      }
    }
  }
  if (restStart < 0 || line[restStart] !== OPEN_BRACE || line[restStart - 1] !== COMMA || line[restStart - 2] !== QUOTE) return undefined;
  const text = line.toString('latin1', restStart, restEnd);
  let neutral = neutralRests.get(text);
  if (neutral === undefined) {
    neutral = onlyNeutralFields(line.toString('utf8', restStart, restEnd));
    if (neutralRests.size >= 256) neutralRests.clear();
    neutralRests.set(text, neutral);
  }
  if (neutral) lastNeutral = Buffer.from(line.subarray(restStart, restEnd));
  return neutral ? restStart : undefined;
}

function onlyNeutralFields(json: string): boolean {
  try {
    const rest: unknown = JSON.parse(json);
    return typeof rest === 'object' && rest !== null && Object.keys(rest).every((name) => NEUTRAL_FIELDS.has(name));
  } catch {
    return false;
  }
}

/**
 * Calls `visit` with where each record of the line `line[start, end)` is, in order, when it is a `batch`
 * (`{"type":"batch","records":[R, ...]}`, one action's records: a `/v2/batch` of sends is one per item).
 * `false` when it is not one; `visit` may then have seen some of its records.
 */
export function forEachBatchRecord(
  line: Buffer,
  start: number,
  end: number,
  visit: (index: number, recordStart: number, recordEnd: number) => void,
): boolean {
  if (!startsWith(line, start, BATCH) || line[end - 1] !== CLOSE_BRACE || line[end - 2] !== CLOSE_BRACKET) return false;
  // The `]` that closes the records.
  const last = end - 2;
  let position = start + BATCH.length;
  if (position === last) return true;
  const records = line.subarray(0, last);
  for (let index = 0; ; index++) {
    const recordEnd = line[position] === OPEN_BRACE ? endOfRecord(records, position) : undefined;
    if (recordEnd === undefined) return false;
    visit(index, position, recordEnd);
    if (recordEnd === last) return true;
    if (line[recordEnd] !== COMMA) return false;
    position = recordEnd + 1;
  }
}

const NEXT_RECORD = Buffer.from('},{"type":"');

/**
 * The end of the record at `position` of a batch whose records end at `records.length`. Every record
 * starts `{"type":"`, and only a batch holds records, so outside a nested batch the first `},{"type":"`
 * (never inside a string: its quotes are raw) ends it, found without walking the strings before it,
 * which was most of reading a `/v2/batch` line. A nested batch is walked bracket by bracket.
 */
function endOfRecord(records: Buffer, position: number): number | undefined {
  if (startsWith(records, position, BATCH)) return endOfNested(records, position, records.length);
  const next = records.indexOf(NEXT_RECORD, position);
  return next === -1 ? records.length : next + 1;
}

/** A batch's messages as read, record by record, until all of it is known to be plain: reused. */
const batchRead = { count: 0, plain: true, ids: [] as string[], numbers: [] as number[] };
const NUMBERS_PER_MESSAGE = 5;

function readBatchRecord(line: Buffer, recordStart: number, recordEnd: number): void {
  if (!batchRead.plain) return;
  const read = scanStoredMessageLine(line, recordStart, recordEnd);
  if (read === undefined) {
    batchRead.plain = false;
    return;
  }
  const at = batchRead.count * NUMBERS_PER_MESSAGE;
  batchRead.ids[batchRead.count] = read.id;
  batchRead.numbers[at] = read.at;
  batchRead.numbers[at + 1] = read.seq;
  batchRead.numbers[at + 2] = read.dueAt;
  batchRead.numbers[at + 3] = read.tupleStart;
  batchRead.numbers[at + 4] = read.tupleEnd;
  batchRead.count += 1;
}

/**
 * Calls `visit` with each plain message of a `batch` line `line[start, end)` when every record of it is
 * one (`scanStoredMessageLine`), and returns true; otherwise visits none and returns false: such a
 * line is parsed whole, as all of it or none is applied.
 */
export function scanStoredBatchLine(line: Buffer, start: number, end: number, visit: (scanned: StoredMessageLine) => void): boolean {
  batchRead.count = 0;
  batchRead.plain = true;
  if (!forEachBatchRecord(line, start, end, (_index, recordStart, recordEnd) => readBatchRecord(line, recordStart, recordEnd)))
    return false;
  if (!batchRead.plain) return false;
  scanned.kind = 'accepted';
  for (let index = 0; index < batchRead.count; index++) {
    const at = index * NUMBERS_PER_MESSAGE;
    scanned.id = batchRead.ids[index]!;
    scanned.at = batchRead.numbers[at]!;
    scanned.seq = batchRead.numbers[at + 1]!;
    scanned.dueAt = batchRead.numbers[at + 2]!;
    scanned.tupleStart = batchRead.numbers[at + 3]!;
    scanned.tupleEnd = batchRead.numbers[at + 4]!;
    visit(scanned);
  }
  // Not kept until the next batch: a batch of 50,000 would hold its ids.
  batchRead.ids.length = 0;
  batchRead.numbers.length = 0;
  return true;
}

/**
 * Calls `visit` with each plain message of the line `line[start, end)`, and returns true, when the line
 * is a send of one ({@link scanStoredMessageLine}) or a batch of such sends ({@link scanStoredBatchLine});
 * false, visiting none, for any other line (to be parsed).
 */
export function scanPlainMessages(line: Buffer, start: number, end: number, visit: (scanned: StoredMessageLine) => void): boolean {
  const scanned = scanStoredMessageLine(line, start, end);
  if (scanned === undefined) return scanStoredBatchLine(line, start, end, visit);
  visit(scanned);
  return true;
}

/**
 * The end (after its closing bracket) of the JSON object or array at `position`, walked by its
 * brackets, each string skipped whole; `undefined` when it does not close before `limit`. The line's
 * checksum held, so it is JSON this server wrote.
 */
function endOfNested(line: Buffer, position: number, limit: number): number | undefined {
  let depth = 0;
  for (let index = position; index < limit; index++) {
    const byte = line[index]!;
    if (byte === QUOTE) {
      const close = endOfString(line, index, limit);
      if (close === undefined) return undefined;
      index = close - 1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/** The end (after its closing quote: one after an even run of backslashes) of the JSON string at `position`, before `limit`. */
function endOfString(line: Buffer, position: number, limit: number): number | undefined {
  let close = line.indexOf(QUOTE, position + 1);
  while (close !== -1 && close < limit && escapedAt(line, close)) close = line.indexOf(QUOTE, close + 1);
  return close === -1 || close >= limit ? undefined : close + 1;
}

/** Whether the quote at `quote` is escaped: an odd run of backslashes before it. */
function escapedAt(line: Buffer, quote: number): boolean {
  let backslashes = 0;
  for (let index = quote - 1; line[index] === BACKSLASH; index--) backslashes += 1;
  return backslashes % 2 === 1;
}
