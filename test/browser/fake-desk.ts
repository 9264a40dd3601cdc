// The built pages (dist/renderer) in real Chromium, fed by a FAKE DeskApi installed as
// `window.progressDesk` (the preload's place). For states the real Gateway cannot produce on
// demand: it stamps `updatedAt` itself, so a card "paused since yesterday" or "finished three
// days ago" can only be written by waiting that long. Everything else goes through the real
// Gateway in test/e2e. Run `npm run build` first.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { deriveCard } from "../../common/card.ts";
import { pageContentSecurityPolicy } from "../../main/core/page-files.ts";
import { defaultSettings } from "../../main/core/settings.ts";
import type { CardEntry, ConnectionState, DeskChange, DeskSnapshot, SessionInfo, SessionKind, Step } from "../../common/model.ts";
import type { Settings } from "../../common/contract.ts";
import { startStaticServer, type StaticFile, type StaticServer } from "./server.ts";

export const FAKE_GW = "fake-gw";
const pagesDir = join(import.meta.dirname, "..", "..", "dist", "renderer");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Serves every built page file under the app's own CSP (no connection anywhere). */
export async function servePages(): Promise<StaticServer> {
  const files: Record<string, StaticFile> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const url = `/${relative(pagesDir, path).split(sep).join("/")}`;
        const headers = { "content-security-policy": pageContentSecurityPolicy("'none'") };
        files[url] = { type: TYPES[extname(path)] ?? "application/octet-stream", body: readFileSync(path, "utf8"), headers };
      }
    }
  };
  walk(pagesDir);
  return startStaticServer(files);
}

export type FakeCard = {
  sessionKey: string;
  title: string;
  updatedAt: number;
  steps: Step[];
  markdown?: string | null;
  /** The session runs now (its card is active). */
  running?: boolean;
  revision?: number;
  kind?: SessionKind;
  /** The session that spawned this one (a sub-agent). */
  parentKey?: string;
};

export function connectedState(): ConnectionState {
  return {
    state: "connected",
    since: Date.now(),
    serverVersion: "2026.9.6",
    scopes: ["operator.read", "operator.write"],
    limited: false,
    advice: "Connected.",
  };
}

export function sessionRow(c: FakeCard): SessionInfo {
  return {
    key: c.sessionKey,
    sessionId: null,
    agentId: "main",
    title: c.title,
    kind: c.kind ?? "dashboard",
    parentKey: c.parentKey ?? null,
    updatedAt: c.updatedAt,
    status: c.running ? "running" : null,
    hasActiveRun: c.running ?? false,
    activeRunIds: null,
    startedAt: c.running ? c.updatedAt - 1000 : null,
    endedAt: null,
  };
}

/** An entry as the core builds it, derived by the core's own deriveCard. */
export function fakeEntry(c: FakeCard): CardEntry {
  const card = {
    sessionKey: c.sessionKey,
    revision: c.revision ?? 1,
    updatedAt: c.updatedAt,
    markdown: c.markdown ?? null,
    steps: c.steps,
  };
  const row = sessionRow(c);
  return {
    gatewayId: FAKE_GW,
    sessionKey: c.sessionKey,
    agentId: null,
    title: c.title,
    card,
    derived: deriveCard(card, row),
    freshness: "live",
    confirmedAt: Date.now(),
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: null,
  };
}

export function fakeSnapshot(cards: readonly FakeCard[]): DeskSnapshot {
  return {
    gateways: [
      {
        id: FAKE_GW,
        label: "Studio",
        color: null,
        url: "ws://127.0.0.1:1",
        connection: connectedState(),
        sessions: cards.map(sessionRow),
        cards: cards.map(fakeEntry),
        boards: { supported: true, pins: [] },
        activity: [],
        needs: { answering: "off", advice: null, entries: [] },
        cardsKnown: true,
      },
    ],
  };
}

export function fakeSettings(extra: Partial<Settings> = {}): Settings {
  const d = defaultSettings();
  return {
    ...d,
    gateways: [
      {
        id: FAKE_GW,
        label: "Studio",
        color: "#0a84ff",
        url: "ws://127.0.0.1:1",
        answerApprovals: false,
        hasToken: true,
        hasPassword: false,
        hasSetupCode: false,
      },
    ],
    credentialStorage: "os-keychain",
    ...extra,
  } as Settings;
}

/**
 * How the FAKE desk replies to `answerNeed`, set by a test (setAnswerReply): `refuse` rejects
 * with that message (as the core's refusal reaches a page); `hold` keeps the call in flight
 * until releaseAnswer; `change` is emitted before the reply (as the core emits the resolved
 * change). Unset, the call resolves with null and changes nothing.
 */
export type FakeAnswerReply = { refuse?: string; hold?: boolean; change?: DeskChange };

type FakeDeskControl = {
  emit(change: unknown): void;
  calls: string[];
  answerReply: FakeAnswerReply | null;
  release: (() => void) | null;
};
type FakeWindow = { progressDesk?: unknown; __fakeDesk?: FakeDeskControl };

