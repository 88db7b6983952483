import type { TestServer } from './test-server';

/** A request without core's client (which refuses bad input before sending): for error statuses. */
export async function raw(
  t: TestServer,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string; token?: string | null } = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const token = init.token === undefined ? t.server.token : init.token;
  const response = await fetch(`${t.server.url}${path}`, {
    method,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body, headers: response.headers };
}
