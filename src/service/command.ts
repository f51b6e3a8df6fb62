/** `serve`, `backfill`, `refresh` and `mappings provision`: the commands that run or drive the service. */
import type { Command } from 'commander';
import { formatProblems, MappingError } from '../mapping/index.js';

function fail(error: unknown): never {
  if (error instanceof MappingError) {
    process.stderr.write(`The mappings are invalid; crm-enrich will not start:\n${formatProblems(error.problems)}\n`);
  } else {
    process.stderr.write(`${(error as Error).message}\n`);
  }
  process.exit(1);
}

export function registerServiceCommands(program: Command): void {
  program
    .command('serve')
    .description('run the service; outside services without credentials are replaced by local sandboxes')
    .option('--mappings <dir>', 'mapping files', 'mappings')
    .option('--no-demo', 'do not create demo records in the CRM sandboxes')
    .action(async (opts: { mappings: string; demo: boolean }) => {
      const { serve } = await import('./serve.js');
      await serve(opts).catch(fail);
    });

  program
    .command('backfill')
    .description('enrich every existing record of one CRM object (asks the running service; resumable)')
    .requiredOption('--connection <name>', 'hubspot or salesforce')
    .requiredOption('--object <type>', 'e.g. contact, company, Lead, Contact, Account')
    .option('--limit <n>', 'stop after this many records', (v) => Number.parseInt(v, 10))
    .option('--url <url>', 'the service (default http://127.0.0.1:$PORT)')
    .action(async (opts: { connection: string; object: string; limit?: number; url?: string }) => {
      const { backfill } = await import('./backfill-command.js');
      await backfill(opts).catch(fail);
    });

  const mappings = program.commands.find((c) => c.name() === 'mappings') ?? program.command('mappings');
  mappings
    .command('provision')
    .description("create the mappings' custom properties in each configured CRM where its API allows; print the rest for an admin")
    .option('--mappings <dir>', 'mapping files', 'mappings')
    .option('--crm <crm>', 'only this CRM (hubspot or salesforce)')
    .option('--object <type>', 'only this object')
    .action(async (opts: { mappings: string; crm?: string; object?: string }) => {
      const { provision } = await import('./provision-command.js');
      const outstanding = await provision(opts).catch(fail);
      if (outstanding > 0) process.exitCode = 1;
    });

  program
    .command('refresh')
    .description('enqueue a refresh now: stale records and records the CRM changed since the last sweep')
    .option('--url <url>', 'the service (default http://127.0.0.1:$PORT)')
    .action(async (opts: { url?: string }) => {
      const { refresh } = await import('./backfill-command.js');
      await refresh(opts).catch(fail);
    });
}
