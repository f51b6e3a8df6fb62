/**
 * The README's examples as a newcomer follows them, on a fresh `crm-enrich serve` with its demo: the
 * banner it shows, the quick start's commands, discovery, Salesforce and MCP. Each runnable example is a
 * fenced block after `<!-- readme-example: <name> -->`, and what it prints the block after
 * `<!-- readme-output: <name> -->`. The README's ports (3000 to 3003, or 38511 to 38514 in the banner's
 * run) are mapped to this run's, and outputs are compared by shape: JSON by its keys and value types,
 * text with numbers (ids, times) left out. Enrichment takes its time: outputs are polled to a deadline.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, startServiceProcess, type ServiceProcess } from './process.js';
import { eventually } from './stack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const exec = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'crm-enrich-readme-'));

/** The fenced block after each `<!-- readme-<kind>: <name> ... -->` comment. */
function blocks(kind: 'example' | 'output'): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of README.matchAll(
    new RegExp(`<!-- readme-${kind}: ([\\w-]+)[^>]*-->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``, 'g'),
  ))
    found.set(m[1]!, m[2]!);
  return found;
}
const examples = blocks('example');
const outputs = blocks('output');

/** The value's shape: objects by their keys, arrays by their first element, the rest by type. */
function shape(value: unknown): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v)]),
    );
  return typeof value;
}

/** A printed line as compared: JSON by its shape, text with its numbers (ids, counts, times) as `#`. */
function lineShape(line: string): unknown {
  if (/^[[{]/.test(line)) {
    try {
      return shape(JSON.parse(line));
    } catch {
      // not JSON after all: compared as text
    }
  }
  return line.replace(/\d+/g, '#');
}

/**
 * What a command printed, by line (an HTTP header's CR dropped), without npm's own lines
 * (`> crm-enrich@... cli`) and blank ones.
 */
const printed = (text: string) => text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('> '));

describe('the README examples on a fresh start', () => {
  let service: ServiceProcess;
  /** README host:port -> this run's. */
  const ports = new Map<string, string>();
  const mapPorts = (text: string) =>
    text.replace(/127\.0\.0\.1:(\d+)/g, (whole, port: string) => ports.get(port) ?? whole);
  const env = () => ({
    PATH: process.env.PATH ?? '',
    HOME: dataDir,
    CRM_ENRICH_DATA_DIR: dataDir,
    PORT: new URL(service.url).port,
  });

  /** Runs shell text as the README gives it, with this run's ports, and answers what it printed. */
  async function sh(script: string): Promise<string> {
    const { stdout } = await exec('bash', ['-e', '-o', 'pipefail', '-c', mapPorts(script)], {
      cwd: ROOT,
      env: env(),
      timeout: 120_000,
    });
    return stdout;
  }

  /** Polls until `run` prints lines shaped as the README's `name` output shows, then answers them. */
  async function printsAsShown(name: string, run: () => Promise<string>, ms: number): Promise<string[]> {
    const expected = printed(mapPorts(outputs.get(name)!)).map(lineShape);
    let last: string[] = [];
    try {
      return await eventually(
        async () => {
          last = printed(
            await run().catch(
              (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
            ),
          );
          return JSON.stringify(last.map(lineShape)) === JSON.stringify(expected) ? last : undefined;
        },
        ms,
        `the ${name} example to print what the README shows`,
      );
    } catch (error) {
      // The difference says more than "timed out".
      expect(last.map(lineShape)).toEqual(expected);
      throw error;
    }
  }

  afterAll(async () => {
    await killAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('has the examples this test runs', () => {
    expect([...examples.keys()].sort()).toEqual(['banner', 'discovery', 'mcp', 'salesforce']);
    expect([...outputs.keys()].sort()).toEqual(['banner', 'discovery', 'mcp', 'salesforce']);
  });

  it('prints the banner the README shows, and its commands show the contact enriched', async () => {
    service = await startServiceProcess(
      { PATH: process.env.PATH ?? '', HOME: dataDir, CRM_ENRICH_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      60_000,
      ['serve'],
    );
    const banner = await eventually(
      () => (service.output().includes('Stop with Ctrl-C') ? service.output() : undefined),
      30_000,
      'the banner',
    );
    // This run's URLs, by the role the banner gives them, stand for the README's.
    const own = (label: string) => new RegExp(`${label} +http://127\\.0\\.0\\.1:(\\d+)`).exec(banner)?.[1];
    const roles = ['is running at', 'partner sandbox:', 'HubSpot sandbox:', 'Salesforce sandbox:'].map(own);
    expect(roles.every(Boolean), banner).toBe(true);
    [
      ['3000', '38511'],
      ['3001', '38512'],
      ['3002', '38513'],
      ['3003', '38514'],
    ].forEach((readmePorts, i) => {
      for (const p of readmePorts) ports.set(p, `127.0.0.1:${roles[i]}`);
    });

    const sample = mapPorts(examples.get('banner')!).replaceAll(' .data/', ` ${dataDir}/`);
    const shown = banner.split('\n');
    for (const line of sample.split('\n')) expect(shown, `the banner line ${line}`).toContain(line);

    // The commands as the README prints them: create the contact, then look until it is enriched.
    const lines = examples.get('banner')!.split('\n');
    const create = lines[lines.findIndex((l) => l.startsWith('Create a contact')) + 1]!.trim();
    const show = lines[lines.findIndex((l) => l.includes('see its enriched properties')) + 1]!.trim();
    expect(JSON.parse(await sh(create))).toMatchObject({ properties: { email: expect.stringContaining('@') } });
    // HubSpot's search limits a token to 5 searches a second; a person looks now and then.
    const [found] = await printsAsShown(
      'banner',
      async () => {
        await new Promise((r) => setTimeout(r, 1_000));
        return sh(show);
      },
      60_000,
    );
    expect(JSON.parse(found!).results[0].properties.crm_enrich_enriched_at).toBeTruthy();
  }, 150_000);

  it('runs the MCP example: the endpoint asks for a token and names its metadata', async () => {
    const lines = await printsAsShown('mcp', () => sh(examples.get('mcp')!), 10_000);
    expect(lines[0]).toBe(mapPorts(printed(outputs.get('mcp')!)[0]!));
  }, 30_000);

  it("runs the Salesforce example: a Lead created with the sandbox org's OAuth values is enriched", async () => {
    const script = examples.get('salesforce')!;
    const commands = script.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    const first = printed(await sh(script));
    expect(lineShape(first[0]!)).toEqual(lineShape(printed(outputs.get('salesforce')!)[0]!));
    // Then the query alone (with the token), until enrichment has written the Lead.
    const query = [commands[0]!, commands.at(-1)!].join('\n');
    const [, lead] = await printsAsShown(
      'salesforce',
      async () => {
        await new Promise((r) => setTimeout(r, 1_000));
        return `${first[0]}\n${await sh(query)}`;
      },
      60_000,
    );
    expect(JSON.parse(lead!).records[0]).toMatchObject({ FirstName: 'Isla', CE_Enriched_At__c: expect.any(String) });
  }, 90_000);

  it('runs the discovery example once the demo has enriched its companies', async () => {
    // The demo's records arrive over the first minute; the example is for after that.
    const lines = await printsAsShown('discovery', () => sh(examples.get('discovery')!), 150_000);
    expect(lines.at(-1)).toMatch(/^stopped at this run's limit of 3/);
  }, 200_000);
});
