/**
 * The crm-enrich record card: what crm-enrich wrote on this contact or company, when, by which run and
 * why, and a button to enrich it now. Its data comes from the crm-enrich service through hubspot.fetch;
 * the answer's shape is CardData in the service's connectors/hubspot/entry-points/card-model.ts.
 */
import React, { useCallback, useEffect, useState } from 'react';
import {
  Alert,
  Button,
  DescriptionList,
  DescriptionListItem,
  Divider,
  Flex,
  LoadingSpinner,
  StatusTag,
  Text,
  hubspot,
  useExtensionContext,
} from '@hubspot/ui-extensions';

/** Replaced by `crm-enrich hubspot-app --public-url`; also the URL the app permits the card to fetch. */
export const SERVICE_URL = 'https://crm-enrich.invalid';

/** HubSpot names a record's type by object type id; the service's card routes by the connector's name. */
const OBJECT_TYPES = { '0-1': 'contact', '0-2': 'company' };

const STATES = {
  enriched: { label: 'Enriched', variant: 'success' },
  no_match: { label: 'No match at the partner', variant: 'warning' },
  pending: { label: 'Enrichment under way', variant: 'info' },
  failed: { label: 'Last run failed', variant: 'danger' },
  never: { label: 'Not enriched yet', variant: 'default' },
};

const TRIGGERS = {
  webhook: 'a change in HubSpot',
  cron: 'the scheduled refresh',
  workflow: 'a workflow',
  card: 'this card',
  flow: 'a Salesforce flow',
  admin: 'the admin page',
  backfill: 'a backfill',
  mcp: 'an assistant',
};

function cardUrl(context) {
  const objectType = OBJECT_TYPES[context.crm.objectTypeId];
  if (!objectType) return null;
  return `${SERVICE_URL}/hubspot/card/${objectType}/${encodeURIComponent(String(context.crm.objectId))}`;
}

function formatTime(iso) {
  return iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : 'never';
}

function lastRun(data) {
  if (!data.lastRunAt) return 'No run yet';
  const trigger = TRIGGERS[data.lastRunTrigger] ?? data.lastRunTrigger ?? 'unknown';
  const run = data.lastRunId ? ` (run ${data.lastRunId})` : '';
  return `Last run ${formatTime(data.lastRunAt)}, started by ${trigger}${run}`;
}

function role(title, company) {
  return `${title ?? 'unknown role'} at ${company ?? 'unknown company'}`;
}

async function readJson(response) {
  if (!response.ok) throw new Error(`crm-enrich answered ${response.status}`);
  return response.json();
}

export function EnrichmentCard() {
  const context = useExtensionContext();
  const url = cardUrl(context);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      setData(await readJson(await hubspot.fetch(url, { method: 'GET' })));
      setError(null);
    } catch (e) {
      setError(e.message);
    }
  }, [url]);

  useEffect(() => {
    if (url) load();
  }, [url, load]);

  const enrichNow = async () => {
    setBusy(true);
    try {
      await readJson(await hubspot.fetch(`${url}/enrich`, { method: 'POST', body: {} }));
      await load();
    } catch (e) {
      setError(e.message);
    } finally {
      setBusy(false);
    }
  };

  if (!url) return <Text>crm-enrich enriches contacts and companies only.</Text>;
  if (error && !data) return <Alert title="crm-enrich could not be reached" variant="danger">{error}</Alert>;
  if (!data) return <LoadingSpinner label="Loading crm-enrich data" />;

  const state = STATES[data.state] ?? { label: data.state, variant: 'default' };
  return (
    <Flex direction="column" gap="sm">
      <Flex direction="row" gap="sm" align="center">
        <StatusTag variant={state.variant}>{state.label}</StatusTag>
        <Text variant="microcopy">
          {lastRun(data)}
        </Text>
      </Flex>
      {data.message ? <Alert title="What went wrong" variant="warning">{data.message}</Alert> : null}
      {error ? <Alert title="crm-enrich could not be reached" variant="danger">{error}</Alert> : null}
      {data.fields.length > 0 ? (
        <DescriptionList direction="column">
          {data.fields.map((field) => (
            <DescriptionListItem key={field.property} label={field.label ?? field.property}>
              <Text>{field.value ?? '(cleared)'}</Text>
              <Text variant="microcopy">{field.reason}</Text>
            </DescriptionListItem>
          ))}
        </DescriptionList>
      ) : (
        <Text>No fields written by crm-enrich.</Text>
      )}
      {data.company ? (
        <>
          <Divider />
          <Text format={{ fontWeight: 'bold' }}>Company: {data.company.name ?? data.company.id}</Text>
          <Text variant="microcopy">{data.company.reason}</Text>
        </>
      ) : null}
      {data.jobChange ? (
        <>
          <Divider />
          <Text format={{ fontWeight: 'bold' }}>Job change noticed {formatTime(data.jobChange.detectedAt)}</Text>
          <Text>
            {`From ${role(data.jobChange.previousTitle, data.jobChange.previousCompany)} `
              + `to ${role(data.jobChange.newTitle, data.jobChange.newCompany)}`}
          </Text>
        </>
      ) : null}
      <Button variant="primary" onClick={enrichNow} disabled={busy || data.state === 'pending'}>
        Enrich now
      </Button>
    </Flex>
  );
}

hubspot.extend(() => <EnrichmentCard />);
