/**
 * deploy/salesforce as `sf project deploy start` sees it: Salesforce's own library
 * (@salesforce/source-deploy-retrieve) resolves every file to a metadata type and converts the project
 * to the Metadata API format a deploy sends, with the admin's values put in by the project's
 * replacements; no org needed. The generated fields and permission set are the ones the mappings need.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ComponentSet, MetadataConverter, type SourceComponent } from '@salesforce/source-deploy-retrieve';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { salesforceMetadataFiles } from '../../connectors/salesforce/metadata-files.js';
import { customPropertiesOf, fieldAccessOf, loadMappingDir } from '../../src/mapping/index.js';
import { runCli } from '../e2e/process.js';
import { listFiles, readText, repoRoot } from './deploy-files.js';

const projectDir = join(repoRoot, 'deploy/salesforce');
const packageDir = join(projectDir, 'force-app');
const sourceDir = 'deploy/salesforce/force-app/main/default';
const parser = new XMLParser({
  ignoreAttributes: true,
  isArray: (name) => ['types', 'members', 'fields', 'outboundMessages'].includes(name),
});

const ADMIN_VALUES = {
  PUBLIC_URL: 'https://enrich.example.com',
  SALESFORCE_WEBHOOK_SECRET: 'f'.repeat(64),
  SALESFORCE_INTEGRATION_USERNAME: 'crm-enrich@example.com',
  SALESFORCE_CONTACT_EMAIL: 'salesforce-admin@example.com',
};

function setAdminValues(values: Partial<typeof ADMIN_VALUES>): void {
  for (const key of Object.keys(ADMIN_VALUES)) delete process.env[key];
  Object.assign(process.env, values);
}

/** Converts to the Metadata API format with replacements, as a deploy's zip gets them. */
async function convert(dir: string, outputDirectory: string): Promise<void> {
  const set = ComponentSet.fromSource(join(dir, 'force-app'));
  set.projectDirectory = dir;
  process.env.SF_APPLY_REPLACEMENTS_ON_CONVERT = 'true';
  await new MetadataConverter().convert(set, 'metadata', { type: 'directory', outputDirectory, genUniqueDir: false });
}

/**
 * What the library does not check before an org would: each component's XML is well formed and its root
 * element is the component's type, as the Metadata API requires.
 */
async function xmlProblems(components: SourceComponent[]): Promise<string[]> {
  const problems: string[] = [];
  for (const c of components) {
    if (!c.xml) continue;
    const text = await readFile(c.xml, 'utf8');
    const valid = XMLValidator.validate(text);
    if (valid !== true) problems.push(`${relative(repoRoot, c.xml)}: ${valid.err.msg}`);
    else if (!new RegExp(`^(<\\?xml[^>]*>\\s*)?<${c.type.name}[\\s>]`).test(text))
      problems.push(`${relative(repoRoot, c.xml)}: root is not <${c.type.name}>`);
  }
  return problems;
}

async function expectedFiles(): Promise<Map<string, string>> {
  const { mappings, problems } = await loadMappingDir(join(repoRoot, 'mappings'));
  expect(problems).toEqual([]);
  return salesforceMetadataFiles(
    mappings
      .filter(({ document }) => document.crm === 'salesforce')
      .map(({ document }) => ({
        object: document.object,
        custom: customPropertiesOf(document),
        ...fieldAccessOf(document),
      })),
  );
}

const temps: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'crm-enrich-sfdx-'));
  temps.push(dir);
  return dir;
};
const saved = { ...process.env };

