/**
 * The active mapping of every CRM object. Mapping files seed the store's versions; after that the
 * store's active version rules, so an admin's saved version or rollback survives a restart. A file
 * that changed since it was last seeded becomes a new version unless an admin's version is active.
 */
import { readFile } from 'node:fs/promises';
import type { CrmProperty } from '../core/connector.js';
import { AppError } from '../core/errors.js';
import {
  compileMapping,
  MappingError,
  missingCustomProperties,
  parseMappingDocument,
  schemaKey,
  type CompiledMapping,
  type LoadedMapping,
  type MappingDocument,
  type MappingProblem,
} from './index.js';
import { logger } from '../logger.js';
import type { MappingVersion, MappingVersions } from '../store/mapping-versions.js';

const log = logger('service.mappings');
const FILE_AUTHOR = 'file:';

export interface ActiveMapping {
  compiled: CompiledMapping;
  version: MappingVersion;
}

/** A rollback to a version the store does not have: the caller named it wrongly, the mappings are fine. */
export class UnknownMappingVersionError extends AppError {
  constructor(
    readonly crm: string,
    readonly objectType: string,
    readonly version: number,
  ) {
    super('not_found', `${crm}/${objectType} has no version ${version}`, 'permanent');
  }
}

export class MappingRegistry {
  private readonly active = new Map<string, ActiveMapping>();
  /** Mappings that may not run yet, with the reason (e.g. custom properties the CRM lacks). */
  readonly disabled = new Map<string, string>();

  constructor(
    private readonly versions: MappingVersions,
    /** CRM schemas by schemaKey; a mapping is checked against its CRM before it is used. */
    private readonly schemas: ReadonlyMap<string, readonly CrmProperty[]>,
  ) {}

  get(crm: string, objectType: string): CompiledMapping | undefined {
    return this.active.get(schemaKey(crm, objectType))?.compiled;
  }

  disable(crm: string, objectType: string, reason: string): void {
    const key = schemaKey(crm, objectType);
    this.active.delete(key);
    this.disabled.set(key, reason);
  }

  entry(crm: string, objectType: string): ActiveMapping | undefined {
    return this.active.get(schemaKey(crm, objectType));
  }

  list(): ActiveMapping[] {
    return [...this.active.values()];
  }

  /** Seeds versions from the files, then compiles every active version; throws with every problem found. */
  async load(files: LoadedMapping[]): Promise<void> {
    for (const file of files) {
      const { crm, object } = file.document;
      const text = await readFile(file.file, 'utf8');
      const current = await this.versions.active(crm, object);
      const fromFile = !current || current.author.startsWith(FILE_AUTHOR);
      if (!current || (fromFile && current.document !== text)) {
        await this.versions.save({
          crm,
          objectType: object,
          document: text,
          author: `${FILE_AUTHOR}${file.file}`,
          comment: current ? 'mapping file changed' : 'seeded from the mapping file',
        });
      } else if (current.document !== text) {
        // Who saved it is personal (the admin page offers an e-mail): the version number finds it in the history.
        const message = 'the mapping file changed, but a version saved by an admin stays active';
        log.warn({ crm, object, version: current.version }, message);
      }
    }
    await this.reload();
  }

  /** Compiles the store's active versions; picks up versions saved by another instance. */
  async reload(): Promise<void> {
    const problems: MappingProblem[] = [];
    const next = new Map<string, ActiveMapping>();
    for (const version of await this.versions.allActive()) {
      const key = schemaKey(version.crm, version.objectType);
      if (this.disabled.has(key)) continue;
      const known = this.active.get(key);
      if (known && known.version.id === version.id) {
        next.set(key, known);
        continue;
      }
      try {
        next.set(key, {
          compiled: this.compile(version.document, `${version.crm}/${version.objectType} v${version.version}`),
          version,
        });
      } catch (error) {
        if (error instanceof MappingError) problems.push(...error.problems);
        else throw error;
      }
    }
    if (problems.length) throw new MappingError(problems);
    for (const [key, value] of next) this.active.set(key, value);
  }

  /** Parses, validates and compiles a candidate document against its CRM schema. */
  compile(text: string, file: string): CompiledMapping {
    const parsed = parseMappingDocument(text, file);
    if (!parsed.document) throw new MappingError(parsed.problems);
    if (parsed.problems.length) throw new MappingError(parsed.problems);
    const doc: MappingDocument = parsed.document;
    return compileMapping(doc, this.schemas.get(schemaKey(doc.crm, doc.object)), file);
  }

  /** Validates, saves and activates a new version. */
  async save(text: string, author: string, comment: string): Promise<ActiveMapping> {
    const compiled = this.compile(text, 'candidate');
    const missing = missingCustomProperties(
      compiled.document,
      this.schemas.get(schemaKey(compiled.crm, compiled.object)) ?? [],
    );
    if (missing.length) {
      throw new MappingError(
        missing.map((p) => ({
          file: 'candidate',
          path: ['fields', p.name, 'custom'],
          code: 'unknown_property' as const,
          message: `${p.name} does not exist in the CRM yet; run \`crm-enrich mappings provision\` first`,
        })),
      );
    }
    const version = await this.versions.save({
      crm: compiled.crm,
      objectType: compiled.object,
      document: text,
      author,
      comment,
    });
    const entry = { compiled, version };
    this.active.set(schemaKey(compiled.crm, compiled.object), entry);
    return entry;
  }

  async rollback(crm: string, objectType: string, version: number): Promise<ActiveMapping> {
    const target = await this.versions.get(crm, objectType, version);
    if (!target) throw new UnknownMappingVersionError(crm, objectType, version);
    const compiled = this.compile(target.document, `${crm}/${objectType} v${version}`);
    const activated = await this.versions.activate(crm, objectType, version);
    const entry = { compiled, version: activated };
    this.active.set(schemaKey(crm, objectType), entry);
    return entry;
  }
}
