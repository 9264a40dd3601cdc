// A "bare protocol" operator client for tests: plays the agent's user and other clients over the
// official GatewayClient, with a fresh in-memory device identity (silently paired on loopback).
import { randomUUID } from "node:crypto";
import { GatewayClient, type GatewayClientRequestOptions } from "@openclaw/gateway-client";
import type { EventFrame, HelloOk } from "@openclaw/gateway-protocol/frame-guards";
import { createDeviceIdentity, publicKeyRawBase64UrlFromPem, signDevicePayload, type DeviceIdentity } from "../../main/core/identity.ts";

export type { EventFrame, HelloOk };
export type PlanStep = { step: string; status: "pending" | "in_progress" | "completed" };
export type ProgressCard = {
  sessionKey: string;
  revision: number;
  updatedAt: number;
  markdown?: string;
  steps?: PlanStep[];
};
export type CardInput = { markdown?: string; plan?: PlanStep[]; expectedRevision?: number };
export type TurnResult = { runId: string; phase: "end" | "error"; event: EventFrame };

/** The Gateway itself marked the run failed (its session row) and no lifecycle end came: a failure inside the Gateway. */
export class RunFailedInGatewayError extends Error {
  override name = "RunFailedInGatewayError";
}

const TERMINAL_FAILURES = new Set(["failed", "killed", "timeout"]);
/** How often a waiting runTurn reads the session row, and how long a failed row must stand before it gives up. */
const ROW_POLL_MS = 5_000;
const ROW_FAILED_GRACE_MS = 10_000;

export type BareClient = {
  /** The latest hello-ok (a reconnect replaces it). */
  readonly hello: HelloOk;
  /** How many hello-oks so far (1 after connect; +1 per reconnect). */
  helloCount(): number;
  /** Resolves once `count` hello-oks have arrived, e.g. `waitForHello(c.helloCount() + 1)` across a restart. */
  waitForHello(count: number, timeoutMs?: number): Promise<HelloOk>;
  /** Socket closes seen (code, reason). */
  closes: { code: number; reason: string }[];
  /** The device token issued in hello-ok, if any. */
  deviceToken: string | undefined;
  deviceId: string;
  request<T = Record<string, unknown>>(method: string, params?: unknown, opts?: GatewayClientRequestOptions): Promise<T>;
  /** Every event received, in order. */
  events: EventFrame[];
  /** Resolves with the first event from index `since` (default 0: includes past events) matching `pred`; rejects when `signal` aborts. */
  waitForEvent(pred: (e: EventFrame) => boolean, timeoutMs?: number, since?: number, signal?: AbortSignal): Promise<EventFrame>;
  createSession(): Promise<string>;
  put(sessionKey: string, card: CardInput): Promise<{ card: ProgressCard | null }>;
  get(sessionKey: string): Promise<{ card: ProgressCard | null }>;
  runTurn(sessionKey: string, script: unknown[], opts?: { message?: string; timeoutMs?: number }): Promise<TurnResult>;
  close(): Promise<void>;
};

const HELLO_TIMEOUT_MS = 45_000;

/** Payload accessor for predicates: `p(e).sessionKey`. */
export function p(e: EventFrame): any {
  return (e.payload ?? {}) as any;
}

