/**
 * The field-mapping API the service uses: load and validate the mapping files, compile each into a
 * mapper, and plan the writes for one record. Only what the rest of the service imports is listed;
 * the mapping's own files import each other directly.
 */
export { compileMapping, type CompiledMapping } from './compile.js';
export { customPropertiesOf, missingCustomProperties, missingDiscoveryProperties } from './custom-properties.js';
export { fieldAccessOf, type FieldAccess } from './field-access.js';
export { MappingDocument } from './format.js';
export { loadMappingDir, schemaKey, type LoadedMapping } from './loader.js';
export { parseMappingDocument } from './parse.js';
export { planValues } from './plan-values.js';
export { formatProblems, MappingError, type MappingProblem } from './problems.js';
