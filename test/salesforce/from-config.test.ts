import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { salesforceAuthFromConfig, salesforceConnectorFromConfig } from '../../connectors/salesforce/from-config.js';
import { loadConfig } from '../../src/config.js';

const config = (env: Record<string, string>) => loadConfig(env);

describe('Salesforce connector from configuration', () => {
  it('has no connector without credentials', () => {
    expect(salesforceConnectorFromConfig(config({}))).toBeUndefined();
  });

  it('picks the flow from the variables set', () => {
    expect(
      salesforceAuthFromConfig(
        config({ SALESFORCE_ACCESS_TOKEN: 't', SALESFORCE_INSTANCE_URL: 'https://acme.my.salesforce.com' }),
      ),
    ).toEqual({
      kind: 'token',
      instanceUrl: 'https://acme.my.salesforce.com',
      accessToken: 't',
    });
    expect(
      salesforceAuthFromConfig(
        config({
          SALESFORCE_CLIENT_ID: 'id',
          SALESFORCE_CLIENT_SECRET: 's',
          SALESFORCE_LOGIN_URL: 'https://acme.my.salesforce.com',
        }),
      ),
    ).toMatchObject({
      kind: 'client_credentials',
      loginUrl: 'https://acme.my.salesforce.com',
    });
    const dir = mkdtempSync(join(tmpdir(), 'sf-key-'));
    try {
      writeFileSync(join(dir, 'key.pem'), 'PEM');
      expect(
        salesforceAuthFromConfig(
          config({
            SALESFORCE_CLIENT_ID: 'id',
            SALESFORCE_USERNAME: 'u@x.com',
            SALESFORCE_PRIVATE_KEY_FILE: join(dir, 'key.pem'),
          }),
        ),
      ).toMatchObject({
        kind: 'jwt',
        loginUrl: 'https://login.salesforce.com',
        privateKey: 'PEM',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names what is missing from a partial configuration', () => {
    expect(() => salesforceAuthFromConfig(config({ SALESFORCE_ACCESS_TOKEN: 't' }))).toThrow(/SALESFORCE_INSTANCE_URL/);
    expect(() => salesforceAuthFromConfig(config({ SALESFORCE_CLIENT_ID: 'id' }))).toThrow(/SALESFORCE_CLIENT_SECRET/);
    expect(() =>
      salesforceAuthFromConfig(config({ SALESFORCE_CLIENT_ID: 'id', SALESFORCE_CLIENT_SECRET: 's' })),
    ).toThrow(/SALESFORCE_LOGIN_URL/);
    expect(() => salesforceAuthFromConfig(config({ SALESFORCE_PRIVATE_KEY_FILE: '/nope.pem' }))).toThrow(
      /SALESFORCE_USERNAME/,
    );
    expect(() =>
      salesforceAuthFromConfig(
        config({ SALESFORCE_PRIVATE_KEY_FILE: '/nope.pem', SALESFORCE_CLIENT_ID: 'id', SALESFORCE_USERNAME: 'u' }),
      ),
    ).toThrow(/cannot be read \(ENOENT\)/);
  });

  it('builds a connector that carries the org and webhook secret', () => {
    const connector = salesforceConnectorFromConfig(
      config({
        SALESFORCE_ACCESS_TOKEN: 't',
        SALESFORCE_INSTANCE_URL: 'https://acme.my.salesforce.com',
        SALESFORCE_ORG_ID: '00Do0000000e0vQ',
        SALESFORCE_WEBHOOK_SECRET: 'sec',
        SALESFORCE_BULK_THRESHOLD: '25000',
      }),
    );
    expect(connector).toMatchObject({
      crm: 'salesforce',
      batchSize: 200,
      objectTypes: ['Lead', 'Contact', 'Account'],
      bulkReadThreshold: 25_000,
    });
    const refused = connector?.webhook.parse({
      method: 'POST',
      url: 'https://x/webhooks/salesforce/bad',
      headers: {},
      rawBody: Buffer.from('<x/>'),
      params: { secret: 'bad' },
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'wrong_secret' } });
  });
});