export async function connectBareClient(
  /** `logs` (a test Gateway's output) is quoted when a run fails. */
  gw: { url: string; token: string; logs?: () => string },
  opts: {
    platform?: string;
    clientName?: "openclaw-linux" | "openclaw-macos";
    caps?: string[];
    scopes?: string[];
    displayName?: string;
    /** Another client's device identity, to act as the same device (approval reviewers are devices). */
    identity?: DeviceIdentity;
  } = {},
): Promise<BareClient> {
  const identity = opts.identity ?? createDeviceIdentity();
  const tokens = new Map<string, { token: string; scopes: string[] }>();
  const events: EventFrame[] = [];
  const waiters = new Set<{ pred: (e: EventFrame) => boolean; resolve: (e: EventFrame) => void }>();
  let lastError: unknown = null;
  const hellos: HelloOk[] = [];
  const helloWaiters = new Set<() => void>();
  const closes: { code: number; reason: string }[] = [];

  const hello = Promise.withResolvers<HelloOk>();
  const client = new GatewayClient({
    url: gw.url,
    token: gw.token,
    clientName: opts.clientName ?? "openclaw-linux",
    clientDisplayName: opts.displayName ?? "Progress Desk test client",
    clientVersion: "0.1.0",
    platform: opts.platform ?? process.platform,
    mode: "ui",
    role: "operator",
    scopes: opts.scopes ?? ["operator.read", "operator.write"],
    ...(opts.caps ? { caps: opts.caps } : {}),
    minProtocol: 4,
    maxProtocol: 4,
    deviceIdentity: identity,
    hostDeps: {
      signDevicePayload,
      publicKeyRawBase64UrlFromPem,
      loadDeviceAuthToken: ({ deviceId, role }) => tokens.get(`${deviceId}|${role}`) ?? null,
      storeDeviceAuthToken: ({ deviceId, role, token, scopes }) => void tokens.set(`${deviceId}|${role}`, { token, scopes }),
      clearDeviceAuthToken: ({ deviceId, role }) => void tokens.delete(`${deviceId}|${role}`),
    },
    onHelloOk: (h) => {
      hellos.push(h);
      hello.resolve(h);
      for (const w of helloWaiters) w();
    },
    onClose: (code, reason) => void closes.push({ code, reason }),
    onConnectError: (error) => {
      lastError = error; // Startup errors are retried by the client; only the deadline fails.
    },
    onReconnectPaused: (info) => hello.reject(new Error(`connect paused: ${info.code} ${info.reason} (${info.detailCode ?? "no detail"})`)),
    onEvent: (event) => {
      events.push(event);
      for (const w of waiters) {
        if (w.pred(event)) {
          waiters.delete(w);
          w.resolve(event);
        }
      }
    },
  });
  client.start();

  let helloOk: HelloOk;
  const deadline = setTimeout(
    () => hello.reject(new Error(`no hello-ok within ${HELLO_TIMEOUT_MS / 1000} s (last error: ${String(lastError)})`)),
    HELLO_TIMEOUT_MS,
  );
  try {
    helloOk = await hello.promise;
  } catch (error) {
    await client.stopAndWait({ timeoutMs: 2000 }).catch(() => {});
    throw error;
  } finally {
    clearTimeout(deadline);
  }

  const request = <T = Record<string, unknown>>(method: string, params?: unknown, ropts?: GatewayClientRequestOptions) =>
    client.request<T>(method, params, ropts);

  function waitForEvent(pred: (e: EventFrame) => boolean, timeoutMs = 30_000, since = 0, signal?: AbortSignal): Promise<EventFrame> {
    for (let i = since; i < events.length; i++) {
      if (pred(events[i]!)) return Promise.resolve(events[i]!);
    }
    return new Promise((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        waiters.delete(waiter);
        signal?.removeEventListener("abort", abandon);
      };
      // An abandoned wait lets its timer go, so a test file that failed early does not stay alive until the timeout.
      const abandon = () => {
        stop();
        reject(new Error("the wait was abandoned", { cause: signal?.reason }));
      };
      const waiter = {
        pred,
        resolve: (e: EventFrame) => {
          stop();
          resolve(e);
        },
      };
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`no matching event within ${timeoutMs} ms (${pred.toString().slice(0, 200)})`));
      }, timeoutMs);
      waiters.add(waiter);
      if (signal?.aborted) abandon();
      else signal?.addEventListener("abort", abandon, { once: true });
    });
  }

  /** What is known about a run that did not end in time: its events, the socket, the session row. */
  async function describeRun(sessionKey: string, runId: string, since: number, hellosBefore: number, closesBefore: number) {
    const streams = new Map<string, number>();
    for (const e of events.slice(since)) {
      if (e.event !== "agent" || p(e).runId !== runId) continue;
      const name = `${p(e).stream}${p(e).data?.phase ? `:${p(e).data.phase}` : ""}`;
      streams.set(name, (streams.get(name) ?? 0) + 1);
    }
    let row: string;
    try {
      const list = await client.request<{ sessions?: any[] }>("sessions.list", {}, { timeoutMs: 5000 });
      const found = list.sessions?.find((s) => s?.key === sessionKey);
      row = found
        ? JSON.stringify({ status: found.status, hasActiveRun: found.hasActiveRun, activeRunIds: found.activeRunIds })
        : "not listed";
    } catch (error) {
      row = `sessions.list failed: ${String(error)}`;
    }
    const chatErrors = events
      .slice(since)
      .filter((e) => e.event === "chat" && p(e).runId === runId && p(e).state === "error")
      .map((e) => String(p(e).errorMessage ?? "no message"));
    const logTail = gw.logs?.().split("\n").slice(-25).join("\n");
    return [
      `run ${runId} events: ${JSON.stringify(Object.fromEntries(streams))}`,
      ...(chatErrors.length ? [`chat errors: ${JSON.stringify(chatErrors)}`] : []),
      `socket: ${closes.length - closesBefore} close(s), ${hellos.length - hellosBefore} reconnect(s) meanwhile ${JSON.stringify(closes.slice(closesBefore))}`,
      `session row: ${row}`,
      ...(logTail ? [`the Gateway's last output lines:\n${logTail}`] : []),
    ].join("\n");
  }

  /** Rejects once the session row has shown a failed run that ended after `sentAt` for ROW_FAILED_GRACE_MS. */
  function watchForFailedRow(sessionKey: string, sentAt: number, signal: AbortSignal): Promise<never> {
    return new Promise((_resolve, reject) => {
      let failedSince = 0;
      const poll = async () => {
        if (signal.aborted) return;
        try {
          const list = await client.request<{ sessions?: any[] }>("sessions.list", {}, { timeoutMs: ROW_POLL_MS });
          const row = list.sessions?.find((s) => s?.key === sessionKey);
          const failed =
            row &&
            TERMINAL_FAILURES.has(row.status) &&
            !row.hasActiveRun &&
            typeof row.endedAt === "number" &&
            row.endedAt >= sentAt - 1000;
          failedSince = failed ? failedSince || Date.now() : 0;
          if (failedSince && Date.now() - failedSince >= ROW_FAILED_GRACE_MS) {
            return reject(new RunFailedInGatewayError(`the Gateway marked the run ${row.status} and sent no lifecycle end`));
          }
        } catch {
          // A slow or dropped read is no verdict; the lifecycle wait's own timeout still stands.
        }
        if (!signal.aborted) setTimeout(poll, ROW_POLL_MS).unref();
      };
      setTimeout(poll, ROW_POLL_MS).unref();
    });
  }

  return {
    get hello() {
      return hellos.at(-1) ?? helloOk;
    },
    helloCount: () => hellos.length,
    waitForHello(count, timeoutMs = 60_000) {
      return new Promise<HelloOk>((resolve, reject) => {
        const check = () => {
          if (hellos.length < count) return;
          helloWaiters.delete(check);
          clearTimeout(timer);
          resolve(hellos[count - 1]!);
        };
        const timer = setTimeout(() => {
          helloWaiters.delete(check);
          reject(new Error(`hello-ok #${count} did not arrive within ${timeoutMs} ms (have ${hellos.length})`));
        }, timeoutMs);
        helloWaiters.add(check);
        check();
      });
    },
    closes,
    deviceToken: (helloOk as { auth?: { deviceToken?: string } }).auth?.deviceToken,
    deviceId: identity.deviceId,
    request,
    events,
    waitForEvent,
    async createSession() {
      const result = await request<{ key: string }>("sessions.create", {});
      return result.key;
    },
    put: (sessionKey, card) => request<{ card: ProgressCard | null }>("progressCard.put", { sessionKey, ...card }),
    get: (sessionKey) => request<{ card: ProgressCard | null }>("progressCard.get", { sessionKey }),
    async runTurn(sessionKey, script, topts = {}) {
      const idempotencyKey = randomUUID();
      const message = `${topts.message ?? "Run the scripted turn."}\nSCRIPT:${JSON.stringify(script)}`;
      const since = events.length;
      const sentAt = Date.now();
      const ack = await request<{ runId?: string }>("chat.send", { sessionKey, message, idempotencyKey });
      const runId = ack.runId ?? idempotencyKey;
      const hellosBefore = hellos.length;
      const closesBefore = closes.length;
      // A run can fail inside the Gateway without a lifecycle event (seen on a starved machine): its session row
      // says so. Reading the row stops the wait early, with the reason, instead of at the timeout.
      const rowWatch = new AbortController();
      const ended = waitForEvent(
        (e) =>
          e.event === "agent" &&
          p(e).runId === runId &&
          p(e).stream === "lifecycle" &&
          (p(e).data?.phase === "end" || p(e).data?.phase === "error"),
        topts.timeoutMs ?? 60_000,
        since,
        rowWatch.signal,
      );
      const failedRow = watchForFailedRow(sessionKey, sentAt, rowWatch.signal);
      let event: EventFrame;
      try {
        event = await Promise.race([ended, failedRow]);
      } catch (error) {
        ended.catch(() => {});
        // Say why: a lost end event (the socket dropped) and a run that never ended need different fixes.
        const report = `${(error as Error).message}\n${await describeRun(sessionKey, runId, since, hellosBefore, closesBefore)}`;
        if (error instanceof RunFailedInGatewayError) throw new RunFailedInGatewayError(report, { cause: error });
        throw new Error(report, { cause: error });
      } finally {
        rowWatch.abort();
      }
      return { runId, phase: p(event).data.phase, event };
    },
    close: () => client.stopAndWait({ timeoutMs: 5000 }),
  };
}
