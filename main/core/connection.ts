// One Gateway connection: the official GatewayClient for the socket, handshake and
// device auth; this module owns the lifecycle around it (G2 states, G3 backoff with
// jitter, wake, stop-on-auth-failure). One GatewayClient per attempt: a stopped client is
// never resumed (docs/gateway.md §9, item 4), and owning the retry loop lets the state say
// exactly when the next attempt is. While a loopback Gateway refuses connections, a TCP
// probe (listener-probe.ts) brings the next attempt forward the moment it listens again.
// What an attempt asks for and what a hello grants are in handshake.ts.
import { GatewayClient, type GatewayClientOptions } from "@openclaw/gateway-client";
import { backoffDelay, DEFAULT_BACKOFF, hintedDelay, type BackoffPolicy } from "./backoff.ts";
import {
  checkHello,
  describeDisconnect,
  errorFacts,
  offlineAdvice,
  terminalState,
  wasRefused,
  type ErrorFacts,
} from "./connection-state.ts";
import { DeskError, ERROR_CODES } from "../../common/errors.ts";
import { connectedState, forgetDeviceToken, handshakeOptions, type HandshakeOptions, type Hello } from "./handshake.ts";
import type { ConnectionState } from "../../common/model.ts";
import { silentLogger, type Logger } from "./logger.ts";
import { ListenerProbe, loopbackTarget, type ProbeConnect, type ProbeTiming } from "./listener-probe.ts";
import { tcpProbe } from "./tcp-probe.ts";

export type EventFrame = { event: string; payload?: unknown; seq?: number };

/** The slice of GatewayClient this module uses; tests of faults inject a fake. */
export type ClientLike = {
  start(): void;
  stop(): void;
  request<T>(method: string, params?: unknown, opts?: { timeoutMs?: number | null }): Promise<T>;
};
export type ClientFactory = (opts: GatewayClientOptions) => ClientLike;

export type ConnectionOptions = HandshakeOptions & {
  backoff?: BackoffPolicy;
  random?: () => number;
  now?: () => number;
  /** Runs `fn` after `ms` and returns its cancel (default: setTimeout); tests pass a manual one. */
  schedule?: (fn: () => void, ms: number) => () => void;
  createClient?: ClientFactory;
  /** The connect the loopback probe uses (default: a TCP connect); only loopback URLs are probed. */
  probeConnect?: ProbeConnect;
  probeTiming?: ProbeTiming;
  /** Debug lines: states, the hello, connect errors (default: none). */
  logger?: Logger;
  /** Called for every state change, in order. */
  onState: (state: ConnectionState) => void;
  /** A usable connection: the caller (re)subscribes and re-reads. */
  onReady: (hello: Hello) => void;
  onEvent: (event: EventFrame) => void;
  /** Events were dropped (sequence gap): the caller re-reads as after a reconnect. */
  onGap: () => void;
};

export class GatewayConnection {
  private readonly opts: ConnectionOptions;
  private client: ClientLike | null = null;
  /** Cancels the pending retry. */
  private cancelRetry: (() => void) | null = null;
  private failures = 0;
  private lastError: ErrorFacts | null = null;
  private terminal = false;
  private restartHintMs: number | null = null;
  private lastConnectedAt: number | null = null;
  private deviceTokenRetried = false;
  /** One immediate reconnect after forgetting a stale device token, then normal backoff. */
  private reconnectAtOnce = false;
  private stopped = true;
  /** Watches a loopback Gateway's port while it refuses connections; null for other URLs. */
  private readonly probe: ListenerProbe | null;
  /**
   * The current attempt was brought forward by the probe. If it fails, the port listened
   * without a Gateway that would talk: plain backoff until the next scheduled attempt.
   */
  private attemptFromProbe = false;
  private _state: ConnectionState;
  private _hello: Hello | null = null;
  /** Every socket attempt made, for tests and diagnostics (no reconnect storms). */
  attempts = 0;

  private readonly log: Logger;

  constructor(opts: ConnectionOptions) {
    this.opts = opts;
    this.log = opts.logger ?? silentLogger;
    this._state = { state: "connecting", attempt: 0, advice: `Connecting to ${opts.url}…` };
    const target = loopbackTarget(opts.url);
    this.probe = target
      ? new ListenerProbe({
          target,
          connect: opts.probeConnect ?? tcpProbe,
          schedule: (fn, ms) => this.schedule(fn, ms),
          random: opts.random ?? Math.random,
          ...(opts.probeTiming ? { timing: opts.probeTiming } : {}),
          onListening: () => this.onPortListening(),
        })
      : null;
  }

