// FAKE core pieces for the tests of main/electron/setup/: a desk that serves a snapshot the
// test writes and emits the changes the test sends, and settings held in memory that tell
// their listeners on update, like the real SettingsStore. Neither connects to anything.
import type { Settings, SettingsPatch } from "../../common/contract.ts";
import { defaultSettings } from "../../main/core/settings.ts";
import type { CardEntry, ConnectionState, DeskChange, DeskSnapshot, GatewaySnapshot, NeedEntry, NeedRecord } from "../../common/model.ts";
import { connected, T0 } from "../renderer/fixtures.ts";

/** A FAKE desk: `snapshot()` is `snap`; `emit` hands a change to every subscriber in order. */
export class FakeDesk {
  snap: DeskSnapshot = { gateways: [] };
  private readonly listeners = new Set<(change: DeskChange) => void>();
  readonly retried: string[] = [];
  wakes = 0;

  snapshot(): DeskSnapshot {
    return this.snap;
  }
  subscribe(listener: (change: DeskChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  subscribers(): number {
    return this.listeners.size;
  }
  emit(change: DeskChange): void {
    for (const l of [...this.listeners]) l(change);
  }
  retry(gatewayId: string): void {
    this.retried.push(gatewayId);
  }
  wake(): void {
    this.wakes++;
  }

  /** Puts `entry` into its Gateway's cards (replacing the same session) and emits the card change. */
  putCard(entry: CardEntry): void {
    const g = this.gateway(entry.gatewayId);
    g.cards = [...g.cards.filter((e) => e.sessionKey !== entry.sessionKey), entry];
    this.emit({ type: "card", gatewayId: entry.gatewayId, entry });
  }

  /** Puts a needs-you entry on its Gateway (replacing the same id) and emits the `arrived` change. */
  putNeed(entry: NeedEntry): void {
    const g = this.gateway(entry.gatewayId);
    g.needs = { ...g.needs, entries: [...g.needs.entries.filter((e) => e.id !== entry.id), entry] };
    this.emit({ type: "needs", gatewayId: entry.gatewayId, needs: g.needs, event: { kind: "arrived", entry } });
  }

  /**
   * Takes a needs-you entry off its Gateway and emits the `resolved` change with `record`;
   * `answeredHere` as the core sets it when the person answered it in this desk.
   */
  resolveNeed(entry: NeedEntry, record: NeedRecord, answeredHere: boolean): void {
    const g = this.gateway(entry.gatewayId);
    g.needs = { ...g.needs, entries: g.needs.entries.filter((e) => e.id !== entry.id) };
    this.emit({ type: "needs", gatewayId: entry.gatewayId, needs: g.needs, event: { kind: "resolved", entry, record, answeredHere } });
  }

  /** Sets a Gateway's connection state and emits the connection change. */
  setConnection(gatewayId: string, connection: ConnectionState): void {
    this.gateway(gatewayId).connection = connection;
    this.emit({ type: "connection", gatewayId, connection });
  }

  /** The Gateway with this id, added (connected since the start time) if it is not there yet. */
  gateway(id: string, label = id): GatewaySnapshot {
    let g = this.snap.gateways.find((x) => x.id === id);
    if (!g) {
      const boards = { widgets: [], updateRequired: false } as never;
      g = {
        id,
        label,
        color: null,
        url: `ws://${id}.test:18789`,
        connection: connected(T0),
        sessions: [],
        cards: [],
        boards,
        activity: [],
        needs: { answering: "off", advice: null, entries: [] },
        cardsKnown: true,
      };
      this.snap = { ...this.snap, gateways: [...this.snap.gateways, g] };
    }
    return g;
  }
}

/** FAKE settings in memory: `update` merges a patch and tells every listener, as SettingsStore does. */
export class FakeSettings {
  private doc: Settings = { ...(defaultSettings() as unknown as Settings), gateways: [], credentialStorage: "os-keychain" };
  private readonly listeners = new Set<(s: Settings) => void>();

  constructor(patch: Partial<Settings> = {}) {
    this.doc = { ...this.doc, ...patch };
  }
  view(): Settings {
    return structuredClone(this.doc);
  }
  onChange(listener: (s: Settings) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  listenerCount(): number {
    return this.listeners.size;
  }
  update(patch: SettingsPatch | Partial<Settings>): Settings {
    this.doc = { ...this.doc, ...(patch as Partial<Settings>) };
    for (const l of [...this.listeners]) l(this.view());
    return this.view();
  }
}
