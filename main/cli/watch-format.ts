// What `progress-desk watch` prints, as pure functions of the core's state: the
// `--json` lines (a stable format scripts depend on), plain lines, and the TTY block.
import { visibleCards } from "../../common/visible-cards.ts";
import { noteLine } from "../../common/note-line.ts";
import { shortKeyTitle } from "../../common/sessions.ts";
import { truncate } from "../../common/truncate.ts";
import type { CardEntry, ConnectionState, DeskSnapshot, NeedEntry, NeedEvent, SessionActivity } from "../../common/model.ts";
import { controlUiLink } from "../../common/session-link.ts";
import { timingJson, timingMarks, type TimingJson } from "../../common/timing-view.ts";

/**
 * One `--json` line: the original text, JSON-escaped. JSON.stringify leaves DEL and the 8-bit
 * controls (U+0080–U+009F) raw (a terminal showing the line could act on them), so they are escaped too:
 * a parser reads the same string.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) + "\n";
}

export type CardLine = {
  type: "card";
  gateway: string;
  sessionKey: string;
  agentId: string | null;
  revision: number | null;
  updatedAt: number | null;
  steps: { step: string; status: string }[];
  markdown: string | null;
  derived: { completed: number; total: number; current: string | null; state: string; outcome: string | null };
  title: string;
  hidden: boolean;
  /** Step times and estimate from the local history; all null/empty when unknown or cleared. */
  timing: TimingJson;
};

/** One `{"type":"card"}` object; a cleared card has revision null and state "cleared". */
export function cardLine(entry: CardEntry): CardLine {
  const card = entry.hidden ? null : entry.card;
  const d = card ? entry.derived : null;
  return {
    type: "card",
    gateway: entry.gatewayId,
    sessionKey: entry.sessionKey,
    agentId: entry.agentId,
    revision: card?.revision ?? null,
    updatedAt: card?.updatedAt ?? null,
    steps: card ? card.steps.map((s) => ({ step: s.step, status: s.status })) : [],
    markdown: card?.markdown ?? null,
    derived: d
      ? { completed: d.completed, total: d.total, current: d.current, state: d.state, outcome: d.outcome }
      : { completed: 0, total: 0, current: null, state: entry.hidden ? "hidden" : "cleared", outcome: null },
    title: entry.title,
    hidden: entry.hidden,
    timing: timingJson(card ? (entry.timing ?? null) : null),
  };
}

/**
 * What makes a card change "confirmed" and worth a line: a new revision, a clear, or a
 * new meaning (state, counts, outcome, title, visibility). Offline marking is not one.
 */
export function cardSignature(entry: CardEntry): string {
  const l = cardLine(entry);
  return JSON.stringify([l.revision, l.derived, l.title, l.hidden]);
}

export type ActivityJsonLine = {
  type: "activity";
  gateway: string;
  sessionKey: string;
  live: boolean;
  runId: string | null;
  current: ActivityJsonEntry | null;
  lines: ActivityJsonEntry[];
  stall: { kind: string; text: string } | null;
};

/** `count` is present only on a line standing for several same calls in a row (added later: optional). */
type ActivityJsonEntry = { glyph: string; label: string; tool: string; status: string; at: number; count?: number };

/** One `{"type":"activity"}` object: labels only, never tool output. */
export function activityLine(a: SessionActivity): ActivityJsonLine {
  const line = (l: SessionActivity["lines"][number]): ActivityJsonEntry => ({
    glyph: l.glyph,
    label: l.label,
    tool: l.tool,
    status: l.status,
    at: l.at,
    ...(l.count !== undefined && l.count > 1 ? { count: l.count } : {}),
  });
  return {
    type: "activity",
    gateway: a.gatewayId,
    sessionKey: a.sessionKey,
    live: a.live,
    runId: a.runId,
    current: a.current ? line(a.current) : null,
    lines: a.lines.map(line),
    stall: a.stall ? { kind: a.stall.kind, text: a.stall.text } : null,
  };
}

/** What makes an activity change worth a line: what it shows, not when it was computed. */
export function activitySignature(a: SessionActivity): string {
  const l = activityLine(a);
  return JSON.stringify([
    l.live,
    l.runId,
    l.current?.label,
    l.current?.status,
    l.current?.count ?? 1,
    l.lines.map((x) => [x.label, x.status, x.count ?? 1]),
    l.stall?.text ?? null,
  ]);
}

