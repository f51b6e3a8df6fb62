/**
 * `crm-enrich discover`: people at one company who fit a persona, through the running service's admin
 * API. `--dry-run` prints the preview (each candidate, what a run would do and why, the credits); a run
 * shows a progress bar and ends with what it created, linked and skipped, and why it stopped.
 */
import { randomUUID } from 'node:crypto';
import type { DiscoveryPreview, DiscoveryProgress, DiscoveryRunResult } from '../discovery/discovery.js';
import { bar, client } from './backfill-command.js';

export interface DiscoverOptions {
  crm: string;
  company: string;
  persona?: string;
  seniority?: string[];
  department?: string[];
  position?: string[];
  limit?: number;
  dryRun?: boolean;
  skipDnd?: boolean;
  url?: string;
}

function body(options: DiscoverOptions) {
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit <= 0))
    throw new Error('--limit must be a whole number above 0');
  const filters = {
    ...(options.seniority?.length ? { seniority: options.seniority } : {}),
    ...(options.department?.length ? { department: options.department } : {}),
    ...(options.position?.length ? { position: options.position } : {}),
  };
  if (options.persona && Object.keys(filters).length)
    throw new Error('give --persona or filters (--seniority, --department, --position), not both');
  if (!options.persona && Object.keys(filters).length === 0)
    throw new Error('say who to look for: --persona <name>, or --seniority, --department and/or --position');
  return {
    crm: options.crm,
    companyId: options.company,
    ...(options.persona ? { persona: options.persona } : { filters }),
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
    ...(options.skipDnd ? { skipDoNotDisturb: true } : {}),
  };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.min(48, Math.max(...rows.map((r) => (r[i] ?? '').length))));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (cell.length > widths[i]! ? `${cell.slice(0, widths[i]! - 1)}…` : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export async function discover(options: DiscoverOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const request = body(options);
  const call = client(options.url);
  if (options.dryRun) {
    const p = await call<DiscoveryPreview>('POST', '/discovery/preview', request);
    out.write(
      `dry run at ${p.company.name ?? p.company.id} (${p.crm} ${p.company.id}, market ${p.company.market}): ` +
        `${p.persona ? `persona ${p.persona}, ` : ''}${p.description}; nothing was created or spent\n`,
    );
    const rows = [['person', 'position', 'seniority', 'department', 'e-mail', 'dnd phone', 'action', 'reason']];
    for (const c of p.candidates)
      rows.push([
        c.personId,
        c.position ?? '',
        c.seniority ?? '',
        c.department ?? '',
        c.hasEmail ? 'yes' : 'no',
        c.hasDndPhone ? 'yes' : 'no',
        c.action,
        c.reason,
      ]);
    if (p.candidates.length) out.write(`${table(rows)}\n`);
    out.write(
      `${p.counts.create} to create, ${p.counts.link} to link, ${p.counts.skip} skipped` +
        `${p.beyondLimit ? `, ${p.beyondLimit} more past the limit of ${p.limit}` : ''}; ${p.credits} ` +
        `credit(s) would be spent; ${p.dailyRemaining} more record(s) may be created today\n`,
    );
    return;
  }
  const runId = randomUUID();
  const tty = (out as NodeJS.WriteStream).isTTY === true;
  let finished = false;
  const watch = (async () => {
    while (!finished) {
      await new Promise((r) => setTimeout(r, 500));
      const progress = await call<DiscoveryProgress>('GET', `/discovery/runs/${runId}`).catch(() => undefined);
      if (progress && !finished && tty)
        out.write(
          `\r${bar(progress.done, progress.total)} ${progress.done}/${progress.total}: ${progress.created} ` +
            `created, ${progress.linked} linked, ${progress.skipped} skipped`,
        );
    }
  })();
  let result: DiscoveryRunResult;
  try {
    result = await call<DiscoveryRunResult>('POST', '/discovery/run', { ...request, runId });
  } finally {
    finished = true;
    await watch;
  }
  if (tty) out.write(`\r${bar(1, 1)}\n`);
  out.write(
    `discovery at ${result.company.name ?? result.company.id}: ${result.created} created, ${result.linked} ` +
      `linked, ${result.skipped} skipped, ${result.credits} credit(s) spent\n`,
  );
  for (const p of result.people.filter((p) => p.action !== 'skipped'))
    out.write(`  ${p.action} ${p.recordId}${p.name ? ` (${p.name})` : ''}: ${p.reason}\n`);
  if (result.stopped) out.write(`${result.stopped.message}\n`);
}
