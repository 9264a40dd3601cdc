// Folding a run's `item`, `tool` and approval events into the session's calls: a new call
// becomes the current one and a stall-watch observation; a later event of the same call
// updates its detail or status. The Gateway's `item` summary wins over a line made from a
// `tool` event's arguments. The card's own writes make no call, only progress. Bounded:
// a few stored calls per line and a capped number of open calls.
import { noteCall, noteCardChange } from "../stall-detector.ts";
import type { ActivitySettings } from "./options.ts";
import type { Call, Session } from "./session-state.ts";
import { label } from "./session-view.ts";
import { kindOf, type ToolKind } from "./tool-labels.ts";
import { argsFingerprint, summaryFingerprint } from "./fingerprint.ts";
import { cleanDetail, detailFromArgs, str, type Obj } from "./payload.ts";
import { leftOffStrip } from "./strip-lines.ts";

/** Raw calls kept per session: enough for `new` mode to fill its lines after skipping repeats. */
const STORED_PER_LINE = 4;
/** Calls of the live run remembered by id (to apply their update/end). */
const MAX_OPEN_CALLS = 64;

type CallOptions = Pick<ActivitySettings, "maxLines" | "commandText" | "lineBudget">;

/** An `item` event's call; true when what the session shows changed. */
export function applyItemEvent(s: Session, data: Obj, now: number, opts: CallOptions): boolean {
  const tool = str(data.name);
  if (tool === null) return false;
  if (leftOffStrip(tool)) return applyCardWrite(s, now);
  const id = str(data.toolCallId) ?? str(data.itemId) ?? `${tool}#${s.calls.length}`;
  const phase = str(data.phase);
  const kind = kindOf(tool);
  const detail = kind.noDetail ? null : cleanDetail(data.meta, kind.lead);
  const command = kind.command === true || data.commandBearing === true;
  let call = s.open.get(id);
  let changed = false;
  if (!call) {
    const source = str(data.meta) ?? (kind.noDetail ? "" : (str(data.title) ?? ""));
    call = addCall(s, { id, tool, kind, detail, command, now, fingerprint: summaryFingerprint(tool, source), fromToolStream: false }, opts);
    changed = true;
  } else if (call.fromToolStream || (detail !== null && detail !== call.detail)) {
    // The Gateway's own summary replaces a line made from arguments, or a revised one.
    call.detail = detail ?? call.detail;
    call.fromToolStream = false;
    changed = true;
  }
  if (phase === "end") {
    const status = str(data.status);
    const next = status === "failed" || status === "error" || status === "cancelled" || status === "blocked" ? "failed" : "done";
    if (call.status !== next) {
      call.status = next;
      changed = true;
    }
    s.open.delete(id);
  }
  return changed;
}

/** Y7: a call waiting for the person's approval says so, not "running", until the approval is resolved. */
export function applyApproval(s: Session, toolCallId: string | null, waiting: boolean): boolean {
  const call = toolCallId === null ? null : (s.open.get(toolCallId) ?? null);
  if (!call) return false;
  const next = waiting ? "waiting" : "running";
  if (call.status === next || (!waiting && call.status !== "waiting")) return false;
  call.status = next;
  return true;
}

/** `tool` events reach only the run's own client with `tool-events`; used only when no `item` came. */
export function applyToolEvent(s: Session, data: Obj, now: number, opts: CallOptions): boolean {
  const tool = str(data.name);
  const id = str(data.toolCallId);
  if (tool === null || id === null) return false;
  if (leftOffStrip(tool)) return applyCardWrite(s, now);
  const phase = str(data.phase);
  const existing = s.open.get(id) ?? s.calls.find((c) => c.id === id);
  if (phase === "start" && !existing) {
    const kind = kindOf(tool);
    const command = kind.command === true || data.commandBearing === true;
    const detail = detailFromArgs(tool, data.args);
    addCall(s, { id, tool, kind, detail, command, now, fingerprint: argsFingerprint(tool, data.args), fromToolStream: true }, opts);
    return true;
  }
  if (phase === "result" && existing?.fromToolStream) {
    existing.status = data.isError === true ? "failed" : "done";
    s.open.delete(id);
    return true;
  }
  return false;
}

/** The agent writes its card: progress for the stall detector, and no line (the card shows it). */
function applyCardWrite(s: Session, now: number): boolean {
  if (s.watch) noteCardChange(s.watch, now);
  return false;
}

type NewCall = {
  id: string;
  tool: string;
  kind: ToolKind;
  detail: string | null;
  command: boolean;
  now: number;
  fingerprint: string;
  fromToolStream: boolean;
};

function addCall(s: Session, c: NewCall, opts: CallOptions): Call {
  const call: Call = {
    id: c.id,
    tool: c.tool,
    glyph: c.kind.glyph,
    verb: c.kind.verb,
    detail: c.detail,
    command: c.command,
    at: c.now,
    status: "running",
    fingerprint: c.fingerprint,
    fromToolStream: c.fromToolStream,
    repeatsBefore: 0,
  };
  s.calls.push(call);
  const keep = opts.maxLines * STORED_PER_LINE;
  if (s.calls.length > keep) carryRepeats(s.calls.splice(0, s.calls.length - keep), s.calls);
  s.open.set(call.id, call);
  if (s.open.size > MAX_OPEN_CALLS) {
    const oldestOpen = s.open.keys().next();
    if (!oldestOpen.done) s.open.delete(oldestOpen.value);
  }
  s.current = call;
  if (s.watch)
    noteCall(
      s.watch,
      { fingerprint: call.fingerprint, tool: call.tool, verb: call.verb, label: label(call, opts), shell: call.command },
      c.now,
    );
  return call;
}

/** The calls dropped by the bound hand their count to the first kept call when they were the same call. */
function carryRepeats(dropped: readonly Call[], kept: readonly Call[]): void {
  const first = kept[0];
  if (!first) return;
  for (const d of [...dropped].reverse()) {
    if (d.tool !== first.tool || d.detail !== first.detail || d.verb !== first.verb) return;
    first.repeatsBefore += 1 + d.repeatsBefore;
  }
}
