/**
 * The two scopes an assistant can be given, what each allows (the consent page shows these words),
 * and the scope each tool needs.
 */
export const SCOPES = {
  read:
    'look up companies and people, search people, list filter options, explain records, preview discovery ' +
    'and list job changes (lookups spend partner credits)',
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
  enrich_record: 'write',
  run_discovery: 'write',
} as const satisfies Record<string, Scope>;

export type ToolName = keyof typeof TOOL_SCOPES;

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** The scope string a client needs for every tool it may call. */
export const SCOPE_FOR_ALL_TOOLS = [...new Set(Object.values(TOOL_SCOPES))].join(' ');