export function connectionLine(gatewayId: string, state: ConnectionState): Record<string, unknown> {
  return { type: "connection", gateway: gatewayId, ...state };
}

function clock(ms: number | null): string {
  if (ms === null) return "--:--";
  return new Date(ms).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

const STATE_LABEL: Record<string, string> = {
  active: "working",
  paused: "paused",
  complete: "done",
  note: "note",
};

function outcomeLabel(outcome: string | null): string | null {
  if (outcome === null) return null;
  return outcome === "done" ? "run finished" : outcome === "timeout" ? "run timed out" : `run ${outcome}`;
}

/** One line per confirmed change when stdout is not a terminal (and not --json). */
export function plainCardLine(entry: CardEntry, width = 120): string {
  const l = cardLine(entry);
  if (l.revision === null) return truncate(`${clock(Date.now())} ${l.title} — ${l.hidden ? "no access" : "cleared"}`, width);
  const parts = [clock(l.updatedAt), l.title];
  if (l.derived.total > 0) parts.push(`${l.derived.completed}/${l.derived.total}`);
  parts.push(STATE_LABEL[l.derived.state] ?? l.derived.state);
  const outcome = outcomeLabel(l.derived.outcome);
  if (outcome) parts.push(`(${outcome})`);
  if (l.derived.current) parts.push(`— ${l.derived.current}`);
  return truncate(parts.join(" "), width);
}

export function plainConnectionLine(label: string, state: ConnectionState, width = 160): string {
  return truncate(`${clock(Date.now())} ${label}: ${state.state.replace(/_/g, " ")} — ${state.advice}`, width);
}

const GLYPH: Record<string, string> = { active: "▶", paused: "⏸", complete: "✓", note: "•" };

/** The card the terminal indicator follows: the newest active one, else the newest. */
export function focusedCard(snapshot: DeskSnapshot): CardEntry | null {
  const cards = visibleCards(snapshot).filter((e) => e.derived && e.derived.total > 0);
  return cards.find((e) => e.derived?.state === "active") ?? cards[0] ?? null;
}

/** The words for cards not working, by state: "finished", "paused", "notes". */
const REST_LABEL: Record<string, string> = { complete: "finished", paused: "paused", note: "notes" };

/** "+ 112 finished or paused (30 finished · 82 paused)": the cards a crowded terminal does not list. */
export function restLine(rest: readonly CardEntry[]): string {
  const counts = new Map<string, number>();
  for (const e of rest) {
    const label = REST_LABEL[e.derived?.state ?? "note"] ?? "notes";
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const labels = ["finished", "paused", "notes"].filter((l) => counts.has(l));
  const noun = labels.length > 1 ? `${labels.slice(0, -1).join(", ")} or ${labels.at(-1)}` : (labels[0] ?? "");
  const detail = labels.length > 1 ? ` (${labels.map((l) => `${counts.get(l)} ${l}`).join(" · ")})` : "";
  return `+ ${rest.length} ${noun}${detail}`;
}

/**
 * The TTY status block: connection first, then one or two lines per card. When there are
 * more cards than fit, only the working ones are listed and the rest are counted, so a
 * desk with hundreds of cards does not flood the terminal.
 */
export function statusBlock(snapshot: DeskSnapshot, width: number, maxCards = 12, now: number = Date.now()): string[] {
  const lines: string[] = [];
  const many = snapshot.gateways.length > 1;
  for (const g of snapshot.gateways) {
    const c = g.connection;
    const head = c.state === "connected" ? `● ${g.label} connected` : `○ ${g.label} ${c.state.replace(/_/g, " ")}`;
    lines.push(truncate(c.state === "connected" && !c.limited ? head : `${head} — ${c.advice}`, width));
  }
  lines.push(...needsRows(snapshot, width, now));
  const cards = visibleCards(snapshot);
  const crowded = cards.length > maxCards;
  const listed = crowded ? cards.filter((e) => e.derived?.state === "active") : cards;
  const rest = crowded ? cards.filter((e) => e.derived?.state !== "active") : [];
  if (cards.length === 0) lines.push("  No progress cards yet. Agents write them during longer tasks.");
  for (const e of listed.slice(0, maxCards)) {
    // Visible cards always have a card and its derived state.
    const { derived: d, card } = e;
    if (!d || !card) continue;
    const gateway = many ? `[${snapshot.gateways.find((g) => g.id === e.gatewayId)?.label ?? e.gatewayId}] ` : "";
    const count = d.total > 0 ? ` ${d.completed}/${d.total}` : "";
    const marks = [
      STATE_LABEL[d.state],
      ...timingMarks(e, now),
      outcomeLabel(d.outcome),
      e.freshness === "offline" ? `offline, as of ${clock(e.confirmedAt)}` : null,
      e.freshness === "stale" ? "not refreshed" : null,
      e.error ? e.error.message : null,
      e.refresh?.status === "pending"
        ? "refreshing…"
        : e.refresh?.status === "timed_out"
          ? "refresh timed out"
          : e.refresh?.status === "failed"
            ? `refresh failed: ${e.refresh.error}`
            : null,
    ].filter(Boolean);
    lines.push(truncate(`${GLYPH[d.state] ?? "•"} ${gateway}${e.title}${count}  ${marks.join(" · ")}  ${clock(card.updatedAt)}`, width));
    const detail = d.current ?? (card.markdown ? (noteLine(card.markdown) ?? "Progress updated") : null);
    if (detail) lines.push(truncate(`    ${detail}`, width));
    lines.push(...activityRows(activityOf(snapshot, e.gatewayId, e.sessionKey), width));
  }
  // Live runs without a card still show what they are doing.
  for (const g of snapshot.gateways) {
    for (const a of g.activity ?? []) {
      if (!a.live || cards.some((e) => e.gatewayId === a.gatewayId && e.sessionKey === a.sessionKey)) continue;
      const title = g.sessions.find((s) => s.key === a.sessionKey)?.title ?? shortKeyTitle(a.sessionKey);
      lines.push(truncate(`▸ ${many ? `[${g.label}] ` : ""}${title}  working`, width));
      lines.push(...activityRows(a, width));
    }
  }
  if (listed.length > maxCards) lines.push(`  … and ${listed.length - maxCards} more working`);
  if (rest.length > 0) lines.push(`  ${truncate(restLine(rest), width - 2)}`);
  return lines;
}

function activityOf(snapshot: DeskSnapshot, gatewayId: string, sessionKey: string): SessionActivity | null {
  return snapshot.gateways.find((g) => g.id === gatewayId)?.activity?.find((a) => a.sessionKey === sessionKey) ?? null;
}

/** Under a card: the live tool line and a no-progress observation, quieter than the card. */
function activityRows(a: SessionActivity | null, width: number): string[] {
  if (!a) return [];
  const rows: string[] = [];
  if (a.live && a.current) {
    const waiting = a.current.status === "waiting" ? "waiting for your approval · " : "";
    const count = a.current.count !== undefined && a.current.count > 1 ? ` ×${a.current.count}` : "";
    // The count stays visible when the label is cut.
    rows.push(truncate(`    ⋯ ${waiting}${a.current.label}`, Math.max(1, width - count.length)) + count);
  }
  if (a.live && a.stall) rows.push(truncate(`    ! ${a.stall.text}`, width));
  return rows;
}

// ——— needs you (Y8) ———

// Control characters (C0, DEL, C1) in Gateway text would steer the terminal: out they go.
// The narrowest place: only text from a needs-you entry, only on its way to a terminal line.
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Gateway text made safe for one terminal line: each control character becomes a space. */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_CONTROL, " ");
}

