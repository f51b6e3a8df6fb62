/**
 * Start-up: each connection's account (HubSpot portal, Salesforce org) is read from the CRM and bound in
 * the store, so every row of state written or read from here on is that account's. An account other
 * than the one the state belonged to is said loudly: the earlier account's state stays as it was, and
 * the service goes on with the new account's own (at first empty) state.
 */
import type { CrmConnector } from '../core/connector.js';
import { logger } from '../logger.js';
import type { AccountBinding, ConnectionAccounts } from '../store/connection-accounts.js';

const log = logger('service');

export async function bindAccounts(
  accounts: ConnectionAccounts,
  connectors: CrmConnector[],
): Promise<AccountBinding[]> {
  const bindings: AccountBinding[] = [];
  for (const connector of connectors) {
    const account = await connector.readAccount();
    const binding = await accounts.bind(connector.connection, connector.crm, account);
    bindings.push(binding);
    const fields = { connection: connector.connection, crm: connector.crm, account };
    if (binding.previous !== undefined)
      log.warn(
        { ...fields, previousAccount: binding.previous },
        `the ${connector.crm} account behind connection ${connector.connection} changed from ${binding.previous} ` +
          `to ${account}: the state, history and company links of ${binding.previous} are kept apart and not ` +
          `used for ${account}'s records, and jobs queued for ${binding.previous} are parked; ` +
          `${account} starts from its own state`,
      );
    else if (binding.adopted > 0)
      log.info(
        { ...fields, rows: binding.adopted },
        `the state kept before accounts were recorded belongs to ${connector.crm} account ${account}`,
      );
    else log.info(fields, `connection ${connector.connection} is on ${connector.crm} account ${account}`);
  }
  return bindings;
}
