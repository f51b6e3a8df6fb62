/**
 * JSON Schemas of the four project components crm-enrich's HubSpot app uses, keyed by the component
 * types @hubspot/project-parsing-lib validates against. HubSpot serves its own copies only to an
 * authenticated account (GET project-components-external/project-schemas/v3/<platformVersion>), which a
 * test cannot reach; these are written from HubSpot's reference pages for platform version 2025.2:
 *   developers.hubspot.com/docs/apps/developer-platform/build-apps/app-configuration
 *   .../add-features/configure-webhooks, .../add-features/custom-workflow-actions,
 *   .../add-features/ui-extensibility/app-cards/reference
 * They hold what those pages require, and refuse what they do not list, so a typo fails here rather
 * than at `hs project upload`.
 */
const httpsUrl = { type: 'string', pattern: '^https://[^\\s/]+(/\\S*)?$' };
const strings = { type: 'array', items: { type: 'string', minLength: 1 } };

const application = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'distribution', 'auth'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: '^\\S(.*\\S)?$' },
    description: { type: 'string', minLength: 1, maxLength: 8192 },
    distribution: { enum: ['private', 'marketplace'] },
    auth: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'requiredScopes'],
      properties: {
        type: { enum: ['static', 'oauth'] },
        redirectUrls: { type: 'array', items: { type: 'string' } },
        requiredScopes: { ...strings, minItems: 1 },
        optionalScopes: strings,
        conditionallyRequiredScopes: strings,
      },
    },
    permittedUrls: {
      type: 'object',
      additionalProperties: false,
      properties: {
        fetch: { type: 'array', items: httpsUrl },
        iframe: { type: 'array', items: httpsUrl },
        img: { type: 'array', items: httpsUrl },
      },
    },
    support: { type: 'object' },
  },
  // A marketplace app must use OAuth; static auth is for an app installed in one account.
  if: { properties: { distribution: { const: 'marketplace' } } },
  then: { properties: { auth: { properties: { type: { const: 'oauth' } } } } },
};

const subscription = {
  type: 'object',
  additionalProperties: false,
  required: ['subscriptionType', 'active'],
  properties: {
    subscriptionType: { type: 'string', pattern: '^[a-z_]+\\.[a-zA-Z_]+$' },
    objectType: { type: 'string' },
    propertyName: { type: 'string', minLength: 1 },
    active: { type: 'boolean' },
  },
};

const webhooks = {
  type: 'object',
  additionalProperties: false,
  required: ['settings', 'subscriptions'],
  properties: {
    settings: {
      type: 'object',
      additionalProperties: false,
      required: ['targetUrl', 'maxConcurrentRequests'],
      properties: { targetUrl: httpsUrl, maxConcurrentRequests: { type: 'integer', minimum: 1 } },
    },
    subscriptions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        crmObjects: { type: 'array', items: subscription },
        legacyCrmObjects: { type: 'array', items: subscription },
        hubEvents: { type: 'array', items: subscription },
      },
    },
  },
};

const fieldType = {
  type: 'object',
  required: ['name', 'type'],
  properties: {
    name: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
    type: {
      enum: ['string', 'number', 'bool', 'enumeration', 'date', 'datetime', 'phonenumber', 'object_coordinates'],
    },
    fieldType: { type: 'string' },
    options: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['value', 'label'],
        properties: { value: { type: 'string' }, label: { type: 'string' } },
      },
    },
  },
  if: { properties: { type: { const: 'enumeration' } } },
  then: { required: ['options'] },
};

const actionField = {
  type: 'object',
  required: ['typeDefinition'],
  properties: {
    typeDefinition: fieldType,
    supportedValueTypes: { type: 'array', items: { enum: ['STATIC_VALUE', 'OBJECT_PROPERTY', 'FIELD_DATA'] } },
    isRequired: { type: 'boolean' },
  },
};

const workflowAction = {
  type: 'object',
  additionalProperties: false,
  required: ['actionUrl', 'supportedClients', 'labels'],
  properties: {
    actionUrl: httpsUrl,
    isPublished: { type: 'boolean' },
    supportedClients: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['client'], properties: { client: { enum: ['WORKFLOWS'] } } },
    },
    objectTypes: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^([A-Z_]+|\\d+-\\d+)$' } },
    inputFields: { type: 'array', items: actionField },
    outputFields: { type: 'array', items: actionField },
    inputFieldDependencies: { type: 'array' },
    objectRequestOptions: { type: 'object' },
    executionRules: { type: 'array' },
    labels: {
      type: 'object',
      required: ['en'],
      additionalProperties: {
        type: 'object',
        required: ['actionName'],
        properties: {
          actionName: { type: 'string', minLength: 1 },
          actionDescription: { type: 'string' },
          appDisplayName: { type: 'string' },
          actionCardContent: { type: 'string' },
          inputFieldLabels: { type: 'object', additionalProperties: { type: 'string' } },
          inputFieldDescriptions: { type: 'object', additionalProperties: { type: 'string' } },
          outputFieldLabels: { type: 'object', additionalProperties: { type: 'string' } },
          inputFieldOptionLabels: { type: 'object' },
          executionRules: { type: 'object' },
        },
        additionalProperties: false,
      },
    },
  },
};

const card = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'location', 'entrypoint', 'objectTypes'],
  properties: {
    name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    previewImage: {
      type: 'object',
      required: ['file'],
      properties: { file: { type: 'string' }, altText: { type: 'string' } },
    },
    location: { enum: ['crm.record.tab', 'crm.record.sidebar', 'crm.preview', 'helpdesk.sidebar'] },
    entrypoint: { type: 'string', pattern: '^/app/cards/[^/]+\\.(jsx|tsx)$' },
    objectTypes: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', pattern: '^([a-z_]+|p_[a-z_]+|\\d+-\\d+)$' },
    },
  },
};

export const HUBSPOT_PROJECT_SCHEMAS: Record<string, object> = {
  APPLICATION: application,
  WEBHOOKS: webhooks,
  WORKFLOW_ACTION: workflowAction,
  CARD: card,
};