export type NeedsJsonLine = {
  type: "needs";
  gateway: string;
  event: "arrived" | "updated" | "resolved";
  id: string;
  kind: string;
  sessionKey: string | null;
  agentId: string | null;
  runId: string | null;
  command: string | null;
  cwd: string | null;
  host: string | null;
  title: string | null;
  description: string | null;
  questions: { questionId: string; header: string; question: string; options: string[]; multiSelect: boolean; isOther: boolean }[];
  allowedDecisions: string[];
  arrivedAt: number;
  expiresAt: number | null;
  /** The Control UI page for it on its Gateway, or null. */
  link: string | null;
  /** Set on `resolved`: how it ended. */
  outcome: { outcome: string; text: string; resolvedBy: string | null; endedAt: number } | null;
};

/** One `{"type":"needs"}` object per entry change; text exactly as the Gateway sent it. */
export function needsLine(event: NeedEvent, gatewayUrl: string | null): NeedsJsonLine {
  const e = event.entry;
  return {
    type: "needs",
    gateway: e.gatewayId,
    event: event.kind,
    id: e.id,
    kind: e.kind,
    sessionKey: e.sessionKey,
    agentId: e.agentId,
    runId: e.runId,
    command: e.command,
    cwd: e.cwd,
    host: e.host,
    title: e.title,
    description: e.description,
    questions: e.questions.map((q) => ({ ...q, options: q.options.map((o) => o.label) })),
    allowedDecisions: [...e.allowedDecisions],
    arrivedAt: e.arrivedAt,
    expiresAt: e.expiresAt,
    link: gatewayUrl && e.linkPath ? controlUiLink(gatewayUrl, e.linkPath) : null,
    outcome:
      event.kind === "resolved"
        ? { outcome: event.record.outcome, text: event.record.text, resolvedBy: event.record.resolvedBy, endedAt: event.record.endedAt }
        : null,
  };
}

