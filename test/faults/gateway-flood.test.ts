// A hostile or broken Gateway is trusted with data, not with our resources (issue 8).
// The FAKE Gateway (the real one cannot be made to do this) floods progressCard.changed
// across many sessions and sends frames over the client's size limit; the real core
// (ProgressDesk with the official client) must stay responsive, keep reads coalesced,
// keep memory bounded, lose no change, and recover when the flood stops.
import assert from "node:assert/strict";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { after, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { DEFAULT_MAX_READS_PER_SECOND } from "../../main/core/cards/read-scheduler.ts";
import { ProgressDesk } from "../../main/core/desk.ts";
import { gatewayIdForUrl } from "../../main/core/discovery.ts";
import type { ConnectionState } from "../../common/model.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";
import { until } from "../harness/until.ts";
import { card, startFakeGateway, type FakeSocket } from "./fake-gateway.ts";

/** The target of issue 8; a loaded machine may reach less, which is measured and reported. */
const EVENTS_PER_SECOND = 10_000;
const FLOOD_MS = 10_000;
const SESSIONS = 2_000;
/** The official client's limit (GatewayClient opens its socket with maxPayload 25 MiB). */
const CLIENT_MAX_PAYLOAD = 25 * 1024 * 1024;
/** Oversized frames during the flood, evenly spaced: each must cost one reconnect, nothing more. */
const OVERSIZED_FRAMES = 3;
/** The fake stops writing while this much is queued for the client, as a Gateway bounds a slow consumer. */
const FAKE_QUEUE_LIMIT = 4 * 1024 * 1024;
/** At most this many events per tick, so one late tick never becomes one giant blocking burst. */
const MAX_BATCH = 1_000;

// Bounds are several times what a healthy core shows here: they catch a hung loop, an
// unbounded queue or a leak per event, not a slow machine.
const LAG_RESOLUTION_MS = 5;
const LAG_P99_LIMIT_MS = 1_000;
/** p99 counts samples, and a long stall is a single sample: the worst stall is bounded too. */
const LAG_MAX_LIMIT_MS = 1_500;
const MEMORY_GROWTH_LIMIT = 200 * 1024 * 1024;
/** Heap kept after the flood: 2,000 cards take about 4 MB; keeping each of 100,000 events would add about 8 MB. */
const RETAINED_HEAP_LIMIT = 10 * 1024 * 1024;
// 2,000 stale cards at the read budget (200 a second) take 10 s; the bound catches a hang, not a busy machine.
const RECOVERY_MS = 45_000;

// Garbage is not growth: collect before measuring what the flood left behind.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const keys = Array.from({ length: SESSIONS }, (_, i) => `agent:main:flood:${String(i).padStart(4, "0")}`);

const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const FLOOD_TEST = "a flood of change events and oversized frames: responsive, coalesced, bounded, nothing lost, recovers";
test(FLOOD_TEST, { timeout: 100_000 }, async (t) => {
  const revisions = new Map<string, number>(keys.map((k) => [k, 1]));
  const markdown = new Map<string, string>();
  const fake = await startFakeGateway({
    handle: (req) => {
      if (req.method !== "progressCard.get") return undefined;
      const key = String(req.params.sessionKey);
      const revision = revisions.get(key);
      if (revision === undefined) return { ok: true, payload: { card: null } };
      const text = markdown.get(key);
      return { ok: true, payload: { card: card(key, revision, text ? { markdown: text } : {}) } };
    },
  });
  cleanups.push(() => fake.close());

  const desk = new ProgressDesk({
    gateways: [{ url: fake.url, token: "t".repeat(64) }],
    vault: await CredentialVault.open(memoryStorage()),
    clientVersion: "0.0.0-test",
    backoff: { initialMs: 100, maxMs: 1000, multiplier: 2, jitter: 0.1 },
  });
  const gatewayId = gatewayIdForUrl(fake.url);
  // Counting only: a recorder keeping every change would itself be the memory growth measured.
  const seen = { cardChanges: 0, states: [] as ConnectionState["state"][], disconnects: [] as string[] };
  desk.subscribe((c) => {
    if (c.type === "card") seen.cardChanges += 1;
    if (c.type === "connection") {
      seen.states.push(c.connection.state);
      if (c.connection.state === "offline") seen.disconnects.push(c.connection.reason);
    }
  });
  const state = (): ConnectionState["state"] => desk.snapshot().gateways[0]!.connection.state;
  desk.start();
  cleanups.push(() => desk.stop());
  await until("the first connection", () => state() === "connected", 10_000);

  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  // As in bench/run.ts: the histogram records the whole timer interval, so its resolution is not lag.
  const lagMs = (ns: number): number => Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS);
  const readsBefore = fake.reads.total;
  collectGarbage();
  const memoryBefore = process.memoryUsage();
  const peak = { rss: memoryBefore.rss, heapUsed: memoryBefore.heapUsed };
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
  }, 100);
  cleanups.push(() => clearInterval(sampler));

  // Built once: a valid change event padded past the client's limit (dropped after the last send).
  let oversized: string | null = JSON.stringify({
    type: "event",
    event: "progressCard.changed",
    payload: { sessionKey: keys[0], revision: 1, padding: "x".repeat(CLIENT_MAX_PAYLOAD) },
  });
  assert.ok(Buffer.byteLength(oversized) > CLIENT_MAX_PAYLOAD);
  const oversizedBytes = Buffer.byteLength(oversized);

  const flood = { sent: 0, throttledTicks: 0, oversizedSent: 0, oversizedOn: new Set<number>(), seq: new Map<number, number>() };
  const sendEvent = (sock: FakeSocket, key: string): void => {
    const revision = revisions.get(key)! + 1;
    revisions.set(key, revision);
    const seq = (flood.seq.get(sock.id) ?? 0) + 1;
    flood.seq.set(sock.id, seq);
    sock.event("progressCard.changed", { sessionKey: key, revision }, seq);
    flood.sent += 1;
  };

  lag.enable();
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const elapsed = performance.now() - started;
      if (elapsed >= FLOOD_MS) return resolve();
      const sock = fake.socket();
      // Events flow only on a connection that said hello (the client is reconnecting otherwise).
      if (sock?.ready && sock.isOpen() && sock.bufferedAmount() < FAKE_QUEUE_LIMIT) {
        const due = Math.floor((elapsed / 1000) * EVENTS_PER_SECOND) - flood.sent;
        for (let i = 0; i < Math.min(due, MAX_BATCH); i += 1) sendEvent(sock, keys[flood.sent % SESSIONS]!);
        const oversizedDue = Math.floor((elapsed / FLOOD_MS) * (OVERSIZED_FRAMES + 1));
        // One per connection: each must cost that connection, and the next one is a new connection.
        if (oversized && !flood.oversizedOn.has(sock.id) && flood.oversizedSent < Math.min(oversizedDue, OVERSIZED_FRAMES)) {
          flood.oversizedSent += 1;
          flood.oversizedOn.add(sock.id);
          sock.raw(oversized);
          if (flood.oversizedSent === OVERSIZED_FRAMES) oversized = null;
        }
      } else if (sock?.ready && sock.isOpen()) flood.throttledTicks += 1;
      setTimeout(tick, 1);
    };
    tick();
  });
  const floodMs = performance.now() - started;
  const floodEnd = { fakeReads: fake.reads.total, connections: fake.connections };
  const queuedAtFloodEnd = desk.stats(gatewayId).maxQueuedReads;
  // Checked at once (and again at the end): a broken defence fails here, not as a slow recovery.
  assert.equal(fake.reads.maxInFlightPerSession, 1, `sessions read twice at once: ${[...fake.reads.overlapped].slice(0, 5).join(", ")}`);
  assert.ok(queuedAtFloodEnd <= SESSIONS, `${queuedAtFloodEnd} reads queued for ${SESSIONS} sessions`);

  // Recovery: a final card on a known key reaches the store, and every card is the Gateway's latest.
  const finalKey = keys[SESSIONS - 1]!;
  markdown.set(finalKey, "Final card after the flood");
  await until("a connection after the flood", () => fake.socket()?.ready && fake.socket()?.isOpen(), RECOVERY_MS);
  sendEvent(fake.socket()!, finalKey);
  await until(
    "the final card in the store",
    () => desk.entry(gatewayId, finalKey)?.card?.markdown === "Final card after the flood",
    RECOVERY_MS,
  );
  const stale = (): string[] => keys.filter((k) => desk.entry(gatewayId, k)?.card?.revision !== revisions.get(k));
  await until("every card at the Gateway's latest revision", () => stale().length === 0 && fake.reads.inFlight === 0, RECOVERY_MS);
  const recoveredMs = performance.now() - started - floodMs;
  const totalSeconds = (performance.now() - started) / 1000;
  lag.disable();
  clearInterval(sampler);
  collectGarbage();
  const memoryAfter = process.memoryUsage();

  const stats = desk.stats(gatewayId);
  const p99 = lagMs(lag.percentile(99));
  const figures = {
    eventsSent: flood.sent,
    achievedPerSecond: Math.round(flood.sent / (floodMs / 1000)),
    floodMs: Math.round(floodMs),
    throttledTicks: flood.throttledTicks,
    oversizedFrames: flood.oversizedSent,
    oversizedBytes,
    connections: fake.connections,
    lagP50Ms: +lagMs(lag.percentile(50)).toFixed(1),
    lagP99Ms: +p99.toFixed(1),
    lagMaxMs: +lagMs(lag.max).toFixed(1),
    lagSamples: lag.count,
    readsDuringFlood: floodEnd.fakeReads - readsBefore,
    readsTotal: fake.reads.total - readsBefore,
    readsPerEvent: +((fake.reads.total - readsBefore) / flood.sent).toFixed(3),
    readsAfterFlood: fake.reads.total - floodEnd.fakeReads,
    maxQueuedReads: stats.maxQueuedReads,
    cardChanges: seen.cardChanges,
    peakRssGrowthMB: Math.round((peak.rss - memoryBefore.rss) / 2 ** 20),
    peakHeapGrowthMB: Math.round((peak.heapUsed - memoryBefore.heapUsed) / 2 ** 20),
    retainedHeapMB: +((memoryAfter.heapUsed - memoryBefore.heapUsed) / 2 ** 20).toFixed(1),
    recoveredMs: Math.round(recoveredMs),
    disconnects: seen.disconnects,
  };
  t.diagnostic(`flood figures ${JSON.stringify(figures)}`);
  console.log(`# flood figures ${JSON.stringify(figures)}`);

  // Responsive: the loop running the core (and the fake) never hung.
  assert.ok(p99 < LAG_P99_LIMIT_MS, `event-loop lag p99 ${p99.toFixed(1)} ms`);
  assert.ok(lagMs(lag.max) < LAG_MAX_LIMIT_MS, `event-loop stalled ${figures.lagMaxMs} ms at once`);
  // Coalesced: never two reads of one session at once, on the wire or in the store.
  assert.equal(fake.reads.maxInFlightPerSession, 1, `sessions read twice at once: ${[...fake.reads.overlapped].slice(0, 5).join(", ")}`);
  assert.equal(stats.maxInFlightPerSession, 1);
  // Pending work is bounded by sessions, not events: at most one waiting read per session,
  // so what is left to read when the flood stops is at most one read per session (+ in flight).
  assert.ok(stats.maxQueuedReads <= SESSIONS + 1, `queued reads ${stats.maxQueuedReads}`);
  assert.ok(figures.readsAfterFlood <= SESSIONS + 1 + 16, `reads after the flood ${figures.readsAfterFlood}`);
  // Far fewer reads than events, whatever rate this machine reached: reads follow the budget
  // (plus one burst), not the events; and never more than one per event and reconnect.
  const reads = fake.reads.total - readsBefore;
  const budget = DEFAULT_MAX_READS_PER_SECOND * (totalSeconds + 1);
  assert.ok(reads <= budget, `reads ${reads} over the budget ${Math.round(budget)} in ${totalSeconds.toFixed(1)} s`);
  assert.ok(reads <= flood.sent + SESSIONS * fake.connections, `reads ${reads} for ${flood.sent} events`);
  // Oversized frames cost a reconnect each, and the core came back every time.
  assert.equal(flood.oversizedSent, OVERSIZED_FRAMES);
  assert.ok(fake.connections >= 1 + OVERSIZED_FRAMES, `connections ${fake.connections}`);
  assert.ok(seen.disconnects.length >= OVERSIZED_FRAMES, `disconnects ${seen.disconnects.length}`);
  assert.equal(state(), "connected");
  // Memory: bounded growth, one card per session (not per event).
  assert.ok(peak.rss - memoryBefore.rss < MEMORY_GROWTH_LIMIT, `RSS grew ${figures.peakRssGrowthMB} MB`);
  assert.ok(memoryAfter.heapUsed - memoryBefore.heapUsed < RETAINED_HEAP_LIMIT, `heap kept ${figures.retainedHeapMB} MB`);
  const floodCards = desk.snapshot().gateways[0]!.cards.filter((c) => c.sessionKey.startsWith("agent:main:flood:"));
  assert.equal(floodCards.length, SESSIONS);
});
