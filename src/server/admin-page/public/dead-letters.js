// Dead letters: jobs that failed every attempt, grouped by the error they met, with their reason;
// replay one, a group or all (after a confirmation); and the jobs that failed but are still being tried.
import { $, api, count, crmName, h, ok, queueName, run, table, when } from './core.js';

const reasonOf = (error) => {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error)
    return error.code ? `${error.code}: ${error.message}` : String(error.message);
  return JSON.stringify(error);
};

/** Failures of one cause read alike but for the record's ids and counts in them. */
const causeOf = (error) =>
  reasonOf(error)
    .replace(/\b[0-9a-f]{8}-[0-9a-f-]{27}\b/gi, '…')
    .replace(/\d{3,}/g, '#');

const recordName = (data) => `${crmName(data.connection)} ${data.objectType} ${data.recordId}`;

async function loadRetrying() {
  const { retrying } = await api('GET', 'jobs/retrying');
  $('retrying').replaceChildren(
    table(
      `Jobs still being tried (${count(retrying.length)}${retrying.length >= 100 ? '+' : ''})`,
      ['Record', 'Work', 'Failed attempts', 'Attempts left', 'Next attempt', 'Last error'],
      retrying.map((j) => [
        recordName(j.data),
        queueName(j.queue),
        count(j.failedAttempts),
        count(j.attemptsLeft),
        when(j.nextAttemptAt),
        reasonOf(j.error),
      ]),
      'No job is waiting to be tried again.',
    ),
  );
}

export function loadDeadLetters() {
  return run($('dead-letters-message'), async () => {
    const [{ deadLetters }] = await Promise.all([api('GET', 'dead-letters?limit=1000'), loadRetrying()]);
    // Nothing to replay: offering the button would only promise work that does not exist.
    $('replay-all').disabled = deadLetters.length === 0;
    const groups = new Map();
    for (const d of deadLetters) {
      const cause = causeOf(d.error);
      const group = groups.get(cause) ?? { example: reasonOf(d.error), ids: [], latest: d.deadAt };
      group.ids.push(d.id);
      groups.set(cause, group);
    }
    $('dead-letter-groups').replaceChildren(
      ...(deadLetters.length
        ? [
            table(
              'Dead letters by error',
              ['Error', 'Jobs', 'Latest', 'Replay'],
              [...groups.values()]
                .sort((a, b) => b.ids.length - a.ids.length)
                .map((g, i) => [
                  g.example,
                  count(g.ids.length),
                  when(g.latest),
                  h(
                    'button',
                    {
                      type: 'button',
                      'aria-label': `Replay the ${g.ids.length} job${g.ids.length === 1 ? '' : 's'} of error ${i + 1}`,
                      onclick: () => replay(g.ids),
                    },
                    `Replay ${count(g.ids.length)}`,
                  ),
                ]),
            ),
          ]
        : []),
    );
    $('dead-letter-list').tBodies[0].replaceChildren(
      ...(deadLetters.length
        ? deadLetters.map((d) => {
            const record = recordName(d.data);
            return h(
              'tr',
              {},
              h('th', { scope: 'row', 'data-label': 'Record' }, record),
              h('td', { 'data-label': 'Work' }, queueName(d.queue)),
              h('td', { 'data-label': 'Attempts' }, count(d.attempts)),
              h('td', { 'data-label': 'Dead since' }, when(d.deadAt)),
              // What became of the job (with the error's code), then what its last attempt met.
              h('td', { 'data-label': 'Reason' }, `${d.parkedReason}: ${d.error?.message ?? reasonOf(d.error)}`),
              h(
                'td',
                {},
                h(
                  'button',
                  { type: 'button', 'aria-label': `Replay ${record}`, onclick: () => replay([d.id]) },
                  'Replay',
                ),
              ),
            );
          })
        : [
            h(
              'tr',
              {},
              h('td', { colspan: 6, class: 'none' }, 'No dead letters: every job finished or is still being tried.'),
            ),
          ]),
    );
  });
}

function replay(ids) {
  const what = ids ? `${ids.length} dead letter${ids.length === 1 ? '' : 's'}` : 'every dead letter';
  // Replaying sends the jobs to the partner and the CRM again; a stray click should not do that.
  if (!window.confirm(`Replay ${what}? The jobs run again against the partner and the CRM.`)) return undefined;
  return run($('dead-letters-message'), async () => {
    const { replayed } = await api('POST', 'dead-letters/replay', ids ? { ids } : {});
    await loadDeadLetters();
    return ok(`Replayed ${replayed} job${replayed === 1 ? '' : 's'}; they run again shortly.`);
  });
}

export function wireDeadLetters() {
  $('dead-letters-reload').addEventListener('click', loadDeadLetters);
  $('replay-all').addEventListener('click', () => replay());
}
