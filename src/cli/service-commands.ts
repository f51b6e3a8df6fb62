/**
 * `serve`, `backfill`, `health`, `discover`, `enrich-file`, `refresh` and `mappings provision`: the commands that run
 * or drive the service.
 */
import type { Command } from 'commander';
import { formatProblems, MappingError } from '../mapping/index.js';

/** A repeatable option that also takes comma-separated values. */
function collectValues(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}

/** A repeatable option whose values are kept whole (a condition may hold a comma). */
const repeat = (value: string, previous: string[] = []): string[] => [...previous, value];

function fail(error: unknown): never {
  if (error instanceof MappingError) {
    process.stderr.write(`The mappings are invalid; crm-enrich will not start:\n${formatProblems(error.problems)}\n`);
  } else {
    process.stderr.write(`${(error as Error).message}\n`);
  }
  process.exit(1);
}

const LIST_HELP =
  "only the members of this CRM list: a HubSpot list's id or name, a Salesforce list view's id or API name " +
  "or label, or a Salesforce report's id";

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
    .option('--list <id or name>', LIST_HELP)
    .option('--list-name <name>', 'the same, by name only (for a name that looks like an id)')
    .option(
      '--missing <property>',
      'fill the gaps: only records with this mapped property empty that a lookup could fill (as the ' +
        "data-health report counts them); the report's credits for it are what the dry run previews",
    )
    .option(
      '--where <condition>',
      'only records whose own property meets the condition: <property><op><value>, op one of =, !=, <, <=, >, ' +
        '>=, or "<property> empty" / "<property> present" (e.g. "numberofemployees>=50"); repeat for several ' +
        '(all must hold)',
      repeat,
    )
    .option(
      '--dry-run',
      'enqueue nothing: say how many records it would enrich and credits it would spend at most, link with ' +
        'companies, and how many companies it would create',
    )
    .option('--url <url>', 'the service (default http://127.0.0.1:$PORT)')
    .action(
      async (opts: {
        connection: string;
        object: string;
        limit?: number;
        list?: string;
        listName?: string;
        missing?: string;
        where?: string[];
        url?: string;
        dryRun?: boolean;
      }) => {
        const { backfill, backfillDryRun } = await import('./backfill-command.js');
        await (opts.dryRun ? backfillDryRun(opts) : backfill(opts)).catch(fail);
      },
    );

  program
    .command('health')
    .description("the data-health report of one CRM object: every record's gaps, what filling them would cost")
    .requiredOption('--connection <name>', 'hubspot or salesforce')
    .requiredOption('--object <type>', 'e.g. contact, company, Lead, Contact, Account')
    .option('--format <format>', 'table, json or csv', 'table')
    .option('--run', 'scan the CRM now rather than print the latest scan (one runs anyway when none has finished)')
    .option('--url <url>', 'the service (default http://127.0.0.1:$PORT)')
    .action(async (opts: { connection: string; object: string; format: string; run?: boolean; url?: string }) => {
      const { health } = await import('./health-command.js');
      await health(opts).catch(fail);
    });

  const mappings = program.commands.find((c) => c.name() === 'mappings') ?? program.command('mappings');
  mappings
    .command('provision')
    .description(
      "create the mappings' custom properties in each configured CRM where its API allows; print the rest for an admin",
    )
    .option('--mappings <dir>', 'mapping files', 'mappings')
    .option('--crm <crm>', 'only this CRM (hubspot or salesforce)')
    .option('--object <type>', 'only this object')
    .option(
      '--salesforce-metadata <dir>',
      'write the Salesforce fields and permission set as SFDX source under <dir> instead (no org needed)',
    )
    .action(async (opts: { mappings: string; crm?: string; object?: string; salesforceMetadata?: string }) => {
      if (opts.salesforceMetadata) {
        const { writeSalesforceProjectMetadata } = await import('./salesforce-metadata-command.js');
        await writeSalesforceProjectMetadata({ mappings: opts.mappings, dir: opts.salesforceMetadata }).catch(fail);
        return;
      }
      const { provision } = await import('./provision-command.js');
      const outstanding = await provision(opts).catch(fail);
      if (outstanding > 0) process.exitCode = 1;
    });

  program
    .command('discover')
    .description('find people at one company who fit a persona, and add them to the CRM (asks the running service)')
    .requiredOption('--crm <crm>', 'hubspot or salesforce')
    .requiredOption(
      '--company <id>',
      'an enriched company (HubSpot company, Salesforce Account): its CRM id, or its domain',
    )
    .option('--persona <name>', 'a saved persona')
    .option(
      '--seniority <codes>',
      'seniority codes (see GET /admin/api/filter-options); repeat or separate with commas',
      collectValues,
    )
    .option('--department <codes>', 'department codes; repeat or separate with commas', collectValues)
    .option('--position <text>', 'job title text to look for; repeat for several', (v: string, p: string[] = []) => [
      ...p,
      v,
    ])
    .option('--limit <n>', 'add at most this many people', (v) => Number.parseInt(v, 10))
    .option('--skip-dnd', 'leave out people whose phone is on a do-not-disturb register')
    .option(
      '--dry-run',
      'create nothing and spend nothing: list the candidates, what a run would do with each, and the credits',
    )
    .option('--url <url>', 'the service (default http://127.0.0.1:$PORT)')
    .action(async (opts: import('./discover-command.js').DiscoverOptions) => {
      const { discover } = await import('./discover-command.js');
      await discover(opts).catch(fail);
    });

  program
    .command('enrich-file')
    .description(
      'enrich the rows of a CSV file into a new CSV file, with a cost preview first (asks the running service)',
    )
    .argument('<in.csv>', 'the file: a header line, then one row per person or company')
    .requiredOption('--out <out.csv>', 'where to write the result (UTF-8 with a byte-order mark, CRLF)')
    .option('--connection <name>', 'hubspot or salesforce', 'hubspot')
    .option('--object <type>', 'the mapped object the rows are: contact, company, Lead, Contact, Account', 'contact')
    .option(
      '--map <header=key>',
      'a column holding a match key its header does not name (e.g. "Mail=email"); repeat for several',
      (v: string, p: string[] = []) => [...p, v],
      [],
    )
    .option('--dry-run', 'look nothing up and spend nothing: print the cost preview and the invalid rows')
    .option('--relookup', 'look up rows the CRM already holds too')
    .option('--url <url>', 'the service (default http://127.0.0.1:$PORT)')
    .action(async (input: string, opts: import('./enrich-file-command.js').EnrichFileOptions) => {
      const { enrichFileCommand } = await import('./enrich-file-command.js');
      await enrichFileCommand(input, opts).catch(fail);
    });

  program
    .command('refresh')
    .description(
      'enqueue a refresh now: stale records and records the CRM changed since the last sweep; with --list, ' +
        'every enriched member of that CRM list, due or not',
    )
    .option('--connection <name>', 'with --list: hubspot or salesforce')
    .option('--object <type>', 'with --list: e.g. contact, company, Lead, Contact, Account')
    .option('--list <id or name>', LIST_HELP)
    .option('--list-name <name>', 'the same, by name only (for a name that looks like an id)')
    .option('--url <url>', 'the service (default http://127.0.0.1:$PORT)')
    .action(async (opts: import('./backfill-command.js').RefreshOptions) => {
      const { refresh } = await import('./backfill-command.js');
      await refresh(opts).catch(fail);
    });
}
