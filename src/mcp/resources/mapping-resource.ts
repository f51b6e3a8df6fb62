/**
 * `crm-enrich://mappings/{crm}/{objectType}/versions/{version}`: one saved version of a mapping file,
 * as the admin saved it (which partner field lands in which CRM property, by which rule). The list
 * holds the active version of every mapped object. Read scope; spends nothing.
 */
import { ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import type { McpContext } from '../mcp-context.js';
import { requireScope } from '../scope-challenge.js';
import { RESOURCE_SCOPE } from '../scopes.js';
import { ToolRefusal } from '../tool-call.js';
import { readOrRefuse } from './resource-errors.js';

export const MAPPING_URI = 'crm-enrich://mappings/{crm}/{objectType}/versions/{version}';

/** Versions are a Postgres integer: anything past it cannot exist and must not reach the query. */
const MAX_VERSION = 2_147_483_647;

export function mappingUri(crm: string, objectType: string, version: number): string {
  return `crm-enrich://mappings/${encodeURIComponent(crm)}/${encodeURIComponent(objectType)}/versions/${version}`;
}

const mimeTypeOf = (format: 'yaml' | 'json') => (format === 'json' ? 'application/json' : 'application/yaml');

export function registerMappingResource(server: McpServer, service: McpContext): void {
  server.registerResource(
    'mapping',
    new ResourceTemplate(MAPPING_URI, {
      list: async () => ({
        resources: (await service.store.mappings.allActive()).map((m) => ({
          uri: mappingUri(m.crm, m.objectType, m.version),
          name: `${m.crm} ${m.objectType} mapping, version ${m.version} (active)`,
          mimeType: mimeTypeOf(m.format),
        })),
      }),
    }),
    {
      title: 'A mapping version',
      description:
        'One saved version of the mapping of a CRM object: which partner field crm-enrich writes to which ' +
        'property, and by which rule (overwrite, fill when empty, keep what a person edited). The list ' +
        'shows the active versions; older ones stay readable by number.',
      scopeChallenge: requireScope(RESOURCE_SCOPE),
    },
    (uri, variables) =>
      readOrRefuse(uri, async () => {
        const raw = decodeURIComponent(String(variables.version));
        const version = /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
        if (!(version >= 1 && version <= MAX_VERSION))
          throw new ToolRefusal(`version: expected a whole number from 1 to ${MAX_VERSION}, got "${raw}"`);
        const crm = decodeURIComponent(String(variables.crm));
        const objectType = decodeURIComponent(String(variables.objectType));
        const saved = await service.store.mappings.get(crm, objectType, version);
        if (!saved) throw new ResourceNotFoundError(uri.href);
        return {
          contents: [{ uri: uri.href, mimeType: mimeTypeOf(saved.format), text: saved.document }],
          _meta: {
            author: saved.author,
            comment: saved.comment,
            createdAt: saved.createdAt.toISOString(),
            active: saved.active,
          },
        };
      }),
  );
}
