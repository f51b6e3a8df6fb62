/**
 * The two scopes an assistant can be given, what each allows (the consent page shows these words),
 * the scope each tool needs, and the scope of each request a client sends.
 */
export const SCOPES = {
  read:
    'look up companies and people, search people, list filter options, explain records, preview discovery, ' +
    'list job changes, read data-health reports, and read records, companies, mappings and the budget as ' +
    'resources (lookups spend partner credits)',
  write:
    'enrich CRM records and add the people discovery finds: write partner data into HubSpot or Salesforce ' +
    'through the mappings',
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export const TOOL_SCOPES = {
  lookup_company: 'read',
  lookup_person: 'read',
  search_people: 'read',
  filter_options: 'read',
  explain_record: 'read',
  preview_discovery: 'read',
  list_job_changes: 'read',
  data_health: 'read',
  enrich_record: 'write',
  run_discovery: 'write',
} as const satisfies Record<string, Scope>;

export type ToolName = keyof typeof TOOL_SCOPES;

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** The scope string a client needs for every tool it may call. */
export const SCOPE_FOR_ALL_TOOLS = [...new Set(Object.values(TOOL_SCOPES))].join(' ');

/** Reading resources and getting prompts: both only show what the read tools show. */
export const RESOURCE_SCOPE: Scope = 'read';
export const PROMPT_SCOPE: Scope = 'read';

/**
 * The scope a JSON-RPC message needs: its tool's for tools/call (none for a tool that does not exist:
 * that is answered as an unknown tool), read for resources/read and prompts/get, none for the rest
 * (listing, discovery, notifications), which shows nothing beyond the names of things.
 */
export function scopeOf(message: unknown): Scope | undefined {
  const m = message as { method?: unknown; params?: { name?: unknown } } | null;
  if (typeof m !== 'object' || m === null) return undefined;
  if (m.method === 'resources/read') return RESOURCE_SCOPE;
  if (m.method === 'prompts/get') return PROMPT_SCOPE;
  if (m.method !== 'tools/call' || typeof m.params?.name !== 'string') return undefined;
  return Object.hasOwn(TOOL_SCOPES, m.params.name) ? TOOL_SCOPES[m.params.name as ToolName] : undefined;
}
