// Issue 22: whether a build can update itself is decided before any updater exists, from the
// packaged state, app-update.yml, the signing record scripts/dist.ts leaves and the Linux
// package kind; each refusal carries the reason Settings shows.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  channelOfVersion,
  describeFeed,
  UNAVAILABLE,
  updateAvailability,
  type AvailabilityFacts,
} from "../../main/core/updates/availability.ts";

const GENERIC = "provider: generic\nurl: https://updates.example.com/desk/\nupdaterCacheDirName: progress-desk-updater\n";

const mac: AvailabilityFacts = {
  platform: "darwin",
  isPackaged: true,
  updateConfig: GENERIC,
  build: { signing: "identity", notarized: true },
  appImage: undefined,
  linuxPackageType: null,
};
const appImage: AvailabilityFacts = {
  platform: "linux",
  isPackaged: true,
  updateConfig: GENERIC,
  build: { signing: "none" },
  appImage: "/home/someone/Applications/Progress-Desk.AppImage",
  linuxPackageType: null,
};

describe("updateAvailability", () => {
  test("a Developer ID signed macOS build with a feed updates from that feed", () => {
    assert.deepEqual(updateAvailability(mac), { enabled: true, feed: "https://updates.example.com/desk/" });
  });

  test("an AppImage with a feed updates; its signing does not matter (the feed's sha512 is checked)", () => {
    assert.deepEqual(updateAvailability(appImage), { enabled: true, feed: "https://updates.example.com/desk/" });
  });

  test("a source checkout never updates, whatever else is true", () => {
    assert.deepEqual(updateAvailability({ ...mac, isPackaged: false }), { enabled: false, reason: UNAVAILABLE.sourceCheckout });
    assert.deepEqual(updateAvailability({ ...appImage, isPackaged: false }), { enabled: false, reason: UNAVAILABLE.sourceCheckout });
    assert.equal(UNAVAILABLE.sourceCheckout, "Updates come with the installed app");
  });

  test("no app-update.yml, or one naming no usable feed, is a build without a feed", () => {
    for (const updateConfig of [
      null,
      "",
      "provider: generic\nurl: ''\n",
      "provider: generic\nurl: \n",
      "provider: github\nowner: someone\n",
    ]) {
      assert.deepEqual(
        updateAvailability({ ...mac, updateConfig }),
        { enabled: false, reason: "This build has no update feed" },
        String(updateConfig),
      );
      assert.deepEqual(
        updateAvailability({ ...appImage, updateConfig }),
        { enabled: false, reason: UNAVAILABLE.noFeed },
        String(updateConfig),
      );
    }
  });

  test("macOS: an ad hoc signed build, or one with no signing record, needs a signed build", () => {
    for (const build of [{ signing: "ad-hoc" }, {}, null]) {
      assert.deepEqual(
        updateAvailability({ ...mac, build }),
        { enabled: false, reason: "Updates need a signed build" },
        JSON.stringify(build),
      );
    }
  });

  test("Linux: a deb, rpm or pacman package is the package manager's to update; anything else but an AppImage cannot update", () => {
    assert.deepEqual(updateAvailability({ ...appImage, linuxPackageType: "deb" }), {
      enabled: false,
      reason: "Installed from a .deb package: update it with the system's package manager",
    });
    assert.deepEqual(updateAvailability({ ...appImage, appImage: undefined }), { enabled: false, reason: UNAVAILABLE.linuxNotAppImage });
    assert.deepEqual(updateAvailability({ ...appImage, appImage: "" }), { enabled: false, reason: UNAVAILABLE.linuxNotAppImage });
  });

  test("other systems are not offered updates", () => {
    assert.deepEqual(updateAvailability({ ...mac, platform: "win32" }), { enabled: false, reason: UNAVAILABLE.platform });
  });
});

describe("describeFeed", () => {
  test("reads electron-builder's app-update.yml for generic and GitHub feeds, quoted or not", () => {
    assert.equal(describeFeed(GENERIC), "https://updates.example.com/desk/");
    assert.equal(describeFeed("provider: generic\r\nurl: 'http://127.0.0.1:8080/'\r\n"), "http://127.0.0.1:8080/");
    assert.equal(describeFeed('owner: someone\nrepo: progress-desk\nprovider: "github"\n'), "GitHub someone/progress-desk");
    assert.equal(describeFeed("provider: generic\nurl: ftp://example.com/\n"), null, "electron-updater fetches http(s) only");
    assert.equal(describeFeed("url: https://example.com/\n"), null, "no provider");
  });
});

describe("channelOfVersion", () => {
  test("a prerelease tag is the beta channel; a plain version is stable", () => {
    assert.equal(channelOfVersion("0.1.0"), "stable");
    assert.equal(channelOfVersion("12.4.10"), "stable");
    assert.equal(channelOfVersion("0.2.0-beta.1"), "beta");
    assert.equal(channelOfVersion("1.0.0-rc.2"), "beta");
    assert.equal(channelOfVersion("1.0.0+build.5"), "stable", "build metadata is no prerelease");
  });
});
