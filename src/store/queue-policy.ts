/**
 * A queue's retry and expiry policy as the settings want it, against the one pg-boss stored when the
 * queue was first created. pg-boss copies a queue's policy into each job it inserts and never changes
 * a stored queue by itself, so without this a changed CRM_ENRICH_JOB_RETRY_DELAY_SECONDS (or expiry,
 * or attempts) would be ignored for good.
 */
import type { QueueOptions } from 'pg-boss';

/** The policy values the settings decide, in pg-boss's names. */
export type PolicyOptions = Pick<
  QueueOptions,
  'retryLimit' | 'retryDelay' | 'retryDelayMax' | 'expireInSeconds' | 'retentionSeconds'
>;

export interface PolicyChange {
  /** The setting that decides it, as an operator knows it (an environment variable where there is one). */
  setting: string;
  from: number | null;
  to: number;
}

type Option = keyof PolicyOptions;

/** How each option is named and shown: attempts count the first try, pg-boss's retry limit does not. */
const SHOWN: Record<Option, { setting: string; shown: (v: number) => number }> = {
  retryLimit: { setting: 'CRM_ENRICH_JOB_ATTEMPTS', shown: (v) => v + 1 },
  retryDelay: { setting: 'CRM_ENRICH_JOB_RETRY_DELAY_SECONDS', shown: (v) => v },
  retryDelayMax: { setting: 'longest retry delay (seconds)', shown: (v) => v },
  expireInSeconds: { setting: 'CRM_ENRICH_JOB_EXPIRE_SECONDS', shown: (v) => v },
  retentionSeconds: { setting: 'dead-letter retention (seconds)', shown: (v) => v },
};

/** The options whose stored value differs from the wanted one, and how each change reads. */
export function policyChanges(
  stored: Partial<Record<Option, number | null>>,
  wanted: PolicyOptions,
): { update: PolicyOptions; changes: PolicyChange[] } {
  const update: PolicyOptions = {};
  const changes: PolicyChange[] = [];
  for (const option of Object.keys(wanted) as Option[]) {
    const to = wanted[option];
    const from = stored[option] ?? null;
    if (to === undefined || from === to) continue;
    update[option] = to;
    const { setting, shown } = SHOWN[option];
    changes.push({ setting, from: from === null ? null : shown(from), to: shown(to) });
  }
  return { update, changes };
}

/** One line for the log: `CRM_ENRICH_JOB_RETRY_DELAY_SECONDS 10 -> 30; ...`. */
export function describeChanges(changes: PolicyChange[]): string {
  return changes.map((c) => `${c.setting} ${c.from ?? 'unset'} -> ${c.to}`).join('; ');
}
