/** The words of a job-change task, the same in every CRM. */
import type { JobChangeAct } from './connector.js';

/** "<name> moved from <old> to <new> as <title>", with what is unknown said as such rather than left empty. */
export function jobChangeSubject(name: string, change: JobChangeAct): string {
  const place = (side: JobChangeAct['from']) => side.name ?? side.domain ?? 'an unknown employer';
  const as = change.newTitle ? ` as ${change.newTitle}` : '';
  if (change.from.domain === change.to.domain && change.from.name === change.to.name)
    return `${name} has a new role at ${place(change.to)}${as}`;
  return `${name} moved from ${place(change.from)} to ${place(change.to)}${as}`;
}
