/**
 * `crm-enrich job-changes sweep`: asks the running service to sweep a segment for job changes (POST
 * /admin/api/job-changes/sweep), so the refreshes run where the queue is.
 */
import { InvalidArgumentError, type Command } from 'commander';

interface SweepOptions {
  connection: string;
  object: string;
  property: string;
  operator: 'EQ' | 'IN';
  value: string[];
  olderThanDays?: number;
  url?: string;
}

const days = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0 || n > 3650)
    throw new InvalidArgumentError(`--older-than-days expects a whole number from 0 to 3650, got '${value}'`);
  return n;
};

export async function sweep(options: SweepOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const body = {
    connection: options.connection,
    object: options.object,
    segment: {
      property: options.property,
      operator: options.operator,
      value: options.operator === 'IN' ? options.value : options.value[0],
    },
    ...(options.olderThanDays !== undefined ? { olderThanDays: options.olderThanDays } : {}),
  };
  const { client } = await import('./backfill-command.js');
  const result = await client(options.url)<{ segment: number; eligible: number; enqueued: number; deferred: number }>(
    'POST',
    '/job-changes/sweep',
    body,
  );
  out.write(
    `${result.segment} records in the segment, ${result.eligible} with partner data old enough; ` +
      `${result.enqueued} refreshes enqueued` +
      `${result.deferred ? `, ${result.deferred} left for a later sweep (today's bulk budget is spent)` : ''}. ` +
      'Moves found show in GET /admin/api/job-changes.\n',
  );
}

export function registerJobChangeCommands(program: Command): void {
  program
    .command('job-changes')
    .description('find contacts who changed jobs')
    .command('sweep')
    .description('refresh a segment of person records to find job changes (asks the running service)')
    .requiredOption('--connection <name>', 'hubspot or salesforce')
    .requiredOption('--object <type>', 'contact (HubSpot); Contact or Lead (Salesforce)')
    .requiredOption('--property <name>', 'the property or field that selects the segment, e.g. lifecyclestage')
    .requiredOption(
      '--value <value>',
      'the value it holds; repeat with --operator IN for several',
      (v: string, p: string[] = []) => [...p, v],
    )
    .option('--operator <op>', 'EQ or IN', 'EQ')
    .option(
      '--older-than-days <n>',
      'only people whose partner data is this old (default JOB_CHANGE_MIN_AGE_DAYS; 0: everyone)',
      days,
    )
    .option('--url <url>', 'the service (default http://127.0.0.1:$PORT)')
    .action(async (opts: SweepOptions) => {
      await sweep(opts).catch((error: unknown) => {
        process.stderr.write(`${(error as Error).message}\n`);
        process.exit(1);
      });
    });
}
