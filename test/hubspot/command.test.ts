import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { hubspotConnectorFromConfig } from '../../connectors/hubspot/from-config.js';

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
});
