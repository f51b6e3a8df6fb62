/**
 * Contact-company associations of the sandbox portal, as HubSpot keeps them: each pair carries one or
 * more association types (the unlabelled one, the primary one, user-defined labels), seen from either
 * side under that side's type id. A contact has at most one primary company: a new primary replaces
 * the old one, which keeps its other types. `associatedcompanyid` follows the primary company.
 */

/** HubSpot-defined contact-company association types (from the contact's side, and the company's). */
export const ASSOCIATION_TYPES = {
  contactToCompany: { unlabeled: 279, primary: 1 },
  companyToContact: { unlabeled: 280, primary: 2 },
} as const;

/** A user-defined label: its contact-to-company type id and, for the company's side, the paired id. */
export interface AssociationLabel {
  label: string;
  /** The internal name the labels API takes (unique per object pair). */
  name: string;
  contactToCompany: number;
  companyToContact: number;
}

export interface AssociationType {
  category: 'HUBSPOT_DEFINED' | 'USER_DEFINED';
  typeId: number;
  label: string | null;
}

export class SandboxAssociations {
  /** contact id -> company id -> contact-to-company type ids */
  private readonly byContact = new Map<string, Map<string, Set<number>>>();
  /** company id -> contact ids (the reverse index) */
  private readonly byCompany = new Map<string, Set<string>>();
  private readonly labels: AssociationLabel[] = [];

  constructor(private readonly onPrimaryChange: (contactId: string, companyId: string | undefined) => void) {}

  /** Defines a user label (as an admin does in the portal's settings, or the labels API) and returns its type ids. */
  defineLabel(label: string, name = label.toLowerCase().replace(/[^a-z0-9]+/g, '_')): AssociationLabel {
    const existing = this.labels.find((l) => l.name === name);
    if (existing) return existing;
    const contactToCompany = 1_000 + this.labels.length * 2;
    const created = { label, name, contactToCompany, companyToContact: contactToCompany + 1 };
    this.labels.push(created);
    return created;
  }

  labelNamed(name: string): AssociationLabel | undefined {
    return this.labels.find((l) => l.name === name);
  }

  /** Every contact-company type from one side, as the labels API lists them: HubSpot's own, then the user labels. */
  definitions(fromContact: boolean): AssociationType[] {
    const defined = fromContact ? ASSOCIATION_TYPES.contactToCompany : ASSOCIATION_TYPES.companyToContact;
    return [
      defined.primary,
      defined.unlabeled,
      ...this.labels.map((l) => (fromContact ? l.contactToCompany : l.companyToContact)),
    ].map((t) => this.describe(fromContact, t));
  }

  /**
   * Removes some types from a pair (type ids from the contact's side), as HubSpot's label archive does:
   * the unlabelled type stays while any label does, and goes with the pair once it is the last one asked
   * to go. Removing the primary type leaves the contact without a primary company.
   */
  removeTypes(contactId: string, companyId: string, typeIds: number[]): void {
    const { unlabeled, primary } = ASSOCIATION_TYPES.contactToCompany;
    const types = this.byContact.get(contactId)?.get(companyId);
    if (!types) return;
    const wasPrimary = types.has(primary);
    for (const id of typeIds) if (id !== unlabeled) types.delete(id);
    if (typeIds.includes(unlabeled) && types.size === 1) {
      this.remove(contactId, companyId);
      return;
    }
    if (wasPrimary && !types.has(primary)) this.onPrimaryChange(contactId, undefined);
  }

  /** Whether `typeId` names a contact-company type from the given side. */
  knownType(fromContact: boolean, typeId: number): boolean {
    const defined = fromContact ? ASSOCIATION_TYPES.contactToCompany : ASSOCIATION_TYPES.companyToContact;
    return (
      typeId === defined.unlabeled ||
      typeId === defined.primary ||
      this.labels.some((l) => (fromContact ? l.contactToCompany : l.companyToContact) === typeId)
    );
  }

  /**
   * Adds types to a pair (type ids from the contact's side). The unlabelled type always comes with
   * any other, as in HubSpot. Adding the primary type moves the contact's primary here.
   */
  add(contactId: string, companyId: string, typeIds: number[]): void {
    const { unlabeled, primary } = ASSOCIATION_TYPES.contactToCompany;
    const companies = this.byContact.get(contactId) ?? new Map<string, Set<number>>();
    this.byContact.set(contactId, companies);
    const types = companies.get(companyId) ?? new Set<number>();
    companies.set(companyId, types);
    types.add(unlabeled);
    for (const id of typeIds) types.add(id);
    const contacts = this.byCompany.get(companyId) ?? new Set<string>();
    contacts.add(contactId);
    this.byCompany.set(companyId, contacts);
    if (!typeIds.includes(primary)) return;
    for (const [other, otherTypes] of companies) if (other !== companyId) otherTypes.delete(primary);
    this.onPrimaryChange(contactId, companyId);
  }

