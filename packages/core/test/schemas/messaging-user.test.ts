import { describe, expect, expectTypeOf, it } from 'vitest';
import { MESSAGING_USER_STATES, messagingUserSchema, messagingUsersSchema, parseResponse, type MessagingUser } from '../../src/schemas';
import { messagingUserEnterprise, messagingUserFixedSuspended, messagingUserFree, messagingUserPaid, messagingUsers } from './fixtures';
import { URL, copy, responseError } from './helpers';

describe('messagingUserSchema', () => {
  it('parses every fixture unchanged', () => {
    expect(parseResponse(messagingUsersSchema, messagingUsers, URL)).toEqual(messagingUsers);
  });

  it('accepts a user without modifying_state and reserved_type, and does not invent them', () => {
    const user = parseResponse(messagingUserSchema, messagingUserFree, URL);
    expect('modifying_state' in user).toBe(false);
    expect('reserved_type' in user).toBe(false);
    expect('enterprise' in user).toBe(false);
  });

  it('keeps an empty reserved_type, the suspended state and the enterprise object', () => {
    expect(parseResponse(messagingUserSchema, messagingUserPaid, URL).reserved_type).toBe('');
    const suspended = parseResponse(messagingUserSchema, messagingUserFixedSuspended, URL);
    expect(suspended.modifying_state).toBe('suspended');
    expect(suspended.state).toBe('passive');
    expect(parseResponse(messagingUserSchema, messagingUserEnterprise, URL).enterprise).toEqual({ enabled: true });
  });

  it('keeps undocumented fields', () => {
    const user = parseResponse(messagingUserSchema, { ...messagingUserFree, new_flag: { nested: 1 } }, URL);
    expect(user.max_workflow_steps).toBe(1000);
    expect(user.new_flag).toEqual({ nested: 1 });
  });

  it('accepts values the service may add to state, type, region and the other enumerations', () => {
    const user = parseResponse(
      messagingUserSchema,
      {
        ...messagingUserFree,
        state: 'frozen',
        type: 'enterprise',
        region: 'ap-southeast-1',
        modifying_state: 'upgrading',
        reserved_type: 'messaging_fixed_1b',
        prometheus_enabled: 'pending',
      },
      URL,
    );
    expect([user.state, user.type, user.region]).toEqual(['frozen', 'enterprise', 'ap-southeast-1']);
  });

  it('keeps prometheus_enabled a string and refuses a boolean', () => {
    expect(parseResponse(messagingUserSchema, messagingUserFree, URL).prometheus_enabled).toBe('false');
    const error = responseError(messagingUsersSchema, [messagingUserFree, { ...messagingUserPaid, prometheus_enabled: true }]);
    expect(error.field).toBe('1.prometheus_enabled');
    expect(error.message).toContain('expected string, got boolean');
  });

  it("accepts the service's own documented example: without read_only_token, max_bandwidth_per_second and deletion_time, with fields the spec does not list", () => {
    const example: Record<string, unknown> = {
      ...copy(messagingUserFree),
      max_completion_tokens_per_day: 1000,
      max_workflow_parallelism: 10,
    };
    delete example.read_only_token;
    delete example.max_bandwidth_per_second;
    delete example.deletion_time;
    const user = parseResponse(messagingUserSchema, example, URL);
    expect(user.read_only_token).toBeUndefined();
    expect(user.max_completion_tokens_per_day).toBe(1000);
    expectTypeOf(user.max_bandwidth_per_second).toEqualTypeOf<number | undefined>();
  });

  it.each(['id', 'token', 'customer_id'])('requires %s', (field) => {
    const user: Record<string, unknown> = copy(messagingUserFree);
    delete user[field];
    const error = responseError(messagingUserSchema, user);
    expect(error.field).toBe(field);
    expect(error.message).toContain('is missing');
  });

  it('names the path of a wrong nested type', () => {
    const error = responseError(messagingUsersSchema, [
      messagingUserFree,
      messagingUserPaid,
      { ...messagingUserEnterprise, enterprise: { enabled: 'yes' } },
    ]);
    expect(error.field).toBe('2.enterprise.enabled');
    expect(error.message).toContain('expected boolean, got string');
  });

  it('refuses a string where the spec says integer', () => {
    expect(responseError(messagingUserSchema, { ...messagingUserFree, max_message_size: '1048576' }).field).toBe('max_message_size');
  });

  it('reads a null list (Go nil slice) as no users', () => {
    expect(parseResponse(messagingUsersSchema, null, URL)).toEqual([]);
  });

  it('types enumerations with their known values but admits others', () => {
    expectTypeOf<'active'>().toExtend<MessagingUser['state']>();
    expectTypeOf<'frozen'>().toExtend<MessagingUser['state']>();
    // The known values survive in the type (a plain \`string\` would give never here): editors suggest them.
    expectTypeOf<Extract<MessagingUser['state'], 'active' | 'passive'>>().toEqualTypeOf<'active' | 'passive'>();
    expectTypeOf<Extract<MessagingUser['region'], 'eu-central-1'>>().toEqualTypeOf<'eu-central-1'>();
    expectTypeOf<'enterprise:acme'>().toExtend<NonNullable<MessagingUser['reserved_type']>>();
    expectTypeOf<MessagingUser['prometheus_enabled']>().toExtend<string | undefined>();
    expectTypeOf<MessagingUser['modifying_state']>().toExtend<string | undefined>();
    expect(MESSAGING_USER_STATES).toEqual(['active', 'passive']);
  });
});
