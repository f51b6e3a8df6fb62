/**
 * The actions of a detected move, per connection, as the actions file switches them: handed to the
 * connection's connector (`applyJobChange`), which knows its CRM's calls, with the new employer's
 * company when an action follows the person there. A connection the file does
 * not name, or whose connector has no such actions, only records its moves.
 */
import type { CrmConnector } from '../../core/connector.js';
import type { JobChangeActionsDocument } from '../../mapping/job-change-actions.js';
import { AppError } from '../../core/errors.js';
import type { JobChangeActions, MoveContext } from './observer.js';

/**
 * The new employer's company, or why there is none. A failure to resolve it (a claim held past its wait,
 * the CRM unreachable) is that action's outcome, not the run's: the move is stored already, and a retried
 * run would see no move to act on.
 */
async function newCompanyOf(context: MoveContext): Promise<{ companyId: string } | { reason: string }> {
  try {
    return await context.newCompany();
  } catch (error) {
    return {
      reason: `the new employer's company could not be resolved (${error instanceof AppError ? error.code : 'error'})`,
    };
  }
}

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
      const moved = change.kind === 'employer';
      const company = !moved
        ? { reason: 'a new role at the same employer' }
        : switches.employer || switches.newContact
          ? await newCompanyOf(context)
          : undefined;
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
          newContact: switches.newContact && moved ? context.newContact : null,
        },
        switches,
        { priority: 'bulk' },
      );
    };
  };
}
