// Issue 12, the dashboard timeline's gap: a card stays in progress (a live agent run on a real
// Gateway, scripted model) while the app is stopped and started again on the same data folder.
// The card's kept history then holds a gap, and the dashboard draws it hatched, in light and in
// dark, with words for screen readers, and distinct from the work around it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { chromiumAvailable, launchChromiumBeside } from "../browser/chromium.ts";
import { connectBareClient, type BareClient } from "../harness/bare-client.ts";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../harness/scripted-model.ts";
import { until } from "../harness/until.ts";
import { warmUpAgent } from "../harness/warm-up.ts";
import { plan } from "../gateway/support.ts";
import type { CardEntry } from "../../common/model.ts";
import { card, openPage, removeHome, startTestHost, type TestHost } from "./support.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const getComputedStyle: any;

const chromium = chromiumAvailable();
let model: ScriptedModel;
let gw: TestGateway;
let user: BareClient;
let browser: Browser;
const hosts: TestHost[] = [];

type Paint = { backgroundImage: string; width: number; track: string };

/** What a segment is painted with, and the colour of the track behind it (the nearest painted ancestor). */
const paintOf = (page: Page, selector: string): Promise<Paint> =>
  page.locator(selector).evaluate((el: any) => {
    let track = "rgba(0, 0, 0, 0)";
    for (let a = el.parentElement; a; a = a.parentElement) {
      const bg = getComputedStyle(a).backgroundColor;
      if (!/^rgba\(.*,\s*0\)$/.test(bg) && bg !== "transparent") {
        track = bg;
        break;
      }
    }
    return { backgroundImage: getComputedStyle(el).backgroundImage, width: el.getBoundingClientRect().width, track };
  });

type Rgba = [number, number, number, number];
const parseColours = (css: string): Rgba[] =>
  [...css.matchAll(/rgba?\(([^)]+)\)/g)].map((m) => {
    const [r, g, b, a] = m[1]!.split(",").map((x) => Number(x.trim()));
    return [r!, g!, b!, a ?? 1];
  });
