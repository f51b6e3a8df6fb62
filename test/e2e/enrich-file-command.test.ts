/**
 * `crm-enrich enrich-file` against a running service, the partner sandbox and the HubSpot sandbox over
 * HTTP: a file of known, unknown, duplicate, already-in-the-CRM and malformed rows. The dry run spends
 * nothing and says what the run then spends; the result keeps every row in order with its status.
 */
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { killAll, processSchema, runCli, serviceEnv, startServiceProcess, type ServiceProcess } from './process.js';
import { ADMIN_TOKEN, partnerPeople, startSandboxes, type Sandboxes } from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the enrich-file command tests: ${skip}`);

describe.skipIf(skip)('crm-enrich enrich-file', () => {
  let sandboxes: Sandboxes;
  let service: ServiceProcess;
  let cliEnv: Record<string, string>;
  const schema = processSchema();
  const dir = mkdtempSync(join(tmpdir(), 'enrich-file-'));
  const input = join(dir, 'fair.csv');
  const out = join(dir, 'fair-enriched.csv');
  let people: ReturnType<typeof partnerPeople>;
  const inCrmIds: string[] = [];

  beforeAll(async () => {
    sandboxes = await startSandboxes({ people: 500, companies: 100 });
    people = partnerPeople(sandboxes, 7);
    // Two of the people are contacts already.
    for (const p of people.slice(5, 7)) inCrmIds.push(sandboxes.hubspot.createContact({ email: p.workEmail! }).id);
    const q = (text: string) => `"${text.replace(/"/g, '""')}"`;
    const lines = [
      'First Name,Last Name,Company,E-mail Address,Notes',
      ...people.slice(0, 5).map((p, i) => `Zoë${i},Müller,Acme,${p.workEmail!},${q(`met at stand ${i}, "keen"`)}`),
      `Dup,Row,Acme,${people[0]!.workEmail!.toUpperCase()},duplicate of the first`,
      `In,Crm,Acme,${people[5]!.workEmail!},`,
      `In,Crm,Acme,${people[6]!.workEmail!},`,
      'Nobody,Known,Nowhere,nobody@unknown-company.example,',
      'Bad,"Quote,Acme,bad@example.com,',
      'Too,Many,Acme,x@example.com,a,b',
      'No,Key,Acme,,no e-mail',
      `Multi,Line,Acme,${people[1]!.workEmail!},${q('first line\nsecond line')}`,
    ];
    writeFileSync(input, `${lines.join('\r\n')}\r\n`);
    service = await startServiceProcess(serviceEnv(sandboxes, schema));
    cliEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ADMIN_TOKEN, LOG_LEVEL: 'silent' };
  }, 60_000);
  afterAll(async () => {
    await killAll([schema]);
    await sandboxes?.close();
  });

  const enrichFile = (...args: string[]) =>
    runCli(['enrich-file', input, '--out', out, '--url', service.url, ...args], cliEnv);
  const partnerCalls = () => sandboxes.partner.stats().byEndpoint['GET /people'] ?? 0;

  it('with --dry-run prints the most it would spend first, names the invalid lines, and spends nothing', async () => {
    const result = await enrichFile('--dry-run');
    expect(result.code, result.output).toBe(0);
    const lines = result.output.trim().split('\n');
    // Six distinct addresses, each tried as a work and then as a personal e-mail when the first finds nobody.
    expect(lines[0]).toBe('would spend at most 12 credits');
    expect(result.output).toContain('13 rows: 3 invalid, 2 already in the CRM, 6 distinct rows to look up');
    expect(result.output).toContain('invalid: line 11: unbalanced quotes');
    expect(result.output).toContain('invalid: line 12: 6 fields where the header has 5');
    expect(result.output).toMatch(/invalid: line 13: no usable match key/);
    expect(partnerCalls()).toBe(0);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('writes every row in order with its status, spending what the preview said', async () => {
    const result = await enrichFile();
    expect(result.code, result.output).toBe(0);
    expect(result.output.split('\n')[0]).toBe('would spend at most 12 credits');
    // The five known people are found by their work e-mail; the unknown address costs both tries.
    expect(partnerCalls()).toBe(7);

    const bytes = readFileSync(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).toContain('\r\n');
    const rows: string[][] = parse(bytes, { bom: true, relax_column_count: false });
    const header = rows[0]!;
    expect(header.slice(0, 5)).toEqual(['First Name', 'Last Name', 'Company', 'E-mail Address', 'Notes']);
    expect(header).toContain('jobtitle');
    // The partner's company beside the file's own "Company" column.
    expect(header).toContain('company');
    expect(header.slice(-3)).toEqual(['crm_enrich_status', 'crm_enrich_record_id', 'crm_enrich_reason']);
    const col = (name: string) => header.indexOf(name);
    const body = rows.slice(1);
    expect(body.map((r) => r[col('crm_enrich_status')])).toEqual([
      'enriched',
      'enriched',
      'enriched',
      'enriched',
      'enriched',
      'enriched',
      'in_crm',
      'in_crm',
      'no_match',
      'invalid',
      'invalid',
      'invalid',
      'enriched',
    ]);
    for (const [i, p] of people.slice(0, 5).entries()) {
      expect(body[i]![0]).toBe(`Zoë${i}`);
      expect(body[i]![4]).toBe(`met at stand ${i}, "keen"`);
      expect(body[i]![col('jobtitle')]).toBe(p.person.position);
      expect(body[i]![col('crm_enrich_partner_id')]).toBe(p.person.id);
    }
    expect(body[5]![col('crm_enrich_partner_id')]).toBe(people[0]!.person.id);
    // The duplicate shares the first row's lookup (the seven partner calls above count it once).
    expect(body[5]![col('crm_enrich_reason')]).toMatch(/^matched by work_email/);
    expect(body.slice(6, 8).map((r) => r[col('crm_enrich_record_id')])).toEqual(inCrmIds);
    expect(body[8]![col('jobtitle')]).toBe('');
    expect(body[9]![col('crm_enrich_reason')]).toBe('line 11: unbalanced quotes');
    expect(body[9]![0]).toBe('Bad,"Quote,Acme,bad@example.com,');
    expect(body[10]!.slice(0, 5)).toEqual(['Too', 'Many', 'Acme', 'x@example.com', 'a,b']);
    expect(body[12]![4]).toBe('first line\nsecond line');
  }, 60_000);

  it('spends nothing on a second run: every answer comes from the lookup cache', async () => {
    const before = partnerCalls();
    const result = await enrichFile();
    expect(result.code, result.output).toBe(0);
    expect(result.output.split('\n')[0]).toBe('would spend at most 0 credits');
    expect(partnerCalls()).toBe(before);
  }, 60_000);

  it('with --relookup looks up the rows the CRM holds, keeping their record ids', async () => {
    const result = await enrichFile('--relookup');
    expect(result.code, result.output).toBe(0);
    expect(result.output.split('\n')[0]).toBe('would spend at most 4 credits');
    const rows: string[][] = parse(readFileSync(out), { bom: true });
    const col = (name: string) => rows[0]!.indexOf(name);
    const held = rows.slice(7, 9);
    expect(held.map((r) => r[col('crm_enrich_status')])).toEqual(['enriched', 'enriched']);
    expect(held.map((r) => r[col('crm_enrich_record_id')])).toEqual(inCrmIds);
  }, 60_000);

  it('refuses a file whose columns hold no match key, naming them, and takes a --map', async () => {
    const other = join(dir, 'other.csv');
    writeFileSync(other, `Name,Contact\nAl,${people[2]!.workEmail!}\n`);
    const refused = await runCli(['enrich-file', other, '--out', out, '--url', service.url, '--dry-run'], cliEnv);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('no column of the file holds a match key of hubspot contact');
    const mapped = await runCli(
      ['enrich-file', other, '--out', out, '--url', service.url, '--dry-run', '--map', 'Contact=email'],
      cliEnv,
    );
    expect(mapped.code, mapped.output).toBe(0);
    expect(mapped.output).toContain('1 rows: 0 invalid, 0 already in the CRM, 1 distinct rows to look up');
  }, 60_000);
});
