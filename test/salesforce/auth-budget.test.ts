import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConcurrentLimit } from '../../connectors/salesforce/errors.js';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { sandboxJwtKeyPair } from '../../connectors/salesforce/sandbox/oauth.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';

let sandbox: SalesforceSandbox;
let leadId: string;

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ dailyLimit: 100 });
  leadId = sandbox.createRecord('Lead', { LastName: 'Doe', Company: 'Acme', Email: 'jane@example.com' });
});

afterAll(async () => {
  await sandbox.close();
});

describe('Salesforce auth', () => {
  it('gets a session with the client credentials flow and renews it when Salesforce expires it', async () => {
    const connector = createSalesforceConnector({
      auth: { kind: 'client_credentials', loginUrl: sandbox.url, clientId: 'sandbox', clientSecret: 'sandbox' },
      orgId: sandbox.orgId,
      apiReserve: 0,
    });
    const issued = sandbox.stats().tokensIssued;
    expect(await connector.readRecords('Lead', [leadId], ['Email'], { priority: 'interactive' })).toHaveLength(1);
    expect(sandbox.stats().tokensIssued).toBe(issued + 1);

    sandbox.expireTokens();
    const [record] = await connector.readRecords('Lead', [leadId], ['Email'], { priority: 'interactive' });
    expect(record?.properties.Email).toBe('jane@example.com');
    expect(sandbox.stats().tokensIssued).toBe(issued + 2);
    expect(connector.stats().byOperation['oauth.token']).toBe(2);
  });

  it('refuses bad client credentials with an auth error that says what to check', async () => {
    const connector = createSalesforceConnector({
      auth: { kind: 'client_credentials', loginUrl: sandbox.url, clientId: 'sandbox', clientSecret: 'wrong' },
      apiReserve: 0,
    });
    const err = await connector.readRecords('Lead', [leadId], ['Email']).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'auth', kind: 'config' });
    expect((err as Error).message).toContain('SALESFORCE_CLIENT_SECRET');
  });

  it('signs a JWT bearer assertion the token endpoint accepts, and one from another key is refused', async () => {
    const good = createSalesforceConnector({
      auth: {
        kind: 'jwt',
        loginUrl: sandbox.url,
        clientId: 'sandbox',
        username: 'integration@example.com',
        privateKey: sandboxJwtKeyPair().privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
      apiReserve: 0,
    });
    expect(await good.readRecords('Lead', [leadId], ['Company'], { priority: 'interactive' })).toHaveLength(1);

    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const bad = createSalesforceConnector({
      auth: {
        kind: 'jwt',
        loginUrl: sandbox.url,
        clientId: 'sandbox',
        username: 'integration@example.com',
        privateKey: other,
      },
      apiReserve: 0,
    });
    await expect(bad.readRecords('Lead', [leadId], ['Company'])).rejects.toMatchObject({ code: 'auth' });
  });

  it('does not retry forever with a fixed token that Salesforce no longer accepts', async () => {
    const connector = createSalesforceConnector({
      auth: { kind: 'token', instanceUrl: sandbox.url, accessToken: 'expired-token' },
      apiReserve: 0,
    });
    await expect(connector.readRecords('Lead', [leadId], ['Email'])).rejects.toMatchObject({ code: 'auth' });
  });

  it('refuses credentials of another org than the one configured', async () => {
    const connector = createSalesforceConnector({
      auth: { kind: 'client_credentials', loginUrl: sandbox.url, clientId: 'sandbox', clientSecret: 'sandbox' },
      orgId: '00Dxx0000001gER',
      apiReserve: 0,
    });
    await expect(connector.readRecords('Lead', [leadId], ['Email'])).rejects.toThrow(
      /not the configured SALESFORCE_ORG_ID/,
    );
  });
});

