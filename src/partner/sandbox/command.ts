import { InvalidArgumentError, type Command } from 'commander';

const whole = (name: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new InvalidArgumentError(`${name} expects a whole number from ${min} to ${max}, got '${value}'`);
  }
  return n;
};

const fraction = (name: string) => (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new InvalidArgumentError(`${name} expects a number from 0 to 1, got '${value}'`);
  }
  return n;
};

interface PartnerSandboxCliOptions {
  port: number;
  host: string;
  latencyMs: number;
  failRate: number;
  timeoutRate: number;
  seed: number;
  companies: number;
  people: number;
  jobChangesShare?: number;
}

/** `crm-enrich sandbox partner`: a local partner API that behaves as its specification says. */
export function registerPartnerSandboxCommand(parent: Command): void {
  parent
    .command('partner')
    .description(
      'run a local partner API (company and person lookup, people search, filter options) over synthetic data',
    )
    .option('--port <n>', 'port to listen on (0 picks a free one)', whole('--port', 0, 65_535), 0)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--latency-ms <n>', 'delay added to every API response', whole('--latency-ms', 0, 60_000), 0)
    .option('--fail-rate <0..1>', 'share of requests answered 500, to exercise retries', fraction('--fail-rate'), 0)
    .option(
      '--timeout-rate <0..1>',
      'share of requests never answered, to exercise timeouts',
      fraction('--timeout-rate'),
      0,
    )
    .option('--seed <n>', 'seed of the synthetic dataset (same seed, same data)', whole('--seed', 0, 2 ** 32 - 1), 1)
    .option('--companies <n>', 'how many companies to generate', whole('--companies', 1, 1_000_000), 2000)
    .option('--people <n>', 'how many people to generate', whole('--people', 0, 5_000_000), 20000)
    .option(
      '--job-changes-share <0..1>',
      'share of the people who change jobs at start (as POST /__sandbox/job-changes)',
      fraction('--job-changes-share'),
    )
    .action(async (opts: PartnerSandboxCliOptions) => {
      const { startPartnerSandbox } = await import('./server.js');
      const sandbox = await startPartnerSandbox(opts);
      console.log(`partner sandbox listening on ${sandbox.url}`);
      console.log(
        'API key: sandbox-key (sandbox-key-no-org answers 403); sample identifiers at ' +
          `${sandbox.url}/__sandbox/sample?market=AU`,
      );
      const stop = () => void sandbox.close().then(() => process.exit(0));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
}