/** Installed before the page's scripts; self-contained (it runs in the page). */
function installFakeDesk(init: { snapshot: unknown; settings: Record<string, unknown> }): void {
  const w = globalThis as unknown as FakeWindow;
  const changeListeners = new Set<(c: unknown) => void>();
  const settingsListeners = new Set<(s: unknown) => void>();
  let settings = init.settings;
  const calls: string[] = [];
  const control: FakeDeskControl = {
    emit: (change) => {
      for (const l of changeListeners) l(change);
    },
    calls,
    answerReply: null,
    release: null,
  };
  w.__fakeDesk = control;
  w.progressDesk = {
    snapshot: async () => init.snapshot,
    getSettings: async () => settings,
    updateSettings: async (patch: Record<string, unknown>) => {
      calls.push(`updateSettings ${JSON.stringify(patch)}`);
      settings = { ...settings, ...patch };
      for (const l of settingsListeners) l(settings);
      return settings;
    },
    dismiss: async () => ({ outcome: "error", code: "FAKE", message: "fake desk" }),
    refresh: async () => null,
    retryConnection: async () => undefined,
    // Records what the page sent; an edit of a known Gateway keeps its secrets' flags, as main does.
    saveGateway: async (input: Record<string, unknown>) => {
      calls.push(`saveGateway ${JSON.stringify(input)}`);
      const { token: _t, password: _p, setupCode: _s, ...shown } = input;
      const gateways = (settings.gateways as Record<string, unknown>[]).map((g) => (g.id === input.id ? { ...g, ...shown } : g));
      settings = { ...settings, gateways };
      for (const l of settingsListeners) l(settings);
      return settings;
    },
    removeGateway: async () => settings,
    openExternal: async () => false,
    openPage: async (page: string) => {
      calls.push(`openPage ${page}`);
    },
    openNeed: async (need: { gatewayId: string; id: string }) => {
      calls.push(`openNeed ${need.gatewayId} ${need.id}`);
      return true;
    },
    answerNeed: async (need: unknown, answer: unknown) => {
      // Exactly what the page sent, in its own key order.
      calls.push(`answerNeed ${JSON.stringify(need)} ${JSON.stringify(answer)}`);
      const reply = control.answerReply;
      if (reply?.hold) await new Promise<void>((resolve) => (control.release = resolve));
      if (reply?.refuse !== undefined) throw new Error(reply.refuse);
      if (reply?.change) control.emit(reply.change);
      return null;
    },
    closePopover: async () => {
      calls.push("closePopover");
    },
    // The update verbs (U6): recorded; the state is what the snapshot and emitted changes say.
    checkForUpdates: async () => {
      calls.push("checkForUpdates");
      return (init.snapshot as { updates?: unknown }).updates ?? null;
    },
    installUpdate: async () => {
      calls.push("installUpdate");
      return true;
    },
    onChange: (l: (c: unknown) => void) => {
      changeListeners.add(l);
      return () => changeListeners.delete(l);
    },
    onSettings: (l: (s: unknown) => void) => {
      settingsListeners.add(l);
      return () => settingsListeners.delete(l);
    },
  };
  // Any other verb the page may grow is an error, not a silent success.
  w.progressDesk = new Proxy(w.progressDesk as object, {
    get(target, prop) {
      if (prop in target || typeof prop === "symbol" || prop === "then") return (target as Record<string | symbol, unknown>)[prop];
      return async () => {
        throw new Error(`fake desk: no ${String(prop)}`);
      };
    },
  });
}

export async function installFake(context: BrowserContext, snapshot: DeskSnapshot, settings: Settings): Promise<void> {
  await context.addInitScript(installFakeDesk, { snapshot, settings: settings as unknown as Record<string, unknown> });
}

/** How the FAKE desk replies to the next `answerNeed` calls. */
export async function setAnswerReply(page: Page, reply: FakeAnswerReply | null): Promise<void> {
  await page.evaluate((r) => void ((globalThis as unknown as FakeWindow).__fakeDesk!.answerReply = r), reply);
}

/** Lets an `answerNeed` call held by `{hold: true}` reply. */
export async function releaseAnswer(page: Page): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as FakeWindow).__fakeDesk!.release?.());
}

/** The verbs the page called on the FAKE desk that it records (openPage, openNeed, answerNeed, closePopover, updateSettings, saveGateway). */
export async function fakeCalls(page: Page): Promise<string[]> {
  return page.evaluate(() => [...(globalThis as unknown as FakeWindow).__fakeDesk!.calls]);
}

/** Sends a change as main would after `progressCard.changed`. */
export async function emitChange(page: Page, change: DeskChange): Promise<void> {
  await page.evaluate((c) => (globalThis as unknown as FakeWindow).__fakeDesk!.emit(c), change as unknown);
}
