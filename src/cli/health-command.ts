/**
 * `crm-enrich health`: the data-health report of one CRM object, from the running service's admin API.
 * Prints the latest finished scan; runs one first (and waits, with progress on stderr) when none has
 * finished or `--run` asks for a fresh one. As a table for people, JSON or CSV for tools.
 */
import type { HealthReport, HealthRunView } from '../enrich/listing/health.js';
import { client } from './backfill-command.js';

export const HEALTH_FORMATS = ['table', 'json', 'csv'] as const;
export type HealthFormat = (typeof HEALTH_FORMATS)[number];

export interface HealthOptions {
  connection: string;
  object: string;
  format: string;
  run?: boolean;
  url?: string;
  /** Between progress reads while a scan runs. */
  pollMs?: number;
}

export async function health(options: HealthOptions, out: (text: string) => void = (t) => process.stdout.write(t)) {
  if (!(HEALTH_FORMATS as readonly string[]).includes(options.format))
    throw new Error(`--format must be one of ${HEALTH_FORMATS.join(', ')}; got "${options.format}"`);
  const call = client(options.url);
  const path = `/data-health/${encodeURIComponent(options.connection)}/${encodeURIComponent(options.object)}`;
  let report = options.run ? undefined : await call<HealthReport>('GET', path).catch(noReport);
  if (!report) {
    let run: HealthRunView | null = await call<HealthRunView>('POST', `${path}/runs`);
    while (run) {
      process.stderr.write(`scanning ${options.connection} ${options.object}: ${run.records} records read\n`);
      await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
      run = (await call<{ running: HealthRunView | null }>('GET', `${path}/runs/current`)).running;
    }
    report = await call<HealthReport>('GET', path);
  }
  out(render(report, options.format as HealthFormat));
}

/** A missing report is a reason to run a scan; any other refusal is the command's error. */
function noReport(error: unknown): undefined {
  if ((error as { code?: string }).code === 'no_report') return undefined;
  throw error;
}

export function render(report: HealthReport, format: HealthFormat): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  if (format === 'csv') {
    const rows = report.properties.map((p) =>
      [report.connection, report.object, report.records, p.property, p.filled, p.fillable, p.credits].map(csvCell),
    );
    return [['connection', 'object', 'records', 'property', 'filled', 'fillable', 'credits'], ...rows]
      .map((r) => r.join(','))
      .join('\n')
      .concat('\n');
  }
  const head = ['property', 'filled', 'fillable', 'credits'];
  const body = report.properties.map((p) => [p.property, String(p.filled), String(p.fillable), String(p.credits)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const facts = [
    `${report.records} records of ${report.connection} ${report.object}, scanned ${report.scannedAt}`,
    `at most ${report.credits} credits to fill every gap the partner could fill`,
    `${report.neverEnriched} never enriched, ${report.stale} stale, ${report.noMatchKey} without a match key, ` +
      `${report.freeMail} at a free-mail address`,
    ...(report.noCompany === null ? [] : [`${report.noCompany} without a company`]),
    ...(report.duplicateDomains === null ? [] : [`${report.duplicateDomains} sharing a domain with another company`]),
  ];
  return [...facts, '', line(head), ...body.map(line), ''].join('\n');
}

const csvCell = (value: string | number): string => {
  const text = String(value);
  return /[",\n\r]/.test(text) || /^[=+\-@]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};
