/**
 * GET /account-info/{v3|2026-09}/details: the portal's id and time zone, as HubSpot answers it; GET
 * /account-info/{v3|2026-09}/api-usage/daily/private-apps: the day's usage and `resetsAt`. HubSpot's
 * daily API limit resets at midnight in the portal's time zone, not UTC.
 */
import { Router } from 'express';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS } from '../api-version.js';

export interface AccountOptions {
  portalId: number;
  /** IANA zone; HubSpot portals are rarely on UTC, so neither is the sandbox's by default. */
  timeZone: string;
  usage: () => { usageLimit: number; currentUsage: number; resetsAt: string; collectedAt: string };
}

/** The zone's offset from UTC at `at`, as `+11:00` and in milliseconds. */
export function utcOffset(timeZone: string, at = new Date()): { text: string; ms: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at);
  const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return { text: '+00:00', ms: 0 };
  const sign = match[1] === '-' ? -1 : 1;
  return {
    text: `${match[1]}${match[2]}:${match[3]}`,
    ms: sign * (Number(match[2]) * 3_600_000 + Number(match[3]) * 60_000),
  };
}

export function accountRoutes(options: AccountOptions): Router {
  const r = Router();
  for (const version of HUBSPOT_API_VERSIONS) {
    const { accountInfo } = HUBSPOT_API_PATHS[version];
    r.get(`${accountInfo}/details`, (_req, res) => {
      const offset = utcOffset(options.timeZone);
      res.json({
        portalId: options.portalId,
        accountType: 'STANDARD',
        timeZone: options.timeZone,
        companyCurrency: 'AUD',
        additionalCurrencies: [],
        utcOffset: offset.text,
        utcOffsetMilliseconds: offset.ms,
        uiDomain: 'app.hubspot.com',
        dataHostingLocation: 'na1',
      });
    });
    // The daily allocation: what is used today and when it resets (midnight in the portal's zone).
    r.get(`${accountInfo}/api-usage/daily/private-apps`, (_req, res) => {
      res.json({ results: [{ name: 'private-apps-api-calls-daily', fetchStatus: 'SUCCESS', ...options.usage() }] });
    });
  }
  return r;
}
