/**
 * The mapping-file format. This schema is the documentation: every key carries a description and an
 * example, and `mappings/schema.json` (for editor completion) is generated from it.
 */
import { z } from 'zod';
import { MARKETS } from '../partner/schemas.js';

export const RULES = ['overwrite', 'fill_empty', 'never', 'protect_edits'] as const;
export type Rule = (typeof RULES)[number];
export const DEFAULT_RULE: Rule = 'protect_edits';

export const PERSON_LOOKUPS = ['work_email', 'personal_email', 'ln_url', 'ln_slug', 'id'] as const;
export const COMPANY_LOOKUPS = ['website', 'fqdn', 'ln_url', 'ln_slug', 'abn', 'id'] as const;
export type PersonLookup = (typeof PERSON_LOOKUPS)[number];
export type CompanyLookup = (typeof COMPANY_LOOKUPS)[number];
export type LookupKind = PersonLookup | CompanyLookup;

export const PROPERTY_TYPES = [
  'string',
  'text',
  'number',
  'date',
  'datetime',
  'enumeration',
  'bool',
  'phone',
  'email',
  'url',
] as const;

const propertyName = z
  .string()
  .min(1, { message: 'name a CRM property; it is empty', abort: true })
  .max(100)
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'expected a CRM property name: a letter, then letters, digits or underscores');

const sourcePath = z
  .string()
  .min(1, 'name a partner field; it is empty')
  .meta({
    description:
      'Where the value comes from in the partner record: keys joined by dots. Lists are walked, so ' +
      '`emails.work.value` is every work address.',
    examples: ['position', 'current_company.name', 'nextGen.web_traffic.summary.total_web_visitors'],
  });

/** What each rule means, in one place: the schema's description and the admin page's rule picker both read it. */
export const RULE_DESCRIPTIONS: Readonly<Record<Rule, string>> = {
  overwrite: 'always',
  fill_empty: 'only into an empty property',
  never: 'do not write',
  protect_edits: 'write unless a person changed the value since our last write',
};

const ruleSchema = z.enum(RULES).meta({
  description:
    'When to write. ' +
    `${RULES.map((r) => `${r}${r === DEFAULT_RULE ? ' (default)' : ''}: ${RULE_DESCRIPTIONS[r]}`).join('; ')}.`,
  examples: ['protect_edits'],
});

const transformStep = z.union([
  z
    .string()
    .min(1)
    .meta({ description: 'A transform without arguments, by name.', examples: ['first'] }),
  z
    .strictObject({
      name: z
        .string()
        .min(1)
        .meta({ description: 'Name of a registered transform.', examples: ['join'] }),
      args: z
        .record(z.string(), z.unknown())
        .optional()
        .meta({ description: 'Arguments; each transform documents its own.', examples: [{ separator: ', ' }] }),
    })
    .meta({ description: 'A transform with arguments.', examples: [{ name: 'join', args: { separator: ', ' } }] }),
]);
export type TransformStep = z.infer<typeof transformStep>;

const customProperty = z
  .strictObject({
    label: z
      .string()
      .min(1)
      .max(100)
      .meta({ description: 'Label shown in the CRM.', examples: ['Web visitors'] }),
    type: z.enum(PROPERTY_TYPES).meta({ description: 'Value type of the property to create.', examples: ['number'] }),
    options: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .meta({ description: 'Picklist options (enumeration only).', examples: [['Manager', 'Other']] }),
    max_length: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({ description: 'Longest text allowed.', examples: [255] }),
    description: z
      .string()
      .optional()
      .meta({ description: 'Help text shown in the CRM.', examples: ['Monthly visitors to the website.'] }),
  })
  .meta({
    description:
      'Declares a property the CRM does not ship with, so it can be provisioned: HubSpot names start with ' +
      '`crm_enrich_` ' +
      '(created in the `crm_enrich` group), Salesforce names are `CE_<Name>__c` (an admin creates them).',
    examples: [{ label: 'Web visitors', type: 'number' }],
  });
export type CustomProperty = z.infer<typeof customProperty>;

const fieldSchema = z
  .strictObject({
    target: propertyName.meta({ description: 'CRM property to fill.', examples: ['jobtitle', 'Title'] }),
    from: sourcePath,
    transform: z
      .union([transformStep, z.array(transformStep).min(1)])
      .optional()
      .meta({
        description: 'A named transform, or several applied in order.',
        examples: ['first', ['first', 'domain_from_url']],
      }),
    values: z
      .record(z.string(), z.string())
      .optional()
      .meta({
        description:
          'Value map, applied after the transforms: partner value to CRM value. Values not in the map are dropped.',
        examples: [{ Manager: 'manager', 'Owner / Founder': 'owner' }],
      }),
    default: z
      .string()
      .optional()
      .meta({ description: 'Value used when the partner has none.', examples: ['Unknown'] }),
    rule: ruleSchema.optional(),
    allow_dnd: z
      .boolean()
      .optional()
      .meta({
        description: 'Let phone numbers marked do-not-disturb land in this property. Off unless set.',
        examples: [false],
      }),
    custom: customProperty.optional(),
  })
  .meta({
    description: 'One CRM property filled from the partner record.',
    examples: [{ target: 'jobtitle', from: 'position' }],
  });
export type FieldMapping = z.infer<typeof fieldSchema>;

const staticSchema = z
  .strictObject({
    target: propertyName.meta({ description: 'CRM property to set.', examples: ['lead_source'] }),
    value: z.string().meta({ description: 'The value written.', examples: ['crm-enrich'] }),
    rule: ruleSchema.optional(),
    custom: customProperty.optional(),
  })
  .meta({
    description: 'A fixed value written with every enrichment.',
    examples: [{ target: 'LeadSource', value: 'Partner', rule: 'fill_empty' }],
  });
