import { InvalidArgumentError, type Command } from 'commander';
import { toId18 } from '../ids.js';

const whole = (name: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new InvalidArgumentError(`${name} expects a whole number from ${min} to ${max}, got '${value}'`);
  }
  return n;
};

const absoluteUrl = (value: string) => {
  if (!URL.canParse(value)) throw new InvalidArgumentError(`--outbound-url expects an absolute URL, got '${value}'`);
  return value;
};

const orgId = (value: string) => {
  const id = toId18(value);
  if (!id?.startsWith('00D'))
    throw new InvalidArgumentError(
      `--org-id expects a 15- or 18-character organization id starting with 00D, got '${value}'`,
    );
  return id;
};

/** `crm-enrich sandbox salesforce`: a local Salesforce org for trying the service without one. */
export function registerSalesforceSandboxCommand(parent: Command): void {
  parent
    .command('salesforce')
    .description('run a local Salesforce org (OAuth, REST data API, SOQL, outbound messages) that jsforce can talk to')
    .option('--port <n>', 'port to listen on (0 picks a free one)', whole('--port', 0, 65_535), 0)
    .option(
      '--outbound-url <url>',
      'where outbound messages are POSTed, e.g. http://127.0.0.1:3000/webhooks/salesforce/<secret>',
      absoluteUrl,
    )
    .option('--org-id <id>', 'the organization id the org reports and puts in outbound messages', orgId)
    .option(
      '--data-dir <dir>',
      "keep the org's records, custom fields and id counter in <dir>/salesforce-org-<id>.json across restarts",
    )
    .option('--daily-limit <n>', "the org's 24-hour API allocation", whole('--daily-limit', 1, 100_000_000), 15_000)
    .action(
      async (opts: { port: number; outboundUrl?: string; orgId?: string; dataDir?: string; dailyLimit: number }) => {
        const { startSalesforceSandbox } = await import('./server.js');
        const sandbox = await startSalesforceSandbox(opts);
        console.log(`salesforce sandbox listening on ${sandbox.url}`);
        console.log(
          `org ${sandbox.orgId}; OAuth client credentials client_id=sandbox client_secret=sandbox; stats at ` +
            `${sandbox.url}/__sandbox/stats`,
        );
        if (opts.dataDir) console.log(`records kept in ${opts.dataDir}`);
        const stop = () => void sandbox.close().then(() => process.exit(0));
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      },
    );
}
