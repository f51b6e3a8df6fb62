import { expect, it } from 'vitest';
import { describeEachBackend } from '../support/db.js';

const soon = () => new Date(Date.now() + 60_000);
const past = () => new Date(Date.now() - 2 * 86_400_000);
const RESOURCE = 'https://enrich.example.com/mcp';

describeEachBackend('MCP OAuth store', (t) => {
  it('keeps registered clients with their metadata', async () => {
    const { mcpAuth } = await t.openStore();
    await mcpAuth.saveClient('c1', { client_name: 'Assistant', redirect_uris: ['http://127.0.0.1:53612/callback'] });
    expect(await mcpAuth.client('c1')).toEqual({
      client_name: 'Assistant',
      redirect_uris: ['http://127.0.0.1:53612/callback'],
    });
    expect(await mcpAuth.client('c2')).toBeUndefined();
  });

  it('answers a consent request once, and not after it expired', async () => {
    const { mcpAuth } = await t.openStore();
    const row = {
      clientId: 'c1',
      redirectUri: 'http://127.0.0.1:1/cb',
      scope: 'read',
      codeChallenge: 'x',
      state: null,
      resource: RESOURCE,
    };
    await mcpAuth.saveRequest('r1', { ...row, expiresAt: soon() });
    await mcpAuth.saveRequest('r2', { ...row, expiresAt: past() });
    expect(await mcpAuth.request('r1')).toMatchObject({ clientId: 'c1', scope: 'read' });
    expect(await mcpAuth.request('r2')).toBeUndefined();
    const answers = await Promise.all([mcpAuth.takeRequest('r1'), mcpAuth.takeRequest('r1')]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await mcpAuth.takeRequest('r2')).toBeUndefined();
  });

  it('lets a code be taken once, by its own client, and says when it comes back', async () => {
    const { mcpAuth } = await t.openStore();
    await mcpAuth.saveCode('h1', {
      grantId: 'g1',
      clientId: 'c1',
      redirectUri: 'http://127.0.0.1:1/cb',
      scope: 'read write',
      codeChallenge: 'ch',
      resource: RESOURCE,
      expiresAt: soon(),
    });
    expect(await mcpAuth.takeCode('h1', 'c2')).toEqual({ kind: 'unknown' });
    const [a, b] = await Promise.all([mcpAuth.takeCode('h1', 'c1'), mcpAuth.takeCode('h1', 'c1')]);
    expect([a.kind, b.kind].sort()).toEqual(['ok', 'reused']);
    expect(await mcpAuth.code('h1', 'c1')).toMatchObject({ used: true, grantId: 'g1', codeChallenge: 'ch' });
  });

  it("reads a refresh token without using it: live, spent or not this client's", async () => {
    const { mcpAuth } = await t.openStore();
    const base = { grantId: 'g9', clientId: 'c1', scope: 'read', resource: RESOURCE, kind: 'refresh' as const };
    await mcpAuth.saveTokens([
      { ...base, tokenHash: 'live', expiresAt: soon() },
      { ...base, tokenHash: 'old', expiresAt: past() },
    ]);
    expect(await mcpAuth.refreshToken('live', 'c1')).toMatchObject({
      kind: 'ok',
      row: { grantId: 'g9', scope: 'read' },
    });
    // Read twice, still live: reading uses nothing up.
    expect((await mcpAuth.refreshToken('live', 'c1')).kind).toBe('ok');
    expect(await mcpAuth.refreshToken('live', 'c2')).toEqual({ kind: 'unknown' });
    expect(await mcpAuth.refreshToken('old', 'c1')).toEqual({ kind: 'unknown' });
    expect(await mcpAuth.refreshToken('none', 'c1')).toEqual({ kind: 'unknown' });
    expect((await mcpAuth.takeRefreshToken('live', 'c1')).kind).toBe('ok');
    expect(await mcpAuth.refreshToken('live', 'c1')).toEqual({ kind: 'reused', grantId: 'g9' });
  });

  it('rotates refresh tokens once each, revokes grants, and prunes what expired', async () => {
    const { mcpAuth } = await t.openStore();
    const base = { grantId: 'g1', clientId: 'c1', scope: 'read', resource: RESOURCE };
    await mcpAuth.saveTokens([
      { ...base, tokenHash: 'a1', kind: 'access', expiresAt: soon() },
      { ...base, tokenHash: 'r1', kind: 'refresh', expiresAt: soon() },
      { ...base, grantId: 'g2', tokenHash: 'old', kind: 'access', expiresAt: past() },
    ]);
    expect(await mcpAuth.token('a1', 'access')).toMatchObject({ grantId: 'g1', scope: 'read', resource: RESOURCE });
    expect(await mcpAuth.token('a1', 'refresh')).toBeUndefined();
    expect(await mcpAuth.takeRefreshToken('r1', 'c2')).toEqual({ kind: 'unknown' });
    expect((await mcpAuth.takeRefreshToken('r1', 'c1')).kind).toBe('ok');
    expect(await mcpAuth.takeRefreshToken('r1', 'c1')).toEqual({ kind: 'reused', grantId: 'g1' });
    expect(await mcpAuth.revokeGrant('g1')).toBe(2);
    expect(await mcpAuth.token('a1', 'access')).toBeUndefined();
    expect(await mcpAuth.prune()).toBe(1);
  });

  it(
    'drops registered clients left unused, keeps those in use or holding a live token, ' +
      'and their confirmed redirects with them',
    async () => {
      const { mcpAuth, db, schema } = await t.openStore();
      const backdate = (id: string, column: string, age: string) =>
        db.query(`UPDATE "${schema}".mcp_oauth_client SET ${column} = now() - $2::interval WHERE client_id = $1`, [
          id,
          age,
        ]);
      for (const id of ['junk', 'fresh', 'idle', 'busy', 'holder']) await mcpAuth.saveClient(id, { client_name: id });
      await backdate('junk', 'created_at', '2 days');
      for (const id of ['idle', 'busy', 'holder']) {
        await backdate(id, 'created_at', '90 days');
        await mcpAuth.touchClient(id);
      }
      await backdate('idle', 'last_used_at', '31 days');
      await backdate('holder', 'last_used_at', '31 days');
      await backdate('busy', 'last_used_at', '2 days');
      await mcpAuth.saveTokens([
        {
          tokenHash: 'h-live',
          kind: 'refresh',
          grantId: 'g',
          clientId: 'holder',
          scope: 'read',
          resource: RESOURCE,
          expiresAt: soon(),
        },
      ]);
      await mcpAuth.confirmRedirect('idle', 'http://127.0.0.1/cb');
      await mcpAuth.confirmRedirect('busy', 'http://127.0.0.1/cb');
      expect(await mcpAuth.redirectConfirmed('idle', 'http://127.0.0.1/cb')).toBe(true);

      await mcpAuth.prune();
      expect(await mcpAuth.client('junk')).toBeUndefined();
      expect(await mcpAuth.client('idle')).toBeUndefined();
      expect(await mcpAuth.redirectConfirmed('idle', 'http://127.0.0.1/cb')).toBe(false);
      for (const id of ['fresh', 'busy', 'holder']) expect(await mcpAuth.client(id)).toMatchObject({ client_name: id });
      expect(await mcpAuth.redirectConfirmed('busy', 'http://127.0.0.1/cb')).toBe(true);
    },
  );
});
