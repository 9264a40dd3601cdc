// The page's copy of the main-process state (P4): one snapshot, then the change stream.
// Every placement reads it the same way; only the popover uses the expansion memory. Text
// from the Gateway is taken in without control characters (display-text.ts).
import type {
  BoardsState,
  CardEntry,
  ConnectionState,
  DeskChange,
  NeedEntry,
  NeedRecord,
  NeedsState,
  DeskSnapshot,
  SessionActivity,
  SessionInfo,
} from "../../common/model.ts";
import type { DeskApi, GatewayInput, Settings, SettingsPatch } from "../../common/contract.ts";
import type { UpdateView } from "../../common/updates.ts";
import { BURST_WINDOW_MS, CardBurst } from "../../common/card-burst.ts";
import { cardSlotKey, gatewaySessionKey } from "../../common/keys.ts";
import { shownSlotsOf } from "../../common/visible-cards.ts";
import { holdNearScreenDraws } from "./card-drawing.ts";
import { firstLoadGoesOn } from "./connection-view.ts";
import { ExpansionMemory } from "./expansion.ts";
import { connectionForDisplay, entryForDisplay, sessionsForDisplay } from "./display-text.ts";

export type GatewayView = {
  id: string;
  label: string;
  url: string;
  /** From Settings; null when the Gateway has none (or is not in Settings). */
  color: string | null;
  connection: ConnectionState;
};

type Keyed = Pick<CardEntry, "gatewayId" | "sessionKey" | "agentId">;

const RELOAD_RETRY_MS = 2000;
/*
 * P6: a change is applied the moment it arrives, unless a load is on (common/card-burst.ts: BURST_CARDS
 * different cards changed within BURST_WINDOW_MS). Changes are then applied together, the first
 * batch after LOAD_BATCH_MS (later ones further apart): drawing the list a few times instead of once per card leaves the CPU to
 * the Gateway and the core, which a start-up waits on (issue 21). Every batch lays the
 * whole list out again: every 100 ms, the page's main thread spent a median 1.6 s on a start-up of
 * 300 cards in the popover and 2.7 s in the dashboard (bench/startup.ts, one-line notes), every 250 ms
 * 1.4 s and 2.3 s. Applying at a pause in the stream instead does not help: a start-up's reads come
 * in clumps, with short pauses between them.
 * One card changing fast (an agent writing often) is no load, and neither is a put's card, session
 * row and activity.
 */
/** How often the changes queued during a load are applied: first after LOAD_BATCH_MS, … */
export const LOAD_BATCH_MS = 250;
/**
 * … then each batch of the same load waits twice as long as the one before, up to LOAD_BATCH_MAX_MS.
 * The first cards show quickly; a long load's later batches each lay out a longer list, and fewer of
 * them leave more CPU to the reads. A load read to its end is applied at once anyway (cardsKnown).
 */
export const LOAD_BATCH_MAX_MS = 1000;
/**
 * How long after its latest card new to it a load still batches what comes. Only the batching: near-screen
 * draws resume BURST_WINDOW_MS after the last card (#settle), and a batch is never held past LOAD_BATCH_MAX_MS.
 */
export const LOAD_LINGER_MS = 500;
/** How long an ended needs-you entry stays on the page with its outcome. */
export const RESOLVED_SHOWN_MS = 20_000;

export class DeskState {
  readonly api: DeskApi;
  readonly expansion = new ExpansionMemory();

  loaded = $state(false);
  loadError = $state<string | null>(null);
  settings = $state.raw<Settings | null>(null);
  #snapshotGateways = $state.raw<{ id: string; label: string; url: string; color: string | null }[]>([]);
  #connections = $state.raw<Record<string, ConnectionState>>({});
  entries = $state.raw<Record<string, CardEntry>>({});
  sessions = $state.raw<Record<string, SessionInfo[]>>({});
  /** P3: progress widgets agents pinned on each Gateway's boards. */
  boards = $state.raw<Record<string, BoardsState>>({});
  /** What agents are doing now, by `gatewayId\u0000sessionKey` (issue 5). */
  activity = $state.raw<Record<string, SessionActivity>>({});
  /** Needs you: each Gateway's pending entries and whether this desk answers them. */
  needs = $state.raw<Record<string, NeedsState>>({});
  /** Entries that ended a moment ago, with their outcome, newest first (shown for RESOLVED_SHOWN_MS). */
  resolvedNeeds = $state.raw<NeedRecord[]>([]);
  /** Per Gateway: every card of its roster was read once (until then a session without a card may hold one). */
  cardsKnown = $state.raw<Record<string, boolean>>({});
  /** The app's own updates (U6): null until the snapshot says. */
  updates = $state.raw<UpdateView | null>(null);
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- timers to clear, never rendered
  #resolvedTimers = new Set<ReturnType<typeof setTimeout>>();
  #expansionVersion = $state(0);