/**
 * The line as written: JSON escapes C0 but not DEL or C1, which some terminals obey; as
 * `\u` escapes they read back as the same value and never reach the terminal raw.
 */
export function needsJson(line: NeedsJsonLine): string {
  return jsonLine(line).slice(0, -1); // the same escaping as every other --json line
}

/** What is asked, in one line: `run uname -s`, the plugin's title, the first question. */
function askedText(e: NeedEntry): string {
  if (e.kind === "exec") return `run ${e.command ?? "a command"}${e.cwd ? ` in ${e.cwd}` : ""}${e.host ? ` on ${e.host}` : ""}`;
  if (e.kind === "plugin") return e.title ?? "a plugin action";
  if (e.kind === "question") return e.questions[0]?.question ?? "a question";
  return "approval of a tool call";
}

function expiresIn(expiresAt: number | null, now: number): string | null {
  if (expiresAt === null) return null;
  const min = Math.ceil((expiresAt - now) / 60_000);
  return min <= 0 ? "expiring" : `expires in ${min} min`;
}

/** One plain line per entry change (stdout not a terminal, not --json). */
export function plainNeedsLine(event: NeedEvent, title: string, gatewayUrl: string | null, width = 200): string {
  const e = event.entry;
  const what = terminalText(`${terminalText(title)}: ${askedText(e)}`);
  if (event.kind === "resolved") return truncate(`${clock(event.record.endedAt)} ✓ ${what} — ${terminalText(event.record.text)}`, width);
  const link = gatewayUrl && e.linkPath ? controlUiLink(gatewayUrl, e.linkPath) : null;
  const verb = e.kind === "question" ? "asks" : "waits for your approval";
  return truncate(`${clock(Date.now())} ! ${what} — ${verb}${link ? ` · ${link}` : ""}`, width);
}

/** The TTY block's needs-you lines, above the cards: every pending entry on every Gateway. */
export function needsRows(snapshot: DeskSnapshot, width: number, now: number = Date.now()): string[] {
  const rows: string[] = [];
  const many = snapshot.gateways.length > 1;
  for (const g of snapshot.gateways) {
    for (const e of g.needs?.entries ?? []) {
      const title = g.sessions.find((s) => s.key === e.sessionKey)?.title ?? (e.sessionKey ? shortKeyTitle(e.sessionKey) : "An agent");
      const marks = [e.kind === "question" ? "asks you" : "waits for your approval", expiresIn(e.expiresAt, now)].filter(Boolean);
      rows.push(truncate(`! ${many ? `[${g.label}] ` : ""}${terminalText(title)}  ${marks.join(" · ")}`, width));
      rows.push(truncate(`    ${terminalText(askedText(e))}`, width));
      const link = e.linkPath ? controlUiLink(g.url, e.linkPath) : null;
      if (link) rows.push(truncate(`    ${link}`, width));
    }
    if (g.needs?.answering === "refused" && g.needs.advice) rows.push(truncate(`  ${g.label}: ${g.needs.advice}`, width));
  }
  return rows;
}
