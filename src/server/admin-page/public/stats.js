// Stats: queues, outcomes, match rate, credits, cache and CRM calls, refreshed every 30 seconds.
import { $, api, count, crmName, definitions, h, humanize, queueName, run, table, when } from './core.js';


const STATUS_NAMES = { enriched: 'Enriched', no_match: 'No match', pending: 'Waiting', failed: 'Failed', skipped: 'Skipped' };

export function loadStats() {
  return run($('stats-message'), async () => {
    const s = await api('GET', 'stats');
    const entries = (record) => Object.entries(record ?? {}).sort(([a], [b]) => a.localeCompare(b));
    const matched = s.records?.enriched ?? 0;
    const tried = matched + (s.records?.no_match ?? 0);
    // A refresh replaces the content; keep the reader where they were.
    const scroll = window.scrollY;
    $('stats-result').replaceChildren(
      h('p', { class: 'as-of' }, 'As of ', h('time', { datetime: new Date().toISOString() }, when(new Date())), '; refreshed every 30 seconds while this tab is open.'),
      definitions([
        ['Queue depth', count(s.queueDepth)],
        ['Dead letters', count(s.deadLetters)],
        ['Match rate', s.matchRate === null ? 'no record tried yet' : `${(s.matchRate * 100).toFixed(1)} % (${count(matched)} of ${count(tried)} records)`],
        ['Partner lookups today', count(s.today.partnerLookups)],
        ['Cache hits today', count(s.today.cacheHits)],
        ['Budget left today', `${count(s.today.budgetLeft)} of ${count(s.today.budget)}`],
        ['Hard cap', count(s.today.hardCap)],
        ['Bulk work', s.today.bulkPaused ? 'paused: the budget is spent' : 'running'],
      ]),
      table('Jobs by outcome since the service started', ['Outcome', 'Jobs'], entries(s.jobsByOutcome).map(([k, v]) => [humanize(k), count(v)])),
      table('Records by status', ['Status', 'Records'], entries(s.records).map(([k, v]) => [STATUS_NAMES[k] ?? humanize(k), count(v)])),
      table('Queues', ['Queue', 'Waiting', 'Active', 'Completed', 'Failed'], s.queues.map((q) => [queueName(q.queue), count(q.waiting), count(q.active), count(q.completed), count(q.failed)])),
      table('CRM calls', ['CRM', 'Calls', 'By operation'], entries(s.crmCalls).map(([connection, c]) => [
        crmName(connection), count(c.calls), entries(c.byOperation).map(([op, n]) => `${op}: ${count(n)}`).join(', '),
      ])),
    );
    window.scrollTo(window.scrollX, scroll);
  });
}

// Stats refresh themselves while their tab is shown; a hidden tab or a signed-out page asks nothing.
setInterval(() => {
  if (!$('stats').hidden && !document.hidden) loadStats();
}, 30_000);


export function wireStats() {
  $('stats-reload').addEventListener('click', loadStats);
}
