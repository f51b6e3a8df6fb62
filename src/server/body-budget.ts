/**
 * The request body bytes the process holds at once, across all webhook and CRM entry point requests.
 * A body is admitted only when its size (declared, or the largest allowed when it declares none) still
 * fits; beyond that the sender is asked to come back later. Large bodies may fill only part of the budget, so many
 * slow large bodies cannot keep out the small deliveries the CRMs actually send.
 */
export interface BodyBudgetOptions {
  totalBytes: number;
  /** Bodies up to this size are small and may use the whole budget. */
  smallBytes: number;
  /** The share of `totalBytes` large bodies may hold together. */
  largeShare: number;
}

export interface Reservation {
  /** Gives the bytes back; calling it again does nothing. */
  release(): void;
}

export class BodyBudget {
  private held = 0;
  private heldByLarge = 0;

  constructor(private readonly options: BodyBudgetOptions) {}

  /** Reserves `bytes`, or returns undefined when they do not fit now. */
  reserve(bytes: number): Reservation | undefined {
    const large = bytes > this.options.smallBytes;
    if (this.held + bytes > this.options.totalBytes) return undefined;
    if (large && this.heldByLarge + bytes > this.options.totalBytes * this.options.largeShare) return undefined;
    this.held += bytes;
    if (large) this.heldByLarge += bytes;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.held -= bytes;
        if (large) this.heldByLarge -= bytes;
      },
    };
  }
}

/** Bodies up to this size are what the CRMs send (a webhook delivery of 100 events); they may use the whole budget. */
const SMALL_BODY_BYTES = 64 * 1024;

/** The one budget the webhooks and the CRM entry points share (WEBHOOK_BODY_BUDGET_MB; default 16 MiB). */
export function requestBodyBudget(totalBytes = 16 * 1024 * 1024): BodyBudget {
  return new BodyBudget({ totalBytes, smallBytes: SMALL_BODY_BYTES, largeShare: 0.75 });
}
