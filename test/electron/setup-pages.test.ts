// The pages' side of the shell (main/electron/setup/pages.ts) and the core it answers from
// (setup/core.ts): every verb over IPC, answered only for a top frame of our own windows,
// events to every open window, a page's refresh or dismiss noted as the person's own
// action. The real core with no Gateway configured (nothing connects), the FAKE Electron
// kit's IPC and web contents.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { WebContents } from "electron";
import { DESK_METHODS, type CardRef, type DiagnosticsCopy, type Settings } from "../../common/contract.ts";
import { createLogger, type Logger } from "../../main/core/logger.ts";
import { setupCore } from "../../main/electron/setup/core.ts";
import { setupPages } from "../../main/electron/setup/pages.ts";
import { fakeElectron, FakeWebContents } from "./fake-electron.ts";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type SetupOptions = { env?: NodeJS.ProcessEnv; logger?: Logger; writeClipboard?: (text: string) => void };

async function setup(opts: SetupOptions = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "pd-setup-pages-"));
  dirs.push(dataDir);
  const f = fakeElectron({ dataDir, env: { HOME: dataDir, OPENCLAW_GATEWAY_URL: "ws://127.0.0.1:9", ...opts.env } });
  const core = await setupCore({ ...f.deps, ...(opts.logger ? { logger: opts.logger } : {}) });
  const ours = [new FakeWebContents(), new FakeWebContents()];
  const ownActions: CardRef[] = [];
  const opened: string[] = [];
  let closed = 0;
  const pages = setupPages({
    ...f.deps,
    ...core,
    windows: {
      contents: () => ours as never,
      isOurContents: (c: WebContents) => ours.includes(c as unknown as FakeWebContents),
    },
    openPage: async (page) => void opened.push(page),
    closePopover: () => void (closed += 1),
    onOwnAction: (card) => void ownActions.push(card),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.writeClipboard ? { writeClipboard: opts.writeClipboard } : {}),
  });
  const events = (c: FakeWebContents) =>
    c.sent.filter((m) => m.channel === "progress-desk:event").map((m) => (m.payload as { type: string }).type);
  return { f, core, ours, pages, ownActions, opened, events, closed: () => closed };
}

const frame = (page: string) => ({ url: `app://desk/${page}.html`, parent: null });

describe("core", () => {
  test("credentials live in the data folder; settings and frames in the store; the desk waits for its Gateways", async () => {
    const { f, core } = await setup();
    assert.deepEqual(core.desk.gatewayIds(), [], "nothing connects until the shell configures the desk");
    assert.equal(core.discovered.url, "ws://127.0.0.1:9");
    core.settings.update({ trayTitle: false });
    await core.settings.flush();
    assert.equal((f.store.get("settings") as { trayTitle: boolean }).trayTitle, false);
    core.frames.save("dashboard", { x: 1, y: 2, width: 300, height: 200 });
    assert.deepEqual(core.frames.load("dashboard"), { x: 1, y: 2, width: 300, height: 200 });
    core.settings.saveGateway({ label: "Work", color: "#0a84ff", url: "ws://127.0.0.1:9", token: "tok-setup-core" });
    await core.settings.flush();
    const file = join(f.deps.dataDir, "credentials.json");
    assert.ok(existsSync(file), "the token is kept in the data folder");
    assert.ok(!readFileSync(file, "utf8").includes("tok-setup-core"), "encrypted through safeStorage");
    assert.ok(!JSON.stringify([...f.store.entries()]).includes("tok-setup-core"), "never in the store");
  });
});

describe("pages over IPC", () => {
  test("every verb of the contract is handled; our window's top frame is answered", async () => {
    const { f, ours } = await setup();
    assert.deepEqual(
      [...f.ipc.keys()],
      DESK_METHODS.map((m) => `progress-desk:${m}`),
    );
    const s = (await f.invoke(ours[0]!, "getSettings", [], frame("popover"))) as Settings;
    assert.equal(s.showCards, true);
  });

  test("contents that are not ours, a subframe and a foreign origin are refused, and the refusal is logged", async () => {
    const { f, ours } = await setup();
    await assert.rejects(f.invoke(new FakeWebContents(), "getSettings", [], frame("popover")), /Refused/);
    await assert.rejects(f.invoke(ours[0]!, "getSettings", [], { url: "app://desk/popover.html", parent: {} }), /Refused/);
    await assert.rejects(f.invoke(ours[0]!, "getSettings", [], { url: "https://evil.example/", parent: null }), /Refused/);
    assert.equal(f.warnings.filter((w) => /refused "getSettings"/.test(w)).length, 3);
  });

  test("a Settings-only verb from the popover is forbidden; from Settings it works and every window hears of it", async () => {
    const { f, ours, events, core } = await setup();
    await assert.rejects(f.invoke(ours[0]!, "updateSettings", [{ launchAtLogin: true }], frame("popover")), /only .*Settings page/);
    assert.equal(core.settings.view().launchAtLogin, false);
    await f.invoke(ours[1]!, "updateSettings", [{ launchAtLogin: true }], frame("settings"));
    assert.equal(core.settings.view().launchAtLogin, true);
    for (const c of ours) assert.ok(events(c).includes("settings"), "every open window is told");
  });

  test("closePopover (Escape in the popover) hides the popover and nothing else", async () => {
    const { f, ours, closed, opened } = await setup();
    assert.equal(await f.invoke(ours[0]!, "closePopover", [], frame("popover")), null);
    assert.equal(closed(), 1);
    assert.deepEqual(opened, []);
  });

  test("a page's refresh is the person's own action, noted before it runs; openPage goes to the windows", async () => {
    const { f, ours, ownActions, opened } = await setup();
    const ref: CardRef = { gatewayId: "nowhere", sessionKey: "agent:main:a", agentId: null };
    await f.invoke(ours[0]!, "refresh", [ref, false], frame("popover")).catch(() => undefined);
    assert.deepEqual(ownActions, [ref]);
    await f.invoke(ours[0]!, "openPage", ["settings"], frame("popover"));
    assert.deepEqual(opened, ["settings"]);
  });

  test("Copy diagnostics: Settings gets the report, redacted, and it is on the clipboard; the popover may not ask", async () => {
    const token = "tok-diagnostics-0123456789";
    const clipboard: string[] = [];
    const logger = createLogger({ sink: () => undefined });
    const { f, ours } = await setup({ env: { OPENCLAW_GATEWAY_TOKEN: token }, logger, writeClipboard: (t) => void clipboard.push(t) });
    logger.info(`a line that names ${token} by mistake`);
    await assert.rejects(f.invoke(ours[0]!, "copyDiagnostics", [], frame("popover")), /only .*Settings page/);
    assert.deepEqual(clipboard, [], "a refused call copies nothing");
    const reply = (await f.invoke(ours[1]!, "copyDiagnostics", [], frame("settings"))) as DiagnosticsCopy;
    assert.equal(reply.copied, true, "the app copied it itself");
    assert.deepEqual(clipboard, [reply.text]);
    assert.match(reply.text, /^Progress Desk 0\.0\.0-test on /, "the app's version");
    assert.match(reply.text, /a line that names \[redacted\] by mistake/, "the log's last lines, redacted");
    assert.ok(!reply.text.includes(token.slice(4, 14)), "not even part of the discovered token");
  });

  test("dispose removes every handler and stops the events", async () => {
    const { f, ours, pages, core, events } = await setup();
    pages.dispose();
    assert.equal(f.ipc.size, 0);
    core.settings.update({ trayTitle: false });
    assert.deepEqual(events(ours[0]!), []);
  });
});
