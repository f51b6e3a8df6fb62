// The admin page's shell: signs in with the admin token (kept in this tab's sessionStorage), switches
// between the views and wires each one. The views live in their own modules beside this one.
import { $, TOKEN_KEY, api, errorView, h, whenUnauthorized } from './core.js';
import { loadDeadLetters, wireDeadLetters } from './dead-letters.js';
import { loadDiscovery, wireDiscovery } from './discovery.js';
import { loadFiles, wireFiles } from './files.js';
import { loadHealth, wireHealth } from './health.js';
import { loadJobChanges, wireJobChanges } from './job-changes.js';
import { loadMappings, wireMappings } from './mappings.js';
import { wireRecords } from './records.js';
import { loadStats, wireStats } from './stats.js';

// Sign-in and navigation

const panels = ['mappings', 'records', 'dead-letters', 'discovery', 'job-changes', 'files', 'health', 'stats'];
const loaders = {
  mappings: () => loadMappings(),
  records: () => undefined,
  'dead-letters': () => loadDeadLetters(),
  discovery: () => loadDiscovery(),
  'job-changes': () => loadJobChanges(),
  files: () => loadFiles(),
  health: () => loadHealth(),
  stats: () => loadStats(),
};

function showTab(name) {
  for (const panel of panels) $(panel).hidden = panel !== name;
  for (const button of document.querySelectorAll('#tabs [data-tab]'))
    button.setAttribute('aria-pressed', String(button.dataset.tab === name));
  return loaders[name]();
}

function signOut(reason) {
  sessionStorage.removeItem(TOKEN_KEY);
  for (const panel of panels) $(panel).hidden = true;
  $('tabs').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-message').replaceChildren(
    ...(reason ? [h('p', {}, 'The admin token was refused.'), errorView(reason)] : []),
  );
  $('token').focus();
}

async function enter() {
  try {
    await api('GET', 'mappings');
  } catch (error) {
    if (error.status !== 401) $('sign-in-message').replaceChildren(errorView(error));
    return;
  }
  $('sign-in').hidden = true;
  $('sign-in-message').replaceChildren();
  $('tabs').hidden = false;
  await showTab('mappings');
}

whenUnauthorized(signOut);

// Wiring

$('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
  $('token').value = '';
  enter();
});
$('sign-out').addEventListener('click', () => signOut());
for (const button of document.querySelectorAll('#tabs [data-tab]'))
  button.addEventListener('click', () => showTab(button.dataset.tab));
wireMappings();
wireRecords();
wireDeadLetters();
wireDiscovery();
wireJobChanges();
wireFiles();
wireHealth();
wireStats();

if (sessionStorage.getItem(TOKEN_KEY)) enter();
else signOut();
