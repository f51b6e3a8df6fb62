/**
 * `/readyz`, answered to anyone (probes carry no credentials): which checks failed, by name, and never
 * their error text, which can name hosts, ports, users and database objects. The text goes to the log,
 * once when a check starts failing or fails differently, and a line when it recovers.
 */
import type { Request, Response } from 'express';
import { logger } from '../logger.js';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
  /**
   * false: a failure is reported but leaves the service ready (it can still store webhooks, the
   * one thing a load balancer must route to it for). Default true.
   */
  required?: boolean;
}

/** Where failures are written: the module's logger, or a test's recorder. */
export type ReadinessLog = Pick<ReturnType<typeof logger>, 'warn' | 'info'>;

export function readinessHandler(
  checks: readonly ReadinessCheck[],
  log: ReadinessLog = logger('server.readiness'),
): (req: Request, res: Response) => Promise<void> {
  // The last failure logged per check, so a probe every few seconds does not repeat it.
  const logged = new Map<string, string>();
  return async (_req, res) => {
    const results = await Promise.all(
      checks.map(async ({ name, check, required = true }) => {
        try {
          await check();
          if (logged.delete(name)) log.info({ check: name }, 'a readiness check passes again');
          return { name, ok: true, ...(required ? {} : { required }) };
        } catch (error) {
          const text = error instanceof Error ? error.message : String(error);
          if (logged.get(name) !== text) {
            logged.set(name, text);
            log.warn({ check: name, required, err: error }, 'a readiness check failed');
          }
          return { name, ok: false, ...(required ? {} : { required }) };
        }
      }),
    );
    const ready = results.every((r) => r.ok || r.required === false);
    const failed = results.filter((r) => !r.ok).map((r) => r.name);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', failed, checks: results });
  };
}
