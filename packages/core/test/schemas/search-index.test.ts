import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  SEARCH_INDEX_REGIONS,
  SEARCH_INDEX_TYPES,
  SEARCH_INDEX_UNLIMITED,
  parseResponse,
  searchIndexSchema,
  type CreateSearchIndexInput,
} from '../../src/schemas';
import { checkSearchIndexInput } from '../../src/management-vocabulary';
import { createSearchIndexInput, searchIndexFree, searchIndexPayg } from './fixtures';
import { URL, copy, responseError } from './helpers';

describe('searchIndexSchema', () => {
  it('parses a pay-as-you-go index and keeps -1 as the unlimited marker', () => {
    const index = parseResponse(searchIndexSchema, searchIndexPayg, URL);
    expect(index.max_daily_queries).toBe(SEARCH_INDEX_UNLIMITED);
    expect(index.max_monthly_bandwidth).toBe(-1);
    expect(index.endpoint).toBe('glowing-baboon-15797-us1');
  });

  it('dates the throughput vector and keeps x as sent', () => {
    const index = parseResponse(searchIndexSchema, searchIndexPayg, URL);
    expect(index.throughput_vector.map((p) => p.date.toISOString())).toEqual([
      '2025-10-14T11:31:05.000Z',
      '2025-10-14T11:32:05.250Z',
      '2025-10-14T11:33:05.585Z',
    ]);
    expect(index.throughput_vector[2]!.x).toBe('2025-10-14 11:33:05.585757103 +0000 UTC');
  });

  it('parses a free index with an integration e-mail and an empty throughput vector', () => {
    const index = parseResponse(searchIndexSchema, searchIndexFree, URL);
    expect(index.throughput_vector).toEqual([]);
    expect(index.integration_email).toBe('billing@vercel-partner.example');
  });

  it('reads a null throughput vector as empty', () => {
    expect(parseResponse(searchIndexSchema, { ...searchIndexFree, throughput_vector: null }, URL).throughput_vector).toEqual([]);
  });

  it('accepts a type or region the service adds later and keeps unknown keys', () => {
    const index = parseResponse(
      searchIndexSchema,
      { ...searchIndexPayg, type: 'enterprise', region: 'ap-southeast-1', reranker: 'bge' },
      URL,
    );
    expect([index.type, index.region, index.reranker]).toEqual(['enterprise', 'ap-southeast-1', 'bge']);
  });

  it.each(['endpoint', 'token', 'max_vector_count', 'input_enrichment_enabled', 'integration_email'])('requires %s', (field) => {
    const index: Record<string, unknown> = copy(searchIndexPayg);
    delete index[field];
    expect(responseError(searchIndexSchema, index).field).toBe(field);
  });

  it('names a bad throughput timestamp', () => {
    const index = copy(searchIndexPayg);
    index.throughput_vector[1]!.x = '2025-10-14 11:32:05.25';
    expect(responseError(searchIndexSchema, index).field).toBe('throughput_vector.1.x');
  });

  it('names a wrong type', () => {
    const error = responseError(searchIndexSchema, { ...searchIndexPayg, max_daily_updates: null });
    expect(error.field).toBe('max_daily_updates');
    expect(error.message).toContain('expected number, got null');
  });
});

describe('checkSearchIndexInput', () => {
  it('accepts every documented region and type', () => {
    for (const region of SEARCH_INDEX_REGIONS) {
      for (const type of SEARCH_INDEX_TYPES) {
        expect(checkSearchIndexInput({ name: 'products', region, type })).toEqual({ ok: true, input: { name: 'products', region, type } });
      }
    }
    expect(checkSearchIndexInput(createSearchIndexInput)).toEqual({ ok: true, input: createSearchIndexInput });
  });

  it.each([
    [
      'an unknown region',
      { ...createSearchIndexInput, region: 'us-east-1' },
      'region',
      'expected one of eu-west-1, us-central1, got "us-east-1"',
    ],
    ['an unknown type', { ...createSearchIndexInput, type: 'paid' }, 'type', 'expected one of free, payg, fixed, got "paid"'],
    ['an empty name', { ...createSearchIndexInput, name: '' }, 'name', 'expected a name that is not blank, got ""'],
    ['a blank name', { ...createSearchIndexInput, name: '   ' }, 'name', 'expected a name that is not blank, got "   "'],
    ['a missing name', { region: 'eu-west-1', type: 'free' }, 'name', 'expected a name that is not blank, got undefined'],
    ['a number as name', { ...createSearchIndexInput, name: 42 }, 'name', 'expected a name that is not blank, got 42'],
    ['an extra key', { ...createSearchIndexInput, dimensions: 1536 }, '', 'unknown key "dimensions": only name, region and type'],
    ['a list', [], '', 'expected { name, region, type }, got an array'],
    ['null', null, '', 'expected { name, region, type }, got null'],
  ])('rejects %s, naming the field', (_label, input, field, message) => {
    expect(checkSearchIndexInput(input)).toEqual({ ok: false, field, message });
  });

  it('types region and type strictly', () => {
    expectTypeOf<CreateSearchIndexInput['region']>().toEqualTypeOf<'eu-west-1' | 'us-central1'>();
    expectTypeOf<CreateSearchIndexInput['type']>().toEqualTypeOf<'free' | 'payg' | 'fixed'>();
  });
});
