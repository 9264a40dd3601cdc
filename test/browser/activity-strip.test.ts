// Issue 19, the activity strip tidied, on a FAKE desk (test/browser/fake-desk.ts): the built pages in
// real Chromium show a line the core folded (`count`) as "×3", read by a screen reader as
// "3 times", in light and dark (axe clean); a new repeat updates the count in place. The folding
// and the leaving out of card writes are the core's (test/unit/activity.test.ts); what the real
// Gateway sends is covered by test/gateway/activity.test.ts. Needs `npm run build`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ActivityLine, DeskSnapshot, SessionActivity } from "../../common/model.ts";
import { axeViolations, formatViolations } from "../e2e/axe.ts";
import { chromiumAvailable } from "./chromium.ts";
import { emitChange, FAKE_GW, fakeSettings, fakeSnapshot, installFake, type FakeCard } from "./fake-desk.ts";
import { pageSuite } from "./page-suite.ts";

const chromium = chromiumAvailable();
const WAIT = { timeout: 15_000 };
const KEY = "agent:main:dashboard:tests";
const T = Date.now();

const card: FakeCard = {
  sessionKey: KEY,
  title: "Fix the session suite",
  updatedAt: T - 5000,
  steps: [{ step: "Run the tests", status: "in_progress" }],
  running: true,
};

const line = (glyph: ActivityLine["glyph"], tool: string, label: string, at: number, extra: Partial<ActivityLine> = {}): ActivityLine => ({
  glyph,
  tool,
  label,
  at,
  status: "done",
  ...extra,
});

function activity(current: ActivityLine): SessionActivity {
  return {
    gatewayId: FAKE_GW,
    sessionKey: KEY,
    live: true,
    runId: "run-1",
    current,
    lines: [
      line("read", "read", "Read · AGENTS.md", T - 9000),
      line("shell", "exec", "Shell · git status", T - 8000, { count: 2 }),
      line("edit", "edit", "Edit · src/session-owner.ts", T - 7000),
      current,
    ],
    stall: null,
    updatedAt: T,
  };
}

const polling = (count: number) => line("shell", "exec", "Shell · run tests", T - 1000, { status: "running", count });

function snapshotWith(a: SessionActivity): DeskSnapshot {
  const snap = fakeSnapshot([card]);
  snap.gateways[0]!.activity = [a];
  return snap;
}

describe("activity strip: folded lines (FAKE desk)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const pages = pageSuite();

  async function open(pageName: "popover", scheme: "light" | "dark") {
    const context = await pages.newContext({
      viewport: { width: 400, height: 900 },
      colorScheme: scheme,
      reducedMotion: "reduce",
    });
    await installFake(context, snapshotWith(activity(polling(3))), fakeSettings());
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${pages.origin}/${pageName}.html`);
    const strip = page.locator(`article.card[data-key*="${KEY}"] .activity`);
    await strip.waitFor(WAIT);
    return { page, errors, strip };
  }

  for (const scheme of ["light", "dark"] as const) {
    test(`popover, ${scheme}: the current line shows ×3 and is read "3 times"; axe clean`, async () => {
      const { page, errors, strip } = await open("popover", scheme);
      const current = strip.locator(".line.current");
      assert.equal(await current.locator(".label").textContent(), "Shell · run tests");
      assert.equal(await current.locator('.repeats [aria-hidden="true"]').textContent(), "×3");
      assert.equal(await current.getAttribute("aria-label"), "Now: Shell · run tests, 3 times");
      assert.ok(await current.locator(".repeats").isVisible());
      const violations = await axeViolations(page);
      assert.equal(violations.length, 0, formatViolations(`popover · ${scheme} · activity`, violations));
      assert.deepEqual(errors, []);
    });
  }

  test('popover, open card: an earlier folded line in the recent list shows ×2, read "2 times"; single lines carry no count', async () => {
    const { strip } = await open("popover", "light");
    const recent = strip.locator(".recent li");
    assert.deepEqual(
      (await recent.allTextContents()).map((t) => t.replace(/\s+/g, " ").trim()),
      ["Read · AGENTS.md", "Shell · git status×22 times", "Edit · src/session-owner.ts"],
    );
    assert.equal(await recent.nth(0).locator(".repeats").count(), 0);
    const tree = await strip.locator(".recent").ariaSnapshot();
    assert.match(tree, /listitem: Shell · git status 2 times/, tree);
    assert.doesNotMatch(tree, /×/, "the sign is hidden from screen readers");
  });

  test("a new repeat updates the count in place", async () => {
    const { page, strip } = await open("popover", "light");
    await emitChange(page, { type: "activity", gatewayId: FAKE_GW, activity: activity(polling(4)) });
    await strip.locator('.line.current .repeats [aria-hidden="true"]', { hasText: "×4" }).waitFor(WAIT);
    assert.equal(await strip.locator(".line.current").getAttribute("aria-label"), "Now: Shell · run tests, 4 times");
  });
});
