/**
 * An error answer of the sandbox, in one of the specification's two body shapes: the generic body
 * `{error: <status>, message}` or the filter-options body `{error: {code, reason}}`.
 */
export class SandboxHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`partner sandbox answered ${status}`);
    this.name = 'SandboxHttpError';
  }

  static generic(status: number, message: string, headers?: Record<string, string>): SandboxHttpError {
    return new SandboxHttpError(status, { error: status, message }, headers);
  }

  static filter(status: number, code: string, reason: string): SandboxHttpError {
    return new SandboxHttpError(status, { error: { code, reason } });
  }
}
