// Issue 19, the "Needs you" section of the popover (and the dashboard) on a FAKE desk (test/browser/fake-desk.ts): the
// built page in real Chromium, light and dark, checked by axe-core; a 4 KB command shown whole
// and wrapped; a command full of terminal controls, bidi overrides and HTML shown as inert text;
// the keyboard (first entry focused, Enter opens its Control UI page, Escape closes the
// popover and answers nothing); an entry answered elsewhere leaving with its outcome; the card
// of that session saying it waits. With answering on (Y13, Y14): exactly the allowed decisions,
// Allow always only behind a confirmation naming the command, question forms, what each sends
// to `answerNeed`, in-flight and refused answers, ⌘↩; off or refused, no answer control at all.
// Entries are hand-written (what the real Gateway sends, and answers from the page reaching the
// agent, are covered by test/e2e/needs-popover.test.ts). Needs `npm run build`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { DeskSnapshot, NeedEntry, NeedRecord, NeedsAnswering } from "../../common/model.ts";
import { visibleText } from "../../common/needs-view.ts";
import { axeViolations, formatViolations } from "../e2e/axe.ts";
import { chromiumAvailable } from "./chromium.ts";
import {
  emitChange,
  FAKE_GW,
  fakeCalls,
  fakeSettings,
  fakeSnapshot,
  installFake,
  releaseAnswer,
  setAnswerReply,
  type FakeCard,
} from "./fake-desk.ts";
import { pageSuite } from "./page-suite.ts";

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
    // Older than the questions below (made when this file loads): approvals come first.
    arrivedAt: now - 2 * 3_600_000,
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

function snapshotWith(entries: NeedEntry[], answering: NeedsAnswering = "off", advice: string | null = null): DeskSnapshot {
  const snap = fakeSnapshot([card]);
  snap.gateways[0]!.needs = { answering, advice, entries };
  return snap;
}

