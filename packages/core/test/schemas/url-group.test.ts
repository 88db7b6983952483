import { describe, expect, it } from 'vitest';
import { parseResponse, urlGroupListSchema, urlGroupSchema } from '../../src/schemas';
import { urlGroups } from './fixtures';
import { URL, copy, responseError } from './helpers';

describe('urlGroupSchema', () => {
  it('parses the listing unchanged', () => {
    expect(parseResponse(urlGroupListSchema, urlGroups, URL)).toEqual(urlGroups);
  });

  it('keeps an endpoint without a name, and one with an empty name, as they came', () => {
    const [unnamed, emptyName] = parseResponse(urlGroupSchema, urlGroups[1], URL).endpoints;
    expect('name' in unnamed!).toBe(false);
    expect(emptyName!.name).toBe('');
  });

  it('keeps unknown keys on groups and endpoints', () => {
    const group = parseResponse(
      urlGroupSchema,
      { ...urlGroups[0], reserved: false, endpoints: [{ url: 'https://a.example', weight: 2 }] },
      URL,
    );
    expect(group.reserved).toBe(false);
    expect(group.endpoints[0]!.weight).toBe(2);
  });

  it('reads null endpoints and a null listing as empty', () => {
    expect(parseResponse(urlGroupSchema, { ...urlGroups[0], endpoints: null }, URL).endpoints).toEqual([]);
    expect(parseResponse(urlGroupListSchema, null, URL)).toEqual([]);
  });

  it('requires an endpoint url', () => {
    const body = copy(urlGroups) as { endpoints: Record<string, unknown>[] }[];
    delete body[1]!.endpoints[0]!.url;
    const error = responseError(urlGroupListSchema, body);
    expect(error.field).toBe('1.endpoints.0.url');
    expect(error.message).toContain('is missing (expected string)');
  });

  it.each(['name', 'createdAt', 'updatedAt'])('requires %s', (field) => {
    const group: Record<string, unknown> = copy(urlGroups[0]!);
    delete group[field];
    expect(responseError(urlGroupSchema, group).field).toBe(field);
  });

  it('refuses a timestamp that is not a number', () => {
    const error = responseError(urlGroupSchema, { ...urlGroups[0], createdAt: '2025-10-14' });
    expect(error.field).toBe('createdAt');
    expect(error.message).toContain('expected number, got string');
  });
});
