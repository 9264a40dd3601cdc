// Shared helpers for the real-Gateway suites: a ProgressDesk wired to a test Gateway, with
// every change recorded, and waits that fail with what was seen instead of hanging.
import { GatewayClient } from "@openclaw/gateway-client";
import type { ClientFactory } from "../../main/core/connection.ts";
import { ProgressDesk, type DeskOptions } from "../../main/core/desk.ts";
import type { BackoffPolicy } from "../../main/core/backoff.ts";
import { gatewayIdForUrl } from "../../main/core/discovery.ts";
import type { CardEntry, ConnectionState, DeskChange } from "../../common/model.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";

export type DeskHarness = {
  desk: ProgressDesk;
  vault: CredentialVault;
  gatewayId: string;
  changes: DeskChange[];
  /** Resolves with the first change from index `since` matching `pred`. */
  waitFor(pred: (c: DeskChange) => boolean, timeoutMs?: number, since?: number): Promise<DeskChange>;
  waitForCard(sessionKey: string, pred: (e: CardEntry) => boolean, timeoutMs?: number): Promise<CardEntry>;
  waitForState(state: ConnectionState["state"], timeoutMs?: number, since?: number): Promise<ConnectionState>;
  entry(sessionKey: string): CardEntry | null;
  stop(): void;
};

export const FAST_BACKOFF: BackoffPolicy = { initialMs: 200, maxMs: 2000, multiplier: 2, jitter: 0.1 };

export async function startDesk(
  gw: { url: string; token?: string },
  opts: Partial<Omit<DeskOptions, "gateways" | "vault">> & { vault?: CredentialVault; token?: string | null; password?: string } = {},
): Promise<DeskHarness> {
  const vault = opts.vault ?? (await CredentialVault.open(memoryStorage()));
  const token = opts.token === null ? undefined : (opts.token ?? gw.token);
  const desk = new ProgressDesk({
    clientVersion: "0.0.0-test",
    backoff: FAST_BACKOFF,
    ...opts,
    vault,
    gateways: [{ url: gw.url, ...(token ? { token } : {}), ...(opts.password ? { password: opts.password } : {}) }],
  });
  const gatewayId = gatewayIdForUrl(gw.url);
  const changes: DeskChange[] = [];
  const waiters = new Set<() => void>();
  desk.subscribe((c) => {
    changes.push(c);
    for (const w of [...waiters]) w();
  });
  const waitFor = (pred: (c: DeskChange) => boolean, timeoutMs = 20_000, since = 0): Promise<DeskChange> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        for (let i = since; i < changes.length; i += 1) {
          if (pred(changes[i]!)) {
            waiters.delete(onChange);
            clearTimeout(timer);
            resolve(changes[i]!);
            return true;
          }
        }
        return false;
      };
      const onChange = (): void => void check();
      const timer = setTimeout(() => {
        waiters.delete(onChange);
        const tail = changes.slice(-8).map((c) => JSON.stringify(c).slice(0, 240));
        reject(new Error(`no matching change within ${timeoutMs} ms; last changes:\n${tail.join("\n")}`));
      }, timeoutMs);
      if (!check()) waiters.add(onChange);
    });
  desk.start();
  return {
    desk,
    vault,
    gatewayId,
    changes,
    waitFor,
    async waitForCard(sessionKey, pred, timeoutMs) {
      const since = changes.length;
      const current = desk.snapshot().gateways[0]!.cards.find((c) => c.sessionKey === sessionKey) ?? desk.entry(gatewayId, sessionKey);
      if (current && pred(current)) return current;
      const c = await waitFor((ch) => ch.type === "card" && ch.entry.sessionKey === sessionKey && pred(ch.entry), timeoutMs, since);
      return (c as Extract<DeskChange, { type: "card" }>).entry;
    },
    async waitForState(state, timeoutMs, since = 0) {
      const c = await waitFor((ch) => ch.type === "connection" && ch.connection.state === state, timeoutMs, since);
      return (c as Extract<DeskChange, { type: "connection" }>).connection;
    },
    entry: (sessionKey) => desk.entry(gatewayId, sessionKey),
    stop: () => desk.stop(),
  };
}

/**
 * The real client, wrapped so a test sees which of its callbacks the connection has handled,
 * in order ("paused", "close"): a close listed after a pause has been fully handled.
 */
export function observedClients(): { createClient: ClientFactory; handled: string[] } {
  const handled: string[] = [];
  const createClient: ClientFactory = (opts) =>
    new GatewayClient({
      ...opts,
      onReconnectPaused: (info) => {
        opts.onReconnectPaused?.(info);
        handled.push("paused");
      },
      onClose: (code, reason) => {
        opts.onClose?.(code, reason);
        handled.push("close");
      },
    });
  return { createClient, handled };
}

/** True once the connection has handled a close that came after the client paused. */
export const closedAfterPause = (handled: readonly string[]): boolean =>
  handled.includes("paused") && handled.lastIndexOf("close") > handled.lastIndexOf("paused");

/**
 * Real timers that keep count of what is still due: given to a desk as `schedule`, they show
 * that no retry is pending (so none can come) without waiting to see whether one does.
 */
export function countedTimers(): { schedule: (fn: () => void, ms: number) => () => void; pending(): number } {
  const due = new Set<ReturnType<typeof setTimeout>>();
  return {
    schedule(fn, ms) {
      const timer = setTimeout(() => {
        due.delete(timer);
        fn();
      }, ms);
      due.add(timer);
      return () => {
        clearTimeout(timer);
        due.delete(timer);
      };
    },
    pending: () => due.size,
  };
}

export const plan = (...statuses: ("pending" | "in_progress" | "completed")[]) =>
  statuses.map((status, i) => ({ step: `Step ${i + 1}`, status }));
