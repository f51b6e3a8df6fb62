import type { Command } from 'commander';
import { toId18 } from '../ids.js';

const whole = (name: string, min: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} expects a whole number from ${min}, got '${value}'`);
  return n;
};

/** `crm-enrich sandbox salesforce`: a local Salesforce org for trying the service without one. */
export function registerSalesforceSandboxCommand(parent: Command): void {
  parent
    .command('salesforce')
    .description('run a local Salesforce org (OAuth, REST data API, outbound messages) that jsforce can talk to')
    .option('--port <n>', 'port to listen on (0 picks a free one)', whole('--port', 0), 0)
    .option('--outbound-url <url>', 'where outbound messages are POSTed, e.g. http://127.0.0.1:3000/webhooks/salesforce/<secret>')
    .option('--org-id <id>', 'the 18-character organization id the org reports')
    .option('--daily-limit <n>', 'the org\'s 24-hour API allocation', whole('--daily-limit', 1), 15_000)
    .action(async (opts: { port: number; outboundUrl?: string; orgId?: string; dailyLimit: number }) => {
      if (opts.outboundUrl !== undefined && !URL.canParse(opts.outboundUrl)) {
        throw new Error(`--outbound-url expects an absolute URL, got '${opts.outboundUrl}'`);
      }
      const orgId = opts.orgId === undefined ? undefined : toId18(opts.orgId);
      if (opts.orgId !== undefined && !orgId?.startsWith('00D')) {
        throw new Error(`--org-id expects a 15- or 18-character organization id starting with 00D, got '${opts.orgId}'`);
      }
      const { startSalesforceSandbox } = await import('./server.js');
      const sandbox = await startSalesforceSandbox({
        port: opts.port,
        outboundUrl: opts.outboundUrl,
        orgId,
        dailyLimit: opts.dailyLimit,
      });
      console.log(`salesforce sandbox listening on ${sandbox.url}`);
      console.log(`org ${sandbox.orgId}; OAuth client credentials: client_id=sandbox client_secret=sandbox`);
      const stop = () => void sandbox.close().then(() => process.exit(0));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
}
