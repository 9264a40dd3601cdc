// The page contract's argument checks, verb by verb: what each verb accepts (and returns,
// typed), what it refuses with a BAD_REQUEST DeskError naming the expected shape, and the length
// limits. A page is untrusted input, so every refusal must be a BAD_REQUEST DeskError, never a
// TypeError from reading a field of a bad value. Found unpinned by the mutation run.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { DESK_METHODS, DESK_VERBS, isSafeExternalUrl, validateArgs } from "../../common/contract.ts";
import { isDeskError } from "../../common/errors.ts";

const card = { gatewayId: "g", sessionKey: "agent:main:x", agentId: null };
const gateway = { url: "ws://127.0.0.1:18789", label: "Home", color: "#0a84ff" };

/** Asserts a DeskError with code BAD_REQUEST whose message is `message`. */
function refused(method: string, args: unknown, message: string | RegExp): void {
  assert.throws(
    () => validateArgs(method, args),
    (err: unknown) => {
      assert.ok(isDeskError(err, "BAD_REQUEST"), `${method} ${String(JSON.stringify(args)).slice(0, 80)}: got ${String(err)}`);
      assert.equal(err.code, "BAD_REQUEST");
      if (typeof message === "string") assert.equal(err.message, message);
      else assert.match(err.message, message);
      return true;
    },
  );
}

describe("validateArgs: the call itself", () => {
  test("an unknown verb is named in the refusal", () => {
    refused("format", [], 'unknown method "format"');
  });

  test("arguments must be a list of at most three", () => {
    refused("dismiss", { 0: card, 1: 1, 2: true, length: 3 }, "arguments must be a short list");
    refused("dismiss", [card, 1, true, "extra"], "arguments must be a short list");
  });

  test("a verb takes no more arguments than its table entry lists", () => {
    refused("refresh", [card, true, "extra"], "refresh(card, retry)");
    refused("openPage", ["dashboard", card, "extra"], "openPage(popover | dashboard | settings, card?)");
  });

  test("a left-out optional argument may come as a trailing undefined (IPC keeps it)", () => {
    assert.deepEqual(validateArgs("openPage", ["dashboard", undefined]), ["dashboard"]);
  });

  test("the verb names and the schema table list the same verbs, in the same order", () => {
    assert.deepEqual(Object.keys(DESK_VERBS), [...DESK_METHODS]);
  });

  test("snapshot and getSettings take nothing", () => {
    assert.deepEqual(validateArgs("snapshot", []), []);
    assert.deepEqual(validateArgs("getSettings", []), []);
    refused("getSettings", [1], "getSettings takes no arguments");
  });
});

describe("validateArgs: card references", () => {
  test("a card is {gatewayId, sessionKey, agentId} within their lengths", () => {
    const edge = { gatewayId: "g".repeat(200), sessionKey: "s".repeat(1024), agentId: "a".repeat(64) };
    assert.deepEqual(validateArgs("dismiss", [edge, 1, false]), [edge, 1, false]);
    for (const bad of [
      null,
      "card",
      5,
      { ...card, gatewayId: "g".repeat(201) },
      { ...card, sessionKey: "s".repeat(1025) },
      { ...card, agentId: "a".repeat(65) },
      { ...card, agentId: 5 },
      { gatewayId: "g", sessionKey: "k" },
    ]) {
      refused("dismiss", [bad, 1, true], "card must be {gatewayId, sessionKey, agentId}");
    }
  });

  test("only the card's fields pass through", () => {
    assert.deepEqual(validateArgs("refresh", [{ ...card, extra: "x" }, true]), [card, true]);
  });

  test("dismiss: revision 1 is the first; a missing confirmation is refused", () => {
    assert.deepEqual(validateArgs("dismiss", [card, 1, true]), [card, 1, true]);
    refused("dismiss", [card, 0, true], "dismiss(card, revision, confirmed)");
    refused("dismiss", [card, 2], "dismiss(card, revision, confirmed)");
    assert.deepEqual(validateArgs("dismiss", [card, Number.MAX_SAFE_INTEGER, false]), [card, Number.MAX_SAFE_INTEGER, false]);
    refused("dismiss", [card, Number.MAX_SAFE_INTEGER + 1, false], "dismiss(card, revision, confirmed)");
    // Several faults: the usage line, which shows the whole call, wins over the card's own refusal.
    refused("dismiss", [{ gatewayId: 1 }, 0, "x"], "dismiss(card, revision, confirmed)");
  });

  test("refresh: a card and a retry flag", () => {
    assert.deepEqual(validateArgs("refresh", [card, false]), [card, false]);
    refused("refresh", [card], "refresh(card, retry)");
    refused("refresh", [null, true], "card must be {gatewayId, sessionKey, agentId}");
  });
});