/** WCAG relative luminance of an opaque colour. */
const luminance = ([r, g, b]: Rgba): number => {
  const lin = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
};
/** Contrast ratio of `fg` (blended over `bg` by its alpha) against `bg`. */
const contrast = (fg: Rgba, bg: Rgba): number => {
  const blended: Rgba = [0, 1, 2].map((i) => fg[i]! * fg[3] + bg[i]! * (1 - fg[3])).concat(1) as Rgba;
  const [hi, lo] = [luminance(blended), luminance(bg)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};

describe("the dashboard timeline draws a gap hatched", { skip: chromium.ok ? false : chromium.reason }, () => {
  before(
    async () => {
      model = await startScriptedModel();
      [gw, browser] = await launchChromiumBeside(startGateway({ model }), (g) => g.dispose());
      user = await connectBareClient(gw);
      await warmUpAgent(user, gw);
    },
    { timeout: 300_000 },
  );

  after(async () => {
    await browser?.close();
    for (const h of hosts) await h.stop();
    if (hosts[0]) removeHome(hosts[0].home);
    await user?.close();
    await gw?.dispose();
    await model?.stop();
  });

  test("an app restart while a card is in progress: a hatched gap with its words, in light and dark", { timeout: 180_000 }, async () => {
    const first = await startTestHost(gw, { history: true });
    hosts.push(first);
    const key = await user.createSession();
    const turn = user.runTurn(
      key,
      [
        { tool: "progress_card", args: { plan: plan("in_progress", "pending", "pending") } },
        { tool: "progress_card", args: { plan: plan("completed", "in_progress", "pending") }, delayMs: 1500 },
        // The run stays alive across the restart (the outcome does not depend on it), then ends.
        { text: "Stopping here for now", delayMs: 45_000 },
      ],
      { timeoutMs: 120_000 },
    );
    // Awaited at the end; should the test fail before, its end must not surface as an unhandled rejection.
    turn.catch(() => {});
    const seen = (h: TestHost, pred: (e: CardEntry) => boolean) => () =>
      h.desk.snapshot().gateways[0]?.cards.some((e) => e.sessionKey === key && pred(e)) ?? false;
    await until(
      "the first app saw step 1 finish",
      seen(first, (e) => e.card?.revision === 2),
      60_000,
    );
    // The app quits with step 2 in progress; the Gateway's card does not change meanwhile.
    await first.stop();
    const second = await startTestHost(gw, { home: first.home, history: true });
    hosts.push(second);
    second.settings.update({ pinned: [`${second.desk.gatewayIds()[0]!}\u0000${key}`] });
    // Work goes on once the new app has caught up with the card (its gap recorded): step 3 starts, seen by it.
    await until(
      "the second app read the card after the gap",
      seen(second, (e) => e.card?.revision === 2 && (e.timing?.gaps.length ?? 0) > 0),
      60_000,
    );
    await user.put(key, { plan: plan("completed", "completed", "in_progress") });

    const dash = await openPage(browser, second.host.pageUrl("dashboard"), { width: 960 });
    try {
      const timeline = card(dash.page, key).getByRole("list", { name: "Timeline" });
      const items = timeline.getByRole("listitem");
      await until("step 1, the gap and step 3 on the timeline", async () => (await items.count()) === 3, 30_000);
      const words = await items.allTextContents();
      // Step 2 ran across the gap, so it has no segment; the gap sits where it fell. Should the run end
      // before the page is read (a slow machine), the card is paused and its step says so.
      assert.match(words.join(" | "), /^Step 1: \d s \| gap \| Step 3: (running under a minute|not running now)$/);
      const gap = timeline.getByRole("listitem", { name: "Gap: not watched" });
      assert.equal(await gap.count(), 1, "the gap's accessible name says it was not watched");
      assert.equal(await gap.getAttribute("title"), "Gap: not watched");

      const tracks: string[] = [];
      for (const colorScheme of ["light", "dark"] as const) {
        await dash.page.emulateMedia({ colorScheme });
        const gapPaint = await paintOf(dash.page, `article.card[data-key*="${key}"] ol.timeline > li.gap`);
        const stepPaint = await paintOf(dash.page, `article.card[data-key*="${key}"] ol.timeline > li:first-child`);
        assert.match(gapPaint.backgroundImage, /^repeating-linear-gradient\(/, `${colorScheme}: the gap is hatched`);
        assert.equal(stepPaint.backgroundImage, "none", `${colorScheme}: work is not hatched`);
        assert.ok(gapPaint.width >= 4, `${colorScheme}: the gap is drawn (${gapPaint.width} px)`);
        const stops = parseColours(gapPaint.backgroundImage);
        const stripe = stops.find((c) => c[3] > 0);
        assert.ok(stripe, `${colorScheme}: the hatch has a painted stripe: ${gapPaint.backgroundImage}`);
        assert.ok(
          stops.some((c) => c[3] === 0 || c.slice(0, 3).join() !== stripe.slice(0, 3).join()),
          `${colorScheme}: stripes alternate with something else: ${gapPaint.backgroundImage}`,
        );
        const track = parseColours(gapPaint.track)[0]!;
        const ratio = contrast(stripe, track);
        // Non-text contrast (WCAG 1.4.11): the hatch stands out from the track it is drawn on.
        assert.ok(ratio >= 3, `${colorScheme}: the hatch ${JSON.stringify(stripe)} on ${gapPaint.track} has contrast ${ratio.toFixed(2)}`);
        tracks.push(gapPaint.track);
      }
      assert.notEqual(tracks[0], tracks[1], "the dark scheme really applied (the track changed colour)");
      assert.deepEqual(dash.errors, []);
      assert.deepEqual(dash.foreign, []);
    } finally {
      await dash.context.close();
    }
    await turn;
  });
});
