// Local settings (S1–S3) and the Gateway list (G5). Plain values live in a JSON document
// (a file headless, electron-store in Electron); Gateway secrets live in the vault only.
// Pages get `Settings` with hasToken-style flags, never a secret.
//
// A Gateway secret is bound to the origin it was saved for (its vault name carries it), so
// a URL that points elsewhere finds no secret to send, even if deleting the old one could
// not be written (a locked keychain). Saving a new origin also drops the old secrets and
// the device tokens the official client keeps under the old URL.
import { rescueDamagedFile, type RescueDeps } from "./damaged-file.ts";
import { fallbackLogger, type Logger } from "./logger.ts";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { GatewayInput, GatewaySettingsView, Settings, SettingsPatch } from "../../common/contract.ts";
import {
  mergeSettingsPatch,
  repairSettings,
  settingsPatchRefusal,
  type SettingsDocument,
  type StoredGateway,
} from "../../common/settings-schema.ts";
import { SECRET_NOT_SAVED } from "../../common/credential-storage.ts";
import { gatewayIdForUrl } from "./discovery.ts";
import type { GatewayConfig } from "./desk-gateway.ts";
import { gatewayOrigin } from "../../common/gateway-origin.ts";
import type { CredentialVault } from "./vault.ts";
import { isOnGateway } from "../../common/keys.ts";

// The document's rules and defaults live in its schema (common/settings-schema.ts).
export { defaultSettings, isAccelerator, repairSettings as normalizeSettings, type StoredGateway } from "../../common/settings-schema.ts";
type Document = SettingsDocument;

export type SettingsBackend = {
  read(): unknown;
  write(doc: unknown): Promise<void>;
  /** Where the file was kept as it was, when it could not be read in full this run. */
  damagedCopy?(): string | null;
};

const SECRET_FIELDS = { token: "token", password: "password", setupCode: "setup-code" } as const;
type SecretField = keyof typeof SECRET_FIELDS;
const FIELDS = Object.keys(SECRET_FIELDS) as SecretField[];
/** Every secret of a Gateway, whatever origin it was saved for. */
const secretPrefix = (gatewayId: string, field: SecretField): string => `gateway-${SECRET_FIELDS[field]}|${encodeURIComponent(gatewayId)}|`;
const secretKey = (gatewayId: string, field: SecretField, origin: string): string => `${secretPrefix(gatewayId, field)}${origin}`;
/** Saved before secrets were bound to an origin: bound to the Gateway's address on first load. */
const legacyKey = (gatewayId: string, field: SecretField): string => `gateway-${SECRET_FIELDS[field]}|${gatewayId}`;
/** How the official client names device tokens in the vault (handshake.ts): by exact URL. */
const deviceTokenPrefix = (url: string): string => `device-token|${url}|`;

function originOrThrow(url: string): string {
  const origin = gatewayOrigin(url);
  if (!origin) throw new Error(`"${url.slice(0, 200)}" is not a Gateway address: use ws://host:port or wss://host.`);
  return origin;
}

export class SettingsStore {
  private doc: Document;
  private readonly backend: SettingsBackend;
  private readonly vault: CredentialVault;
  private readonly listeners = new Set<(s: Settings) => void>();
  private writing: Promise<void> = Promise.resolve();

  private readonly log: Logger;

  constructor(backend: SettingsBackend, vault: CredentialVault, logger?: Logger) {
    this.log = logger ?? fallbackLogger();
    this.backend = backend;
    this.vault = vault;
    this.doc = repairSettings(backend.read());
    this.bindLegacySecrets();
  }

  view(): Settings {
    const damagedFileCopy = this.backend.damagedCopy?.() ?? null;
    return {
      ...structuredClone(this.doc),
      gateways: this.doc.gateways.map((g) => this.gatewayView(g)),
      credentialStorage: this.vault.protection,
      ...(damagedFileCopy === null ? {} : { damagedFileCopy }),
    };
  }

