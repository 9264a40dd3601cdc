// Accessibility of the three pages, checked by axe-core (WCAG 2.1 A and AA) in real Chromium, in
// light and dark, with real cards written through a real Gateway: paused, complete and note-only
// cards, the dismiss question, Gateway labels, offline cards and the connection banners.
// Two states come from FAKE Gateways, because the test Gateway runs single-user (shared token
// on loopback): there every paired operator gets both scopes and reaches every session, and a
// loopback device is paired silently. So "limited access" + "no access" (participation denied)
// come from one fake, "approve this device" from another; everything else is the real Gateway.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { chromiumAvailable, launchChromiumBeside } from "../browser/chromium.ts";
import { FAKE_GW, fakeSettings, fakeSnapshot, installFake, servePages, type FakeCard } from "../browser/fake-desk.ts";
import type { StaticServer } from "../browser/server.ts";
import { clickWhenSteady } from "../browser/steady-layout.ts";
import { card as fakeCard, helloOk, startFakeGateway, type FakeGateway } from "../faults/fake-gateway.ts";
import type { BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { until } from "../harness/until.ts";
import { plan } from "../gateway/support.ts";
import { axeViolations, formatViolations } from "./axe.ts";
import { card, E2eRig, type TestHost } from "./support.ts";

type PageName = "popover" | "dashboard" | "settings";
type Scheme = "light" | "dark";

const chromium = chromiumAvailable();
const SCHEMES: Scheme[] = ["light", "dark"];
const WAIT = { timeout: 30_000 };

let gw: TestGateway;
let agent: BareClient;
let th: TestHost;
let browser: Browser;
const fakes: FakeGateway[] = [];
/** The real Gateway's cards: one per state the card view knows. */
const keys = { paused: "", complete: "", note: "", timedPaused: "", timedComplete: "" };

// Sessions on the fake "Lab" Gateway: one it shares, one it denies this device (P4 "no access").
const LAB_OPEN = "agent:main:dashboard:0f0e0d0c-0b0a-4908-8706-050403020100";
const LAB_DENIED = "agent:main:dashboard:1f1e1d1c-1b1a-4918-8716-151413121110";

const pageUrl = (name: PageName) => th.host.pageUrl(name);

/** Runs axe on the page as it is now; `label` names the state in the report. */
type Check = (label: string) => Promise<void>;

/**
 * Opens `url`, the page `name`, in `scheme` in a context of its own (which `prepare` may set up
 * first), under the pages' own CSP (axe is evaluated through DevTools). `states` brings the page
 * into each state and checks it; returns the violations and page errors as readable text
 * (none: empty). `where` names the run in the page-error line.
 */
async function auditIn(
  inBrowser: Browser,
  name: PageName,
  scheme: Scheme,
  where: string,
  url: string,
  states: (page: Page, check: Check) => Promise<void>,
  prepare?: (context: BrowserContext) => Promise<void>,
): Promise<string[]> {
  const context = await inBrowser.newContext({
    viewport: { width: name === "popover" ? 400 : 960, height: 900 },
    colorScheme: scheme,
    // No transition is caught half way (a colour mid-fade is no colour the person sees at rest).
    reducedMotion: "reduce",
  });
  await prepare?.(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const found: string[] = [];
  const check = async (label: string) => {
    const violations = await axeViolations(page);
    if (violations.length > 0) found.push(formatViolations(`${name} · ${scheme} · ${label}`, violations));
  };
  try {
    await page.goto(url);
    await states(page, check);
    if (errors.length > 0) found.push(`${where}: page errors: ${errors.join("; ")}`);
  } finally {
    await context.close();
  }
  return found;
}

/**
 * Opens `name` from the real desk in `scheme`, waits for `ready`, checks it as `state`; `more`
 * brings the same page into further states and checks each.
 */
async function audit(
  name: PageName,
  scheme: Scheme,
  state: string,
  ready: (page: Page) => Promise<void>,
  more?: (page: Page, check: Check) => Promise<void>,
): Promise<string[]> {
  return auditIn(browser, name, scheme, `${name} · ${scheme} · ${state}`, pageUrl(name), async (page, check) => {
    await ready(page);
    await check(state);
    if (more) await more(page, check);
  });
}

function assertNone(found: string[]): void {
  if (found.length > 0) assert.fail(`WCAG 2.1 A/AA violations (axe-core):\n${found.join("\n")}`);
}

async function showFinished(page: Page): Promise<void> {
  await page.getByRole("checkbox", { name: "Show finished" }).check();
}

describe("accessibility: axe-core, WCAG 2.1 A/AA", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig();
  before(async () => {
    ({ gw, browser, client: agent, th } = await rig.start());
    keys.paused = await agent.createSession();
    keys.complete = await agent.createSession();
    keys.note = await agent.createSession();
    // No run is active, so a card with a step in progress reads as paused.
    await agent.put(keys.paused, {
      markdown:
        '<progress aria-label="Checks · 1/3" value="1" max="3"></progress>\n\n' +
        "Running **checks** — see [the log](https://example.com/log).",
      plan: plan("completed", "in_progress", "pending"),
    });
    await agent.put(keys.complete, { plan: plan("completed", "completed") });
    // Issue 12: two cards whose steps the desk saw one by one, so the dashboard draws their
    // timelines (a paused one with a step not running, a complete one) and lists the finished one.
    keys.timedPaused = await agent.createSession();
    keys.timedComplete = await agent.createSession();
    const gatewayId = th.desk.gatewayIds()[0]!;
    const seen = async (key: string, revision: number) =>
      until(`revision ${revision} seen`, () => th.desk.entry(gatewayId, key)?.card?.revision === revision, 30_000);
    for (const [key, plans] of [
      [keys.timedPaused, [plan("in_progress", "pending", "pending"), plan("completed", "in_progress", "pending")]],
      [keys.timedComplete, [plan("in_progress", "pending"), plan("completed", "in_progress"), plan("completed", "completed")]],
    ] as const) {
      for (const p of plans) await seen(key, (await agent.put(key, { plan: [...p] })).card!.revision);
    }
    await agent.put(keys.note, {
      markdown: "## Release notes\n\nDrafted with `npm run notes`; waiting for a review.\n\n- first\n- second",
    });
  });

  after(async () => {
    await rig.stop();
    for (const f of fakes) await f.close();
  });

  test("one Gateway, live: paused, complete and note-only cards, the dismiss question", async () => {
    const gatewayId = th.desk.gatewayIds()[0]!;
    th.settings.update({ pinned: Object.values(keys).map((k) => `${gatewayId}\u0000${k}`) });
    const cardsShown = async (page: Page) => {
      for (const k of Object.values(keys)) await card(page, k).locator(".sub-text").waitFor(WAIT);
    };
    const found: string[] = [];
    for (const scheme of SCHEMES) {
      found.push(
        ...(await audit("popover", scheme, "live cards", cardsShown, async (page, check) => {
          const c = card(page, keys.paused);
          await c.locator("button.dismiss").click();
          await c.getByRole("group", { name: "Clear saved progress" }).waitFor();
          await check("dismiss question");
          await c.getByRole("button", { name: "Keep", exact: true }).click();
        })),
        ...(await audit("dashboard", scheme, "live widgets, timelines, finished in the last day", async (page) => {
          await showFinished(page);
          await cardsShown(page);
          for (const k of [keys.timedPaused, keys.timedComplete]) await card(page, k).getByRole("list", { name: "Timeline" }).waitFor(WAIT);
          await page.getByRole("heading", { name: "Finished in the last day" }).waitFor(WAIT);
        })),
        ...(await audit(
          "settings",
          scheme,
          "one Gateway connected",
          async (page) => {
            await page.getByText(/: connected\./).waitFor(WAIT);
          },
          async (page, check) => {
            await page.getByRole("button", { name: "Add Gateway…" }).click();
            await page.getByRole("form", { name: "Add a Gateway" }).waitFor();
            await check("the Add Gateway form");
          },
        )),
      );
    }
    assertNone(found);
  });

  test("four Gateways: labels, limited access, no access, pairing and a refused sign-in banner", async () => {
    let deny = false;
    const lab = await startFakeGateway({
      // FAKE: read only, so the core shows "limited access".
      onConnect: () => ({ ok: true, payload: helloOk({ auth: { role: "operator", scopes: ["operator.read"] } }) }),
      handle: (req) => {
        if (req.method === "sessions.subscribe") {
          const label = (key: string) => (key === LAB_OPEN ? "Nightly build" : "Private review");
          const sessions = [LAB_OPEN, LAB_DENIED].map((key) => ({ key, label: label(key), updatedAt: Date.now() }));
          return { ok: true, payload: { subscribed: true, list: { sessions } } };
        }
        if (req.method !== "progressCard.get") return undefined;
        if (req.params.sessionKey === LAB_DENIED) {
          // FAKE: participation denied (P4), as a multi-user Gateway answers once a session is no longer shared.
          if (deny) {
            return {
              ok: false,
              error: { code: "INVALID_REQUEST", message: "participation required", details: { code: "SESSION_PARTICIPATION_REQUIRED" } },
            };
          }
          return { ok: true, payload: { card: fakeCard(LAB_DENIED, 1, { markdown: "Reviewing" }) } };
        }
        const steps = [
          { step: "Compile", status: "completed" },
          { step: "Package", status: "in_progress" },
        ];
        return { ok: true, payload: { card: fakeCard(LAB_OPEN, 3, { markdown: "Building **nightly**", steps }) } };
      },
    });
    fakes.push(lab);
    // FAKE: a device that must be approved on the Gateway host (never the case on loopback).
    const remote = await startFakeGateway({
      onConnect: () => ({
        ok: false,
        error: {
          code: "NOT_PAIRED",
          message: "pairing required",
          details: { code: "PAIRING_REQUIRED", reason: "not-paired", requestId: "req-a11y" },
        },
      }),
    });
    fakes.push(remote);

    th.settings.saveGateway({ label: "Studio", color: "#30b94d", url: `ws://127.0.0.1:${gw.port}`, token: gw.token });
    th.settings.saveGateway({ label: "Lab", color: "#bf5af2", url: lab.url, token: "f".repeat(64) });
    th.settings.saveGateway({ label: "Remote", color: "#ff9f0a", url: remote.url, token: "f".repeat(64) });
    // The real Gateway, with a token it does not know: it refuses the sign-in.
    th.settings.saveGateway({ label: "Old key", color: "#0a84ff", url: `ws://localhost:${gw.port}`, token: "0".repeat(64) });
    const ids = Object.fromEntries(th.settings.view().gateways.map((g) => [g.label, g.id]));
    th.settings.update({
      pinned: [...Object.values(keys).map((k) => `${ids.Studio}\u0000${k}`), ...[LAB_OPEN, LAB_DENIED].map((k) => `${ids.Lab}\u0000${k}`)],
    });
    th.desk.configure(th.settings.gatewayConfigs());
    // The denied session was shared at first; then access is withdrawn and the next read is refused.
    await until("the Lab card to load", () => th.desk.entry(ids.Lab!, LAB_DENIED)?.card != null, 30_000);
    deny = true;
    lab.socket()!.event("progressCard.changed", { sessionKey: LAB_DENIED, revision: 2 });
    await until("the Lab card to be hidden (no access)", () => th.desk.entry(ids.Lab!, LAB_DENIED)?.hidden === true, 30_000);

    const banners = async (page: Page) => {
      await page.getByText("Limited access to Lab").first().waitFor(WAIT);
      await page.getByText("Approve this device on Remote").first().waitFor(WAIT);
      await page
        .getByText(/Old key refused the sign-in/)
        .first()
        .waitFor(WAIT);
    };
    const found: string[] = [];
    for (const scheme of SCHEMES) {
      found.push(
        ...(await audit("popover", scheme, "four Gateways", async (page) => {
          for (const k of [...Object.values(keys), LAB_OPEN]) await card(page, k).locator(".gw").waitFor(WAIT);
          await banners(page);
        })),
        ...(await audit("dashboard", scheme, "four Gateways, no access", async (page) => {
          await showFinished(page);
          await page.locator('article.placeholder[data-state="no_access"]').waitFor(WAIT);
          for (const k of [...Object.values(keys), LAB_OPEN]) await card(page, k).waitFor(WAIT);
          await banners(page);
        })),
        ...(await audit("settings", scheme, "four Gateways", async (page) => {
          for (const label of ["Studio", "Lab", "Remote", "Old key"]) {
            await page.locator("li.gw", { hasText: label }).locator(".gw-state").waitFor(WAIT);
          }
          await page.locator('li.gw .gw-state[data-state="auth_failed"]').waitFor(WAIT);
          await page.locator('li.gw .gw-state[data-state="pairing_required"]').waitFor(WAIT);
          await page.locator("li.gw", { hasText: "Studio" }).locator('.gw-state[data-state="connected"]').waitFor(WAIT);
        })),
      );
    }
    assertNone(found);
  });

  test("the Gateway stops: offline cards and the offline banner", async () => {
    await gw.stop("SIGTERM");
    const offline = async (page: Page) => {
      for (const k of Object.values(keys))
        await card(page, k)
          .getByText(/Offline — last confirmed \d/)
          .waitFor(WAIT);
      await page.getByText("Studio is offline").first().waitFor(WAIT);
    };
    const found: string[] = [];
    for (const scheme of SCHEMES) {
      found.push(
        ...(await audit("popover", scheme, "offline", offline)),
        ...(await audit("dashboard", scheme, "offline", async (page) => {
          await showFinished(page);
          await offline(page);
        })),
        ...(await audit("settings", scheme, "offline", async (page) => {
          await page.locator("li.gw", { hasText: "Studio" }).locator('.gw-state[data-state="offline"]').waitFor(WAIT);
        })),
      );
    }
    assertNone(found);
  });
});

// Issue 11: the popover's folded groups and the dashboard's sections at scale. On a FAKE desk
// (test/browser/fake-desk.ts): cards finished or paused days ago cannot be written through the
// real Gateway, which stamps the time itself.
describe(
  "accessibility at scale: popover groups and dashboard sections (FAKE desk)",
  { skip: chromium.ok ? false : chromium.reason },
  () => {
    const DAY = 24 * 60 * 60_000;
    let server: StaticServer;
    let fakeBrowser: Browser;

    function scaleCards(): FakeCard[] {
      const now = Date.now();
      const out: FakeCard[] = [];
      const step = (status: "completed" | "in_progress" | "pending", i: number) => ({ step: `Step ${i + 1}`, status });
      for (let i = 0; i < 10; i++) {
        const main = `agent:main:main:m${i}`;
        out.push({
          sessionKey: main,
          title: `Release ${i}`,
          kind: "main",
          updatedAt: now - i * 1000,
          running: true,
          steps: [step("completed", 0), step("in_progress", 1)],
        });
        out.push({
          sessionKey: `agent:main:subagent:m${i}-s`,
          title: `Check ${i}`,
          kind: "subagent",
          parentKey: main,
          updatedAt: now - i * 1000,
          running: true,
          steps: [step("in_progress", 0)],
        });
      }
      for (let i = 0; i < 12; i++)
        out.push({
          sessionKey: `agent:main:cron:f${i}`,
          title: `Finished ${i}`,
          kind: "cron",
          updatedAt: now - 3 * DAY - i,
          steps: [step("completed", 0)],
        });
      for (let i = 0; i < 30; i++) {
        out.push({
          sessionKey: `agent:main:dashboard:p${i}`,
          title: `Paused ${i}`,
          updatedAt: now - 2 * DAY - i,
          steps: [step("completed", 0), step("in_progress", 1), step("pending", 2)],
        });
      }
      return out;
    }

    before(async () => {
      [server, fakeBrowser] = await launchChromiumBeside(servePages(), (s) => s.close());
    });

    after(async () => {
      await fakeBrowser?.close();
      await server?.close();
    });

    async function auditFake(
      name: "popover" | "dashboard",
      scheme: Scheme,
      states: (page: Page, check: Check) => Promise<void>,
    ): Promise<string[]> {
      const all = scaleCards();
      return auditIn(fakeBrowser, name, scheme, `${name} · ${scheme}`, `${server.origin}/${name}.html`, states, (context) =>
        installFake(context, fakeSnapshot(all), fakeSettings({ pinned: all.map((c) => `${FAKE_GW}\u0000${c.sessionKey}`) })),
      );
    }

    test("popover groups closed and open; dashboard sections, sub-agent headers and a filter", async () => {
      const found: string[] = [];
      for (const scheme of SCHEMES) {
        found.push(
          ...(await auditFake("popover", scheme, async (page, check) => {
            const toggle = (id: string) => page.locator(`[data-group="${id}"] button.group-toggle`);
            await toggle("idle").waitFor(WAIT);
            await check("groups closed");
            await clickWhenSteady(toggle("finished"));
            await page.locator('[data-group="finished"] article.card').first().waitFor(WAIT);
            await toggle("idle").focus();
            await check("finished group open, idle header focused");
            await clickWhenSteady(toggle("idle"));
            await page.locator('[data-group="idle"] article.card').first().waitFor(WAIT);
            await check("both groups open");
          })),
          ...(await auditFake("dashboard", scheme, async (page, check) => {
            await showFinished(page);
            await page.locator('section.kind-section[data-kind="cron"] h2').waitFor(WAIT);
            await check("sections with sub-agents");
            await page.getByRole("searchbox", { name: "Filter" }).fill("check 3");
            await page.locator('section.kind-section[data-kind="main"] h2', { hasText: "of" }).waitFor(WAIT);
            await check("filtered");
            await page.getByRole("searchbox", { name: "Filter" }).fill("nothing like this");
            await page.getByRole("status").filter({ hasText: "No pinned card matches" }).waitFor(WAIT);
            await check("filter matches nothing");
          })),
        );
      }
      assertNone(found);
    });
  },
);
