/**
 * The README's and docs' examples as a newcomer follows them, on a fresh `crm-enrich serve` with its demo:
 * the banner it shows, a new contact enriched, a backfill's dry run, a job change, a mapping check,
 * discovery, Salesforce and MCP. Each runnable example, in README.md or a page of docs/, is a fenced block after
 * `<!-- readme-example: <name> -->`, and what it prints the block after `<!-- readme-output: <name> -->`.
 * The examples' ports (`npm start`'s: 3000 to 3003) and data directory (`.data/`) are mapped to this
 * run's, and outputs are compared by shape: JSON by its keys and value types, text with numbers (ids,
 * times) left out. Each example runs once as printed; where enrichment has not caught up yet, the
 * command that looks is run again, to a deadline.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, startServiceProcess, type ServiceProcess } from './process.js';
import { eventually } from './stack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The README and every page of docs/. */
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => join('docs', f))]
  .filter((f) => f.endsWith('.md'))
  .map((f) => ({ file: f, text: readFileSync(join(ROOT, f), 'utf8') }));
const exec = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'crm-enrich-readme-'));

/** The fenced block after each `<!-- readme-<kind>: <name> ... -->` comment, in any of the docs. */
function blocks(kind: 'example' | 'output'): Map<string, string> {
  const found = new Map<string, string>();
  for (const { file, text } of DOCS)
    for (const m of text.matchAll(
      new RegExp(`<!-- readme-${kind}: ([\\w-]+)[^>]*-->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``, 'g'),
    )) {
      if (found.has(m[1]!)) throw new Error(`${file}: a second ${kind} named ${m[1]}`);
      found.set(m[1]!, m[2]!);
    }
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

describe('the README and docs examples on a fresh start', () => {
  let service: ServiceProcess;
  /** The examples' host:port -> this run's. */
  const ports = new Map<string, string>();
  /** An example's text as it runs here: this run's ports and data directory. */
  const local = (text: string) =>
    text
      .replace(/127\.0\.0\.1:(\d+)/g, (whole, port: string) => ports.get(port) ?? whole)
      .replaceAll('.data/', `${dataDir}/`);
  const env = () => ({
    PATH: process.env.PATH ?? '',
    HOME: dataDir,
    CRM_ENRICH_DATA_DIR: dataDir,
    PORT: new URL(service.url).port,
  });

  /** Runs shell text as the docs give it, with this run's ports, and answers what it printed. */
  async function sh(script: string): Promise<string> {
    const { stdout } = await exec('bash', ['-e', '-o', 'pipefail', '-c', local(script)], {
      cwd: ROOT,
      env: env(),
      timeout: 120_000,
    });
    return stdout;
  }

  /** The example's commands: its lines without comments and blank ones. */
  const commands = (name: string) =>
    examples
      .get(name)!
      .split('\n')
      .filter((l) => l.trim() && !l.trim().startsWith('#'));

  /** Polls until `run` prints lines shaped as the docs' `name` output shows, then answers them. */
  async function printsAsShown(name: string, run: () => Promise<string>, ms: number): Promise<string[]> {
    const expected = printed(local(outputs.get(name)!)).map(lineShape);
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
        `the ${name} example to print what the docs show`,
      );
    } catch (error) {
      // The difference says more than "timed out".
      expect(last.map(lineShape)).toEqual(expected);
      throw error;
    }
  }

  /**
   * Runs the example once as printed; while its last command (the one that looks) does not yet print what
   * the docs show, that command alone again, after a second (a person looks now and then), to a deadline.
   */
  async function runsAsShown(name: string, ms: number): Promise<string[]> {
    const first = printed(await sh(examples.get(name)!));
    const expected = printed(outputs.get(name)!);
    // Every line but the last is what the example's earlier commands printed, once.
    expect(first.slice(0, -1).map(lineShape)).toEqual(expected.slice(0, -1).map((l) => lineShape(local(l))));
    if (JSON.stringify(first.map(lineShape)) === JSON.stringify(expected.map((l) => lineShape(local(l))))) return first;
    const look = commands(name).at(-1)!;
    return printsAsShown(
      name,
      async () => {
        await new Promise((r) => setTimeout(r, 1_000));
        return `${first.slice(0, -1).join('\n')}\n${await sh(look)}`;
      },
      ms,
    );
  }

  afterAll(async () => {
    await killAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('has the examples this test runs', () => {
    const names = [
      'backfill',
      'banner',
      'discovery',
      'job-changes',
      'mappings-check',
      'mcp',
      'new-record',
      'salesforce',
    ];
    expect([...examples.keys()].sort()).toEqual(names);
    expect([...outputs.keys()].sort()).toEqual(names.filter((n) => n !== 'banner'));
  });

  it("prints the banner the README shows, and its commands are the README's first example", async () => {
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
    // This run's URLs, by the role the banner gives them, stand for the docs'.
    const own = (label: string) => new RegExp(`${label} +http://127\\.0\\.0\\.1:(\\d+)`).exec(banner)?.[1];
    const roles = ['is running at', 'partner sandbox:', 'HubSpot sandbox:', 'Salesforce sandbox:'].map(own);
    expect(roles.every(Boolean), banner).toBe(true);
    ['3000', '3001', '3002', '3003'].forEach((port, i) => ports.set(port, `127.0.0.1:${roles[i]}`));

    const shown = banner.split('\n');
    for (const line of local(examples.get('banner')!).split('\n'))
      expect(shown, `the banner line ${line}`).toContain(line);
    // The banner's two commands are the ones the README runs as its first example.
    const lines = examples.get('banner')!.split('\n');
    const after = (text: string) => lines[lines.findIndex((l) => l.includes(text)) + 1]!.trim();
    const example = commands('new-record');
    expect(example).toContain(after('Create a contact'));
    expect(example).toContain(after('see its enriched properties'));
  }, 150_000);

  it('runs the new-record example: the contact is created, then found enriched', async () => {
    const lines = await runsAsShown('new-record', 60_000);
    expect(JSON.parse(lines.at(-1)!).results[0].properties.crm_enrich_enriched_at).toBeTruthy();
  }, 150_000);

  it('runs the job-change example: the partner moves the person, a sweep finds the move', async () => {
    const lines = await runsAsShown('job-changes', 60_000);
    const [change] = JSON.parse(lines.at(-1)!).jobChanges;
    expect(change).toMatchObject({ personId: 'pe_0000001', kind: 'employer' });
    expect(Object.keys(change.actions)).not.toHaveLength(0);
  }, 150_000);

  it('runs the backfill dry run: what a backfill would do, nothing enqueued', async () => {
    const lines = await printsAsShown('backfill', () => sh(examples.get('backfill')!), 30_000);
    expect(lines[0]).toMatch(/^would spend at most \d+ credits$/);
    expect(lines[1]).toBe('dry run of a backfill of hubspot contact: nothing was enqueued');
  }, 60_000);

  it("runs the mapping check example: every mapping checked against the sandboxes' properties", async () => {
    const [line] = await printsAsShown('mappings-check', () => sh(examples.get('mappings-check')!), 30_000);
    expect(line).toMatch(/^\d+ mappings in mappings are valid/);
  }, 60_000);

  it('runs the MCP example: the endpoint asks for a token and names its metadata', async () => {
    const lines = await printsAsShown('mcp', () => sh(examples.get('mcp')!), 10_000);
    expect(lines[0]).toBe(local(printed(outputs.get('mcp')!)[0]!));
  }, 30_000);

  it("runs the Salesforce example: a Lead created with the sandbox org's OAuth values is enriched", async () => {
    // The token, then the Lead once, then the query (with the token) until enrichment has written the Lead.
    const script = examples.get('salesforce')!;
    const steps = commands('salesforce');
    const first = printed(await sh(script));
    expect(lineShape(first[0]!)).toEqual(lineShape(printed(outputs.get('salesforce')!)[0]!));
    const query = [steps[0]!, steps.at(-1)!].join('\n');
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
