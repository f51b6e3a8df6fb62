import { AppError, type ErrorKind } from '../core/errors.js';

export type StoreErrorCode =
  | 'store_locked' // another process has the embedded database open
  | 'invalid_schema' // a schema name that is not a plain identifier
  | 'migration_failed'
  | 'invalid_input' // a caller passed something the store cannot keep
  | 'not_found';

const kinds: Record<StoreErrorCode, ErrorKind> = {
  store_locked: 'config',
  invalid_schema: 'config',
  migration_failed: 'config',
  invalid_input: 'permanent',
  not_found: 'permanent',
};

export class StoreError extends AppError {
  constructor(code: StoreErrorCode, message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super(code, message, kinds[code], details, options);
  }
}
