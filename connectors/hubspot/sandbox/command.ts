import { InvalidArgumentError, type Command } from 'commander';

const whole = (name: string, min: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > 65_535)
    throw new InvalidArgumentError(`${name} expects a whole number from ${min} to 65535, got '${value}'`);
  return n;
};

/** HubSpot portal (hub) ids are positive whole numbers. */
export const portalId = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError(`--portal-id expects a positive whole number (a HubSpot hub id), got '${value}'`);
  return n;
};

const tier = (value: string) => {
  if (value !== 'starter' && value !== 'pro')
    throw new InvalidArgumentError(`--tier expects starter or pro, got '${value}'`);
  return value;
};

const absoluteUrl = (option: string) => (value: string) => {
  if (!URL.canParse(value)) throw new InvalidArgumentError(`${option} expects an absolute URL, got '${value}'`);
  return value;
};

/** `--require companies:founded_year,contacts:jobtitle`: the portal's required properties, by object. */
export function parseRequired(value: string): Partial<Record<'contacts' | 'companies', string[]>> {
  const out: Partial<Record<'contacts' | 'companies', string[]>> = {};
  for (const item of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [object, property, extra] = item.split(':');
    if (
      (object !== 'contacts' && object !== 'companies') ||
      !property ||
      !/^[a-z0-9_]+$/.test(property) ||
      extra !== undefined
    ) {
      throw new InvalidArgumentError(
        '--require expects <object>:<property>[,...] with object contacts or companies ' +
          `and a property's internal name, e.g. companies:founded_year; got '${item}'`,
      );
    }
    out[object] = [...new Set([...(out[object] ?? []), property])];
  }
  if (Object.keys(out).length === 0) {
    throw new InvalidArgumentError(
      `--require expects <object>:<property>[,...], e.g. companies:founded_year; got '${value}'`,
    );
  }
  return out;
}

type ConditionalRule = { property: string; when: { property: string; value: string } };

/**
 * `--require-when companies:industry=lifecyclestage:customer[,...]`: on companies, `industry` is required
 * when `lifecyclestage` is `customer` (HubSpot's conditional required properties), by object.
 */
export function parseRequiredWhen(value: string): Partial<Record<'contacts' | 'companies', ConditionalRule[]>> {
  const out: Partial<Record<'contacts' | 'companies', ConditionalRule[]>> = {};
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    const match = /^(contacts|companies):([a-z0-9_]+)=([a-z0-9_]+):([^\s=]+)$/.exec(item);
    if (!match) {
      throw new InvalidArgumentError(
        '--require-when expects <object>:<property>=<property>:<value>[,...] with object contacts or ' +
          `companies, e.g. companies:industry=lifecyclestage:customer; got '${item}'`,
      );
    }
    const [object, property, whenProperty, whenValue] = match.slice(1) as ['contacts' | 'companies', ...string[]];
    out[object] = [
      ...(out[object] ?? []),
      { property: property!, when: { property: whenProperty!, value: whenValue! } },
    ];
  }
  if (items.length === 0) {
    throw new InvalidArgumentError(
      `--require-when expects <object>:<property>=<property>:<value>[,...], e.g. ` +
        `companies:industry=lifecyclestage:customer; got '${value}'`,
    );
  }
  return out;
}

/** `crm-enrich sandbox hubspot`: a local HubSpot portal for trying the service without one. */
export function registerHubspotSandboxCommand(parent: Command): void {
  parent
    .command('hubspot')
    .description(
      'run a local HubSpot portal (CRM objects, properties, search, associations, signed webhooks) that ' +
        '@hubspot/api-client can talk to',
    )
    .option('--port <n>', 'port to listen on (0 picks a free one)', whole('--port', 0), 0)
    .option(
      '--webhook-url <url>',
      'where app webhooks are POSTed, e.g. http://127.0.0.1:3000/webhooks/hubspot',
      absoluteUrl('--webhook-url'),
    )
    .option(
      '--app-url <url>',
      "the app's public URL, where workflow actions and card fetches go, e.g. http://127.0.0.1:3000",
      absoluteUrl('--app-url'),
    )
    .option('--client-secret <s>', 'the app client secret webhooks are signed with', 'sandbox-client-secret')
    .option(
      '--client-id <id>',
      "the app's client id, which with the client secret gets the webhooks journal's token",
      'sandbox-client-id',
    )
    .option('--access-token <t>', 'the private-app token the portal accepts', 'sandbox-token')
    .option('--portal-id <n>', 'the portal (hub) id the account details and webhooks carry', portalId, 62515)
    .option(
      '--data-dir <dir>',
      "keep the portal's records, associations and id counter in <dir>/hubspot-portal-<id>.json across restarts",
    )
    .option('--tier <tier>', 'API limits: starter (100 per 10 s) or pro (190 per 10 s)', tier, 'starter')
    .option(
      '--require <object:property,...>',
      "properties the portal requires, e.g. companies:founded_year: an app's create or update through API " +
        'version 2026-09 that leaves one empty is refused, as HubSpot does (the v3 paths take it)',
      parseRequired,
    )
    .option(
      '--require-when <object:property=property:value,...>',
      'properties the portal requires when another property has a value, e.g. ' +
        'companies:industry=lifecyclestage:customer (industry is required on a company whose lifecyclestage is ' +
        'customer), enforced like --require',
      parseRequiredWhen,
    )
    .action(
      async (opts: {
        port: number;
        webhookUrl?: string;
        appUrl?: string;
        clientSecret: string;
        clientId: string;
        accessToken: string;
        tier: 'starter' | 'pro';
        portalId: number;
        dataDir?: string;
        require?: ReturnType<typeof parseRequired>;
        requireWhen?: ReturnType<typeof parseRequiredWhen>;
      }) => {
        const { startHubspotSandbox } = await import('./server.js');
        const sandbox = await startHubspotSandbox(opts);
        console.log(`hubspot sandbox listening on ${sandbox.url}`);
        console.log(
          `portal ${sandbox.portalId}; access token and client secret as configured; stats at ` +
            `${sandbox.url}/__sandbox/stats`,
        );
        if (opts.dataDir) console.log(`records kept in ${opts.dataDir}`);
        if (opts.require)
          console.log(
            `required properties: ${Object.entries(opts.require)
              .flatMap(([o, ps]) => ps.map((p) => `${o}:${p}`))
              .join(', ')}`,
          );
        if (opts.requireWhen)
          console.log(
            `conditionally required properties: ${Object.entries(opts.requireWhen)
              .flatMap(([o, rules]) =>
                rules.map((r) => `${o}:${r.property} when ${r.when.property} is ${r.when.value}`),
              )
              .join(', ')}`,
          );
        const stop = () => void sandbox.close().then(() => process.exit(0));
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      },
    );
}
