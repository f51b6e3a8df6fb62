import { pino, type Logger } from 'pino';
import { isExpectedFailure, networkMessage } from './core/network-failure.js';
import { scrubValues } from './core/scrub.js';

/**
 * Paths that may hold secrets or personal data. pino replaces them with [Redacted] wherever they
 * appear in a log line, so a careless `log.info({ req })` cannot leak a token or an e-mail address.
 */
export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'accessToken',
  '*.accessToken',
  'token',
  '*.token',
  'clientSecret',
  '*.clientSecret',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'email',
  '*.email',
  'emails',
  '*.emails',
  'phone',
  '*.phone',
  'phones',
  '*.phones',
  'properties',
  '*.properties',
  'body',
  '*.body',
  'rawBody',
  '*.rawBody',
  'author',
  '*.author',
  'comment',
  '*.comment',
];

function defaultLevel(): string {
  if (process.env.LOG_LEVEL) return process.env.LOG_LEVEL;
  return process.env.VITEST ? 'silent' : 'info';
}

/**
 * An error as a log line holds it. Its message and stack may quote what a CRM or the partner refused:
 * values out, words kept. An expected failure (a service unreachable, an error that is retried) is
 * what failed and the system's code, without a stack trace that would say nothing more.
 */
export function serializeError(error: unknown): Record<string, unknown> {
  const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (isExpectedFailure(error)) {
    delete serialized.stack;
    delete serialized.cause;
    serialized.message = networkMessage(error);
  }
  for (const key of ['message', 'stack'])
    if (typeof serialized[key] === 'string') serialized[key] = scrubValues(serialized[key]);
  return serialized;
}

export const rootLogger: Logger = pino({
  level: defaultLevel(),
  base: { service: 'crm-enrich' },
  redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
  serializers: { err: serializeError },
  hooks: {
    // Free-text log messages (a warning carrying an error's message) get the same treatment.
    logMethod(args, method) {
      const [first, ...rest] = args;
      if (typeof first === 'string')
        return method.apply(this, [scrubValues(first), ...rest] as Parameters<typeof method>);
      if (typeof rest[0] === 'string')
        return method.apply(this, [first, scrubValues(rest[0]), ...rest.slice(1)] as Parameters<typeof method>);
      return method.apply(this, args);
    },
  },
});

/** A named logger per module, e.g. `logger('connector.hubspot')`. */
export function logger(module: string): Logger {
  return rootLogger.child({ module });
}

export type { Logger };
