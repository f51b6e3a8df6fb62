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
    .option(
      '--no-view-setup',
      'the integration user lacks "View Setup and Configuration": GET /limits answers 403 INSUFFICIENT_ACCESS',
    )
    .option(
      '--long-running-limit <n>',
      'concurrent long-running requests the org allows; one more is refused with REQUEST_LIMIT_EXCEEDED ' +
        '"ConcurrentPerOrgLongTxn Limit exceeded." (Salesforce: 25, Developer Edition 5)',
      whole('--long-running-limit', 1, 1_000),
      25,
    )
    .option(
      '--long-running-after-ms <ms>',
      'how long a request runs before it counts as long-running (Salesforce: 20 seconds)',
      whole('--long-running-after-ms', 0, 600_000),
      20_000,
    )
    .option(
      '--answer-delay-ms <ms>',
      'how long every API request takes to answer; above --long-running-after-ms, concurrent calls reach the limit',
      whole('--answer-delay-ms', 0, 600_000),
      0,
    )
    .action(
      async (opts: {
        port: number;
        outboundUrl?: string;
        orgId?: string;
        dataDir?: string;
        dailyLimit: number;
        viewSetup: boolean;
        longRunningLimit: number;
        longRunningAfterMs: number;
        answerDelayMs: number;
      }) => {
        const { startSalesforceSandbox } = await import('./server.js');
        const { longRunningLimit, longRunningAfterMs, answerDelayMs, ...rest } = opts;
        const sandbox = await startSalesforceSandbox({
          ...rest,
          longRunning: { limit: longRunningLimit, afterMs: longRunningAfterMs, answerDelayMs },
        });
        console.log(`salesforce sandbox listening on ${sandbox.url}`);
        console.log(
          `org ${sandbox.orgId}; OAuth client credentials client_id=sandbox client_secret=sandbox; stats at ` +
            `${sandbox.url}/__sandbox/stats`,
        );
        if (opts.dataDir) console.log(`records kept in ${opts.dataDir}`);
        if (!opts.viewSetup) console.log('the integration user may not read /limits (no View Setup and Configuration)');
        const stop = () => void sandbox.close().then(() => process.exit(0));
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      },
    );
}
