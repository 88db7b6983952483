import type { DlqEntry } from '../state/records';
import { badRequest } from './http-error';

/** A parsed DLQ listing request (spec endpoint 7). */
export interface DlqQuery {
  /** Continue below this insertion order. */
  before: number | undefined;
  count: number;
  matches(entry: DlqEntry): boolean;
}

const MAX_COUNT = 100;

/**
 * Reads the listing's query: every filter of the spec, also under the newer spellings `callerIp` and
 * `failureFunctionState`, combined with AND; `count` 1 to 100 (default 100); anything malformed is 400.
 * `fromDate`/`toDate` (inclusive, ms) compare with the time the entry entered the DLQ.
 */
export function readDlqQuery(query: URLSearchParams): DlqQuery {
  const text = (...names: string[]) => {
    for (const name of names) {
      const value = query.get(name);
      if (value !== null && value !== '') return value;
    }
    return undefined;
  };
  const integer = (name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw badRequest(
        `invalid ${name} ${JSON.stringify(value)}: expected a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`,
      );
    }
    return Number(value);
  };
  const cursor = text('cursor');
  if (cursor !== undefined && !/^\d+$/.test(cursor))
    throw badRequest(`invalid cursor ${JSON.stringify(cursor)}: pass back a cursor from an earlier page`);
  const runId = text('workflowRunId');
  const workflowUrl = text('workflowUrl');
  const fromDate = integer('fromDate', 0);
  const toDate = integer('toDate', 0);
  const responseStatus = integer('responseStatus', 100, 599);
  const callerIp = text('callerIP', 'callerIp');
  const callbackState = text('failureCallbackState', 'failureFunctionState');
  const label = text('label');
  return {
    before: cursor === undefined ? undefined : Number(cursor),
    count: integer('count', 1, MAX_COUNT) ?? MAX_COUNT,
    matches: (entry) =>
      (runId === undefined || entry.message.workflow?.runId === runId) &&
      (workflowUrl === undefined || entry.message.workflow?.url === workflowUrl) &&
      (fromDate === undefined || entry.at >= fromDate) &&
      (toDate === undefined || entry.at <= toDate) &&
      (responseStatus === undefined || entry.response?.status === responseStatus) &&
      (callerIp === undefined || entry.message.callerIp === callerIp) &&
      (callbackState === undefined || entry.failureCallbackInfo?.state === callbackState) &&
      (label === undefined || entry.message.label === label),
  };
}