afterEach(() => {
  for (const key of [...Object.keys(ADMIN_VALUES), 'SF_APPLY_REPLACEMENTS_ON_CONVERT']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});
afterAll(async () => {
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

describe('deploy/salesforce resolved by source-deploy-retrieve', () => {
  const set = ComponentSet.fromSource(packageDir);
  const components = set.getSourceComponents().toArray();
  const byType = (type: string) =>
    components
      .filter((c) => c.type.name === type)
      .map((c) => c.fullName)
      .sort();

  it('resolves every file in the package to a component, none of them forceignored', () => {
    const resolved = new Set(
      components
        .flatMap((c) => [c.xml, c.content])
        .filter((p): p is string => !!p)
        .map((p) => relative(repoRoot, p)),
    );
    expect(listFiles(packageDir).filter((f) => !resolved.has(f))).toEqual([]);
    expect([...(set.forceIgnoredPaths ?? [])]).toEqual([]);
  });

  it('has well-formed XML in every component file, rooted in the element of its type', async () => {
    expect(await xmlProblems(components)).toEqual([]);
  });

  it('holds the External Client App for the client credentials flow, with all four of its parts', () => {
    expect(byType('ExternalClientApplication')).toEqual(['CrmEnrich']);
    expect(byType('ExtlClntAppOauthSettings')).toEqual(['CrmEnrich_oauth']);
    expect(byType('ExtlClntAppGlobalOauthSettings')).toEqual(['CrmEnrich_glbloauth']);
    expect(byType('ExtlClntAppConfigurablePolicies')).toEqual(['CrmEnrich_plcy']);
    expect(byType('ExtlClntAppOauthConfigurablePolicies')).toEqual(['CrmEnrich_oauthPlcy']);
    const global = parser.parse(
      readText(`${sourceDir}/extlClntAppGlobalOauthSets/CrmEnrich_glbloauth.ecaGlblOauth-meta.xml`),
    );
    expect(global.ExtlClntAppGlobalOauthSettings.isClientCredentialsFlowEnabled).toBe(true);
    // Salesforce generates the consumer key and secret; they never belong in source control.
    expect(global.ExtlClntAppGlobalOauthSettings.consumerSecret).toBeUndefined();
    const policies = parser.parse(
      readText(`${sourceDir}/extlClntAppOauthPolicies/CrmEnrich_oauthPlcy.ecaOauthPlcy-meta.xml`),
    );
    expect(policies.ExtlClntAppOauthConfigurablePolicies.isClientCredentialsFlowEnabled).toBe(true);
  });

  it('holds the outbound messages and the record-triggered flows that send them, for Lead, Contact and Account', () => {
    expect(byType('Workflow')).toEqual(['Account', 'Contact', 'Lead']);
    expect(byType('Flow')).toEqual([
      'Crm_Enrich_Account_Changed',
      'Crm_Enrich_Contact_Changed',
      'Crm_Enrich_Lead_Changed',
    ]);
    for (const object of ['Lead', 'Contact', 'Account']) {
      const flow = parser.parse(readText(`${sourceDir}/flows/Crm_Enrich_${object}_Changed.flow-meta.xml`)).Flow;
      const workflow = parser.parse(readText(`${sourceDir}/workflows/${object}.workflow-meta.xml`)).Workflow;
      const message = workflow.outboundMessages[0];
      expect(flow.start.object).toBe(object);
      expect(flow.start.triggerType).toBe('RecordAfterSave');
      expect(flow.actionCalls.actionType).toBe('outboundMessage');
      expect(flow.actionCalls.actionName).toBe(`${object}.${message.fullName}`);
      expect(message.fields).toEqual(
        expect.arrayContaining(['Id', 'CreatedDate', 'LastModifiedDate', object === 'Account' ? 'Website' : 'Email']),
      );
      expect(message.includeSessionId).toBe(false);
    }
  });

  it('holds the invocable action, its test class, and the credentials it calls out through', () => {
    expect(byType('ApexClass')).toEqual(['CrmEnrichAction', 'CrmEnrichActionTest']);
    expect(byType('NamedCredential')).toEqual(['CrmEnrich']);
    expect(byType('ExternalCredential')).toEqual(['CrmEnrich']);
    const apex = readText(`${sourceDir}/classes/CrmEnrichAction.cls`);
    expect(apex).toMatch(/@InvocableMethod\(\s*label='Enrich with crm-enrich'/);
    expect(apex).toContain("'callout:CrmEnrich/salesforce/actions/enrich'");
    expect(readText(`${sourceDir}/classes/CrmEnrichActionTest.cls`)).toContain('implements HttpCalloutMock');
    const credential = parser.parse(
      readText(`${sourceDir}/externalCredentials/CrmEnrich.externalCredential-meta.xml`),
    ).ExternalCredential;
    const parameters = [credential.externalCredentialParameters].flat() as { parameterType: string }[];
    // No header carries the secret itself: it only keys the signature.
    expect(parameters.filter((p) => p.parameterType === 'AuthHeader')).toEqual([]);
    expect(parameters.map((p) => p.parameterType)).toEqual(['NamedPrincipal']);
    const named = parser.parse(
      readText(`${sourceDir}/namedCredentials/CrmEnrich.namedCredential-meta.xml`),
    ).NamedCredential;
    // The signature header is a formula the platform evaluates, which Apex may set only with merge fields on.
    expect(named.allowMergeFieldsInHeader).toBe(true);
    expect(named.allowMergeFieldsInBody).toBe(false);
  });

  it('signs each call the way the service checks it: timestamp, body digest, HMAC keyed with the secret', () => {
    const apex = readText(`${sourceDir}/classes/CrmEnrichAction.cls`);
    expect(apex).toContain("request.setHeader('X-Crm-Enrich-Timestamp', timestamp)");
    expect(apex).toContain("request.setHeader('X-Crm-Enrich-Signature', signatureFormula(timestamp, body))");
    expect(apex).toContain('Datetime.now().getTime() / 1000');
    expect(apex).toContain("Crypto.generateDigest('SHA-256', Blob.valueOf(body))");
    expect(apex).toContain(
      "'{!HEX(HMAC(\\'SHA-256\\', BLOB(\\'' + timestamp + '.' + digest + '\\'), BLOB(' + SECRET + ')))}'",
    );
    expect(apex).toContain("SECRET = '$Credential.CrmEnrich.Secret'");
    expect(apex).not.toMatch(/X-Crm-Enrich-Secret/);
  });

  it('holds exactly the custom fields the Salesforce mappings declare, as generated from them', async () => {
    const expected = await expectedFiles();
    const fields = [...expected.keys()]
      .filter((p) => p.startsWith('objects/'))
      .map((p) => p.replace(/^objects\/(\w+)\/fields\/(\w+)\.field-meta\.xml$/, '$1.$2'));
    expect(fields.length).toBeGreaterThan(20);
    expect(byType('CustomField')).toEqual(fields.sort());
    expect(byType('PermissionSet')).toEqual(['Crm_Enrich_Flow_Action', 'Crm_Enrich_Integration']);
    // Stale files mean someone changed a mapping without running the generator.
    for (const [path, content] of expected) {
      expect(
        readText(`${sourceDir}/${path}`),
        `${path} is stale: run crm-enrich mappings provision --salesforce-metadata ${sourceDir}`,
      ).toBe(content);
    }
  });
});

describe('crm-enrich mappings provision --salesforce-metadata', () => {
  it('writes the fields and the permission set the project holds, needing no org', async () => {
    const out = await tempDir();
    const result = await runCli(['mappings', 'provision', '--salesforce-metadata', out], {
      PATH: process.env.PATH ?? '',
    });
    expect(result.code, result.output).toBe(0);
    const written = listFiles(out)
      .map((f) => relative(relative(repoRoot, out), f))
      .sort();
    expect(written).toEqual([...(await expectedFiles()).keys()].sort());
    for (const file of written)
      expect(await readFile(join(out, file), 'utf8'), file).toBe(readText(`${sourceDir}/${file}`));
  });

  it('writes nothing from invalid mappings, and says what is wrong', async () => {
    const out = await tempDir();
    const mappings = await tempDir();
    await writeFile(join(mappings, 'lead.yaml'), 'crm: salesforce\nobject: Lead\nsource: person\n');
    const result = await runCli(['mappings', 'provision', '--mappings', mappings, '--salesforce-metadata', out], {
      PATH: process.env.PATH ?? '',
    });
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/lead\.yaml/);
    expect(listFiles(out)).toEqual([]);
  });
});

describe('deploy/salesforce converted to the Metadata API format', () => {
  let out: string;
  beforeAll(async () => {
    setAdminValues(ADMIN_VALUES);
    out = await tempDir();
    await convert(projectDir, out);
  });

  it('writes a package.xml naming every type, and the generated fields inside their objects', async () => {
    const manifest = parser.parse(await readFile(join(out, 'package.xml'), 'utf8')).Package;
    const types = Object.fromEntries(
      manifest.types.map((t: { name: string; members: string[] }) => [t.name, t.members]),
    );
    for (const type of [
      'ExternalClientApplication',
      'ExtlClntAppOauthSettings',
      'ExtlClntAppGlobalOauthSettings',
      'ExtlClntAppOauthConfigurablePolicies',
      'ExtlClntAppConfigurablePolicies',
      'PermissionSet',
      'CustomField',
      'Workflow',
      'WorkflowOutboundMessage',
      'Flow',
      'ApexClass',
      'NamedCredential',
      'ExternalCredential',
    ]) {
      expect(types[type], type).toBeDefined();
    }
    expect(types.CustomField).toContain('Lead.CE_Seniority__c');
    const lead = parser.parse(await readFile(join(out, 'objects/Lead.object'), 'utf8')).CustomObject;
    expect(lead.fields.map((f: { fullName: string }) => f.fullName)).toContain('CE_Seniority__c');
  });

  it('puts in the values only an admin can give, leaving no placeholder behind', async () => {
    const workflow = await readFile(join(out, 'workflows/Lead.workflow'), 'utf8');
    expect(workflow).toContain(
      `<endpointUrl>${ADMIN_VALUES.PUBLIC_URL}/webhooks/salesforce/${ADMIN_VALUES.SALESFORCE_WEBHOOK_SECRET}` +
        '</endpointUrl>',
    );
    expect(workflow).toContain(`<integrationUser>${ADMIN_VALUES.SALESFORCE_INTEGRATION_USERNAME}</integrationUser>`);
    expect(await readFile(join(out, 'namedCredentials/CrmEnrich.namedCredential'), 'utf8')).toContain(
      `<parameterValue>${ADMIN_VALUES.PUBLIC_URL}</parameterValue>`,
    );
    const policies = await readFile(join(out, 'extlClntAppOauthPolicies/CrmEnrich_oauthPlcy.ecaOauthPlcy'), 'utf8');
    expect(policies).toContain(ADMIN_VALUES.SALESFORCE_INTEGRATION_USERNAME);
    const app = await readFile(join(out, 'externalClientApps/CrmEnrich.eca'), 'utf8');
    expect(app).toContain(`<contactEmail>${ADMIN_VALUES.SALESFORCE_CONTACT_EMAIL}</contactEmail>`);
    for (const file of listFiles(out))
      expect(await readFile(join(repoRoot, file), 'utf8'), file).not.toMatch(/__[A-Z_]+__/);
  });
});

describe('deploy/salesforce refused', () => {
  const copy = async () => {
    const dir = await tempDir();
    await cp(projectDir, dir, { recursive: true });
    return dir;
  };

  it('when a file is of no metadata type Salesforce knows', async () => {
    const dir = await copy();
    await writeFile(
      join(dir, 'force-app/main/default/objects/Lead/fields/CE_Extra__c.fieldx-meta.xml'),
      '<CustomField/>',
    );
    expect(() => ComponentSet.fromSource(join(dir, 'force-app'))).toThrow(/CE_Extra__c\.fieldx-meta\.xml/);
  });

  it('when a generated field file is not well-formed XML', async () => {
    const dir = await copy();
    const field = join(dir, 'force-app/main/default/objects/Lead/fields/CE_Seniority__c.field-meta.xml');
    await writeFile(field, (await readFile(field, 'utf8')).replace('</label>', '</labl>'));
    const problems = await xmlProblems(ComponentSet.fromSource(join(dir, 'force-app')).getSourceComponents().toArray());
    expect(problems).toEqual([expect.stringMatching(/CE_Seniority__c\.field-meta\.xml: .*labl/)]);
  });

  it('when a value only an admin can give is not set', async () => {
    const { SALESFORCE_WEBHOOK_SECRET: _left, ...others } = ADMIN_VALUES;
    setAdminValues(others);
    await expect(convert(projectDir, await tempDir())).rejects.toThrow(/SALESFORCE_WEBHOOK_SECRET/);
  });
});
