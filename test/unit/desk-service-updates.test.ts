// The pages' side of the app's updates (main/core/desk-service.ts): the snapshot's `updates`, the
// two verbs, the change event, the settings only the Settings page may change, and diagnostics
// (U1, U4, U6, U7, U8). A real core (never started) and a FAKE updates port.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DeskEvent, DiagnosticsCopy, Page } from "../../common/contract.ts";
import type { DeskSnapshot } from "../../common/model.ts";
import type { UpdateView } from "../../common/updates.ts";
import { isDeskError } from "../../common/errors.ts";
import type { UpdatesPort } from "../../main/core/desk-service.ts";
import { wireCore } from "../harness/wired-core.ts";

const BASE = { currentVersion: "1.0.0", channel: "stable", automatic: true, result: null, quietError: null } as const;

/** A FAKE updates port: the view the test sets, with the calls it got. */
class FakeUpdates implements UpdatesPort {
  current: UpdateView = { state: "idle", ...BASE };
  checks = 0;
  installs = 0;
  private readonly listeners = new Set<(v: UpdateView) => void>();
  view = (): UpdateView => this.current;
  check = (): UpdateView => {
    this.checks++;
    return this.current;
  };
  install = (): boolean => {
    this.installs++;
    return this.current.state === "ready";
  };
  subscribe = (l: (v: UpdateView) => void): (() => void) => {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  };
  set(view: UpdateView): void {
    this.current = view;
    for (const l of this.listeners) l(view);
  }
}

const PAGES: Page[] = ["popover", "dashboard", "settings"];

describe("updates through the contract (U6, U7)", () => {
  test("the browser host has no updater: disabled, with its reason; the verbs do nothing", async () => {
    const { service } = await wireCore({ url: "ws://127.0.0.1:9" });
    const snap = (await service.call("snapshot", [], "popover")) as DeskSnapshot;
    assert.equal(snap.updates?.state, "disabled");
    assert.equal((snap.updates as { reason: string }).reason, "Updates come with the menu-bar app");
    assert.equal(((await service.call("checkForUpdates", [], "settings")) as UpdateView).state, "disabled");
    assert.equal(await service.call("installUpdate", [], "popover"), false);
  });

  test("the snapshot carries the state, a change is sent to every page, and any page may ask", async () => {
    const updates = new FakeUpdates();
    const { service } = await wireCore({ url: "ws://127.0.0.1:9" }, { service: { updates } });
    const events: DeskEvent[] = [];
    service.subscribe((e) => events.push(e));
    updates.set({ state: "ready", version: "1.2.3", ...BASE });
    assert.deepEqual(events, [{ type: "change", change: { type: "updates", updates: updates.current } }]);
    const snap = (await service.call("snapshot", [], "popover")) as DeskSnapshot;
    assert.deepEqual(snap.updates, updates.current);
    for (const page of PAGES) {
      assert.equal(await service.call("installUpdate", [], page), true);
      await service.call("checkForUpdates", [], page);
    }
    assert.deepEqual([updates.installs, updates.checks], [3, 3]);
    await assert.rejects(service.call("installUpdate", ["now"], "popover"), (err) => isDeskError(err, "BAD_REQUEST"));
  });

  test("automatic updates and the beta channel are changed from the Settings page alone (U1, U4)", async () => {
    const { service, settings } = await wireCore({ url: "ws://127.0.0.1:9" });
    assert.deepEqual(settings.view().updates, { automatic: true, beta: false }, "on and stable by default");
    for (const caller of ["popover", "dashboard"] as const) {
      await assert.rejects(service.call("updateSettings", [{ updates: { beta: true } }], caller), (err) => isDeskError(err, "FORBIDDEN"));
    }
    await service.call("updateSettings", [{ updates: { beta: true } }], "settings");
    assert.deepEqual(settings.view().updates, { automatic: true, beta: true }, "a group patches key by key");
  });

  test("diagnostics say the version, the channel and the update state with the quiet error (U8)", async () => {
    const updates = new FakeUpdates();
    const { service } = await wireCore({ url: "ws://127.0.0.1:9" }, { service: { updates, clientVersion: "1.0.0" } });
    updates.set({
      state: "downloading",
      version: "1.1.0-beta.1",
      percent: 40,
      transferred: 4,
      total: 10,
      ...BASE,
      channel: "beta",
      quietError: "the update server could not be reached (ENOTFOUND)",
    });
    const { text } = (await service.call("copyDiagnostics", [], "settings")) as DiagnosticsCopy;
    assert.match(text, /^Progress Desk 1\.0\.0 on /);
    assert.match(text, /Updates: beta channel, automatic, downloading 1\.1\.0-beta\.1 \(40%\)/);
    assert.match(text, /last automatic check failed: the update server could not be reached \(ENOTFOUND\)/);
  });
});
