// The loopback port probe (listener-probe.ts) on a fake clock with a FAKE connect: a fake on
// purpose, because cadence, jitter, timeouts and answers that come late need exact control.
// The real connect is in tcp-probe.test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ListenerProbe, loopbackTarget, type ProbeTarget } from "../../main/core/listener-probe.ts";
import { FakeClock } from "./fake-clock.ts";

type OpenProbe = { at: number; answer: (listening: boolean) => void; cancelled: boolean; answered: boolean };

/** A fake connect: every probe stays open until the test answers it (or `auto` does). */
function fakeConnect(auto?: (n: number) => boolean | undefined) {
  const probes: OpenProbe[] = [];
  let maxOpen = 0;
  const open = () => probes.filter((p) => !p.cancelled && !p.answered).length;
  return {
    probes,
    maxOpen: () => maxOpen,
    open,
    connect: (clockNow: () => number) => (_target: ProbeTarget, done: (listening: boolean) => void) => {
      const p: OpenProbe = {
        at: clockNow(),
        cancelled: false,
        answered: false,
        answer: (listening) => {
          p.answered = true;
          done(listening);
        },
      };
      probes.push(p);
      maxOpen = Math.max(maxOpen, open());
      const now = auto?.(probes.length);
      if (now !== undefined) p.answer(now);
      return () => {
        p.cancelled = true;
      };
    },
  };
}

function setup(opts: { random?: () => number; auto?: (n: number) => boolean | undefined } = {}) {
  const clock = new FakeClock();
  const fake = fakeConnect(opts.auto);
  let listening = 0;
  const probe = new ListenerProbe({
    target: { host: "127.0.0.1", port: 18789 },
    connect: fake.connect(() => clock.now),
    schedule: clock.schedule,
    random: opts.random ?? (() => 0.5),
    onListening: () => (listening += 1),
  });
  return { clock, fake, probe, listened: () => listening };
}

describe("loopbackTarget", () => {
  test("loopback ws and wss URLs give the host and port to probe", () => {
    const cases: Array<[string, ProbeTarget]> = [
      ["ws://127.0.0.1:18789", { host: "127.0.0.1", port: 18789 }],
      ["ws://127.45.6.7:9", { host: "127.45.6.7", port: 9 }],
      ["ws://127.1:18789/", { host: "127.0.0.1", port: 18789 }],
      ["ws://localhost:18789", { host: "localhost", port: 18789 }],
      ["ws://LocalHost:18789", { host: "localhost", port: 18789 }],
      ["ws://[::1]:18789", { host: "::1", port: 18789 }],
      ["ws://[0:0:0:0:0:0:0:1]:18789", { host: "::1", port: 18789 }],
      ["ws://127.0.0.1", { host: "127.0.0.1", port: 80 }],
      ["wss://localhost", { host: "localhost", port: 443 }],
    ];
    for (const [url, target] of cases) assert.deepEqual(loopbackTarget(url), target, url);
  });

  test("anything else is not probed: remote hosts, look-alikes, other schemes, bad URLs", () => {
    for (const url of [
      "ws://192.168.1.20:18789",
      "wss://gateway.example.com",
      "ws://128.0.0.1:18789",
      "ws://10.127.0.1:18789",
      "ws://127.0.0.1.example.com:18789",
      "ws://localhost.example.com:18789",
      "ws://[::2]:18789",
      "ws://[::ffff:7f00:1]:18789",
      "http://127.0.0.1:18789",
      "127.0.0.1:18789",
      "not a url",
      "",
    ]) {
      assert.equal(loopbackTarget(url), null, url);
    }
  });
});

describe("ListenerProbe", () => {
  test("probes one connect at a time, each after a wait of 500–1000 ms drawn from random", () => {
    const draws = [0, 0.999, 0.25, 0.5, 0.75];
    let i = 0;
    const { clock, fake, probe } = setup({ random: () => draws[i++ % draws.length]!, auto: () => false });
    const start = clock.now;
    probe.start();
    clock.advance(5_000);
    const times = [start, ...fake.probes.map((p) => p.at)];
    const gaps = times.slice(1).map((t, k) => t - times[k]!);
    assert.deepEqual(gaps.slice(0, 5), [500, 1000, 625, 750, 875], "each wait is 500 + random × 500 ms");
    for (const g of gaps) assert.ok(g >= 500 && g <= 1000, `wait ${g} ms within 500–1000`);
    assert.equal(fake.maxOpen(), 1, "never two connects at once");
    assert.equal(probe.probes, fake.probes.length);
    assert.equal(clock.pending, 1, "only the next wait is pending");
  });

  test("a connect that never answers counts as refused after its timeout and is cancelled; the next waits for it", () => {
    const { clock, fake, probe } = setup({ random: () => 0 });
    probe.start();
    clock.advance(500);
    assert.equal(fake.probes.length, 1);
    clock.advance(999);
    assert.equal(fake.probes.length, 1, "no second connect while the first is open");
    clock.advance(1);
    assert.equal(fake.probes[0]!.cancelled, true, "the silent probe's socket is destroyed at its timeout");
    clock.advance(500);
    assert.equal(fake.probes.length, 2, "the next probe comes one wait after the timeout");
    assert.equal(fake.maxOpen(), 1);
  });

  test("a listening port stops the probe and says so once; nothing is left pending", () => {
    const { clock, fake, probe, listened } = setup({ auto: (n) => n >= 3 });
    probe.start();
    clock.advance(60_000);
    assert.equal(listened(), 1);
    assert.equal(fake.probes.length, 3, "no probe after the port listened");
    assert.equal(probe.active, false);
    assert.equal(clock.pending, 0);
  });

  test("an answer from a probe that timed out, or came after stop(), is ignored", () => {
    const { clock, fake, probe, listened } = setup({ random: () => 0 });
    probe.start();
    clock.advance(1_500); // first probe at 500, timed out at 1500
    fake.probes[0]!.answer(true);
    assert.equal(listened(), 0, "a late answer does not count");
    clock.advance(500);
    assert.equal(fake.probes.length, 2);
    probe.stop();
    assert.equal(fake.probes[1]!.cancelled, true, "stop() destroys the probe in flight");
    fake.probes[1]!.answer(true);
    assert.equal(listened(), 0);
    assert.equal(clock.pending, 0, "stop() leaves no timer");
    clock.advance(10_000);
    assert.equal(fake.probes.length, 2, "no probe after stop()");
  });

  test("start() while running changes nothing; start() after stop() begins again", () => {
    const { clock, fake, probe } = setup({ random: () => 0, auto: () => false });
    probe.start();
    probe.start();
    assert.equal(clock.pending, 1);
    clock.advance(500);
    assert.equal(fake.probes.length, 1);
    probe.stop();
    probe.start();
    clock.advance(499);
    assert.equal(fake.probes.length, 1, "a fresh wait after a restart");
    clock.advance(1);
    assert.equal(fake.probes.length, 2);
  });

  test("a connect that answers before it returns is handled: no socket kept, no timer left behind", () => {
    const { clock, fake, probe, listened } = setup({ random: () => 0, auto: (n) => n === 2 });
    probe.start();
    clock.advance(500);
    assert.equal(fake.probes[0]!.cancelled, true, "a refused probe's cancel is called at once");
    clock.advance(500);
    assert.equal(listened(), 1);
    assert.equal(clock.pending, 0);
  });
});
