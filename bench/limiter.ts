/**
 * `npm run bench -- limiter [--seconds 4] [--backlog 1000] [--task-ms 40]`
 *
 * The project's limiter against bottleneck in the three ways bottleneck is usually set up for "50 per
 * second", measured the same way, in one process, with no network: a backlog of bulk tasks (each an
 * async wait of about `task-ms`), and interactive tasks submitted one by one while the backlog waits.
 *
 * - max_window: the most task starts in any sliding second (50 is the limit; more means a provider
 *   that counts a sliding second answers 429);
 * - utilisation: task starts per second over the run, divided by 50;
 * - interactive_p50_ms / interactive_max_ms: from submitting an interactive task to its start.
 *
 * One line per contender, then `BENCH limiter ...` with the project's figures and, per contender, its
 * max_window and interactive_max_ms.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import Bottleneck from 'bottleneck';
import { createRateLimiter } from '../src/limits/create-rate-limiter.js';

const LIMIT = 50;
const WINDOW_MS = 1_000;
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    backlog: { type: 'string', default: '1000' },
    'task-ms': { type: 'string', default: '40' },
  },
});
const seconds = Number(args.seconds);
const backlog = Number(args.backlog);
const taskMs = Number(args['task-ms']);

/** Runs `task` at the given priority; resolves when the task has run. */
type Submit = (interactive: boolean, task: () => Promise<void>) => Promise<void>;

interface Contender {
  name: string;
  make(): { submit: Submit; stop: () => Promise<void> };
}

const contenders: Contender[] = [
  {
    name: 'crm-enrich',
    make() {
      const limiter = createRateLimiter({ id: `bench:${randomUUID()}`, max: LIMIT, windowMs: WINDOW_MS });
      return {
        submit: (interactive, task) => limiter.schedule(interactive ? 'interactive' : 'bulk', task),
        stop: () => limiter.stop(),
      };
    },
  },
  bottleneckContender('bottleneck-minTime', { minTime: WINDOW_MS / LIMIT }),
  bottleneckContender('bottleneck-reservoir', {
    reservoir: LIMIT,
    reservoirRefreshAmount: LIMIT,
    reservoirRefreshInterval: WINDOW_MS,
  }),
  bottleneckContender('bottleneck-maxConcurrent+minTime', { maxConcurrent: 4, minTime: WINDOW_MS / LIMIT }),
];

function bottleneckContender(name: string, options: Bottleneck.ConstructorOptions): Contender {
  return {
    name,
    make() {
      const limiter = new Bottleneck(options);
      return {
        // bottleneck runs lower numbers first; 5 is its default.
        submit: (interactive, task) => limiter.schedule({ priority: interactive ? 0 : 9 }, task),
        stop: () => limiter.stop({ dropWaitingJobs: true }).catch(() => undefined),
      };
    },
  };
}

interface Result {
  maxWindow: number;
  utilisation: number;
  interactiveP50: number;
  interactiveMax: number;
}

async function measure(contender: Contender): Promise<Result> {
  const { submit, stop } = contender.make();
  const starts: number[] = [];
  const task = async () => {
    starts.push(performance.now());
    await sleep(taskMs * (0.75 + Math.random() / 2));
  };
  const began = performance.now();
  const bulk = Array.from({ length: backlog }, () => submit(false, task).catch(() => undefined));
  const waits: number[] = [];
  const interactive: Promise<void>[] = [];
  // One interactive task every 250 ms after the first half second, as records people create arrive.
  for (let at = 500; at < seconds * 1_000; at += 250) {
    await sleep(Math.max(0, began + at - performance.now()));
    const submitted = performance.now();
    interactive.push(
      submit(true, async () => {
        waits.push(performance.now() - submitted);
        await task();
      }),
    );
  }
  // Interactive tasks stuck behind the whole backlog count with the time they would have waited.
  await Promise.race([Promise.all(interactive), sleep(backlog * (WINDOW_MS / LIMIT) + 5_000)]);
  const elapsed = Math.min(performance.now(), began + seconds * 1_000) - began;
  const inRun = starts.filter((t) => t - began <= elapsed);
  await stop();
  await Promise.allSettled(bulk);
  waits.sort((a, b) => a - b);
  return {
    maxWindow: busiestWindow(starts),
    utilisation: inRun.length / (elapsed / 1_000) / LIMIT,
    interactiveP50: waits[Math.floor(waits.length / 2)] ?? Number.NaN,
    interactiveMax: waits.at(-1) ?? Number.NaN,
  };
}

/** The most starts within any `WINDOW_MS` interval (two-pointer scan over the sorted start times). */
function busiestWindow(starts: number[]): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let best = 0;
  for (let lo = 0, hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= WINDOW_MS) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

const results = new Map<string, Result>();
for (const contender of contenders) {
  const r = await measure(contender);
  results.set(contender.name, r);
  console.log(
    `${contender.name.padEnd(34)} max_window=${r.maxWindow} utilisation=${r.utilisation.toFixed(3)} ` +
      `interactive_p50_ms=${r.interactiveP50.toFixed(0)} interactive_max_ms=${r.interactiveMax.toFixed(0)}`,
  );
}
const ours = results.get('crm-enrich')!;
const others = [...results]
  .filter(([name]) => name !== 'crm-enrich')
  .map(([name, r]) => {
    const key = name.replace(/^bottleneck-/, '').replace(/\W+/g, '_');
    return `${key}_max_window=${r.maxWindow} ${key}_interactive_max_ms=${r.interactiveMax.toFixed(0)}`;
  });
console.log(
  `BENCH limiter max_window=${ours.maxWindow} utilisation=${ours.utilisation.toFixed(3)} ` +
    `interactive_max_ms=${ours.interactiveMax.toFixed(0)} ${others.join(' ')}`,
);