describe("popover: Needs you (FAKE desk)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const pages = pageSuite();

  async function open(
    entries: NeedEntry[],
    opts: {
      scheme?: "light" | "dark";
      hash?: string;
      page?: "popover" | "dashboard";
      answering?: NeedsAnswering;
      advice?: string;
    } = {},
  ) {
    const context = await pages.newContext({
      viewport: { width: opts.page === "dashboard" ? 960 : 400, height: 900 },
      colorScheme: opts.scheme ?? "light",
      reducedMotion: "reduce",
    });
    await installFake(context, snapshotWith(entries, opts.answering, opts.advice ?? null), fakeSettings());
    // A tripwire: any script the command text managed to run would call it.
    await context.addInitScript(() => {
      const w = globalThis as unknown as { __xss: (s: string) => void; __xssCalls: string[] };
      w.__xssCalls = [];
      w.__xss = (s) => void w.__xssCalls.push(s);
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${pages.origin}/${opts.page ?? "popover"}.html${opts.hash ?? ""}`);
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

  // ——— answering from the page (Y13, Y14): the page sends only which entry and the answer ———

  const ALL: NeedEntry["allowedDecisions"] = ["allow-once", "allow-always", "deny"];
  const multi: NeedEntry = {
    ...question,
    id: "ask_2",
    linkPath: "/ask/ask_2",
    questions: [
      {
        questionId: "targets",
        header: "Targets",
        question: "Which platforms?",
        options: [
          { label: "mac", description: null },
          { label: "linux", description: null },
          { label: "windows", description: null },
        ],
        multiSelect: true,
        isOther: false,
      },
    ],
  };
  const answerCalls = async (page: Page) => (await fakeCalls(page)).filter((c) => c.startsWith("answerNeed "));
  const call = (id: string, answer: unknown) => `answerNeed ${JSON.stringify({ gatewayId: FAKE_GW, id })} ${JSON.stringify(answer)}`;
  /** Waits until the FAKE desk has recorded `n` answerNeed calls. */
  const answered = (page: Page, n: number) =>
    page.waitForFunction(
      (count) => (globalThis as any).__fakeDesk.calls.filter((c: string) => c.startsWith("answerNeed ")).length >= count,
      n,
      WAIT,
    );

  for (const scheme of ["light", "dark"] as const) {
    test(`${scheme}, answering on: decisions, the Allow always confirmation and a question's form; axe clean`, async () => {
      const { page, errors } = await open([exec("appr-1", "uname -s", { allowedDecisions: ALL }), question, multi], {
        scheme,
        answering: "on",
      });
      const item = needItem(page, "appr-1");
      // The first entry's primary action, Allow once, has focus when the popover opens.
      await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Allow once: uname -s", null, WAIT);
      assert.deepEqual(
        (await item.locator(".decisions button").allTextContents()).map((t) => t.trim()),
        ["Allow once", "Deny", "Allow always…"],
      );
      // Copy and the Control UI link stay, second.
      assert.equal(await item.getByRole("button", { name: "Copy command" }).count(), 1);
      assert.equal(await item.getByRole("button", { name: /Review in Control UI/ }).count(), 1);
      await item.getByRole("button", { name: "Allow always: uname -s" }).click();
      await item.locator(".confirm").waitFor(WAIT);
      assert.equal(await needItem(page, "ask_1").getByRole("button", { name: "Send answer" }).isDisabled(), true);
      const violations = await axeViolations(page);
      assert.equal(violations.length, 0, formatViolations(`popover · ${scheme} · answering`, violations));
      assert.deepEqual(errors, []);
      assert.deepEqual(await answerCalls(page), [], "showing the controls answers nothing");
    });
  }

  test("dashboard, answering on: the same answer controls, axe clean", async () => {
    const { page, errors } = await open([exec("appr-1", "uname -s", { allowedDecisions: ALL }), question], {
      scheme: "dark",
      page: "dashboard",
      answering: "on",
    });
    await needItem(page, "appr-1").getByRole("button", { name: "Allow once: uname -s" }).click();
    await answered(page, 1);
    assert.deepEqual(await answerCalls(page), [call("appr-1", { kind: "exec", decision: "allow-once" })]);
    const violations = await axeViolations(page);
    assert.equal(violations.length, 0, formatViolations("dashboard · dark · answering", violations));
    assert.deepEqual(errors, []);
  });

  test("each decision sends exactly {gatewayId, id} and {kind, decision}; a decision the Gateway does not allow has no button", async () => {
    const plugin: NeedEntry = {
      ...exec("plugin:p1", ""),
      kind: "plugin",
      command: null,
      cwd: null,
      host: null,
      title: "Post to the team channel",
      description: "The slack plugin wants to send a message.",
      allowedDecisions: ["deny"],
      arrivedAt: Date.now(),
    };
    const { page } = await open([exec("appr-1", "uname -s"), exec("appr-2", "uname -m", { arrivedAt: Date.now() - 1000 }), plugin], {
      answering: "on",
    });
    const first = needItem(page, "appr-1");
    // ["allow-once", "deny"]: no Allow always at all.
    assert.equal(await first.getByRole("button", { name: /Allow always/ }).count(), 0);
    // ["deny"] only: no Allow once, and Deny is its first action.
    assert.equal(
      await needItem(page, "plugin:p1")
        .getByRole("button", { name: /Allow once/ })
        .count(),
      0,
    );
    assert.equal(
      await needItem(page, "plugin:p1")
        .getByRole("button", { name: /Allow always/ })
        .count(),
      0,
    );
    await first.getByRole("button", { name: "Allow once: uname -s" }).click();
    await answered(page, 1);
    await needItem(page, "appr-2").getByRole("button", { name: "Deny: uname -m" }).click();
    await answered(page, 2);
    await needItem(page, "plugin:p1").getByRole("button", { name: "Deny: Post to the team channel" }).click();
    await answered(page, 3);
    assert.deepEqual(await answerCalls(page), [
      call("appr-1", { kind: "exec", decision: "allow-once" }),
      call("appr-2", { kind: "exec", decision: "deny" }),
      call("plugin:p1", { kind: "plugin", decision: "deny" }),
    ]);
  });

  test("Allow always asks first, naming the whole command as inert monospace text; Cancel and Escape send nothing; Confirm sends allow-always", async () => {
    const { page, errors } = await open([exec("appr-x", HOSTILE, { allowedDecisions: ALL })], { answering: "on" });
    const item = needItem(page, "appr-x");
    const always = item.getByRole("button", { name: /^Allow always: / });
    await always.click();
    const confirm = item.locator(".confirm");
    await confirm.waitFor(WAIT);
    assert.equal(await confirm.locator("code").textContent(), visibleText(HOSTILE), "the whole command, shown as signs");
    assert.equal(await confirm.locator("code").evaluate((e: any) => (getComputedStyle(e).fontFamily ?? "").includes("monospace")), true);
    assert.equal(
      (await confirm.locator("p").textContent())?.replace(/\s+/g, " ").trim(),
      `Always allow ${visibleText(HOSTILE).replace(/\s+/g, " ")} on Studio? Future runs of it will not ask.`,
    );
    assert.equal(await confirm.locator("img, script, b").count(), 0);
    // Cancel: the confirmation closes, nothing sent.
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached", ...WAIT });
    // Escape inside the confirmation closes the confirmation only: the popover stays open.
    await always.click();
    await confirm.waitFor(WAIT);
    await page.keyboard.press("Escape"); // focus is on its Cancel
    await confirm.waitFor({ state: "detached", ...WAIT });
    assert.deepEqual(await fakeCalls(page), [], "no answer, no closePopover");
    await always.click();
    await confirm.getByRole("button", { name: "Confirm" }).click();
    await answered(page, 1);
    assert.deepEqual(await answerCalls(page), [call("appr-x", { kind: "exec", decision: "allow-always" })]);
    assert.deepEqual(await page.evaluate(() => (globalThis as any).__xssCalls), []);
    assert.deepEqual(errors, []);
  });

  test("questions: a single choice, an own answer (Other), several choices, and Cancel question send the right answers; Send waits for every answer", async () => {
    const { page } = await open([question, multi], { answering: "on" });
    const single = needItem(page, "ask_1");
    const send = single.getByRole("button", { name: "Send answer" });
    assert.equal(await send.isDisabled(), true, "nothing chosen yet");
    // The question's first option is its first action.
    await page.waitForFunction(() => document.activeElement?.closest("li.need")?.dataset.needKey?.endsWith("ask_1") === true, null, WAIT);
    await single.getByRole("radio", { name: /stable/ }).check();
    assert.equal(await send.isDisabled(), false);
    await send.click();
    await answered(page, 1);
    // An own answer: typing chooses Other; surrounding spaces are not sent.
    await single.getByRole("textbox", { name: "Your own answer to: Which channel should get the build?" }).fill("  nightly ");
    assert.equal(await single.getByRole("radio", { name: "Other" }).isChecked(), true);
    assert.equal(await single.getByRole("radio", { name: /stable/ }).isChecked(), false, "one answer for a single choice");
    await send.click();
    await answered(page, 2);
    // Back to an option: the own answer, still typed, is no longer the answer.
    await single.getByRole("radio", { name: /beta/ }).check();
    await send.click();
    await answered(page, 3);
    const several = needItem(page, "ask_2");
    assert.equal(await several.getByRole("textbox").count(), 0, "no own answer where the question allows none");
    await several.getByRole("checkbox", { name: "mac" }).check();
    await several.getByRole("checkbox", { name: "windows" }).check();
    await several.getByRole("button", { name: "Send answer" }).click();
    await answered(page, 4);
    await several.getByRole("button", { name: "Cancel question at the Gateway: Which platforms?" }).click();
    await answered(page, 5);
    assert.deepEqual(await answerCalls(page), [
      call("ask_1", { kind: "question", answers: { q1: ["stable"] } }),
      call("ask_1", { kind: "question", answers: { q1: ["nightly"] } }),
      call("ask_1", { kind: "question", answers: { q1: ["beta"] } }),
      call("ask_2", { kind: "question", answers: { targets: ["mac", "windows"] } }),
      call("ask_2", { kind: "question", cancel: true }),
    ]);
  });

  test("while an answer is on its way its buttons wait and say Sending…; a refusal is shown in the entry; an accepted one leaves with its outcome", async () => {
    const entry = exec("appr-1", "uname -s");
    const { page } = await open([entry], { answering: "on" });
    const item = needItem(page, "appr-1");
    const allow = item.getByRole("button", { name: "Allow once: uname -s" });
    await setAnswerReply(page, { hold: true, refuse: "This request is no longer pending: it was answered elsewhere or has expired." });
    await allow.click();
    await item.getByRole("status").filter({ hasText: "Sending…" }).waitFor(WAIT);
    assert.equal(await allow.isDisabled(), true);
    assert.equal(await item.getByRole("button", { name: "Deny: uname -s" }).isDisabled(), true);
    await allow.click({ force: true }); // a second press while in flight sends nothing more
    await releaseAnswer(page);
    const alert = item.getByRole("alert");
    await alert.waitFor(WAIT);
    assert.equal(await alert.textContent(), "This request is no longer pending: it was answered elsewhere or has expired.");
    assert.equal(await allow.isDisabled(), false);
    assert.equal((await answerCalls(page)).length, 1);
    // Accepted: the core emits the resolved change; the entry leaves and its outcome shows.
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
      resolvedBy: null,
      text: "allowed once in Progress Desk",
    };
    await setAnswerReply(page, {
      change: {
        type: "needs",
        gatewayId: FAKE_GW,
        needs: { answering: "on", advice: null, entries: [] },
        event: { kind: "resolved", entry, record, answeredHere: true },
      },
    });
    await allow.click();
    await item.waitFor({ state: "detached", ...WAIT });
    assert.equal(await page.locator("li.resolved .outcome").textContent(), "allowed once in Progress Desk");
  });

  test("keyboard: when the answered entry leaves, focus moves to the next entry's first action, not to the page", async () => {
    const first = exec("appr-1", "uname -s");
    const { page } = await open([first, exec("appr-2", "uname -m", { arrivedAt: Date.now() - 1000 })], { answering: "on" });
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Allow once: uname -s", null, WAIT);
    const second = exec("appr-2", "uname -m", { arrivedAt: Date.now() - 1000 });
    const record: NeedRecord = {
      gatewayId: FAKE_GW,
      id: "appr-1",
      kind: "exec",
      sessionKey: KEY,
      agentId: "main",
      summary: "uname -s",
      arrivedAt: first.arrivedAt,
      endedAt: Date.now(),
      outcome: "allowed-once",
      resolvedBy: null,
      text: "allowed once in Progress Desk",
    };
    await setAnswerReply(page, {
      change: {
        type: "needs",
        gatewayId: FAKE_GW,
        needs: { answering: "on", advice: null, entries: [second] },
        event: { kind: "resolved", entry: first, record, answeredHere: true },
      },
    });
    await page.keyboard.press("Enter");
    await needItem(page, "appr-1").waitFor({ state: "detached", ...WAIT });
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Allow once: uname -m", null, WAIT);
    assert.deepEqual(await answerCalls(page), [call("appr-1", { kind: "exec", decision: "allow-once" })]);
  });

  test("keyboard, answering on: ⌘↩ (Ctrl+Enter off macOS) allows once the focused entry, or the first; not where Allow once is not offered; Escape closes and answers nothing", async () => {
    const denyOnly = exec("appr-0", "rm -rf build", { allowedDecisions: ["deny"], arrivedAt: Date.now() - 3 * 3_600_000 });
    const { page } = await open([denyOnly, exec("appr-1", "uname -s"), exec("appr-2", "uname -m", { arrivedAt: Date.now() - 1000 })], {
      answering: "on",
    });
    // The first entry offers only Deny, which has focus: ⌘↩ there does nothing.
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Deny: rm -rf build", null, WAIT);
    await page.keyboard.press("ControlOrMeta+Enter");
    // Tab order is the page's: the next control is the entry's Control UI link, then Copy, then the next entry's Allow once.
    await page.keyboard.press("Tab");
    assert.match((await page.evaluate(() => document.activeElement.textContent)) ?? "", /Review in Control UI/);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), "Allow once: uname -s");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), "Allow once: uname -m");
    await page.keyboard.press("ControlOrMeta+Enter");
    await answered(page, 1);
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => (globalThis as any).__fakeDesk.calls.includes("closePopover"), null, WAIT);
    assert.deepEqual(await fakeCalls(page), [call("appr-2", { kind: "exec", decision: "allow-once" }), "closePopover"]);
  });

  test("keyboard: with nothing focused, ⌘↩ allows once the first approval; Escape alone never answers", async () => {
    const { page } = await open([exec("appr-1", "uname -s"), question], { answering: "on" });
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Allow once: uname -s", null, WAIT);
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => (globalThis as any).__fakeDesk.calls.includes("closePopover"), null, WAIT);
    assert.deepEqual(await fakeCalls(page), ["closePopover"], "closing is never a denial");
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press("ControlOrMeta+Enter");
    await answered(page, 1);
    assert.deepEqual(await answerCalls(page), [call("appr-1", { kind: "exec", decision: "allow-once" })]);
  });

  for (const answering of ["off", "refused"] as const) {
    test(`answering ${answering}: no answer control at all, only the Control UI link (and Copy)${answering === "refused" ? "; the advice shown once" : ""}`, async () => {
      const advice = "The Gateway did not grant the approvals scope: approve the pairing request, or answer in the Control UI.";
      const { page } = await open([exec("appr-1", "uname -s", { allowedDecisions: ALL }), question, multi], { answering, advice });
      assert.equal(await page.locator("li.need").count(), 3);
      assert.equal(await page.getByRole("button", { name: /Allow|Deny|Send|Cancel question/ }).count(), 0);
      assert.equal(await page.locator("li.need input, li.need form").count(), 0);
      assert.equal(
        await needItem(page, "appr-1")
          .getByRole("button", { name: /Review in Control UI/ })
          .count(),
        1,
      );
      assert.equal(await needItem(page, "appr-1").getByRole("button", { name: "Copy command" }).count(), 1);
      assert.equal(
        await needItem(page, "ask_1")
          .getByRole("button", { name: /Answer in Control UI/ })
          .count(),
        1,
      );
      const shownAdvice = page.locator("section.needs").getByText(advice, { exact: true });
      assert.equal(await shownAdvice.count(), answering === "refused" ? 1 : 0, "the advice, once, only when refused");
      if (answering === "refused") assert.equal(await shownAdvice.isVisible(), true);
      await page.keyboard.press("ControlOrMeta+Enter");
      await page.keyboard.press("Escape");
      await page.waitForFunction(() => (globalThis as any).__fakeDesk.calls.includes("closePopover"), null, WAIT);
      assert.deepEqual(await answerCalls(page), []);
    });
  }

  test("a waiting run (answering on) has only its Control UI link", async () => {
    // Even one that claims decisions: the desk cannot see the request it would answer.
    const waiting: NeedEntry = { ...exec("appr-w", ""), kind: "waiting", command: null, cwd: null, host: null, allowedDecisions: ALL };
    const { page } = await open([waiting], { answering: "on" });
    const item = needItem(page, "appr-w");
    assert.deepEqual(
      (await item.getByRole("button").allTextContents()).map((t) => t.trim()),
      ["Review in Control UI"],
    );
  });
});
