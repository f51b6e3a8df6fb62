/**
 * The SFDX source files for the mappings' custom fields and the integration user's permission set
 * (`objects/<Object>/fields/<Field>__c.field-meta.xml`, `permissionsets/<Name>.permissionset-meta.xml`),
 * written under a package directory such as deploy/salesforce/force-app/main/default.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { XMLBuilder } from 'fast-xml-parser';
import type { PropertySpec } from '../../src/core/connector.js';
import { customFieldMetadata } from './field-metadata.js';
import { integrationPermissionSet, type ObjectFieldAccess } from './permission-set.js';

const METADATA_NS = 'http://soap.sforce.com/2006/04/metadata';

export interface ObjectMetadataInput extends ObjectFieldAccess {
  custom: PropertySpec[];
}

const builder = new XMLBuilder({
  format: true,
  indentBy: '    ',
  ignoreAttributes: false,
  suppressBooleanAttributes: false,
});

/** Salesforce writes members in alphabetical order with fullName first; so do we, so a retrieve diffs cleanly. */
function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a === 'fullName' ? -1 : b === 'fullName' ? 1 : a.localeCompare(b)));
  return Object.fromEntries(entries.map(([k, v]) => [k, ordered(v)]));
}

export function metadataXml(root: string, body: Record<string, unknown>): string {
  const xml = builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    [root]: { '@_xmlns': METADATA_NS, ...(ordered(body) as Record<string, unknown>) },
  });
  return xml.endsWith('\n') ? xml : `${xml}\n`;
}

/** Relative path -> file content, for every object's custom fields and the permission set. */
export function salesforceMetadataFiles(objects: ObjectMetadataInput[], permissionSet?: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const { object, custom } of objects) {
    for (const spec of custom) {
      const { fullName, ...field } = customFieldMetadata(object, spec);
      const name = fullName.slice(object.length + 1);
      files.set(
        `objects/${object}/fields/${name}.field-meta.xml`,
        metadataXml('CustomField', { fullName: name, ...field }),
      );
    }
  }
  const { fullName, ...set } = integrationPermissionSet(objects, permissionSet);
  files.set(`permissionsets/${fullName}.permissionset-meta.xml`, metadataXml('PermissionSet', set));
  return files;
}

export async function writeSalesforceMetadata(dir: string, files: Map<string, string>): Promise<string[]> {
  const written: string[] = [];
  for (const [path, content] of files) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    written.push(target);
  }
  return written;
}
