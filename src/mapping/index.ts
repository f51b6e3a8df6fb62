/**
 * The field-mapping API the service uses: load and validate the mapping files, compile each into a
 * mapper, and plan the writes for one record.
 */
export { compileMapping, type CompiledMapping, type CrmValues, type MatchKey } from './compile.js';
export { customPropertiesOf, missingCustomProperties, missingDiscoveryProperties } from './custom-properties.js';
export { MappingDocument, DEFAULT_RULE, RULES, type Rule, type LookupKind } from './format.js';
export { loadMappingDir, loadMappings, readCrmSchemaDir, schemaKey, validateMappings, type CrmSchemas, type LoadedMapping, type LoadResult } from './loader.js';
export { toMarket } from './markets.js';
export { parseMappingDocument, type ParsedMapping } from './parse.js';
export { planValues } from './plan-values.js';
export { plan, sameValue, type Decision, type Outcome, type Plan, type PlanInput } from './planner.js';
export { formatProblem, formatProblems, MappingError, type MappingProblem, type ProblemCode } from './problems.js';
export { checkAgainstCrm } from './crm-check.js';
export { crmPropertiesFrom, readCrmSchemaFile } from './crm-schema-file.js';
