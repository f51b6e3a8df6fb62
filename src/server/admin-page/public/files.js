// Files: a CSV file enriched row for row (docs/enrich-file.md). The file is uploaded as it is, the cost
// preview shows before any credit is spent, progress while it runs, and the result downloads once done.
// A run the service stopped in goes on by itself at its next start; one that failed goes on when asked.
import { $, API, ApiError, TOKEN_KEY, api, count, crmName, definitions, h, run, table, when } from './core.js';

const POLL_MS = 500;
let watching = 0;

const auth = () => ({ authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ''}` });

async function upload(file, query) {
  const res = await fetch(new URL(`file-enrichments?${query}`, API), {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'text/csv' },
    body: file,
  });
  const payload = await res.json().catch(() => null);
  if (res.ok) return payload;
  const error = payload?.error ?? { code: `http_${res.status}`, message: `the service answered ${res.status}` };
  throw new ApiError(res.status, error.code, error.message, error.details);
}

/** Downloads the result through the API (it needs the token, so a plain link cannot). */
async function download(job) {
  const res = await fetch(new URL(`file-enrichments/${job.id}/result`, API), { headers: auth() });
  if (!res.ok) throw new ApiError(res.status, 'download_failed', `the result could not be downloaded (${res.status})`);
  const url = URL.createObjectURL(await res.blob());
  const link = h('a', { href: url, download: `${job.fileName.replace(/\.csv$/i, '')}-enriched.csv` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function jobView(job) {
  const p = job.preview;
  const s = job.progress;
  const parts = [
    definitions([
      ['File', job.fileName],
      ['Object', `${crmName(job.connection)} ${job.object}`],
      ['Status', job.status],
      ['Started', when(job.createdAt)],
    ]),
  ];
  if (p)
    parts.push(
      h('p', { class: 'preview' }, `Would spend at most ${count(p.credits)} credits`),
      h(
        'p',
        {},
        `${count(p.rows)} rows: ${count(p.invalid)} invalid, ${count(p.inCrm)} already in the CRM, ` +
          `${count(p.distinct)} distinct rows to look up`,
      ),
    );
  if (p?.problems.length)
    parts.push(
      table(
        'Invalid rows',
        ['Reason'],
        p.problems.map((x) => [x.reason]),
      ),
    );
  if (s)
    parts.push(
      h('progress', { max: String(p?.rows ?? s.rows), value: String(s.rows), 'aria-label': 'Rows written' }),
      h(
        'p',
        { class: 'progress-text' },
        `${count(s.rows)} rows written: ${count(s.enriched)} enriched, ${count(s.noMatch)} no match, ` +
          `${count(s.inCrm)} in the CRM, ${count(s.invalid)} invalid, ${count(s.skipped)} skipped`,
      ),
    );
  if (job.error) parts.push(h('p', { class: 'error', role: 'alert' }, `${job.error.code}: ${job.error.message}`));
  if (job.status === 'done') {
    const button = h('button', { type: 'button', id: 'files-download' }, 'Download result');
    button.addEventListener('click', () => run($('files-message'), () => download(job)));
    parts.push(button);
  }
  if (job.status === 'failed' && !job.dryRun) {
    const button = h('button', { type: 'button', id: 'files-resume' }, 'Go on from where it stopped');
    button.addEventListener('click', () =>
      run($('files-message'), async () => {
        await watch(await api('POST', `file-enrichments/${job.id}/resume`));
        await loadFiles();
      }),
    );
    parts.push(button);
  }
  return parts;
}

async function watch(job) {
  const mine = ++watching;
  for (;;) {
    $('files-job').replaceChildren(...jobView(job));
    if (!['previewing', 'running'].includes(job.status) || mine !== watching) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
    job = await api('GET', `file-enrichments/${job.id}`);
  }
}

export function loadFiles() {
  return run($('files-message'), async () => {
    const { jobs } = await api('GET', 'file-enrichments');
    $('files-list').replaceChildren(
      table(
        'Recent files',
        ['File', 'Object', 'Status', 'Started'],
        jobs.map((j) => [
          h('button', { type: 'button', onclick: () => run($('files-message'), () => watch(j)) }, j.fileName),
          `${crmName(j.connection)} ${j.object}`,
          j.status,
          when(j.createdAt),
        ]),
        'No file enriched yet.',
      ),
    );
  });
}

export function wireFiles() {
  $('files-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const file = $('files-file').files[0];
    run($('files-message'), async () => {
      if (!file) throw new ApiError(0, 'no_file', 'choose a CSV file first');
      const [connection, object] = $('files-object').value.split('/');
      const query = new URLSearchParams({
        connection,
        object,
        fileName: file.name,
        dryRun: String($('files-dry-run').checked),
        relookup: String($('files-relookup').checked),
      });
      for (const entry of $('files-map')
        .value.split('\n')
        .map((l) => l.trim())
        .filter(Boolean))
        query.append('map', entry);
      const job = await upload(file, query.toString());
      await watch(job);
      await loadFiles();
    });
  });
}
