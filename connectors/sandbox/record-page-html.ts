/**
 * The record page a CRM sandbox serves where the real CRM's web app shows a record (HubSpot's
 * `/contacts/<portal>/record/0-1/<id>`, Salesforce's `/lightning/r/<Object>/<id>/view`), so a link the
 * admin page gives for a sandbox record opens something true instead of the real app or a 404.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A whole HTML page: the record's title and every field that has a value, in name order. */
export function recordPageHtml(crm: string, title: string, fields: Record<string, unknown>): string {
  const rows = Object.entries(fields)
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `<tr><th scope="row">${escape(name)}</th><td>${escape(String(value))}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} - ${escape(crm)} sandbox</title>
<style>body{font:15px/1.4 system-ui,sans-serif;margin:1rem;max-width:60rem}
th{text-align:left;padding-right:1rem;font-weight:600}td{overflow-wrap:anywhere}</style></head>
<body><p>${escape(crm)} sandbox: a stand-in for the record page of the real ${escape(crm)}.</p>
<h1>${escape(title)}</h1>
<table><caption>Fields with a value</caption>
${rows}
</table></body></html>
`;
}

/** The same page's answer when the record does not exist. */
export function missingRecordHtml(crm: string, what: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found - ${escape(crm)} sandbox</title></head>
<body><h1>Not found</h1><p>The ${escape(crm)} sandbox has no ${escape(what)}.</p></body></html>
`;
}
