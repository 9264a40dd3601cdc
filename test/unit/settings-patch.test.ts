// A page's settings patch: the schema checks it, one merge lays it over the settings, and the
// Settings page finds a title for every setting it may change (common/setting-text.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { TSchema } from "typebox";
import { defaultSettings, mergeSettingsPatch, SettingsPatchSchema } from "../../common/settings-schema.ts";
import { SETTING_TEXT, settingChoices, settingLimits, type SettingPath, type SettingWords } from "../../common/setting-text.ts";
import { memoryBackend, SettingsStore } from "../../main/core/settings.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";

type Node = TSchema & { type?: unknown; properties?: Record<string, Node>; anyOf?: { const?: unknown }[] };

/** Every leaf of the patch schema by dotted path, with its schema. */
function leaves(schema: Node, prefix = ""): [string, Node][] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, s]) =>
    s.type === "object" && s.properties ? leaves(s, `${prefix}${key}.`) : [[`${prefix}${key}`, s] as [string, Node]],
  );
}

const openStore = async () => new SettingsStore(memoryBackend(null), await CredentialVault.open(memoryStorage()));

describe("the settings merge", () => {
  test("a nested group is patched key by key: its other keys, and the groups beside it, stay", () => {
    const doc = defaultSettings();
    doc.notifications.milestones.newCard = false;
    const merged = mergeSettingsPatch(doc, { notifications: { quietHours: { start: "23:15" } }, detector: { pollingRepeats: 9 } });
    assert.deepEqual(merged.notifications.quietHours, { enabled: false, start: "23:15", end: "08:00" });
    assert.deepEqual(merged.notifications.milestones, doc.notifications.milestones);
    assert.equal(merged.notifications.enabled, true);
    assert.deepEqual(merged.detector, { enabled: true, pollingRepeats: 9, silentMinutes: 10 });
    assert.deepEqual(merged.activity, doc.activity);
    assert.equal(doc.notifications.quietHours.start, "22:00", "the settings it was laid over are not changed");
  });

  test("a list is replaced whole, never merged item by item", () => {
    const doc = { ...defaultSettings(), pinned: ["g\u0000a", "g\u0000b"] };
    assert.deepEqual(mergeSettingsPatch(doc, { pinned: ["g\u0000c"] }).pinned, ["g\u0000c"]);
    assert.deepEqual(mergeSettingsPatch(doc, { pinned: [] }).pinned, []);
  });

  test("keys the patch schema doesn't name, and credentialStorage (not stored), leave the settings as they were", () => {
    const doc = defaultSettings();
    const gateway = { id: "g", url: "ws://127.0.0.1:1", label: "g", color: "#0a84ff", answerApprovals: false };
    const patch = { bogus: 1, gateways: [gateway], credentialStorage: "file", notifications: { loud: true } } as never;
    assert.deepEqual(mergeSettingsPatch(doc, patch), doc);
  });

  test("the store: unknown keys are dropped, a value the schema refuses is refused with its rule and changes nothing", async () => {
    const store = await openStore();
    const before = store.view();
    const after = store.update({ bogus: 1, trayTitle: false } as never);
    assert.equal("bogus" in after, false);
    assert.equal(after.trayTitle, false);
    assert.throws(
      () => store.update({ showCards: false, detector: { silentMinutes: 0 } }),
      /^Error: detector\.silentMinutes can only be set to a whole number from 1 to 1440$/,
    );
    assert.throws(() => store.update({ pinned: ["a", "a"] }), /^Error: pinned can only be set to a list of card keys$/);
    assert.deepEqual(store.view(), { ...before, trayTitle: false }, "a refused patch changes nothing, not even its valid keys");
  });
});

describe("what the Settings page says about each setting", () => {
  const table = SETTING_TEXT as Record<string, SettingWords | undefined>;

  test("every setting a page may change has a title, and one for each of its choices", () => {
    const paths = leaves(SettingsPatchSchema as Node);
    assert.ok(paths.length > 20, "the walk reaches the nested settings");
    for (const [path, schema] of paths) {
      const text = table[path];
      assert.ok(text && text.title.trim() !== "", `${path} has a title`);
      const literals = (schema.anyOf ?? []).map((s) => s.const);
      if (literals.length > 1)
        for (const value of literals) assert.ok(text.options?.[String(value)]?.trim(), `${path} has a label for ${String(value)}`);
    }
    assert.deepEqual(Object.keys(table).sort(), paths.map(([p]) => p).sort(), "no text for a setting that isn't there");
  });

  test("the page's limits and choices are the schema's", () => {
    assert.deepEqual(settingLimits("detector.silentMinutes"), { min: 1, max: 24 * 60, step: 1 });
    assert.deepEqual(settingLimits("detector.pollingRepeats"), { min: 2, max: 100, step: 1 });
    const mode: SettingPath = "activity.mode";
    assert.deepEqual(settingChoices(mode), [
      { value: "all", label: "Every tool call" },
      { value: "new", label: "When the tool changes" },
      { value: "off", label: "Off" },
    ]);
  });
});