export type StaticMapping = z.infer<typeof staticSchema>;

const matchSchema = z
  .strictObject({
    property: propertyName.meta({ description: 'CRM property that holds the identifier.', examples: ['email'] }),
    by: z.enum([...new Set([...PERSON_LOOKUPS, ...COMPANY_LOOKUPS])]).meta({
      description:
        'Partner lookup kind. People: work_email, personal_email, ln_url, ln_slug, id. Companies: website, ' +
        'fqdn, ln_url, ln_slug, abn, id.',
      examples: ['work_email'],
    }),
  })
  .meta({
    description: 'One way to find the record at the partner.',
    examples: [{ property: 'email', by: 'work_email' }],
  });
export type MatchRule = z.infer<typeof matchSchema>;

const marketSchema = z
  .strictObject({
    property: propertyName
      .optional()
      .meta({ description: 'CRM property with a country name or code.', examples: ['country'] }),
    default: z
      .enum(MARKETS)
      .meta({ description: 'Market used when the property is empty or not one of the markets.', examples: ['AU'] }),
  })
  .meta({
    description: 'Which partner market to ask; the country is normalised to one of the 13 markets.',
    examples: [{ property: 'country', default: 'AU' }],
  });

const companySchema = z
  .strictObject({
    from: sourcePath.meta({
      description: "Path in the partner person record that identifies the person's company.",
      examples: ['current_company.website'],
    }),
    by: z.enum(COMPANY_LOOKUPS).meta({ description: 'Company lookup kind that value is.', examples: ['fqdn'] }),
  })
  .meta({
    description:
      "Person mappings only: how to find the person's company, so each company is enriched once however many " +
      'people work there.',
    examples: [{ from: 'current_company.website', by: 'fqdn' }],
  });

const enrichedAtSchema = z
  .strictObject({
    target: propertyName.meta({
      description: 'Property stamped with the time of each write.',
      examples: ['crm_enrich_enriched_at'],
    }),
    custom: customProperty.optional(),
  })
  .meta({
    description: 'Stamped whenever other properties are written; the stamp alone never causes a write.',
    examples: [{ target: 'crm_enrich_enriched_at', custom: { label: 'Enriched at', type: 'datetime' } }],
  });

const discoverySchema = z
  .strictObject({
    source: z
      .strictObject({
        target: propertyName.meta({
          description: 'Property that says where the record came from.',
          examples: ['crm_enrich_source'],
        }),
        value: z
          .string()
          .min(1)
          .meta({ description: 'The value written.', examples: ['discovery'] }),
        custom: customProperty.optional(),
      })
      .optional()
      .meta({
        description: 'Person mappings: tags each record discovery creates.',
        examples: [{ target: 'crm_enrich_source', value: 'discovery' }],
      }),
    persona: z
      .strictObject({
        target: propertyName.meta({
          description: 'Property naming the persona to look for at this company.',
          examples: ['crm_enrich_discover'],
        }),
        custom: customProperty.optional(),
      })
      .optional()
      .meta({
        description:
          'Company mappings: companies where this property names a saved persona are visited by scheduled discovery.',
        examples: [{ target: 'crm_enrich_discover' }],
      }),
  })
  .meta({
    description: 'Finding people at target accounts (see docs/discovery.md).',
    examples: [{ source: { target: 'crm_enrich_source', value: 'discovery' } }],
  });
export type DiscoveryMapping = z.infer<typeof discoverySchema>;

export const MappingDocument = z
  .strictObject({
    $schema: z
      .string()
      .optional()
      .meta({ description: 'Path of schema.json, for editors.', examples: ['../schema.json'] }),
    crm: z.enum(['hubspot', 'salesforce']).meta({ description: 'Which CRM.', examples: ['hubspot'] }),
    object: z
      .string()
      .min(1)
      .meta({
        description: 'CRM object: contact or company (HubSpot); Contact, Lead or Account (Salesforce).',
        examples: ['contact'],
      }),
    source: z
      .enum(['person', 'company'])
      .meta({ description: 'Partner record the values come from.', examples: ['person'] }),
    description: z
      .string()
      .optional()
      .meta({ description: 'What this mapping is for.', examples: ['HubSpot contacts from partner people.'] }),
    match: z
      .array(matchSchema)
      .min(1)
      .meta({
        description: 'Lookup identifiers, tried in order.',
        examples: [[{ property: 'email', by: 'work_email' }]],
      }),
    market: marketSchema,
    company: companySchema.optional(),
    fields: z.array(fieldSchema).meta({
      description: 'Properties filled from the partner record.',
      examples: [[{ target: 'jobtitle', from: 'position' }]],
    }),
    static: z
      .array(staticSchema)
      .optional()
      .meta({ description: 'Fixed values.', examples: [[{ target: 'LeadSource', value: 'Partner' }]] }),
    enriched_at: enrichedAtSchema.optional(),
    discovery: discoverySchema.optional(),
  })
  .meta({
    title: 'crm-enrich mapping',
    description:
      'Which partner value lands in which CRM property, and when it may be written. One file per CRM object.',
    examples: [
      {
        crm: 'hubspot',
        object: 'contact',
        source: 'person',
        match: [{ property: 'email', by: 'work_email' }],
        market: { default: 'AU' },
        fields: [],
      },
    ],
  });
export type MappingDocument = z.infer<typeof MappingDocument>;

/** The JSON Schema written to mappings/schema.json. */
export function mappingJsonSchema(): string {
  return JSON.stringify(z.toJSONSchema(MappingDocument), null, 2) + '\n';
}
