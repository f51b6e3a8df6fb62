/** Small fetch helpers for the partner sandbox contract tests. */
export const KEY = 'sandbox-key';

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function call(
  base: string,
  path: string,
  init: { key?: string | null; method?: string; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = init.key === undefined ? KEY : init.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(base + path, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