  get state(): ConnectionState {
    return this._state;
  }

  get hello(): Hello | null {
    return this._state.state === "connected" ? this._hello : null;
  }

  get url(): string {
    return this.opts.url;
  }

  hasCapability(name: string): boolean {
    return this.hello?.features?.capabilities?.includes(name) ?? false;
  }

  hasMethod(name: string): boolean {
    return this.hello?.features?.methods?.includes(name) ?? false;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.terminal = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.reconnectAtOnce = false;
    this.probe?.stop();
    this.clearTimer();
    this.dropClient();
  }

  /** After sleep or unlock: the socket may be dead without knowing it, so start over now. */
  wake(): void {
    if (this.stopped || this.terminal) return;
    this.failures = 0;
    this.reconnectNow();
  }

  /** After the person changed something (credentials, approval): try again at once. */
  retryNow(): void {
    if (this.stopped) return;
    this.terminal = false;
    this.failures = 0;
    this.deviceTokenRetried = false;
    this.reconnectNow();
  }

  request<T>(method: string, params: unknown, opts?: { timeoutMs?: number | null }): Promise<T> {
    if (!this.client || this._state.state !== "connected") {
      return Promise.reject(new DeskError(ERROR_CODES.notConnected, `not connected to ${this.opts.url}`));
    }
    return this.client.request<T>(method, params, opts);
  }

  private reconnectNow(): void {
    this.clearTimer();
    this.dropClient();
    this.connect();
  }

  /** Probes made while offline, for tests and diagnostics. */
  get probes(): number {
    return this.probe?.probes ?? 0;
  }

  private onPortListening(): void {
    if (this.stopped || this.terminal) return;
    this.log.debug("gateway port listening again", { url: this.opts.url });
    // Replaces the pending backoff timer: one attempt, now.
    this.clearTimer();
    this.connect(true);
  }

  private connect(fromProbe = false): void {
    if (this.stopped) return;
    this.probe?.stop();
    this.attemptFromProbe = fromProbe;
    this.attempts += 1;
    this.lastError = null;
    this.setState({ state: "connecting", attempt: this.failures + 1, advice: `Connecting to ${this.opts.url}…` });

    const clientOpts: GatewayClientOptions = {
      ...handshakeOptions(this.opts, this.log),
      onHelloOk: (hello) => this.handleHello(client, hello as unknown as Hello),
      onEvent: (evt) => {
        if (this.client !== client) return;
        if (evt.event === "shutdown") {
          const p = evt.payload as { restartExpectedMs?: unknown } | undefined;
          this.restartHintMs = typeof p?.restartExpectedMs === "number" ? p.restartExpectedMs : null;
        }
        this.opts.onEvent(evt as EventFrame);
      },
      onGap: () => {
        if (this.client === client) this.opts.onGap();
      },
      onConnectError: (err) => {
        if (this.client !== client) return;
        this.lastError = errorFacts(err);
        this.log.debug("connect failed", { facts: this.lastError });
      },
      onReconnectPaused: (info) => {
        if (this.client === client) this.handlePaused(info.detailCode);
      },
      onClose: (code, reason) => {
        if (this.client === client) this.handleClose(code, reason);
      },
    };
    const client = (this.opts.createClient ?? ((o) => new GatewayClient(o)))(clientOpts);
    this.client = client;
    try {
      client.start();
    } catch (err) {
      this.lastError = errorFacts(err);
    }
    // A socket that could not even be created fails synchronously, and on a first attempt
    // the client reports nothing more: decide here.
    if (this.lastError && this.client === client) this.handlePaused(this.lastError.detailCode);
  }

  private handleHello(client: ClientLike, hello: Hello): void {
    if (this.client !== client) return;
    this.log.protect(hello.auth?.deviceToken);
    this.log.debug("hello", { protocol: hello.protocol, server: hello.server, auth: hello.auth, policy: hello.policy });
    const incompatible = checkHello(hello, this.opts.url);
    if (incompatible) {
      this.terminal = true;
      this.dropClient();
      this.setState(incompatible);
      return;
    }
    this.failures = 0;
    this.restartHintMs = null;
    this.deviceTokenRetried = false;
    this._hello = hello;
    const now = this.now();
    this.lastConnectedAt = now;
    this.setState(connectedState(hello, this.opts.url, now));
    this.opts.onReady(hello);
  }

