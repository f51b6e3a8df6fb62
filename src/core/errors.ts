/**
 * What a caller should do about an error:
 * - transient: try again later (with backoff), nothing is wrong with the request;
 * - config: a person must fix configuration or credentials; retrying will not help;
 * - permanent: this request will never succeed as it is.
 */
export type ErrorKind = 'transient' | 'config' | 'permanent';

export class AppError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  readonly details?: Record<string, unknown>;

  constructor(
    code: string,
    message: string,
    kind: ErrorKind,
    details?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.kind = kind;
    this.details = details;
  }

  get retryable(): boolean {
    return this.kind === 'transient';
  }
}
