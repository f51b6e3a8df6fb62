/**
 * The actions of a detected move, per connection, as the actions file switches them: handed to the
 * connection's connector (`applyJobChange`), which knows its CRM's calls, with the new employer's
 * company when an action follows the person there. A connection the file does
 * not name, or whose connector has no such actions, only records its moves.
 */
import type { CrmConnector } from '../../core/connector.js';
import type { JobChangeActionsDocument } from '../../mapping/job-change-actions.js';
import type { JobChangeActions } from './observer.js';

export function jobChangeActionsFor(
  connectors: readonly CrmConnector[],
  document: JobChangeActionsDocument | undefined,
) {
  return (connection: string): JobChangeActions | undefined => {
    const switches = document?.connections[connection];
    const connector = connectors.find((c) => c.connection === connection);
    const apply = connector?.applyJobChange?.bind(connector);
    if (!switches || !apply || !Object.values(switches).some(Boolean)) return undefined;
    return async (change, _record, context) => {
      // The new employer's company is found or created only for the actions that use it.
      const company = switches.employer || switches.newContact ? await context.newCompany() : undefined;
      return apply(
        change.objectType,
        {
          recordId: change.recordId,
          from: { name: change.from.name, domain: change.from.domain },
          to: { name: change.to.name, domain: change.to.domain },
          oldTitle: change.oldTitle,
          newTitle: change.newTitle,
          detectedAt: change.detectedAt,
          previousCompanyId: context.previousCompanyId,
          newCompanyId: company && 'companyId' in company ? company.companyId : null,
          ...(company && 'reason' in company ? { newCompanyReason: company.reason } : {}),
          newContact: switches.newContact ? context.newContact : null,
        },
        switches,
        { priority: 'bulk' },
      );
    };
  };
}
