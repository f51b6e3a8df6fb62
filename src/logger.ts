import { pino, type Logger } from 'pino';

/**
 * Paths that may hold secrets or personal data. pino replaces them with [Redacted] wherever they
 * appear in a log line, so a careless `log.info({ req })` cannot leak a token or an e-mail address.
 */
export const REDACT_PATHS = [
  'apiKey', '*.apiKey', 'accessToken', '*.accessToken', 'token', '*.token', 'clientSecret', '*.clientSecret',
  'password', '*.password', 'secret', '*.secret', 'authorization', '*.authorization',
  'headers.authorization', '*.headers.authorization', 'req.headers.authorization', 'req.headers.cookie',
  'email', '*.email', 'emails', '*.emails', 'phone', '*.phone', 'phones', '*.phones',
  'properties', '*.properties', 'body', '*.body', 'rawBody', '*.rawBody',
];

function defaultLevel(): string {
  if (process.env.LOG_LEVEL) return process.env.LOG_LEVEL;
  return process.env.VITEST ? 'silent' : 'info';
}

export const rootLogger: Logger = pino({
  level: defaultLevel(),
  base: { service: 'crm-enrich' },
  redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
});

/** A named logger per module, e.g. `logger('connector.hubspot')`. */
export function logger(module: string): Logger {
  return rootLogger.child({ module });
}

export type { Logger };