describe('Salesforce daily API budget', () => {
  const token = () => ({ kind: 'token' as const, instanceUrl: sandbox.url, accessToken: sandbox.issueToken() });

  it('stops bulk work at the reserve while interactive work goes on', async () => {
    sandbox.setApiUsage(70);
    const connector = createSalesforceConnector({ auth: token(), apiReserve: 25, interactiveReserve: 5 });
    expect(await connector.readRecords('Lead', [leadId], ['Email'], { priority: 'bulk' })).toHaveLength(1);
    sandbox.setApiUsage(75);
    expect(await connector.readRecords('Lead', [leadId], ['Email'], { priority: 'bulk' })).toHaveLength(1);

    const before = sandbox.stats().apiCalls;
    await expect(connector.readRecords('Lead', [leadId], ['Email'], { priority: 'bulk' })).rejects.toMatchObject({
      code: 'daily_limit',
      kind: 'config',
    });
    expect(sandbox.stats().apiCalls).toBe(before);
    expect(await connector.readRecords('Lead', [leadId], ['Email'], { priority: 'interactive' })).toHaveLength(1);
    await expect(connector.writeRecords('Lead', [{ id: leadId, properties: { Title: 'x' } }])).rejects.toMatchObject({
      code: 'daily_limit',
    });
  });

  it('counts calls the way Salesforce does, one per request', async () => {
    sandbox.setApiUsage(0);
    const connector = createSalesforceConnector({ auth: token(), apiReserve: 0 });
    const before = sandbox.stats().apiCalls;
    await connector.readRecords('Lead', [leadId], ['Email']);
    await connector.writeRecords('Lead', [{ id: leadId, properties: { Title: 'CFO' } }]);
    expect(connector.stats().calls).toBe(sandbox.stats().apiCalls - before);
    expect(connector.stats().byOperation).toMatchObject({ limits: 1, query: 1, describe: 1, 'collections.update': 1 });
  });

  it('treats REQUEST_LIMIT_EXCEEDED as stop and report, not retry now', async () => {
    sandbox.setApiUsage(0);
    const connector = createSalesforceConnector({ auth: token(), apiReserve: 0, interactiveReserve: 0 });
    await connector.readRecords('Lead', [leadId], ['Email'], { priority: 'interactive' });
    sandbox.setApiUsage(100);
    const err = await connector
      .readRecords('Lead', [leadId], ['Email'], { priority: 'interactive' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'daily_limit', kind: 'config', retryable: false });
    expect((err as Error).message).toContain('REQUEST_LIMIT_EXCEEDED');

    const refusedBefore = sandbox.stats();
    await expect(connector.readRecords('Lead', [leadId], ['Email'], { priority: 'interactive' })).rejects.toMatchObject(
      { code: 'daily_limit' },
    );
    expect(sandbox.stats().byOperation).toEqual(refusedBefore.byOperation);
  });

  it('tells the concurrent-request limit from the daily one by its message: a short wait, not a stop', async () => {
    sandbox.setApiUsage(0);
    const connector = createSalesforceConnector({ auth: token(), apiReserve: 0, interactiveReserve: 0 });
    await connector.readRecords('Lead', [leadId], ['Email'], { priority: 'interactive' });
    sandbox.refuseConcurrent(1);
    const err = await connector
      .readRecords('Lead', [leadId], ['Email'], { priority: 'interactive' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 5_000 });
    expect((err as Error).message).toContain('ConcurrentRequests');
    expect(isConcurrentLimit('ConcurrentPerOrgLongTxn Limit exceeded.')).toBe(true);
    expect(isConcurrentLimit('TotalRequests Limit exceeded.')).toBe(false);
    // The daily budget is untouched: the next call goes straight out and succeeds.
    expect(await connector.readRecords('Lead', [leadId], ['Email'], { priority: 'interactive' })).toHaveLength(1);
  });

  it('goes on once a re-read of /limits shows the window has freed calls', async () => {
    sandbox.setApiUsage(100);
    const connector = createSalesforceConnector({ auth: token(), apiReserve: 10, limitsRecheckMs: 0 });
    await expect(connector.readRecords('Lead', [leadId], ['Email'])).rejects.toMatchObject({ code: 'daily_limit' });
    sandbox.setApiUsage(20);
    expect(await connector.readRecords('Lead', [leadId], ['Email'])).toHaveLength(1);
  });
});

