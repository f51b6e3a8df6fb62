import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { createPartnerClient } from '../../../src/partner/create-partner-client.js';
import { startPartnerSandbox, type PartnerSandbox } from '../../../src/partner/sandbox/server.js';

let sandbox: PartnerSandbox;
beforeAll(async () => {
  sandbox = await startPartnerSandbox({ port: 0, companies: 50, people: 200 });
});
afterAll(async () => {
  await sandbox.close();
});

describe('createPartnerClient', () => {
  it('builds a working client and a limiter named by a hash of the key, from the environment', async () => {
    const config = loadConfig({
      PARTNER_BASE_URL: sandbox.url,
      PARTNER_API_KEY: 'sandbox-key',
      PARTNER_RATE_LIMIT: '20',
    });
    const { client, limiter } = createPartnerClient(config);
    try {
      expect(limiter.id).toMatch(/^partner:[0-9a-f]{12}$/);
      expect(limiter.id).not.toContain('sandbox-key');
      const found = await client.lookupCompany({ by: 'id', value: 'co_au000001' });
      expect(found?.id).toBe('co_au000001');
      expect(limiter.counts().dispatched).toBe(1);
    } finally {
      await limiter.stop();
    }
  });

  it('sends the lookup parameter names PARTNER_LOOKUP_PARAMS gives', async () => {
    const config = loadConfig({
      PARTNER_BASE_URL: sandbox.url,
      PARTNER_API_KEY: 'sandbox-key',
      PARTNER_LOOKUP_PARAMS: '{"company":{"id":"company_id"}}',
    });
    const { client, limiter } = createPartnerClient(config);
    try {
      // The sandbox knows `id` only, so the renamed parameter comes back as its 400.
      await expect(client.lookupCompany({ by: 'id', value: 'co_au000001' })).rejects.toMatchObject({ status: 400 });
    } finally {
      await limiter.stop();
    }
  });

  it('names every missing variable', () => {
    expect(() => createPartnerClient(loadConfig({}))).toThrow(ConfigError);
    expect(() => createPartnerClient(loadConfig({}))).toThrow(
      /PARTNER_BASE_URL: expected[\s\S]*PARTNER_API_KEY: expected/,
    );
  });

  it('stops at a bad PARTNER_LOOKUP_PARAMS before building anything', () => {
    const config = loadConfig({ PARTNER_BASE_URL: sandbox.url, PARTNER_API_KEY: 'k', PARTNER_LOOKUP_PARAMS: '[1]' });
    expect(() => createPartnerClient(config)).toThrow(/PARTNER_LOOKUP_PARAMS/);
  });
});
