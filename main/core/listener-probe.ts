// While a loopback Gateway refuses connections, a plain TCP connect to its port every
// 500–1000 ms notices it listening again well before the next backoff step (which grows to
// 30 s), so a local restart is not shown as offline for no reason. Pure: the connect, the
// timers and the randomness are injected; tcp-probe.ts is the real connect.

export type ProbeTarget = { host: string; port: number };

/** Starts one connect; calls `done(true)` once it connects, `done(false)` when it fails. Returns its cancel. */
export type ProbeConnect = (target: ProbeTarget, done: (listening: boolean) => void) => () => void;

export type ProbeTiming = {
  /** The wait before each probe is drawn from [minIntervalMs, maxIntervalMs]. */
  minIntervalMs: number;
  maxIntervalMs: number;
  /** A probe with no answer by then counts as "not listening". */
  timeoutMs: number;
};

export const DEFAULT_PROBE_TIMING: ProbeTiming = { minIntervalMs: 500, maxIntervalMs: 1000, timeoutMs: 1000 };

const DEFAULT_PORTS: Record<string, number> = { "ws:": 80, "wss:": 443 };

/** Where to probe for `url`, or null when it is not a loopback ws(s) URL (remote Gateways keep plain backoff). */
export function loopbackTarget(url: string): ProbeTarget | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const defaultPort = DEFAULT_PORTS[parsed.protocol];
  if (defaultPort === undefined) return null;
  // WHATWG URL parsing normalises IPv4 forms (127.1, 0x7f.0.0.1) to dotted decimal and IPv6 to its short form.
  const host = parsed.hostname.toLowerCase();
  const loopback = host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  if (!loopback) return null;
  return { host: host === "[::1]" ? "::1" : host, port: parsed.port ? Number(parsed.port) : defaultPort };
}

export type ListenerProbeOptions = {
  target: ProbeTarget;
  connect: ProbeConnect;
  /** Runs `fn` after `ms` and returns its cancel. */
  schedule: (fn: () => void, ms: number) => () => void;
  /** In [0, 1): spreads the probes so many desks do not knock in lockstep. */
  random: () => number;
  timing?: ProbeTiming;
  /** The port accepted a connection; the probe has stopped itself. */
  onListening: () => void;
};

/** Probes one port, one connect at a time, until it listens or stop() is called. */
export class ListenerProbe {
  private readonly opts: ListenerProbeOptions;
  private readonly timing: ProbeTiming;
  private cancelWait: (() => void) | null = null;
  private cancelProbe: (() => void) | null = null;
  private cancelTimeout: (() => void) | null = null;
  /** Bumped by every start and stop, so an answer from an earlier round is ignored. */
  private round = 0;
  private running = false;
  /** Connects started, for tests and diagnostics. */
  probes = 0;

  constructor(opts: ListenerProbeOptions) {
    this.opts = opts;
    this.timing = opts.timing ?? DEFAULT_PROBE_TIMING;
  }

  get active(): boolean {
    return this.running;
  }

  /** Begins probing after one jittered interval; a running probe carries on as it is. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.round += 1;
    this.waitThenProbe();
  }

  stop(): void {
    this.running = false;
    this.round += 1;
    this.clear();
  }

  private waitThenProbe(): void {
    const { minIntervalMs, maxIntervalMs } = this.timing;
    const wait = Math.round(minIntervalMs + this.opts.random() * (maxIntervalMs - minIntervalMs));
    this.cancelWait = this.opts.schedule(() => {
      this.cancelWait = null;
      this.probe();
    }, wait);
  }

  private probe(): void {
    const round = this.round;
    let answered = false;
    const answer = (listening: boolean) => {
      if (answered || round !== this.round) return;
      answered = true;
      this.clear();
      if (listening) {
        this.stop();
        this.opts.onListening();
      } else {
        this.waitThenProbe();
      }
    };
    this.probes += 1;
    this.cancelTimeout = this.opts.schedule(() => answer(false), this.timing.timeoutMs);
    const cancel = this.opts.connect(this.opts.target, answer);
    // A connect may answer before it returns: its socket is done with, so nothing is kept.
    if (answered || round !== this.round) cancel();
    else this.cancelProbe = cancel;
  }

  private clear(): void {
    this.cancelWait?.();
    this.cancelWait = null;
    this.cancelTimeout?.();
    this.cancelTimeout = null;
    this.cancelProbe?.();
    this.cancelProbe = null;
  }
}
