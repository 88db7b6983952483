import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  STATS_PERIODS,
  messagingStatsSchema,
  parseResponse,
  pointSchema,
  requestPointSchema,
  seriesSchema,
  type MessagingStats,
  type Point,
} from '../../src/schemas';
import { messagingStats1h, messagingStats30d, messagingStatsEmpty } from './fixtures';
import { URL, copy, responseError } from './helpers';

describe('pointSchema', () => {
  it('keeps x as sent and adds the parsed date', () => {
    const point = parseResponse(pointSchema, { x: '2025-10-01 11:33:05.585757103 +0000 UTC', y: 7 }, URL);
    expect(point).toEqual({ x: '2025-10-01 11:33:05.585757103 +0000 UTC', y: 7, date: new Date('2025-10-01T11:33:05.585Z') });
    expectTypeOf(point).toExtend<{ x: string; y: number; date: Date }>();
  });

  it.each([
    ['0 fraction digits', '2025-10-01 00:00:00 +0000 UTC', '2025-10-01T00:00:00.000Z'],
    ['3 fraction digits', '2025-10-01 00:00:00.125 +0000 UTC', '2025-10-01T00:00:00.125Z'],
    ['9 fraction digits', '2025-10-14 11:33:05.585757103 +0000 UTC', '2025-10-14T11:33:05.585Z'],
  ])('parses %s', (_label, x, iso) => {
    expect(parseResponse(pointSchema, { x, y: 0 }, URL).date.toISOString()).toBe(iso);
  });

  it('keeps unknown keys of a point', () => {
    expect(parseResponse(pointSchema, { x: '2025-10-01 00:00:00 +0000 UTC', y: 1, label: 'peak' }, URL)).toMatchObject({ label: 'peak' });
  });

  it('turns an invalid timestamp into an error on x, not an Invalid Date', () => {
    const error = responseError(pointSchema, { x: '2025-10-01T00:00:00Z', y: 1 });
    expect(error.field).toBe('x');
    expect(error.message).toContain('is not a timestamp of the form');
  });

  it('checks y before the timestamp', () => {
    expect(responseError(pointSchema, { x: '2025-10-01 00:00:00 +0000 UTC', y: '3' }).field).toBe('y');
  });

  it('adds the workflow breakdown to request points and requires it', () => {
    const point = parseResponse(
      requestPointSchema,
      { x: '2025-10-01 00:00:00 +0000 UTC', y: 10, workflow_message: 4, workflow_run: 1 },
      URL,
    );
    expect(point.date.toISOString()).toBe('2025-10-01T00:00:00.000Z');
    expect(point.workflow_run).toBe(1);
    expect(responseError(requestPointSchema, { x: '2025-10-01 00:00:00 +0000 UTC', y: 10, workflow_message: 4 }).field).toBe(
      'workflow_run',
    );
  });

  it('parses a series and reads a null data_points as empty', () => {
    expect(parseResponse(seriesSchema, { id: 'delivered', data_points: null }, URL)).toEqual({ id: 'delivered', data_points: [] });
  });
});

describe('messagingStatsSchema', () => {
  it('parses the 1h fixture: 60 points a minute apart, every point dated', () => {
    const stats = parseResponse(messagingStatsSchema, messagingStats1h, URL);
    expect(stats.daily_used).toHaveLength(60);
    expect(stats.daily_used[59]).toEqual({
      x: '2025-10-14 11:33:05.585757103 +0000 UTC',
      y: expect.any(Number),
      date: new Date('2025-10-14T11:33:05.585Z'),
    });
    expect(stats.daily_used[1]!.date.getTime() - stats.daily_used[0]!.date.getTime()).toBe(60_000);
    expect(stats.daily_messaging_messages.map((s) => s.id)).toEqual(['delivered', 'retry']);
    expect(stats.daily_messaging_messages[0]!.data_points).toHaveLength(60);
    expect(stats.daily_workflow_messages[0]!.id).toBe('canceled');
    expect(stats.days).toHaveLength(31);
    expect(stats.daily_requests[0]!.date.toISOString()).toBe('2025-10-01T00:00:00.000Z');
    expect(stats.daily_billings[0]!.date.toISOString()).toBe('2025-10-01T00:00:00.125Z');
    expect(stats.dlq_message_count).toBe(3);
    expect(stats.total_monthly_billing).toBe(1.24);
  });

  it('keeps every field otherwise unchanged', () => {
    const stats = parseResponse(messagingStatsSchema, messagingStats1h, URL);
    const withoutDates = JSON.parse(JSON.stringify(stats, (key, value: unknown) => (key === 'date' ? undefined : value)));
    expect(withoutDates).toEqual(messagingStats1h);
  });

  it('parses the 30d fixture: 240 points 3 hours apart', () => {
    const stats = parseResponse(messagingStatsSchema, messagingStats30d, URL);
    expect(stats.daily_used).toHaveLength(240);
    expect(stats.daily_used[1]!.date.getTime() - stats.daily_used[0]!.date.getTime()).toBe(3 * 3_600_000);
  });

  it('reads null (Go nil slices) and missing arrays as empty', () => {
    const stats = parseResponse(messagingStatsSchema, messagingStatsEmpty, URL);
    expect(stats.daily_used).toEqual([]);
    expect(stats.daily_messaging_messages).toEqual([]);
    const { daily_billings: _dropped, ...withoutBillings } = messagingStats1h;
    expect(parseResponse(messagingStatsSchema, withoutBillings, URL).daily_billings).toEqual([]);
  });

  it('keeps unknown keys', () => {
    expect(parseResponse(messagingStatsSchema, { ...messagingStats1h, daily_schedules: [1, 2] }, URL)).toMatchObject({
      daily_schedules: [1, 2],
    });
  });

  it('names the point of an invalid timestamp', () => {
    const body = copy(messagingStats1h);
    body.daily_used[3]!.x = '2025-02-30 11:33:05 +0000 UTC';
    const error = responseError(messagingStatsSchema, body);
    expect(error.field).toBe('daily_used.3.x');
    expect(error.message).toContain('day 30 out of range');
  });

  it('names a point deep inside a series', () => {
    const body = copy(messagingStats1h);
    body.daily_workflow_messages[0]!.data_points[5]!.x = 'not a time';
    expect(responseError(messagingStatsSchema, body).field).toBe('daily_workflow_messages.0.data_points.5.x');
  });

  it('names a wrong value type', () => {
    const body = copy(messagingStats1h) as unknown as { daily_bandwidth_used: { y: unknown }[] };
    body.daily_bandwidth_used[10]!.y = '512';
    const error = responseError(messagingStatsSchema, body);
    expect(error.field).toBe('daily_bandwidth_used.10.y');
    expect(error.message).toContain('expected number, got string');
  });

  it.each(['dlq_message_count', 'total_monthly_billing'])('requires %s', (field) => {
    const body: Record<string, unknown> = copy(messagingStats1h);
    delete body[field];
    expect(responseError(messagingStatsSchema, body).field).toBe(field);
  });

  it('exports the periods and types the parsed shape', () => {
    expect(STATS_PERIODS).toEqual(['1h', '3h', '12h', '1d', '3d', '7d', '30d']);
    expectTypeOf<MessagingStats['daily_used']>().toEqualTypeOf<Point[]>();
  });
});
