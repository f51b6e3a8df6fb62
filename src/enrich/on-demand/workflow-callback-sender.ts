/**
 * Completes the workflow steps that answered BLOCK (HubSpot's): every few seconds it leases the steps
 * due, looks whether their run has settled (in the store, as the action itself does), and sends the
 * output fields the CRM's entry points name (`blockedStepOutputs`) through the connector's callback.
 * A send that fails is tried again later with a growing delay; the row stays until it is sent, so a
 * restart or an outage loses nothing. HubSpot itself gives up on a blocked step after a week by default,
 * and so does this.
 */
import type { CrmConnector } from '../../core/connector.js';
import type { EntryPointRegistry } from '../../core/entry-point.js';
import { scrubValues } from '../../core/scrub.js';
import { outcomeOf, type OnDemandDeps } from './on-demand.js';
import { logger } from '../../logger.js';
import type { PendingCallback, WorkflowCallbacks } from '../../store/workflow-callbacks.js';

const log = logger('service.workflow-callbacks');

export interface CallbackSenderOptions {
  callbacks: WorkflowCallbacks;
  deps: OnDemandDeps;
  connectors: readonly CrmConnector[];
  /** Where the output fields of a connection's blocked steps come from. */
  entryPoints: EntryPointRegistry;
  /** Between passes (default 2 s). */
  intervalMs?: number;
  /** Longest wait before a failed send is tried again (default 10 minutes). */
  maxRetryDelayMs?: number;
}

/** Steps looked at per pass; a pass every 2 s keeps up with about 100 steps settling a second. */
const BATCH = 200;
const GIVE_UP_AFTER_MS = 7 * 86_400_000;

export class WorkflowCallbackSender {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: CallbackSenderOptions) {}

  start(): void {
    const interval = this.options.intervalMs ?? 2_000;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.pass()
        .then(() => undefined)
        .catch((error: unknown) =>
          log.warn({ err: error }, 'could not look at the blocked workflow steps; trying again shortly'),
        )
        .finally(() => (this.running = undefined));
    }, interval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass over the steps due; returns how many callbacks were sent. */
  async pass(): Promise<number> {
    const interval = this.options.intervalMs ?? 2_000;
    const due = await this.options.callbacks.lease(BATCH, 60_000);
    let sent = 0;
    for (const step of due) {
      if (this.stopped) {
        await this.options.callbacks.later(step.callbackId, 0);
        continue;
      }
      if (await this.sendOne(step, interval)) sent++;
    }
    return sent;
  }

  private async sendOne(step: PendingCallback, interval: number): Promise<boolean> {
    const { callbacks } = this.options;
    if (Date.now() - step.createdAt.getTime() > GIVE_UP_AFTER_MS) {
      await callbacks.finish(step.callbackId, 'given up: HubSpot no longer waits for a step blocked this long');
      return false;
    }
    const connector = this.options.connectors.find((c) => c.connection === step.connection);
    let outputs = step.outputs;
    if (!outputs) {
      const outcome = await outcomeOf(this.options.deps, step);
      if (!outcome) {
        await callbacks.later(step.callbackId, interval);
        return false;
      }
      const outputsOf = connector && this.options.entryPoints.find((e) => e.crm === connector.crm)?.blockedStepOutputs;
      outputs = outputsOf?.(outcome) ?? null;
      if (outputs) await callbacks.setOutputs(step.callbackId, outputs);
    }
    try {
      if (!outputs || !connector?.completeWorkflowAction)
        throw new Error(`connection ${step.connection} cannot complete workflow steps`);
      await connector.completeWorkflowAction(step.callbackId, outputs);
    } catch (error) {
      const delay = Math.min(this.options.maxRetryDelayMs ?? 600_000, 5_000 * 2 ** Math.min(step.attempts, 10));
      const message = scrubValues(error instanceof Error ? error.message : String(error));
      log.warn(
        { connection: step.connection, attempts: step.attempts + 1, retryInMs: delay, reason: message },
        'a workflow callback could not be sent; it is tried again',
      );
      await callbacks.later(step.callbackId, delay, message.slice(0, 500));
      return false;
    }
    await callbacks.finish(step.callbackId);
    return true;
  }
}