describe('Salesforce integration user without View Setup and Configuration', () => {
  // It still stops at the reserve.
  it('reads the daily allocation from Sforce-Limit-Info when /limits answers 403', async () => {
    const restricted = await startSalesforceSandbox({ dailyLimit: 100, viewSetup: false });
    try {
      const lead = restricted.createRecord('Lead', { LastName: 'Doe', Company: 'Acme', Email: 'jane@example.com' });
      const connector = createSalesforceConnector({
        auth: { kind: 'token', instanceUrl: restricted.url, accessToken: restricted.issueToken() },
        apiReserve: 25,
        interactiveReserve: 5,
        limitsRecheckMs: 0,
      });
      expect(await connector.readRecords('Lead', [lead], ['Email'], { priority: 'bulk' })).toHaveLength(1);
      expect(restricted.stats().byOperation.limits).toBe(1);
      // The header of the last answer now says 80 of 100 are used: bulk work stops at the reserve of 25.
      restricted.setApiUsage(79);
      expect(await connector.readRecords('Lead', [lead], ['Email'], { priority: 'bulk' })).toHaveLength(1);
      await expect(connector.readRecords('Lead', [lead], ['Email'], { priority: 'bulk' })).rejects.toMatchObject({
        code: 'daily_limit',
      });
      expect(await connector.readRecords('Lead', [lead], ['Email'], { priority: 'interactive' })).toHaveLength(1);
      // /limits is not asked again once it said no.
      expect(restricted.stats().byOperation.limits).toBe(1);
      await connector.close();
    } finally {
      await restricted.close();
    }
  });
});

describe('Salesforce concurrent long-running request limit', () => {
  it('answers ConcurrentPerOrgLongTxn while the org runs its limit of long requests: a short wait', async () => {
    // One long-running request allowed; a request counts as long-running after 50 ms, and each takes 600 ms.
    const org = await startSalesforceSandbox({ longRunning: { limit: 1, afterMs: 50, answerDelayMs: 600 } });
    try {
      const lead = org.createRecord('Lead', { LastName: 'Doe', Company: 'Acme', Email: 'jane@example.com' });
      const connector = createSalesforceConnector({
        auth: { kind: 'token', instanceUrl: org.url, accessToken: org.issueToken() },
        apiReserve: 0,
        interactiveReserve: 0,
      });
      const read = () => connector.readRecords('Lead', [lead], ['Email'], { priority: 'interactive' });
      // The budget's first /limits read goes first, alone.
      expect(await read()).toHaveLength(1);
      const first = read();
      await expect.poll(() => org.stats().byOperation.query ?? 0).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const second = await read().catch((e: unknown) => e);
      expect(second).toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 5_000 });
      expect((second as Error).message).toContain('ConcurrentPerOrgLongTxn');
      expect(org.stats().longRunningRefusals).toBe(1);
      expect(await first).toHaveLength(1);
      // Once the long request has ended, the next one goes through.
      expect(await read()).toHaveLength(1);
      await connector.close();
    } finally {
      await org.close();
    }
  });

  it('counts the long-running requests other integrations of the org hold', async () => {
    const org = await startSalesforceSandbox({ longRunning: { limit: 2 } });
    try {
      const connector = createSalesforceConnector({
        auth: { kind: 'token', instanceUrl: org.url, accessToken: org.issueToken() },
        apiReserve: 0,
        interactiveReserve: 0,
      });
      const lead = org.createRecord('Lead', { LastName: 'Roe', Company: 'Acme' });
      const read = () => connector.readRecords('Lead', [lead], ['LastName'], { priority: 'interactive' });
      org.holdLongRunning(1);
      expect(await read()).toHaveLength(1);
      org.holdLongRunning(2);
      await expect(read()).rejects.toMatchObject({ code: 'rate_limited' });
      org.holdLongRunning(0);
      expect(await read()).toHaveLength(1);
      await connector.close();
    } finally {
      await org.close();
    }
  });
});