  private handlePaused(detailCode: string | null): void {
    const facts: ErrorFacts = this.lastError ?? { code: null, detailCode, details: null, message: "", retryAfterMs: undefined };
    if (detailCode && !facts.detailCode) facts.detailCode = detailCode;
    // A stale device token with a shared secret configured: forget it and pair again.
    if (facts.detailCode === "AUTH_DEVICE_TOKEN_MISMATCH" && !this.deviceTokenRetried && (this.opts.token || this.opts.password)) {
      this.deviceTokenRetried = true;
      this.reconnectAtOnce = true;
      forgetDeviceToken(this.opts);
      this.lastError = null;
      return; // handleClose reconnects at once
    }
    if (facts.detailCode === "AUTH_DEVICE_TOKEN_MISMATCH") forgetDeviceToken(this.opts);
    const state = terminalState(facts, { url: this.opts.url, deviceId: this.opts.identity.deviceId });
    if (state) {
      this.terminal = true;
      this.setState(state);
      return;
    }
    if (/plaintext ws:\/\/|SECURITY ERROR/i.test(facts.message)) {
      // The client refuses unencrypted remote URLs before opening a socket.
      this.terminal = true;
      this.dropClient();
      this.setState({
        state: "auth_failed",
        code: "INSECURE_URL",
        setting: "url",
        advice: `${this.opts.url} is a remote Gateway over plain ws://, which would expose the token. Use wss://, or an SSH tunnel to the Gateway's loopback port (ssh -N -L 18789:127.0.0.1:18789 host) with ws://127.0.0.1:18789.`,
      });
      return;
    }
    // The client gave up on its own without a close to follow (e.g. a socket it could not
    // create): own the retry as for any other failure.
    this.dropClient();
    this.scheduleRetry(null, "");
  }

  private handleClose(code: number, reason: string): void {
    // Own the retry: stop this client before it schedules its own reconnect.
    this.dropClient();
    if (this.stopped || this.terminal) return;
    if (this.reconnectAtOnce) {
      this.reconnectAtOnce = false;
      this.connect();
      return;
    }
    this.scheduleRetry(code, reason);
  }

  private scheduleRetry(code: number | null, reason: string): void {
    this.clearTimer();
    this.failures += 1;
    const hinted = hintedDelay(this.lastError?.retryAfterMs);
    const restarting = code === 1012 || this.restartHintMs !== null;
    let delay = hinted ?? backoffDelay(this.failures, this.opts.backoff ?? DEFAULT_BACKOFF, this.opts.random);
    if (this.restartHintMs !== null) delay = Math.min(Math.max(delay, Math.min(this.restartHintMs, 5000)), 30_000);
    const why = describeDisconnect(code, reason, this.lastError);
    const now = this.now();
    this.setState({
      state: "offline",
      reason: why,
      nextRetryAt: now + delay,
      retryInMs: delay,
      attempt: this.failures,
      lastConnectedAt: this.lastConnectedAt,
      restarting,
      advice: offlineAdvice(this.opts.url, why, delay, restarting),
    });
    this.cancelRetry = this.schedule(() => {
      this.cancelRetry = null;
      this.connect();
    }, delay);
    // Nothing listened: watch the port, so a Gateway that comes back is seen within a second.
    if (wasRefused(this.lastError) && !this.attemptFromProbe) this.probe?.start();
  }

  private schedule(fn: () => void, ms: number): () => void {
    if (this.opts.schedule) return this.opts.schedule(fn, ms);
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  }

  private dropClient(): void {
    const client = this.client;
    this.client = null;
    this._hello = null;
    if (client) {
      try {
        client.stop();
      } catch {
        // a client that fails to stop is already gone
      }
    }
  }

  private clearTimer(): void {
    this.cancelRetry?.();
    this.cancelRetry = null;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private setState(state: ConnectionState): void {
    this._state = state;
    this.log.debug(`connection ${state.state}`, { url: this.opts.url, ...state });
    this.opts.onState(state);
  }
}