  #buffering = true;
  /** Changes that arrived during a load (or behind such changes); applied together by #batch. */
  #queued: DeskChange[] = [];
  /** While #applyQueued applies a batch: its copy of `entries`, written back once at the end. */
  #entriesDraft: { entries: Map<string, CardEntry>; changed: boolean } | null = null;
  /** The card changes of the last BURST_WINDOW_MS: whether a load is on. */
  #cardBurst = new CardBurst();
  /** Until when a load found by #inLoad goes on for batching: LOAD_LINGER_MS after its latest new card. */
  #loadGoesOnUntil = 0;
  /** The cards changed since the load going on began (or the latest card, when none goes on). */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping, never rendered
  #loadCards = new Set<string>();
  #batch: ReturnType<typeof setTimeout> | null = null;
  /** Batches applied since the page last applied a change at once (no load on): the next one waits longer. */
  #loadBatches = 0;
  /** Ends the hold on near-screen draws once a load is over (#settle). */
  #settleTimer: ReturnType<typeof setTimeout> | null = null;
  #loading: Promise<void> | null = null;
  #again = false;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #unsubscribe: (() => void)[] = [];

  /** Every Gateway the page knows, in snapshot order, labelled and coloured from Settings. */
  gateways: GatewayView[] = $derived.by(() => {
    const configured = this.settings?.gateways ?? [];
    const out: GatewayView[] = [];
    for (const g of this.#snapshotGateways) {
      const conn = this.#connections[g.id];
      if (!conn) continue;
      const cfg = configured.find((c) => c.id === g.id);
      out.push({ id: g.id, label: cfg?.label || g.label, url: cfg?.url || g.url, color: cfg?.color || g.color || null, connection: conn });
    }
    return out;
  });

  /** G5: label cards and banners with their Gateway only when there is more than one. */
  multiGateway: boolean = $derived(this.gateways.length > 1);

