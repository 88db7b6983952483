import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors';
import { ENV_VARIABLES, optionalSetting, requiredSetting, resolveHeaderPrefix, checkBaseUrl } from '../../src/config';

describe('requiredSetting', () => {
  it('prefers the argument over the environment', () => {
    expect(requiredSetting('token', 'from-arg', { MAILROOM_TOKEN: 'from-env' })).toBe('from-arg');
  });

  it('falls back to the MAILROOM_* variable', () => {
    expect(requiredSetting('token', undefined, { MAILROOM_TOKEN: 'from-env' })).toBe('from-env');
  });

  it('treats empty and blank values as missing', () => {
    expect(requiredSetting('token', '', { MAILROOM_TOKEN: 'env' })).toBe('env');
    expect(() => requiredSetting('token', '  ', { MAILROOM_TOKEN: '' })).toThrow(ConfigError);
  });

  it('names the option and the variable when missing', () => {
    try {
      requiredSetting('managementPassword', undefined, {});
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const e = error as ConfigError;
      expect(e.option).toBe('managementPassword');
      expect(e.variable).toBe('MAILROOM_MANAGEMENT_PASSWORD');
      expect(e.message).toContain('managementPassword');
      expect(e.message).toContain('MAILROOM_MANAGEMENT_PASSWORD');
    }
  });

  it('rejects a non-string argument', () => {
    expect(() => requiredSetting('token', 42 as unknown as string, {})).toThrow(/must be a string/);
  });

  it('has a variable for every option', () => {
    expect(Object.values(ENV_VARIABLES).every((name) => name.startsWith('MAILROOM_'))).toBe(true);
    expect(optionalSetting('nextSigningKey', undefined, {})).toBeUndefined();
  });
});

describe('resolveHeaderPrefix', () => {
  it('defaults to Service', () => {
    expect(resolveHeaderPrefix(undefined, {})).toBe('Service');
  });
  it('reads MAILROOM_HEADER_PREFIX', () => {
    expect(resolveHeaderPrefix(undefined, { MAILROOM_HEADER_PREFIX: 'Upstash' })).toBe('Upstash');
  });
  it('lets the argument win', () => {
    expect(resolveHeaderPrefix('Acme', { MAILROOM_HEADER_PREFIX: 'Upstash' })).toBe('Acme');
  });
  it.each(['', 'Service-', 'Ser vice', 'X\r\nEvil', '-Lead', '1abc'])('refuses %j', (bad) => {
    expect(() => resolveHeaderPrefix(bad, {})).toThrow(ConfigError);
  });
});

describe('checkBaseUrl', () => {
  it('accepts http and https', () => {
    expect(checkBaseUrl('baseUrl', 'https://x.test/v2')).toBe('https://x.test/v2');
  });
  it.each(['x.test', 'ftp://x.test', 'http://x.test/?a=1', 'not a url'])('refuses %j with the variable name', (bad) => {
    expect(() => checkBaseUrl('baseUrl', bad)).toThrow(/baseUrl/);
  });
});
