// Issue 19, the "Needs you" section of the popover (and the dashboard) on a FAKE desk (test/browser/fake-desk.ts): the
// built page in real Chromium, light and dark, checked by axe-core; a 4 KB command shown whole
// and wrapped; a command full of terminal controls, bidi overrides and HTML shown as inert text;
// the keyboard (first entry focused, Enter opens its Control UI page, Escape closes the
// popover and answers nothing); an entry answered elsewhere leaving with its outcome; the card
// of that session saying it waits. Entries are hand-written (what the real Gateway sends is
// covered by test/e2e/needs-popover.test.ts). Needs `npm run build`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { DeskSnapshot, NeedEntry, NeedRecord } from "../../common/model.ts";
import { visibleText } from "../../common/needs-view.ts";
import { axeViolations, formatViolations } from "../e2e/axe.ts";
import { chromiumAvailable, launchChromium } from "./chromium.ts";
import { emitChange, FAKE_GW, fakeCalls, fakeSettings, fakeSnapshot, installFake, servePages, type FakeCard } from "./fake-desk.ts";
import type { StaticServer } from "./server.ts";

declare const document: any;
declare const getComputedStyle: (e: unknown) => Record<string, string>;

const chromium = chromiumAvailable();
const WAIT = { timeout: 15_000 };
const KEY = "agent:main:dashboard:deploy";
const HOSTILE = `<img src=x onerror="__xss('img')"><script>__xss('script')</script>\u001b[31mred\u001b[0m\r\u0007 \u202etxt.exe\u202c & "quoted" <b>bold</b>`;

function longCommand(): string {
  // 4096 characters: words and one long unbroken token, so wrapping has to break inside a word too.
  const head = `curl -fsSL https://example.invalid/${"a".repeat(600)} | `;
  let body = head;
  for (let i = 0; body.length < 4096; i++) body += `arg${i} `;
  return body.slice(0, 4095) + "!";
}

function exec(id: string, command: string, extra: Partial<NeedEntry> = {}): NeedEntry {
  const now = Date.now();
  return {
    gatewayId: FAKE_GW,
    id,
    kind: "exec",
    sessionKey: KEY,
    agentId: "main",
    runId: "run-1",
    toolCallId: `call-${id}`,
    command,
    cwd: "/srv/app",
    host: "gateway",
    title: null,
    description: null,
    questions: [],
    allowedDecisions: ["allow-once", "deny"],
    arrivedAt: now - 60_000,
    expiresAt: now + 24 * 60_000 + 30_000,
    linkPath: `/approve/${id}`,
    ...extra,
  };
}

const question: NeedEntry = {
  ...exec("ask_1", ""),
  kind: "question",
  command: null,
  cwd: null,
  host: null,
  allowedDecisions: [],
  sessionKey: "agent:main:main",
  arrivedAt: Date.now(),
  linkPath: "/ask/ask_1",
  questions: [
    {
      questionId: "q1",
      header: "Release",
      question: "Which channel should get the build?",
      options: [
        { label: "beta", description: "testers only" },
        { label: "stable", description: null },
      ],
      multiSelect: false,
      isOther: true,
    },
  ],
};

const card: FakeCard = {
  sessionKey: KEY,
  title: "Deploy web",
  updatedAt: Date.now() - 5000,
  steps: [{ step: "Build", status: "in_progress" }],
  running: true,
};

function snapshotWith(entries: NeedEntry[]): DeskSnapshot {
  const snap = fakeSnapshot([card]);
  snap.gateways[0]!.needs = { answering: "off", advice: null, entries };
  return snap;
}

