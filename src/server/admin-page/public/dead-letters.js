// Dead letters: jobs that failed every attempt, with their reason; replay one or all.
import { $, api, h, ok, run, when } from './core.js';

const reasonOf = (error) => {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error) return error.code ? `${error.code}: ${error.message}` : String(error.message);
  return JSON.stringify(error);
};

export function loadDeadLetters() {
  return run($('dead-letters-message'), async () => {
    const { deadLetters } = await api('GET', 'dead-letters');
    // Nothing to replay: offering the button would only promise work that does not exist.
    $('replay-all').disabled = deadLetters.length === 0;
    $('dead-letter-list').tBodies[0].replaceChildren(...(deadLetters.length
      ? deadLetters.map((d) => {
          const record = `${d.data.connection} ${d.data.objectType} ${d.data.recordId}`;
          return h('tr', {},
            h('th', { scope: 'row' }, record), h('td', {}, d.queue), h('td', {}, d.attempts), h('td', {}, when(d.deadAt)), h('td', {}, reasonOf(d.error)),
            h('td', {}, h('button', { type: 'button', 'aria-label': `Replay ${record}`, onclick: () => replay([d.id]) }, 'Replay')));
        })
      : [h('tr', {}, h('td', { colspan: 6 }, 'No dead letters: every job finished or is still being tried.'))]));
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
