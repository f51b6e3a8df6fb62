/**
 * Demo records for the embedded default: people the partner sandbox knows (and one it does not),
 * created in the CRM sandboxes over the first minute, and the banner a new user reads first.
 */
import { join } from 'node:path';
import type { EmbeddedEnvironment } from './embedded.js';

export interface DemoPlan {
  /** Work e-mails of partner people, for the demo and for the copy-paste command. */
  emails: string[];
  /** Whether demo records are on their way (not with --no-demo, nor without the partner sandbox). */
  active: boolean;
  stop(): void;
}

export function startDemo(
  env: EmbeddedEnvironment,
  options: { count?: number; spreadMs?: number; enabled?: boolean } = {},
): DemoPlan {
  const count = options.count ?? 6;
  const spreadMs = options.spreadMs ?? 60_000;
  const people = env.partner ? env.partner.known.slice(0, count + 1) : [];
  const emails = people.map((p) => p.workEmail);
  const timers: NodeJS.Timeout[] = [];
  // The sandboxes keep their records across restarts: a demo person already there is not made twice.
  const known = (email: string) =>
    env.hubspot?.store.findContactByEmail(email) !== undefined ||
    (env.salesforce?.records('Lead').some((lead) => lead.Email === email) ?? false);
  if (env.partner && options.enabled !== false) {
    const demo = emails.slice(1).filter((email) => !known(email));
    const steps = demo.length + 1;
    demo.forEach((email, i) => {
      const at = Math.round(((i + 1) * spreadMs) / (steps + 1));
      timers.push(
        setTimeout(() => {
          if (i % 2 === 0 || !env.salesforce) env.hubspot?.createContact({ email });
          else
            env.salesforce.createRecord('Lead', {
              Email: email,
              LastName: email.split('@')[0]!,
              Company: email.split('@')[1]!,
            });
        }, at),
      );
    });
    // Someone the partner has never heard of: enriched as no_match, nothing written.
    const nobody = 'nobody@unknown-company.example';
    if (!known(nobody)) timers.push(setTimeout(() => env.hubspot?.createContact({ email: nobody }), spreadMs));
  }
  for (const t of timers) t.unref();
  return { emails, active: timers.length > 0, stop: () => timers.forEach(clearTimeout) };
}

/** Where the flow action's secret is, never the secret. */
function actionSecret(env: EmbeddedEnvironment): string {
  return env.actionSecretFile
    ? `in ${env.actionSecretFile} (generated; set SALESFORCE_ACTION_SECRET to choose one)`
    : 'the SALESFORCE_ACTION_SECRET you set';
}

export function banner(env: EmbeddedEnvironment, serviceUrl: string, plan: DemoPlan): string {
  // Where the token is, never the token: a banner ends up in terminals, CI logs and screenshots.
  const token = env.config.ADMIN_TOKEN
    ? 'the ADMIN_TOKEN you set'
    : `in ${join(env.config.CRM_ENRICH_DATA_DIR, 'admin-token')} (generated; set ADMIN_TOKEN to choose one)`;
  const lines = [
    '',
    `crm-enrich is running at ${serviceUrl}`,
    `  admin page:         ${serviceUrl}/admin`,
    `  admin token:        ${token}   (for the page, or as "Authorization: Bearer <token>" to ${serviceUrl}/admin/api)`,
  ];
  if (env.config.MCP_ENABLED)
    lines.push(
      `  MCP server:         ${serviceUrl}/mcp   (for AI assistants; they sign in with your consent on a page ` +
        'that asks for the admin token)',
    );
  if (env.partner) lines.push(`  partner sandbox:    ${env.partner.url}   (key sandbox-key)`);
  else lines.push(`  partner API:        ${env.config.PARTNER_BASE_URL}`);
  if (env.hubspot)
    lines.push(
      `  HubSpot sandbox:    ${env.hubspot.url}   (token sandbox-token: crm-enrich's app; ` +
        'sandbox-importer-token: another app, such as an import tool)',
    );
  // The OAuth values a client needs (the sandbox's login URL is
  // its own), so the Salesforce example of docs/crm-setup.md can be followed.
  if (env.salesforce)
    lines.push(
      `  Salesforce sandbox: ${env.salesforce.url}   (OAuth client credentials: login URL ` +
        `${env.salesforce.url}, client_id sandbox, client_secret sandbox)`,
      `  flow action secret: ${actionSecret(env)}   (signs POST ${serviceUrl}/salesforce/actions/enrich)`,
    );
  const email = plan.emails[0];
  if (env.hubspot && email) {
    const auth = `-H 'Authorization: Bearer sandbox-token' -H 'Content-Type: application/json'`;
    // The contact comes from another app, as an import would: a creation with crm-enrich's own token is
    // enriched too, but counted as a change made with its token by something else.
    const importer = `-H 'Authorization: Bearer sandbox-importer-token' -H 'Content-Type: application/json'`;
    const search =
      `{"filterGroups":[{"filters":[{"propertyName":"email","operator":"EQ","value":"${email}"}]}],` +
      '"properties":["email","firstname","lastname","jobtitle","hs_seniority","phone","company",' +
      '"crm_enrich_enriched_at"]}';
    lines.push(
      '',
      'Create a contact in the HubSpot sandbox (as an import tool, another app, would):',
      `  curl -s -X POST ${env.hubspot.url}/crm/v3/objects/contacts ${importer} -d ` +
        `'{"properties":{"email":"${email}"}}'`,
      "A few seconds later (HubSpot's search index shows a change about 2 s after it), see its enriched properties:",
      `  curl -s -X POST ${env.hubspot.url}/crm/v3/objects/contacts/search ${auth} -d '${search}'`,
    );
  }
  lines.push(
    '',
    plan.active
      ? 'Demo records arrive over the next minute; the log shows each one being enriched. Stop with Ctrl-C.'
      : 'Stop with Ctrl-C.',
    '',
  );
  return lines.join('\n');
}
