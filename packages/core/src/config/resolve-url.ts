import { ConfigError } from '../errors/config-error';
import { ENV_VARIABLES, type ConfigOption } from './env-variables';

function variableOf(option: string): string | undefined {
  return (ENV_VARIABLES as Record<string, string>)[option];
}

/** A base URL must be absolute http(s); anything else would fail later with a far vaguer fetch error. */
export function checkBaseUrl(option: ConfigOption | (string & {}), value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(
      option,
      variableOf(option),
      `Option "${option}" is not a valid URL: ${JSON.stringify(value)}. Use an absolute URL such as http://127.0.0.1:8288.`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(
      option,
      variableOf(option),
      `Option "${option}" must start with http:// or https://, got ${JSON.stringify(value)}.`,
    );
  }
  if (parsed.search || parsed.hash) {
    throw new ConfigError(option, variableOf(option), `Option "${option}" must not carry a query or fragment: ${JSON.stringify(value)}.`);
  }
  return value;
}
