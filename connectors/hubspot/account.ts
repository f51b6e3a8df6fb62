/**
 * The connected HubSpot portal: its id (webhooks of other portals are refused) and its time zone (the
 * daily limit resets at its midnight), read once from the account details, with today's API usage logged.
 */
import { logger } from '../../src/logger.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import type { HubspotApi } from './hubspot-api.js';
import type { HubspotRequestRunner } from './request-runner.js';
import { AccountDetails, DailyUsage } from './wire-schemas.js';

const log = logger('connector.hubspot');

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export interface HubspotAccount {
  portalId(): number | undefined;
  timeZone(): string | undefined;
  /** The host of the portal's web app (`app.hubspot.com`, `app-eu1.hubspot.com`), for links to records. */
  uiDomain(): string | undefined;
  /** Reads the account details unless they are known; a failure is logged, and the next call tries again. */
  read(runner: HubspotRequestRunner, api: HubspotApi): Promise<void>;
}

export function hubspotAccount(connection: string): HubspotAccount {
  let portalId: number | undefined;
  let timeZone: string | undefined;
  let uiDomain: string | undefined;

  /** The daily private-app usage of account info: today's calls, the limit and when it resets. */
  async function readDailyUsage(
    runner: HubspotRequestRunner,
    api: HubspotApi,
  ): Promise<{ usageLimit: number; currentUsage: number; resetsAt: string } | undefined> {
    try {
      const body = DailyUsage.safeParse(await runner.run('account_usage', 'interactive', () => api.dailyUsage()));
      if (!body.success) return undefined;
      const daily = body.data.results[0]!;
      return { usageLimit: daily.usageLimit, currentUsage: daily.currentUsage, resetsAt: daily.resetsAt };
    } catch {
      return undefined; // a token without the scope, or an app type the endpoint does not cover
    }
  }

  return {
    portalId: () => portalId,
    timeZone: () => timeZone,
    uiDomain: () => uiDomain,
    async read(runner, api) {
      if (portalId !== undefined) return;
      try {
        const answer = await runner.run('account_details', 'interactive', () => api.accountDetails());
        const body = parseCrmAnswer('hubspot', AccountDetails, answer, 'account_details');
        if (body.portalId !== undefined) portalId = body.portalId;
        if (body.timeZone !== undefined && isTimeZone(body.timeZone)) timeZone = body.timeZone;
        if (body.uiDomain && /^[a-z0-9.-]+$/i.test(body.uiDomain)) uiDomain = body.uiDomain;
        const usage = await readDailyUsage(runner, api);
        if (usage)
          log.info(
            { connection, used: usage.currentUsage, limit: usage.usageLimit, resetsAt: usage.resetsAt, timeZone },
            "HubSpot's daily API usage",
          );
      } catch (error) {
        // Without it webhooks are still checked by signature; the next start tries again.
        log.warn(
          { err: error, connection },
          'could not read the HubSpot account details; webhooks are not checked against the portal id',
        );
      }
    },
  };
}