  connections: Record<string, ConnectionState> = $derived(this.#connections);

  /** Every pending needs-you entry on every Gateway, oldest first. */
  pendingNeeds: NeedEntry[] = $derived(
    Object.values(this.needs)
      .flatMap((n) => n.entries)
      .sort((a, b) => a.arrivedAt - b.arrivedAt),
  );

  /** Whether some Gateway's first reading of its cards goes on (connection-view.ts: firstLoadGoesOn). */
  cardsLoading: boolean = $derived(this.gateways.some((g) => !this.cardsKnown[g.id] && firstLoadGoesOn(g.connection)));

  /** The popover's list: visible cards and slots that say why they show none, by the one rule (P2, P4). */
  shownSlots: CardEntry[] = $derived(shownSlotsOf(Object.values(this.entries)));

  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- rebuilt whole by $derived and never mutated
  pinned: ReadonlySet<string> = $derived(new Set(this.settings?.pinned ?? []));

  constructor(api: DeskApi) {
    this.api = api;
  }

  /** Subscribe and load; returns a stop function. */
  start(): () => void {
    this.#unsubscribe.push(
      this.api.onChange((c) => this.#receive(c)),
      this.api.onSettings((s) => this.#setSettings(s)),
      this.expansion.subscribe(() => {
        this.#expansionVersion += 1;
      }),
    );
    void this.reload();
    return () => {
      for (const off of this.#unsubscribe.splice(0)) off();
      if (this.#retryTimer) clearTimeout(this.#retryTimer);
      if (this.#batch) clearTimeout(this.#batch);
      if (this.#settleTimer) clearTimeout(this.#settleTimer);
      holdNearScreenDraws(false);
      this.#queued = [];
      for (const t of this.#resolvedTimers) clearTimeout(t);
      this.#resolvedTimers.clear();
    };
  }

  /**
   * Loads Settings, then the snapshot. Changes that arrive before the snapshot reply are
   * already in it (the bridge delivers events and replies in order) and are dropped;
   * later ones apply on top. Concurrent calls coalesce into one more load.
   */
  reload(): Promise<void> {
    if (this.#loading) {
      this.#again = true;
      return this.#loading;
    }
    this.#loading = (async () => {
      do {
        this.#again = false;
        this.#buffering = true;
        try {
          const settings = await this.api.getSettings();
          this.#setSettings(settings, false);
          this.#buffering = true; // anything heard so far predates the snapshot asked for now
          const snap = await this.api.snapshot();
          this.#applySnapshot(snap);
          this.loadError = null;
          this.loaded = true;
        } catch (err) {
          this.loadError = err instanceof Error ? err.message : String(err);
          if (this.#retryTimer) clearTimeout(this.#retryTimer);
          this.#retryTimer = setTimeout(() => void this.reload(), RELOAD_RETRY_MS);
        } finally {
          this.#buffering = false;
        }
      } while (this.#again);
      this.#loading = null;
    })();
    return this.#loading;
  }

  gateway(id: string): GatewayView | null {
    return this.gateways.find((g) => g.id === id) ?? null;
  }

  /** The live run of a card's session, or null when none is live. */
  liveActivity(ref: Pick<CardEntry, "gatewayId" | "sessionKey">): SessionActivity | null {
    const a = this.activity[gatewaySessionKey(ref)];
    return a?.live ? a : null;
  }

  /** The pending entry a session waits on (the first), or null: its card says so. */
  needOf(ref: Pick<CardEntry, "gatewayId" | "sessionKey">): NeedEntry | null {
    return this.needs[ref.gatewayId]?.entries.find((e) => e.sessionKey === ref.sessionKey) ?? null;
  }

  entryFor(ref: Keyed): CardEntry | null {
    return this.entries[cardSlotKey(ref)] ?? null;
  }

  // ——— expansion (E1–E4), reactive ———

  isOpen(card: Keyed): boolean {
    void this.#expansionVersion;
    return this.expansion.isOpen(card);
  }

  mayAnimate(card: Keyed): boolean {
    void this.#expansionVersion;
    return this.expansion.mayAnimate(card);
  }

  toggle(card: Keyed): void {
    this.expansion.toggle(card);
  }

  open(card: Keyed): void {
    this.expansion.setOpen(card, true);
  }

  // ——— settings ———

  async updateSettings(patch: SettingsPatch): Promise<Settings> {
    const next = await this.api.updateSettings(patch);
    this.#setSettings(next);
    return next;
  }

  async saveGateway(input: GatewayInput): Promise<Settings> {
    const next = await this.api.saveGateway(input);
    this.#setSettings(next);
    return next;
  }

  async removeGateway(id: string): Promise<Settings> {
    const next = await this.api.removeGateway(id);
    this.#setSettings(next);
    return next;
  }

  isPinned(e: Pick<CardEntry, "gatewayId" | "sessionKey">): boolean {
    return this.pinned.has(gatewaySessionKey(e));
  }

  async setPinned(e: Pick<CardEntry, "gatewayId" | "sessionKey">, on: boolean): Promise<void> {
    const key = gatewaySessionKey(e);
    const current = this.settings?.pinned ?? [];
    const next = on ? (current.includes(key) ? current : [...current, key]) : current.filter((k) => k !== key);
    await this.updateSettings({ pinned: next });
  }

  // ——— applying what main says ———

  #setSettings(s: Settings, reloadOnGatewayChange = true): void {
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- local, never rendered
    const before = new Set((this.settings?.gateways ?? []).map((g) => g.id));
    const hadSettings = this.settings !== null;
    this.settings = s;
    this.expansion.setCollapseByDefault(s.collapseByDefault);
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- local, never rendered
    const after = new Set(s.gateways.map((g) => g.id));
    for (const id of before) if (!after.has(id)) this.expansion.forgetGateway(id);
    // A Gateway was added or removed: main has a different set of connections now.
    const changed = before.size !== after.size || [...after].some((id) => !before.has(id));
    if (reloadOnGatewayChange && hadSettings && changed) void this.reload();
  }

  #applySnapshot(snap: DeskSnapshot): void {
    // Everything still queued arrived before this reply (the bridge keeps order): the snapshot has it.
    this.#queued = [];
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- local, never rendered
    const known = new Set(snap.gateways.map((g) => g.id));
    for (const g of this.#snapshotGateways) if (!known.has(g.id)) this.expansion.forgetGateway(g.id);
    const connections: Record<string, ConnectionState> = {};
    const sessions: Record<string, SessionInfo[]> = {};
    const entries: Record<string, CardEntry> = {};
    const boards: Record<string, BoardsState> = {};
    const activity: Record<string, SessionActivity> = {};
    const needs: Record<string, NeedsState> = {};
    const cardsKnown: Record<string, boolean> = {};
    for (const g of snap.gateways) {
      needs[g.id] = g.needs;
      cardsKnown[g.id] = g.cardsKnown;
      for (const a of g.activity ?? []) activity[gatewaySessionKey(a)] = a;
      connections[g.id] = connectionForDisplay(g.connection);
      sessions[g.id] = sessionsForDisplay(g.sessions);
      if (g.boards) boards[g.id] = g.boards;
      this.expansion.connection(g.id, g.connection, g.url);
      for (const e of g.cards) {
        this.expansion.observe(e);
        entries[cardSlotKey(e)] = entryForDisplay(e);
      }
    }
    this.#snapshotGateways = snap.gateways.map((g) => ({ id: g.id, label: g.label, url: g.url, color: g.color ?? null }));
    this.#connections = connections;
    this.sessions = sessions;
    this.boards = boards;
    this.activity = activity;
    this.needs = needs;
    this.cardsKnown = cardsKnown;
    this.entries = entries;
    this.updates = snap.updates ?? null;
  }

  #showResolved(record: NeedRecord): void {
    this.resolvedNeeds = [record, ...this.resolvedNeeds.filter((r) => r.gatewayId !== record.gatewayId || r.id !== record.id)];
    const timer = setTimeout(() => {
      this.#resolvedTimers.delete(timer);
      this.resolvedNeeds = this.resolvedNeeds.filter((r) => r !== record);
    }, RESOLVED_SHOWN_MS);
    this.#resolvedTimers.add(timer);
  }

  #receive(change: DeskChange): void {
    if (change.type === "cardsKnown") {
      // A Gateway's roster was read to its end: the cards queued are the last of its load, so
      // they show now, not at the next batch (up to LOAD_BATCH_MAX_MS later). A load still streaming
      // from another Gateway goes on batching what comes next. Nothing to apply of its own.
      if (this.#queued.length > 0) {
        if (this.#batch) clearTimeout(this.#batch);
        this.#applyQueued();
      }
      // During a reload the snapshot asked for says it.
      if (!this.#buffering && !this.cardsKnown[change.gatewayId]) this.cardsKnown = { ...this.cardsKnown, [change.gatewayId]: true };
      return;
    }
    if (change.type === "card") {
      const now = performance.now();
      const key = cardSlotKey(change.entry);
      this.#cardBurst.note(key, now);
      if (now >= this.#loadGoesOnUntil) this.#loadCards.clear();
      const newToLoad = !this.#loadCards.has(key);
      this.#loadCards.add(key);
      // A load goes on while its cards keep coming, even slower than it was found by: a start-up's
      // stream comes in clumps with pauses of a few hundred ms, and a card applied alone costs a whole
      // pass over the list (about 55 of 300 cards were, when a load ended BURST_WINDOW_MS after a card).
      // Only a card new to the load keeps it on: an agent writing its card every few hundred ms just
      // after a start-up kept one on for good, and every change of that card waited for a batch.
      if (this.#inLoad() || (now < this.#loadGoesOnUntil && newToLoad)) this.#loadGoesOnUntil = now + LOAD_LINGER_MS;
      // Cards are coming: shells nearing the screen wait until they stop (lib/card-drawing.ts says
      // why). From the first card on, since a load is only known after BURST_CARDS of them.
      holdNearScreenDraws(true);
      this.#settle();
    }
    // Behind queued changes a change waits its turn: the page applies them in the order they came.
    if (this.#queued.length === 0 && performance.now() >= this.#loadGoesOnUntil && !this.#inLoad()) {
      this.#loadBatches = 0;
      this.#onChange(change);
      return;
    }
    this.#queued.push(change);
    this.#batch ??= setTimeout(() => this.#applyQueued(), Math.min(LOAD_BATCH_MAX_MS, LOAD_BATCH_MS * 2 ** this.#loadBatches));
  }

  #applyQueued(): void {
    this.#batch = null;
    this.#loadBatches += 1;
    const queued = this.#queued;
    this.#queued = [];
    // One write of `entries` for the whole batch: each write walks everything derived from it (the
    // list, its groups, every card's place in it), so a write per card cost a batch that walk per card.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a draft, never rendered: `entries` is written once from it
    this.#entriesDraft = { entries: new Map(Object.entries(this.entries)), changed: false };
    try {
      for (const c of queued) this.#onChange(c);
    } finally {
      const draft = this.#entriesDraft;
      this.#entriesDraft = null;
      // A reload started by a change replaced `entries` itself; the draft is then stale.
      if (draft.changed && !this.#buffering) this.entries = Object.fromEntries(draft.entries);
    }
    this.#settle();
  }

  /** Ends the hold on near-screen draws BURST_WINDOW_MS after the last card change or batch, if no load goes on. */
  #settle(): void {
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    this.#settleTimer = setTimeout(() => {
      this.#settleTimer = null;
      if (this.#queued.length > 0) return; // a batch is due; it settles again
      if (this.#inLoad()) this.#settle();
      else holdNearScreenDraws(false);
    }, BURST_WINDOW_MS);
  }

  /**
   * Whether cards stream in as a load (found by #inLoad, going on LOAD_LINGER_MS after its latest
   * new card). Not reactive: a card asks when it is made (components/ProgressCard.svelte).
   */
  loadStreaming(): boolean {
    return performance.now() < this.#loadGoesOnUntil || this.#inLoad();
  }

  /** Whether a load is on (common/card-burst.ts). */
  #inLoad(): boolean {
    return this.#cardBurst.isOn(performance.now());
  }

  #onChange(change: DeskChange): void {
    const type = (change as { type: string }).type;
    if (type === "updates") {
      // Not part of what a load buffers: the latest state is the whole of it.
      this.updates = (change as Extract<DeskChange, { type: "updates" }>).updates;
      return;
    }
    if (type !== "connection" && type !== "card" && type !== "sessions" && type !== "boards" && type !== "activity" && type !== "needs") {
      // Anything else (the host bridge reconnected, the set of Gateways changed): reload.
      void this.reload();
      return;
    }
    if (this.#buffering) return; // the snapshot being loaded covers it
    switch (type) {
      case "connection": {
        const c = change as Extract<DeskChange, { type: "connection" }>;
        if (!this.#snapshotGateways.some((g) => g.id === c.gatewayId)) {
          void this.reload(); // a Gateway this page has not loaded yet
          return;
        }
        const url = this.#snapshotGateways.find((g) => g.id === c.gatewayId)?.url ?? null;
        this.expansion.connection(c.gatewayId, c.connection, url);
        this.#connections = { ...this.#connections, [c.gatewayId]: connectionForDisplay(c.connection) };
        return;
      }
      case "card": {
        const c = change as Extract<DeskChange, { type: "card" }>;
        this.expansion.observe(c.entry);
        const key = cardSlotKey(c.entry);
        // A cleared slot with nothing to say leaves the page's state (it may come back).
        const gone = c.entry.card === null && c.entry.error === null && !c.entry.updateRequired && !c.entry.hidden;
        const draft = this.#entriesDraft;
        if (draft) {
          // Inside a batch (#applyQueued): the draft is this batch's own copy.
          if (gone) {
            if (!draft.entries.delete(key)) return;
          } else draft.entries.set(key, entryForDisplay(c.entry));
          draft.changed = true;
          return;
        }
        if (gone) {
          // Most sessions hold no card: at start each says so once, and the page has nothing to drop.
          if (!(key in this.entries)) return;
          const { [key]: _gone, ...rest } = this.entries;
          this.entries = rest;
        } else this.entries = { ...this.entries, [key]: entryForDisplay(c.entry) };
        return;
      }
      case "sessions": {
        const c = change as Extract<DeskChange, { type: "sessions" }>;
        this.sessions = { ...this.sessions, [c.gatewayId]: sessionsForDisplay(c.sessions) };
        return;
      }
      case "boards": {
        const c = change as Extract<DeskChange, { type: "boards" }>;
        this.boards = { ...this.boards, [c.gatewayId]: c.boards };
        return;
      }
      case "needs": {
        const c = change as Extract<DeskChange, { type: "needs" }>;
        this.needs = { ...this.needs, [c.gatewayId]: c.needs };
        if (c.event?.kind === "resolved") this.#showResolved(c.event.record);
        return;
      }
      case "activity": {
        const c = change as Extract<DeskChange, { type: "activity" }>;
        const key = gatewaySessionKey(c.activity);
        if (!c.activity.live && c.activity.lines.length === 0 && !c.activity.stall) {
          const { [key]: _gone, ...rest } = this.activity;
          this.activity = rest;
        } else this.activity = { ...this.activity, [key]: c.activity };
        return;
      }
    }
  }
}
