// A local Gateway that restarts is seen again within 2 s of being ready, whatever the backoff
// step (issue 18, item 7): the app's own backoff, a real Gateway killed and started again on
// the same port with the same state folder after 10, 20 and 40 s.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as outage } from "node:timers/promises";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { DEFAULT_BACKOFF } from "../../main/core/backoff.ts";
import type { ConnectionState } from "../../common/model.ts";
import { startDesk } from "./support.ts";

const DOWNTIMES_MS = [10_000, 20_000, 40_000];
/** The bound, and a margin for reading the Gateway's ready line through a pipe. */
const WITHIN_MS = 2_000;
const MARGIN_MS = 250;

let gw: TestGateway;
before(async () => (gw = await startGateway()));
after(() => gw?.dispose());

test(
  "killed and started again after 10, 20 and 40 s: connected within 2 s of the Gateway being ready, no storm",
  { timeout: 10 * 60_000 },
  async () => {
    const d = await startDesk(gw, { backoff: DEFAULT_BACKOFF });
    try {
      await d.waitForState("connected", 60_000);
      const figures: string[] = [];
      for (const downMs of DOWNTIMES_MS) {
        const since = d.changes.length;
        const { attempts, probes } = d.desk.stats(d.gatewayId);
        await gw.stop("SIGKILL");
        await d.waitForState("offline", 15_000, since);
        await outage(downMs); // the outage itself, not a wait for something
        const startedAt = Date.now();
        await gw.start();
        // A ceiling only: a desk that waited for its next backoff step would come within 30 s.
        const back = (await d.waitForState("connected", 60_000, since)) as Extract<ConnectionState, { state: "connected" }>;
        const lateMs = back.since - gw.readyAt;
        const stats = d.desk.stats(d.gatewayId);
        const figure = `down ${downMs / 1000} s: start→ready ${gw.readyAt - startedAt} ms, ready→connected ${lateMs} ms, ${stats.attempts - attempts} attempts, ${stats.probes - probes} probes`;
        figures.push(figure);
        console.log(`# ${figure}`);
        assert.ok(lateMs <= WITHIN_MS + MARGIN_MS, `connected ${lateMs} ms after the Gateway was ready (${figure})`);
        // No storm: one probe at a time, at least 500 ms apart, and few real attempts.
        const offlineMs = back.since - startedAt + downMs;
        assert.ok(stats.probes - probes <= offlineMs / 500 + 1, figure);
        assert.ok(stats.attempts - attempts <= 12, figure);
      }
      console.log(`# ${figures.join("; ")}`);
    } finally {
      d.stop();
    }
  },
);