  /** Every pair with its types (contact side) and the labels defined, for keeping them across restarts. */
  snapshot(): { labels: AssociationLabel[]; pairs: { contactId: string; companyId: string; types: number[] }[] } {
    const pairs = [...this.byContact].flatMap(([contactId, companies]) =>
      [...companies].map(([companyId, types]) => ({ contactId, companyId, types: [...types] })),
    );
    return { labels: this.labels.map((l) => ({ ...l })), pairs };
  }

  /** Takes back what `snapshot` gave, as it was: the contacts' primary company is in their properties already. */
  restore(snapshot: ReturnType<SandboxAssociations['snapshot']>): void {
    this.labels.push(...snapshot.labels.filter((l) => !this.labels.some((o) => o.name === l.name)));
    for (const { contactId, companyId, types } of snapshot.pairs) {
      const companies = this.byContact.get(contactId) ?? new Map<string, Set<number>>();
      this.byContact.set(contactId, companies);
      companies.set(companyId, new Set(types));
      const contacts = this.byCompany.get(companyId) ?? new Set<string>();
      contacts.add(contactId);
      this.byCompany.set(companyId, contacts);
    }
  }

  /** Removes a pair entirely (all its types). */
  remove(contactId: string, companyId: string): void {
    const companies = this.byContact.get(contactId);
    const wasPrimary = companies?.get(companyId)?.has(ASSOCIATION_TYPES.contactToCompany.primary) ?? false;
    companies?.delete(companyId);
    this.byCompany.get(companyId)?.delete(contactId);
    if (wasPrimary) this.onPrimaryChange(contactId, undefined);
  }

  primaryCompanyOf(contactId: string): string | undefined {
    for (const [companyId, types] of this.byContact.get(contactId) ?? []) {
      if (types.has(ASSOCIATION_TYPES.contactToCompany.primary)) return companyId;
    }
    return undefined;
  }

  /** The objects on the other side of `id`, each with its types as seen from `id`'s side. */
  associated(from: 'contacts' | 'companies', id: string): Array<{ id: string; types: AssociationType[] }> {
    if (from === 'contacts') {
      return [...(this.byContact.get(id) ?? [])].map(([companyId, types]) => ({
        id: companyId,
        types: [...types].map((t) => this.describe(true, t)),
      }));
    }
    return [...(this.byCompany.get(id) ?? [])].map((contactId) => {
      const types = this.byContact.get(contactId)?.get(id) ?? new Set<number>();
      return { id: contactId, types: [...types].map((t) => this.describe(false, this.reverse(t))) };
    });
  }

  /** Converts a type id from the company's side to the contact's side. */
  toContactSide(companySideTypeId: number): number {
    const { contactToCompany: c, companyToContact: r } = ASSOCIATION_TYPES;
    if (companySideTypeId === r.unlabeled) return c.unlabeled;
    if (companySideTypeId === r.primary) return c.primary;
    return this.labels.find((l) => l.companyToContact === companySideTypeId)?.contactToCompany ?? companySideTypeId;
  }

  private reverse(contactSideTypeId: number): number {
    const { contactToCompany: c, companyToContact: r } = ASSOCIATION_TYPES;
    if (contactSideTypeId === c.unlabeled) return r.unlabeled;
    if (contactSideTypeId === c.primary) return r.primary;
    return this.labels.find((l) => l.contactToCompany === contactSideTypeId)?.companyToContact ?? contactSideTypeId;
  }

  private describe(fromContact: boolean, typeId: number): AssociationType {
    const defined = fromContact ? ASSOCIATION_TYPES.contactToCompany : ASSOCIATION_TYPES.companyToContact;
    if (typeId === defined.unlabeled) return { category: 'HUBSPOT_DEFINED', typeId, label: null };
    if (typeId === defined.primary) return { category: 'HUBSPOT_DEFINED', typeId, label: 'Primary' };
    const label = this.labels.find((l) => (fromContact ? l.contactToCompany : l.companyToContact) === typeId);
    return { category: 'USER_DEFINED', typeId, label: label?.label ?? null };
  }
}
