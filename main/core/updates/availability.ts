// Whether this copy of the app can update itself, decided from facts the shell gathers before
// any updater exists (pure: the tests give the facts), and which channel a version follows.
import type { UpdateAvailability } from "./updater-port.ts";

/**
 * What scripts/dist.ts records in the packaged package.json (electron-builder's extraMetadata,
 * key `progressDeskBuild`): how the build was signed, decided at build time.
 * "identity": signed with the configured certificate (CSC_LINK / CSC_NAME: a Developer ID for
 * the dmg and zip), "ad-hoc": signed with no identity. Absent when the app was packaged by
 * calling electron-builder directly, which is then treated as not signed.
 */
export type BuildRecord = { signing?: string; notarized?: boolean };

export type AvailabilityFacts = {
  platform: NodeJS.Platform;
  /** Electron's app.isPackaged: false in a source checkout (`npm start`). */
  isPackaged: boolean;
  /** The text of resources/app-update.yml, which electron-builder writes when the build has a feed; null when absent. */
  updateConfig: string | null;
  /** `progressDeskBuild` from the packaged package.json; null when absent. */
  build: BuildRecord | null;
  /** The APPIMAGE environment variable, set by the AppImage runtime to the running file. */
  appImage: string | undefined;
  /** resources/package-type ("deb", "rpm", "pacman"), which electron-builder writes for those packages; null when absent. */
  linuxPackageType: string | null;
};

export const UNAVAILABLE = {
  sourceCheckout: "Updates come with the installed app",
  noFeed: "This build has no update feed",
  unsigned: "Updates need a signed build",
  linuxPackage: (kind: string) => `Installed from a .${kind} package: update it with the system's package manager`,
  linuxNotAppImage: "Updates come with the AppImage",
  platform: "Updates are not available on this system",
} as const;

/** The feed app-update.yml names, for people ("https://…/", "GitHub owner/repo"); null when it names none. */
export function describeFeed(updateConfig: string): string | null {
  const fields = new Map<string, string>();
  // electron-builder writes a flat mapping of scalars (js-yaml's dump): `key: value`, values
  // possibly quoted. Nested or unknown lines are ignored.
  for (const line of updateConfig.split(/\r?\n/)) {
    const match = /^([A-Za-z][\w-]*):\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    let value = match[2] ?? "";
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
    fields.set(match[1] ?? "", value);
  }
  const provider = fields.get("provider");
  if (provider === "generic") {
    const url = fields.get("url") ?? "";
    return /^https?:\/\/\S+$/.test(url) ? url : null;
  }
  if (provider === "github") {
    const owner = fields.get("owner");
    const repo = fields.get("repo");
    return owner && repo ? `GitHub ${owner}/${repo}` : null;
  }
  return provider ? provider : null;
}

/** Whether this build can update itself, and if not, the reason a person reads in Settings. */
export function updateAvailability(facts: AvailabilityFacts): UpdateAvailability {
  if (!facts.isPackaged) return { enabled: false, reason: UNAVAILABLE.sourceCheckout };
  if (facts.platform !== "darwin" && facts.platform !== "linux") return { enabled: false, reason: UNAVAILABLE.platform };
  const feed = facts.updateConfig === null ? null : describeFeed(facts.updateConfig);
  if (feed === null) return { enabled: false, reason: UNAVAILABLE.noFeed };
  if (facts.platform === "darwin") {
    // Squirrel.Mac installs an update only when it is signed like the running app: an ad hoc
    // signature names no team, so no update could ever be accepted.
    if (facts.build?.signing !== "identity") return { enabled: false, reason: UNAVAILABLE.unsigned };
    return { enabled: true, feed };
  }
  // Linux: electron-updater replaces an AppImage in place; a deb, rpm or pacman package belongs
  // to the system's package manager.
  if (facts.linuxPackageType) return { enabled: false, reason: UNAVAILABLE.linuxPackage(facts.linuxPackageType) };
  if (!facts.appImage) return { enabled: false, reason: UNAVAILABLE.linuxNotAppImage };
  return { enabled: true, feed };
}

export type UpdateChannel = "stable" | "beta";

/**
 * The channel a version follows: beta when it carries a prerelease tag (0.2.0-beta.1), for which
 * electron-updater also offers prereleases (its allowPrerelease default); stable otherwise.
 */
export function channelOfVersion(version: string): UpdateChannel {
  return /^\d+\.\d+\.\d+-[0-9A-Za-z.-]+/.test(version) ? "beta" : "stable";
}
