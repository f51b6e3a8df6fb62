/**
 * The CRM-side setup against the connectors that receive it: the HubSpot app's subscriptions are the events
 * and watched properties the webhook handler acts on, and the Flow callout body in the Salesforce guide
 * is one the Salesforce handler accepts.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_WATCHED_PROPERTIES } from '../../connectors/hubspot/webhook.js';
import { parseFlowCallout } from '../../connectors/salesforce/flow-callout.js';
import { readText } from './deploy-files.js';

interface Subscription {
  subscriptionType: string;
  propertyName?: string;
  active: boolean;
}

const hubspotJson = JSON.parse(readText('deploy/hubspot-app/src/app/webhooks/webhooks-hsmeta.json')) as {
  type: string;
  config: {
    settings: { targetUrl: string };
    subscriptions: { legacyCrmObjects: Subscription[]; hubEvents: Subscription[]; crmObjects?: Subscription[] };
  };
};
const { settings, subscriptions } = hubspotJson.config;
const all = [...subscriptions.legacyCrmObjects, ...subscriptions.hubEvents];
const hubspotGuide = readText('deploy/crm-setup/hubspot.md');
const salesforceGuide = readText('deploy/crm-setup/salesforce.md');

describe('HubSpot webhook subscriptions', () => {
  it('deliver to the service webhook route', () => {
    expect(hubspotJson.type).toBe('webhooks');
    expect(new URL(settings.targetUrl).pathname).toBe('/webhooks/hubspot');
  });

  it('use only classic contact and company events, all active', () => {
    expect(subscriptions.crmObjects ?? []).toEqual([]);
    for (const s of all) {
      expect(s.subscriptionType).toMatch(/^(contact|company)\.[a-zA-Z]+$/);
      expect(s.active).toBe(true);
    }
  });

  it('cover creation and merge of both objects, and privacy deletion of contacts', () => {
    const types = new Set(all.map((s) => s.subscriptionType));
    for (const t of ['contact.creation', 'contact.merge', 'company.creation', 'company.merge'])
      expect(types).toContain(t);
    expect(subscriptions.hubEvents.map((s) => s.subscriptionType)).toEqual(['contact.privacyDeletion']);
  });

  it('watch exactly the properties whose change the webhook handler enriches again', () => {
    for (const object of ['contact', 'company'] as const) {
      const watched = all
        .filter((s) => s.subscriptionType === `${object}.propertyChange`)
        .map((s) => s.propertyName)
        .sort();
      expect(watched, object).toEqual([...DEFAULT_WATCHED_PROPERTIES[object]].sort());
    }
  });

  it('are the ones the setup guide lists', () => {
    for (const s of all) expect(hubspotGuide).toContain(`\`${s.subscriptionType}\``);
    for (const s of all.filter((x) => x.propertyName)) expect(hubspotGuide).toContain(`\`${s.propertyName}\``);
  });
});

describe('Salesforce setup guide', () => {
  it('shows Flow callout bodies the Salesforce webhook handler accepts', () => {
    const blocks = [...salesforceGuide.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const parsed = parseFlowCallout(JSON.parse(block));
      expect(parsed.ok ? '' : parsed.message).toBe('');
    }
  });

  it('points outbound messages at the secret-bearing webhook route', () => {
    expect(salesforceGuide).toContain('<PUBLIC_URL>/webhooks/salesforce/<SALESFORCE_WEBHOOK_SECRET>');
  });
});