  onChange(listener: (s: Settings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A patch the schema refuses changes nothing; one it accepts is merged over the settings. */
  update(patch: SettingsPatch): Settings {
    const refusal = settingsPatchRefusal(patch);
    if (refusal !== null) throw new Error(refusal);
    // The person's explicit choice to keep new secrets unencrypted while the keychain can't be read.
    if (patch.credentialStorage === "file") this.vault.allowUnprotected();
    return this.commit(mergeSettingsPatch(this.doc, patch));
  }

  saveGateway(input: GatewayInput): Settings {
    const origin = originOrThrow(input.url);
    const before = input.id ? this.doc.gateways.find((g) => g.id === input.id) : undefined;
    // A new Gateway takes the id the zero-configuration one had for the same URL, so the cards
    // it already shows keep their keys (and are not told again as new) when it is saved here.
    const derived = gatewayIdForUrl(input.url.trim());
    const id = before ? before.id : this.doc.gateways.some((g) => g.id === derived) ? `gw-${randomUUID().slice(0, 8)}` : derived;
    const url = input.url.trim();
    const answerApprovals = input.answerApprovals ?? before?.answerApprovals ?? false;
    const next: StoredGateway = { id, url, label: input.label.trim() || new URL(url).host, color: input.color, answerApprovals };
    // Checked before anything changes: a refused save leaves memory and disk as they were.
    if (FIELDS.some((f) => input[f]?.trim()) && this.vault.protection === "unavailable") throw new Error(SECRET_NOT_SAVED);
    const gateways = before ? this.doc.gateways.map((g) => (g.id === id ? next : g)) : [...this.doc.gateways, next];
    const moved = before !== undefined && gatewayOrigin(before.url) !== origin;
    for (const field of FIELDS) {
      const value = input[field];
      // "" forgets, a value replaces, and on another server every secret saved for the old
      // one goes unless a new one comes in this call.
      if (moved || value !== undefined) this.deleteSecrets(id, field);
      if (value?.trim()) this.vault.set(secretKey(id, field, origin), value.trim());
    }
    if (before && before.url !== next.url) this.forgetDeviceTokens(before.url, gateways);
    return this.commit(repairSettings({ ...this.doc, gateways }));
  }

  removeGateway(id: string): Settings {
    const gone = this.doc.gateways.find((g) => g.id === id);
    for (const field of FIELDS) this.deleteSecrets(id, field);
    const gateways = this.doc.gateways.filter((g) => g.id !== id);
    if (gone) this.forgetDeviceTokens(gone.url, gateways);
    return this.commit(repairSettings({ ...this.doc, gateways, pinned: this.doc.pinned.filter((p) => !isOnGateway(p, id)) }));
  }

  /** The Gateways to connect to, with their secrets, for the core (never for a page). */
  gatewayConfigs(): GatewayConfig[] {
    return this.doc.gateways.map((g) => {
      const c: GatewayConfig = { id: g.id, label: g.label, color: g.color, url: g.url };
      if (g.answerApprovals) c.answerApprovals = true;
      const token = this.secret(g, "token");
      const password = this.secret(g, "password");
      const setup = this.secret(g, "setupCode");
      if (token) c.token = token;
      if (password) c.password = password;
      if (setup) c.bootstrapToken = setup;
      return c;
    });
  }

  /** Resolves when everything changed so far is saved. */
  async flush(): Promise<void> {
    await this.writing;
    await this.vault.flush();
  }

  /** A secret only for the origin it was saved for: a Gateway now pointing elsewhere has none. */
  private secret(g: StoredGateway, field: SecretField): string | null {
    const origin = gatewayOrigin(g.url);
    return origin ? this.vault.get(secretKey(g.id, field, origin)) : null;
  }

  private deleteSecrets(id: string, field: SecretField): void {
    const prefix = secretPrefix(id, field);
    for (const name of this.vault.names()) if (name.startsWith(prefix)) this.vault.delete(name);
    this.vault.delete(legacyKey(id, field));
  }

  /** Device tokens the client saved for `url`, unless another Gateway still uses that address. */
  private forgetDeviceTokens(url: string, remaining: StoredGateway[]): void {
    if (remaining.some((g) => g.url === url)) return;
    const prefix = deviceTokenPrefix(url);
    for (const name of this.vault.names()) if (name.startsWith(prefix)) this.vault.delete(name);
  }

  /** Secrets saved before origin binding belong to the address the Gateway has now. */
  private bindLegacySecrets(): void {
    for (const g of this.doc.gateways) {
      const origin = gatewayOrigin(g.url);
      for (const field of FIELDS) {
        const value = this.vault.get(legacyKey(g.id, field));
        if (value === null) continue;
        if (origin && this.vault.get(secretKey(g.id, field, origin)) === null) this.vault.set(secretKey(g.id, field, origin), value);
        this.vault.delete(legacyKey(g.id, field));
      }
    }
  }

  private gatewayView(g: StoredGateway): GatewaySettingsView {
    return {
      ...g,
      hasToken: this.secret(g, "token") !== null,
      hasPassword: this.secret(g, "password") !== null,
      hasSetupCode: this.secret(g, "setupCode") !== null,
    };
  }

  private commit(doc: Document): Settings {
    this.doc = doc;
    const snapshot = structuredClone(doc);
    this.writing = this.writing
      .then(() => this.backend.write(snapshot))
      .catch((err: unknown) => {
        this.log.warn("could not save settings", { error: (err as Error).message });
      });
    const view = this.view();
    for (const l of this.listeners) l(view);
    return view;
  }
}

/**
 * A JSON file (headless and the browser host), written atomically. A file that is there
 * but is no JSON object is never written over: it is rescued (main/core/damaged-file.ts),
 * and if no copy of it can be kept, this run's changes are not saved.
 */
export function jsonFileBackend(path: string, deps: RescueDeps = { logger: fallbackLogger() }): SettingsBackend {
  let copy: string | null = null;
  let keepOut = false;
  return {
    read() {
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        return null; // no file yet: defaults
      }
      try {
        const doc: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
        if (typeof doc === "object" && doc !== null && !Array.isArray(doc)) return doc;
      } catch {
        // not JSON: rescued below
      }
      const rescue = rescueDamagedFile(path, (readable) => (isObject(readable) ? readable : {}), deps);
      copy = rescue.copy ?? copy;
      keepOut = rescue.copy === null;
      return rescue.salvaged;
    },
    async write(doc) {
      if (keepOut) throw new Error(`the settings file ${path} could not be read in full nor a copy of it kept, so it is not written over`);
      await mkdir(dirname(path), { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(doc, null, 2) + "\n", { mode: 0o600 });
      await rename(tmp, path);
    },
    damagedCopy: () => copy,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function memoryBackend(initial: unknown = null): SettingsBackend & { doc: unknown } {
  const b = { doc: initial, read: () => b.doc, write: async (d: unknown) => void (b.doc = d) };
  return b;
}
