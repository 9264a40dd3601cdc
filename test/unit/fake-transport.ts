// A FAKE transport for the card store and the actions. It is a fake on purpose: the real
// Gateway cannot produce out-of-order replies, slow reads or malformed cards on demand, and
// these unit tests need exactly that. Every request is recorded; a request is either
// answered by an `auto` handler or left pending until the test answers it.

import type { ConnectionState } from "../../common/model.ts";

export type Call = {
  method: string;
  params: Record<string, unknown>;
  settled: boolean;
  resolve(value: unknown): void;
  reject(err: unknown): void;
};

export type FakeTransport = {
  request<T>(method: string, params: unknown, opts?: { timeoutMs?: number | null }): Promise<T>;
  hasCapability(name: string): boolean;
  hasMethod(name: string): boolean;
  calls: Call[];
  /** Calls of `method` (all, or only those still unanswered). */
  of(method: string, opts?: { pending?: boolean }): Call[];
  /** Highest number of unanswered requests of one method for one session at once. */
  maxPendingPerSession(method: string): number;
  capabilities: Set<string>;
  methods: Set<string>;
  /** Answers requests of a method at once; return a value, throw, or return PENDING to leave it open. */
  auto: Map<string, (params: Record<string, unknown>) => unknown>;
};

export const PENDING = Symbol("pending");

export function fakeTransport(opts: { capabilities?: string[]; methods?: string[] } = {}): FakeTransport {
  const calls: Call[] = [];
  const maxPending = new Map<string, number>();
  const t: FakeTransport = {
    calls,
    capabilities: new Set(opts.capabilities ?? ["progress-card-agent-scope-v1"]),
    methods: new Set(
      opts.methods ?? ["progressCard.get", "progressCard.put", "progressCard.refresh", "sessions.subscribe", "sessions.list"],
    ),
    auto: new Map(),
    hasCapability: (name) => t.capabilities.has(name),
    hasMethod: (name) => t.methods.has(name),
    of: (method, o = {}) => calls.filter((c) => c.method === method && (!o.pending || !c.settled)),
    maxPendingPerSession: (method) => maxPending.get(method) ?? 0,
    request<T>(method: string, params: unknown): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const call: Call = {
          method,
          params: (params ?? {}) as Record<string, unknown>,
          settled: false,
          resolve: (v) => {
            if (call.settled) throw new Error(`fake: ${method} answered twice`);
            call.settled = true;
            resolve(v as T);
          },
          reject: (e) => {
            if (call.settled) throw new Error(`fake: ${method} answered twice`);
            call.settled = true;
            reject(e);
          },
        };
        calls.push(call);
        const key = `${call.params.sessionKey}\u0000${call.params.agentId ?? ""}`;
        const open = calls.filter(
          (c) => c.method === method && !c.settled && `${c.params.sessionKey}\u0000${c.params.agentId ?? ""}` === key,
        ).length;
        maxPending.set(method, Math.max(maxPending.get(method) ?? 0, open));
        const handler = t.auto.get(method);
        if (!handler) return;
        let value: unknown;
        try {
          value = handler(call.params);
        } catch (err) {
          call.reject(err);
          return;
        }
        if (value !== PENDING) call.resolve(value);
      });
    },
  };
  return t;
}

/** Lets pending promise callbacks and immediate tasks run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

/** A Gateway-shaped error, as the official client rejects with (gatewayCode, details). */
export function gatewayError(code: string, detailCode?: string, message = `${code}${detailCode ? ` ${detailCode}` : ""}`): Error {
  return Object.assign(new Error(message), {
    code,
    gatewayCode: code,
    ...(detailCode ? { details: { code: detailCode } } : {}),
  });
}

export type WireStep = { step: string; status: "pending" | "in_progress" | "completed" };

export function wireCard(
  sessionKey: string,
  revision: number,
  steps: WireStep[] | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    sessionKey,
    revision,
    updatedAt: 1_000_000 + revision,
    markdown: `note r${revision}`,
    ...(steps ? { steps } : {}),
    ...extra,
  };
}

export const UNFINISHED: WireStep[] = [
  { step: "Install", status: "completed" },
  { step: "Run tests", status: "in_progress" },
  { step: "Report", status: "pending" },
];
export const DONE: WireStep[] = [
  { step: "Install", status: "completed" },
  { step: "Run tests", status: "completed" },
];

/** The state a dropped connection reports, for tests that take the store offline. */
export const OFFLINE: ConnectionState = {
  state: "offline",
  reason: "connection lost",
  nextRetryAt: 0,
  retryInMs: 1000,
  attempt: 1,
  lastConnectedAt: null,
  restarting: false,
  advice: "",
};
