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

/**
 * The level this process logs at. The logger exists before the configuration is read, so a level pino
 * does not know falls back to info here: pino would throw at import, a stack trace in place of the
 * configuration check that names LOG_LEVEL.
 */
function defaultLevel(): string {
  const level = process.env.LOG_LEVEL?.trim().toLowerCase();
  if (!level) return process.env.VITEST ? 'silent' : 'info';
  return level === 'silent' || level in pino.levels.values ? level : 'info';
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