describe("validateArgs: Gateways and settings", () => {
  test("retryConnection and removeGateway take one Gateway id of at most 200 characters", () => {
    for (const m of ["retryConnection", "removeGateway"]) {
      assert.deepEqual(validateArgs(m, ["g".repeat(200)]), ["g".repeat(200)]);
      refused(m, ["g".repeat(201)], `${m}(gatewayId)`);
      refused(m, [7], `${m}(gatewayId)`);
    }
  });

  test("updateSettings takes one object", () => {
    assert.deepEqual(validateArgs("updateSettings", [{ showCards: false }]), [{ showCards: false }]);
    for (const bad of [null, [], "showCards", 1]) refused("updateSettings", [bad], "updateSettings(patch)");
  });

  test("updateSettings: each value by the settings schema's rule, named by its path; unknown keys dropped", () => {
    const patch = { detector: { silentMinutes: 1440 }, notifications: { quietHours: { start: "00:00" } }, popoverShortcut: "Alt+P" };
    assert.deepEqual(validateArgs("updateSettings", [patch]), [patch]);
    assert.deepEqual(validateArgs("updateSettings", [{ showCards: false, bogus: 1, activity: { mode: "new", loud: true } }]), [
      { showCards: false, activity: { mode: "new" } },
    ]);
    const rule = "updateSettings(patch): ";
    refused("updateSettings", [{ detector: { pollingRepeats: 1 } }], `${rule}detector.pollingRepeats must be a whole number from 2 to 100`);
    refused(
      "updateSettings",
      [{ notifications: { quietHours: { end: "7:30" } } }],
      `${rule}notifications.quietHours.end must be a time as HH:MM (00:00 to 23:59)`,
    );
    refused("updateSettings", [{ showCards: "yes" }], "updateSettings(patch): showCards must be true or false");
    refused("updateSettings", [{ activity: { mode: "loud" } }], "updateSettings(patch): activity.mode must be off, new or all");
    refused(
      "updateSettings",
      [{ popoverShortcut: "P" }],
      /^updateSettings\(patch\): popoverShortcut must be a shortcut that combines a modifier and a key/,
    );
    refused(
      "updateSettings",
      [{ credentialStorage: "os-keychain" }],
      `${rule}credentialStorage must be "file" (keep new secrets unencrypted)`,
    );
    refused("updateSettings", [{ pinned: [7] }], "updateSettings(patch): pinned must be a list of card keys");
  });

  test("saveGateway: a ws:// or wss:// address, a label and a colour within their lengths", () => {
    assert.deepEqual(validateArgs("saveGateway", [gateway]), [gateway]);
    const secure = { ...gateway, url: "WSS://gw.example", id: "i", token: "t".repeat(4096), password: "p", setupCode: "c" };
    assert.deepEqual(validateArgs("saveGateway", [secure]), [secure]);
    const shape = "saveGateway({url: ws:// or wss://, label, color, …})";
    for (const bad of [
      null,
      "ws://x",
      { ...gateway, url: 5 },
      { ...gateway, url: `ws://${"h".repeat(2044)}` },
      { ...gateway, url: "xws://gw" },
      { ...gateway, url: "http://gw" },
      { ...gateway, label: "l".repeat(81) },
      { ...gateway, label: undefined },
      { ...gateway, color: "c".repeat(33) },
      { ...gateway, color: 1 },
    ]) {
      refused("saveGateway", [bad], shape);
    }
    const longest = { ...gateway, url: `ws://${"h".repeat(2043)}`, label: "l".repeat(80), color: "c".repeat(32) };
    assert.deepEqual(validateArgs("saveGateway", [longest]), [longest], "2048-character address, 80-character label, 32-character colour");
  });

  test("saveGateway: id and secrets, when given, must be text of at most 4096 characters", () => {
    for (const k of ["id", "token", "password", "setupCode"]) {
      refused("saveGateway", [{ ...gateway, [k]: 5 }], `saveGateway: ${k} must be text`);
      refused("saveGateway", [{ ...gateway, [k]: "x".repeat(4097) }], `saveGateway: ${k} must be text`);
    }
  });
});

describe("validateArgs: links and pages", () => {
  test("openExternal takes text of at most 8192 characters (which links may open is isSafeExternalUrl's call)", () => {
    assert.deepEqual(validateArgs("openExternal", ["https://example.com"]), ["https://example.com"]);
    refused("openExternal", [`https://example.com/${"a".repeat(8192)}`], "openExternal(url)");
    refused("openExternal", [{ href: "https://example.com" }], "openExternal(url)");
  });

  test("openPage: one of the three pages, optionally with a card", () => {
    for (const page of ["popover", "dashboard", "settings"]) assert.deepEqual(validateArgs("openPage", [page]), [page]);
    assert.deepEqual(validateArgs("openPage", ["dashboard", card]), ["dashboard", card]);
    refused("openPage", ["dashboard", { gatewayId: "g" }], "card must be {gatewayId, sessionKey, agentId}");
    refused("openPage", ["about"], "openPage(popover | dashboard | settings, card?)");
  });
});

describe("isSafeExternalUrl", () => {
  test("a link must start with its scheme: no leading blank that the URL parser would forgive", () => {
    assert.equal(isSafeExternalUrl("https://example.com"), true);
    assert.equal(isSafeExternalUrl(" https://example.com"), false);
    assert.equal(isSafeExternalUrl("\thttp://example.com"), false);
  });

  test("over 8192 characters, or not a parsable URL, is refused with false", () => {
    assert.equal(isSafeExternalUrl(`https://example.com/${"a".repeat(8172)}`), true);
    assert.equal(isSafeExternalUrl(`https://example.com/${"a".repeat(8173)}`), false);
    assert.equal(isSafeExternalUrl("http://"), false);
    assert.equal(isSafeExternalUrl("https://exa mple.com"), false);
  });
});
