// What the desk under test does, timed: when it first emits each card revision, and taps on its
// own Gateway client for the latency breakdown and the traffic counts.
import { performance } from "node:perf_hooks";
import { GatewayClient } from "@openclaw/gateway-client";
import type { ClientFactory } from "../../main/core/connection.ts";
import type { DeskChange } from "../../common/model.ts";
import { withTimeout } from "../gateway-process.ts";
import { STEP_TIMEOUT_MS } from "./params.ts";

/**
 * Times when the desk first emitted each (session, revision), plus taps on the desk's own
 * GatewayClient (created through the core's createClient hook: the real client, only
 * timestamped) for the breakdown of where the time goes.
 */
export class DeskWatch {
  private readonly seen = new Map<string, Map<number, number>>();
  private readonly waiters = new Map<string, () => void>();
  readonly eventAt = new Map<string, number>();
  readonly lastGet = new Map<string, { start: number; end: number }>();
  /** Everything the desk's connection received and asked, by event name / method. */
  readonly traffic = new Map<string, number>();
  tracked = new Set<string>();
  /** Called right after the desk sends a read of a tracked session. */
  onGetSent: ((sessionKey: string) => void) | null = null;

  private count(name: string): void {
    this.traffic.set(name, (this.traffic.get(name) ?? 0) + 1);
  }

  /** Traffic since `before` (a copy taken earlier), as "name n" pairs. */
  trafficSince(before: Map<string, number>): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [k, v] of this.traffic) if (v - (before.get(k) ?? 0) > 0) out[k] = v - (before.get(k) ?? 0);
    return out;
  }

  onChange = (change: DeskChange): void => {
    if (change.type !== "card" || !this.tracked.has(change.entry.sessionKey)) return;
    const rev = change.entry.card?.revision;
    if (rev === undefined) return;
    const key = change.entry.sessionKey;
    let map = this.seen.get(key);
    if (!map) this.seen.set(key, (map = new Map()));
    if (!map.has(rev)) map.set(rev, performance.now());
    this.waiters.get(`${key}#${rev}`)?.();
  };

  /** performance.now() when the desk first emitted `rev` for `key`. */
  async when(key: string, rev: number, timeoutMs = STEP_TIMEOUT_MS): Promise<number> {
    const id = `${key}#${rev}`;
    const got = this.seen.get(key)?.get(rev);
    if (got === undefined) {
      await withTimeout(new Promise<void>((resolve) => this.waiters.set(id, resolve)), timeoutMs, `desk card ${id}`).finally(() =>
        this.waiters.delete(id),
      );
    }
    const t = this.seen.get(key)!.get(rev)!;
    // Keep the maps small: nothing at or below this revision is asked for again.
    for (const r of this.seen.get(key)!.keys()) if (r <= rev) this.seen.get(key)!.delete(r);
    return t;
  }

  createClient: ClientFactory = (opts) => {
    const onEvent = opts.onEvent;
    const client = new GatewayClient({
      ...opts,
      onEvent: (evt) => {
        this.count(`event ${evt.event}`);
        if (evt.event === "progressCard.changed") {
          const payload = (evt.payload ?? {}) as { sessionKey?: string; revision?: number | null };
          if (payload.sessionKey && this.tracked.has(payload.sessionKey))
            this.eventAt.set(`${payload.sessionKey}#${payload.revision}`, performance.now());
        }
        onEvent?.(evt);
      },
    });
    return {
      start: () => client.start(),
      stop: () => client.stop(),
      request: async <T>(method: string, params?: unknown, ropts?: { timeoutMs?: number | null }): Promise<T> => {
        this.count(`request ${method}`);
        const key = method === "progressCard.get" ? (params as { sessionKey?: string })?.sessionKey : undefined;
        if (!key || !this.tracked.has(key)) return client.request<T>(method, params, ropts as never);
        const start = performance.now();
        try {
          const reply = client.request<T>(method, params, ropts as never);
          this.onGetSent?.(key);
          return await reply;
        } finally {
          this.lastGet.set(key, { start, end: performance.now() });
        }
      },
    };
  };
}
