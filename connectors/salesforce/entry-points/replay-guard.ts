/**
 * The flow action's signatures accepted while their timestamps are fresh, so that a request copied off
 * the wire (a proxy log, a debugging tool) cannot be sent again within its window. Only signatures that
 * verified are kept, so their number is bounded by the real calls of five minutes. Held in the process:
 * with several replicas behind one address, a replay could reach another replica within the window
 * (docs/crm-entry-points.md says so).
 */
export class ReplayGuard {
  private readonly expiries = new Map<string, number>();

  /** True the first time `key` is offered before `expiresAtMs`; false for every later offer. */
  firstUse(key: string, expiresAtMs: number, nowMs = Date.now()): boolean {
    for (const [k, at] of this.expiries) if (at <= nowMs) this.expiries.delete(k);
    if (this.expiries.has(key)) return false;
    this.expiries.set(key, expiresAtMs);
    return true;
  }
}