describe("popover: Needs you (FAKE desk)", { skip: chromium.ok ? false : chromium.reason }, () => {
  let server: StaticServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    [server, browser] = await Promise.all([servePages(), launchChromium()]);
  });

  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.close();
  });

  async function open(entries: NeedEntry[], opts: { scheme?: "light" | "dark"; hash?: string; page?: "popover" | "dashboard" } = {}) {
    const context = await browser.newContext({
      viewport: { width: opts.page === "dashboard" ? 960 : 400, height: 900 },
      colorScheme: opts.scheme ?? "light",
      reducedMotion: "reduce",
    });
    contexts.push(context);
    await installFake(context, snapshotWith(entries), fakeSettings());
    // A tripwire: any script the command text managed to run would call it.
    await context.addInitScript(() => {
      const w = globalThis as unknown as { __xss: (s: string) => void; __xssCalls: string[] };
      w.__xssCalls = [];
      w.__xss = (s) => void w.__xssCalls.push(s);
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${server.origin}/${opts.page ?? "popover"}.html${opts.hash ?? ""}`);
    await page.locator("section.needs").waitFor(WAIT);
    return { page, errors };
  }

  const needItem = (page: Page, id: string) => page.locator(`li.need[data-need-key="${FAKE_GW}\u0001${id}"]`);

  for (const scheme of ["light", "dark"] as const) {
    test(`${scheme}: an approval and a question above the cards, with Gateway, session, command, folder, host, expiry and options; axe clean`, async () => {
      const { page, errors } = await open([exec("appr-1", "uname -s"), question], { scheme });
      const section = page.locator("section.needs");
      assert.equal((await section.locator("h2").textContent())?.replace(/\s+/g, " ").trim(), "Needs you 2");
      // The section comes before the cards.
      assert.equal(
        await page.evaluate(
          () => !!(document.querySelector("section.needs").compareDocumentPosition(document.querySelector("main.cards")) & 4),
        ),
        true,
      );
      const first = needItem(page, "appr-1");
      assert.equal(await first.locator(".gw").textContent(), "Studio");
      assert.equal(await first.locator(".kind").textContent(), "Command approval");
      assert.equal(await first.locator(".session").textContent(), "Deploy web");
      assert.equal(await first.locator("pre.command").textContent(), "uname -s");
      assert.match((await first.locator(".where").textContent()) ?? "", /in \/srv\/app\s+on gateway/);
      assert.equal(await first.locator(".expires").textContent(), "expires in 24 min");
      const q = needItem(page, "ask_1");
      assert.equal(await q.locator(".kind").textContent(), "Question");
      assert.equal(await q.locator(".what").textContent(), "Which channel should get the build?");
      assert.deepEqual(
        (await q.locator(".options li").allTextContents()).map((t) => t.trim()),
        ["beta — testers only", "stable", "Other (your own answer)"],
      );
      // The card of that session says it waits.
      assert.equal((await page.locator(".card .waiting").textContent())?.trim(), "Waiting for your approval");
      const violations = await axeViolations(page);
      assert.equal(violations.length, 0, formatViolations(`popover · ${scheme} · needs you`, violations));
      assert.deepEqual(errors, []);
    });
  }

  for (const scheme of ["light", "dark"] as const) {
    test(`dashboard, ${scheme}: the same section above the widgets; axe clean`, async () => {
      const { page, errors } = await open([exec("appr-1", HOSTILE), question], { scheme, page: "dashboard" });
      assert.equal(await needItem(page, "appr-1").locator("pre.command").textContent(), visibleText(HOSTILE));
      assert.equal(await page.locator("li.need").count(), 2);
      const violations = await axeViolations(page);
      assert.equal(violations.length, 0, formatViolations(`dashboard · ${scheme} · needs you`, violations));
      assert.deepEqual(await page.evaluate(() => (globalThis as any).__xssCalls), []);
      assert.deepEqual(errors, []);
    });
  }

  test("a 4 KB command is shown whole, wrapped inside the popover (no horizontal overflow, nothing cut)", async () => {
    const command = longCommand();
    assert.equal(command.length, 4096);
    const { page } = await open([exec("appr-long", command)]);
    const pre = needItem(page, "appr-long").locator("pre.command");
    assert.equal(await pre.textContent(), command);
    const box = await pre.evaluate((e: any) => ({
      scrollWidth: e.scrollWidth,
      clientWidth: e.clientWidth,
      scrollHeight: e.scrollHeight,
      clientHeight: e.clientHeight,
      right: e.getBoundingClientRect().right,
      whiteSpace: getComputedStyle(e).whiteSpace,
    }));
    assert.equal(box.whiteSpace, "pre-wrap");
    assert.ok(box.scrollWidth <= box.clientWidth, `no horizontal overflow (${box.scrollWidth} > ${box.clientWidth})`);
    assert.ok(box.scrollHeight <= box.clientHeight, "not clipped vertically either");
    assert.ok(box.right <= 400, `inside the popover's width (right edge at ${box.right})`);
  });

  test("a command full of controls, bidi overrides and HTML is inert text: nothing runs, no element is made, hidden characters show as signs", async () => {
    const { page, errors } = await open([exec("appr-x", HOSTILE, { cwd: "/tmp/<i>x</i>\u001b]0;t\u0007" })]);
    const item = needItem(page, "appr-x");
    const pre = item.locator("pre.command");
    assert.equal(await pre.textContent(), visibleText(HOSTILE));
    assert.match((await pre.textContent()) ?? "", /␛\[31mred␛\[0m␍␇ ⟨U\+202E⟩txt\.exe⟨U\+202C⟩/);
    assert.equal(await pre.evaluate((e: any) => e.children.length), 0, "the command made no element");
    assert.equal(await item.locator("img, script, b, i").count(), 0);
    assert.equal(
      await item.locator(".hint").first().textContent(),
      "This command holds hidden characters, shown here as signs (␛, ⟨U+…⟩).",
    );
    assert.equal(await item.locator(".where code").textContent(), "/tmp/<i>x</i>␛]0;t␇");
    assert.deepEqual(await page.evaluate(() => (globalThis as any).__xssCalls), []);
    assert.deepEqual(errors, []);
  });

  test("keyboard: the first entry's action has focus; Enter opens its Control UI page; Escape closes the popover and answers nothing", async () => {
    const { page } = await open([exec("appr-1", "uname -s"), question]);
    await page.waitForFunction(
      () => document.activeElement?.closest("li.need") !== null && document.activeElement?.tagName === "BUTTON",
      null,
      WAIT,
    );
    assert.equal((await page.evaluate(() => document.activeElement.textContent))?.trim(), "Review in Control UI");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), "Copy command");
    await page.keyboard.press("Tab");
    assert.equal((await page.evaluate(() => document.activeElement.textContent))?.trim(), "Answer in Control UI");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => true);
    assert.deepEqual(await fakeCalls(page), ["openNeed fake-gw appr-1", "closePopover"]);
  });

  test("#need= (tray row, notice click) focuses that entry", async () => {
    const hash = `#need=${encodeURIComponent(JSON.stringify({ gatewayId: FAKE_GW, id: "ask_1" }))}`;
    const { page } = await open([exec("appr-1", "uname -s"), question], { hash });
    await page.waitForFunction(() => document.activeElement?.closest("li.need")?.classList.contains("focused") === true, null, WAIT);
    assert.equal((await page.evaluate(() => document.activeElement.textContent))?.trim(), "Answer in Control UI");
  });

  test("an entry answered elsewhere leaves at once and shows its outcome for a moment; the card stops waiting", async () => {
    const entry = exec("appr-1", "uname -s");
    const { page } = await open([entry]);
    const record: NeedRecord = {
      gatewayId: FAKE_GW,
      id: "appr-1",
      kind: "exec",
      sessionKey: KEY,
      agentId: "main",
      summary: "uname -s",
      arrivedAt: entry.arrivedAt,
      endedAt: Date.now(),
      outcome: "allowed-once",
      resolvedBy: "Control UI",
      text: "allowed once in the Control UI",
    };
    await emitChange(page, {
      type: "needs",
      gatewayId: FAKE_GW,
      needs: { answering: "off", advice: null, entries: [] },
      event: { kind: "resolved", entry, record, answeredHere: false },
    });
    await page.locator("li.resolved").waitFor(WAIT);
    assert.equal(await page.locator("li.need").count(), 0);
    assert.deepEqual(await page.locator("li.resolved > span").allTextContents(), ["Studio", "uname -s", "allowed once in the Control UI"]);
    assert.equal(await page.locator(".card .waiting").count(), 0);
  });
});
