import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { hubspotConnectorFromConfig } from '../../connectors/hubspot/from-config.js';
import { startHubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';

/** Runs the CLI and answers its exit code and what it printed. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const child = spawn('node_modules/.bin/tsx', ['src/cli.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, out, err };
}

describe('crm-enrich sandbox hubspot', () => {
  it('prints where it listens, answers the official API shape there, and stops on SIGTERM', async () => {
    const child = spawn(
      'node_modules/.bin/tsx',
      ['src/cli.ts', 'sandbox', 'hubspot', '--port', '0', '--tier', 'pro', '--client-secret', 's3cret'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          const m = out.match(/hubspot sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/);
          if (m?.[1]) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      const res = await fetch(`${url}/crm/v3/properties/contacts`, {
        headers: { authorization: 'Bearer sandbox-token' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-hubspot-ratelimit-max')).toBe('190');
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('lists its validation-rule options in --help, and refuses a rule it cannot read, naming the option', async () => {
    const help = await cli(['sandbox', 'hubspot', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/--require <object:property,\.\.\.>/);
    expect(help.out).toMatch(/--require-when <object:property=property:value,\.\.\.>/);
    const bad = await cli(['sandbox', 'hubspot', '--require-when', 'companies:industry']);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/--require-when expects <object>:<property>=<property>:<value>/);
  });

  it('holds 2026-09 writes to a --require-when rule, and takes the same write on the v3 path', async () => {
    const child = spawn(
      'node_modules/.bin/tsx',
      [
        'src/cli.ts',
        'sandbox',
        'hubspot',
        '--port',
        '0',
        '--require-when',
        'companies:industry=lifecyclestage:customer',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*conditionally required properties/);
          if (m?.[1]) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      expect(out).toContain('companies:industry when lifecyclestage is customer');
      const create = (path: string) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: { authorization: 'Bearer sandbox-token', 'content-type': 'application/json' },
          body: JSON.stringify({ properties: { name: 'Customer', lifecyclestage: 'customer' }, associations: [] }),
        });
      const refused = await create('/crm/objects/2026-09/companies');
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { message: string }).message).toContain('industry');
      expect((await create('/crm/v3/objects/companies')).status).toBe(201);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('refuses a bad --tier with a message naming the option', async () => {
    const child = spawn('node_modules/.bin/tsx', ['src/cli.ts', 'sandbox', 'hubspot', '--tier', 'gold'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const [code] = await once(child, 'exit');
    expect(code).not.toBe(0);
    expect(err).toMatch(/--tier expects starter or pro/);
  });
});

describe('hubspotConnectorFromConfig', () => {
  it('builds nothing without a token and a connector with one', async () => {
    expect(hubspotConnectorFromConfig(loadConfig({}))).toBeUndefined();
    const connector = hubspotConnectorFromConfig(loadConfig({ HUBSPOT_ACCESS_TOKEN: 't', HUBSPOT_TIER: 'pro' }), {
      connection: `cfg-${process.pid}`,
    });
    expect(connector?.crm).toBe('hubspot');
    expect(connector?.batchSize).toBe(100);
    await connector?.close();
  });

  it('calls the API version HUBSPOT_API_VERSION names, the date-based 2026-09 unless it says v3', async () => {
    const sandbox = await startHubspotSandbox({});
    try {
      for (const [env, path] of [
        [{}, '/account-info/2026-09/details'],
        [{ HUBSPOT_API_VERSION: 'v3' }, '/account-info/v3/details'],
      ] as const) {
        const connector = hubspotConnectorFromConfig(
          loadConfig({ HUBSPOT_ACCESS_TOKEN: 'sandbox-token', HUBSPOT_BASE_URL: sandbox.url, ...env }),
          { connection: `cfg-version-${process.pid}-${path.split('/')[2]}` },
        )!;
        expect(await connector.readAccount()).toBe(String(sandbox.portalId));
        expect(sandbox.stats().byEndpoint[`GET ${path}`]).toBe(1);
        await connector.close();
      }
    } finally {
      await sandbox.close();
    }
  });
});
