// The shared data model: what the Gateway sends (cards, session rows) and what every
// surface (Electron, browser host, `watch`) reads (snapshot + change stream).
import type { CredentialStorage } from "./credential-storage.ts";
import type { UpdateView } from "./updates.ts";

export type StepStatus = "pending" | "in_progress" | "completed";
export type Step = { step: string; status: StepStatus };

/** A saved card exactly as the Gateway returned it (C1), after validation. */
export type ProgressCard = {
  sessionKey: string;
  revision: number;
  updatedAt: number;
  markdown: string | null;
  steps: Step[];
};

export type RunStatus = "queued" | "running" | "done" | "failed" | "killed" | "timeout";

/** The parts of a `sessions.list` row the core uses (docs/gateway.md §5.2). */
export type SessionInfo = {
  key: string;
  /** The transcript id; a delete names it so a newer session reusing the key survives. */
  sessionId: string | null;
  agentId: string | null;
  title: string;
  kind: SessionKind;
  /** The session that spawned this one (sub-agents), for grouping under it. */
  parentKey: string | null;
  updatedAt: number | null;
  status: RunStatus | null;
  hasActiveRun: boolean | null;
  /** null = unknown (the Gateway said so, or never told). */
  activeRunIds: string[] | null;
  startedAt: number | null;
  endedAt: number | null;
};

export type SessionKind = "main" | "dashboard" | "cron" | "subagent" | "other";

/** R6/R7: what the card means right now. */
export type CardState = "active" | "paused" | "complete" | "note";
export type RunOutcome = "done" | "failed" | "killed" | "timeout";

export type CardDerived = {
  completed: number;
  total: number;
  /** R1: the in_progress step, else the next pending one. */
  current: string | null;
  state: CardState;
  /** Set when a finished run covers this card (R6). */
  outcome: RunOutcome | null;
};

/**
 * How far the shown card can be trusted:
 * live — confirmed by the last read on a live connection;
 * stale — the last read failed, the card is the last one loaded (P4);
 * offline — the connection is down; the card is as last confirmed (G3).
 */
export type Freshness = "live" | "stale" | "offline";

export type RefreshState =
  | { status: "pending"; key: string; baseline: number; startedAt: number }
  | { status: "failed"; key: string; error: string; code: string | null; terminal: boolean; at: number }
  | { status: "timed_out"; key: string; baseline: number; at: number };

/** One card slot: a session (on one Gateway) that has, had, or may have a card. */
export type CardEntry = {
  gatewayId: string;
  sessionKey: string;
  /** The agentId used for reads and clears of this key (G4); null when not sent. */
  agentId: string | null;
  title: string;
  card: ProgressCard | null;
  derived: CardDerived | null;
  freshness: Freshness;
  /** When a read last confirmed `card` (ms), null before the first read. */
  confirmedAt: number | null;
  /** The last read's failure while freshness is stale, or a malformed card (C5). */
  error: { code: string; message: string } | null;
  /** The Gateway says this connection no longer participates in the session (P4). */
  hidden: boolean;
  /** The card needs a capability this Gateway lacks (G4). */
  updateRequired: boolean;
  refresh: RefreshState | null;
  /** Step times and estimate from the local history (issue 12); null without a confirmed card. */
  timing?: CardTiming | null;
};

export type ConnectionState =
  | { state: "connecting"; attempt: number; advice: string }
  | {
      state: "connected";
      since: number;
      serverVersion: string | null;
      scopes: string[];
      /** read+write were not both granted: show "limited access". */
      limited: boolean;
      advice: string;
    }
  | {
      state: "offline";
      reason: string;
      nextRetryAt: number;
      retryInMs: number;
      attempt: number;
      lastConnectedAt: number | null;
      /** The Gateway announced a restart (shutdown with restartExpectedMs). */
      restarting: boolean;
      advice: string;
    }
  | { state: "pairing_required"; requestId: string | null; deviceId: string; command: string | null; reason: string; advice: string }
  | {
      state: "auth_failed";
      code: string;
      setting: "token" | "password" | "setup code" | "device token" | "identity" | "url";
      advice: string;
    }
  | { state: "update_required"; reason: string; advice: string };

export type ConnectionStateName = ConnectionState["state"];

export type GatewaySnapshot = {
  id: string;
  label: string;
  color: string | null;
  url: string;
  connection: ConnectionState;
  sessions: SessionInfo[];
  /** Every card entry, visible or not; surfaces filter on hidden/card. */
  cards: CardEntry[];
  /** Progress widgets pinned on this Gateway's boards (P3). */
  boards: BoardsState;
  /** What agents are doing right now, per session with recent activity. */
  activity: SessionActivity[];
  /** Approvals and questions agents wait on, and whether this desk answers them. */
  needs: NeedsState;
  /**
   * Every card of the Gateway's roster has been read once since the desk started (a reconnect keeps
   * it): until then a session without a card may still hold one ("loading", not "no progress yet").
   */
  cardsKnown: boolean;
};

export type DeskSnapshot = {
  gateways: GatewaySnapshot[];
  /** How saved credentials are kept; "unavailable" asks the person to look (the tray). */
  credentials?: CredentialStorage;
  /** U6, U7: the app's own updates (the desk service adds it; the core's snapshot has none). */
  updates?: UpdateView;
};

export type DeskChange =
  | { type: "connection"; gatewayId: string; connection: ConnectionState }
  | { type: "card"; gatewayId: string; entry: CardEntry }
  | { type: "sessions"; gatewayId: string; sessions: SessionInfo[] }
  | { type: "boards"; gatewayId: string; boards: BoardsState }
  /** A session's live activity line, recent lines or no-progress flag changed (coalesced). */
  | { type: "activity"; gatewayId: string; activity: SessionActivity }
  /** The Gateway's needs-you state changed; `event` says which entry and how (null: only `answering`). */
  | { type: "needs"; gatewayId: string; needs: NeedsState; event: NeedEvent | null }
  /**
   * Every card of the Gateway's roster was read once since its connect or a gap in its events: the
   * load that listing started is over (`complete` false: it stopped early, at the session cap or a
   * failed page). A page applies what it batched at once instead of at its next batch (P6).
   */
  | { type: "cardsKnown"; gatewayId: string; complete: boolean }
  /** The Gateway list changed (Settings): surfaces reload the snapshot. */
  | { type: "gateways"; gateways: { id: string; label: string; url: string; color: string | null }[] }
  /** U6: the app's update state changed (the desk service sends it; the core never does). */
  | { type: "updates"; updates: UpdateView };

export type Unsubscribe = () => void;

// ——— live activity (main/core/activity/tracker.ts builds it) ———

export type ActivityGlyph =
  "read" | "write" | "edit" | "shell" | "list" | "search" | "web" | "plan" | "card" | "agent" | "message" | "tool";

/** `off`: no lines; `new`: skip a line whose tool repeats the previous one; `all`: every call, same ones in a row folded with a count. */
export type ActivityMode = "off" | "new" | "all";
/** `raw`: a command line shows the command (as the Gateway summarised it); `status`: only `Shell`. */
export type CommandText = "raw" | "status";

export type ActivityLine = {
  glyph: ActivityGlyph;
  /** `Read · docs/guide.md`, at most `lineBudget` characters. */
  label: string;
  /** The tool's name as the Gateway sent it (`read`, `exec`, …). */
  tool: string;
  /** When this client saw the call start (local clock, ms). */
  at: number;
  /** `waiting`: the call waits for the person (an approval), not for the machine. */
  status: "running" | "waiting" | "done" | "failed";
  /** How many consecutive same calls this line stands for (`×3`); absent for one. `at` and `status` are the newest's. */
  count?: number;
};

/** One session's activity, as put on the wire. */
export type SessionActivity = {
  gatewayId: string;
  sessionKey: string;
  /** A run is in progress. */
  live: boolean;
  /** The newest live run, null when none. */
  runId: string | null;
  /** The live run's latest call (running or just finished); null when no run is live or mode is `off`. */
  current: ActivityLine | null;
  /** The last lines, oldest first; kept after the run ends (see `retainAfterEndMs`). */
  lines: ActivityLine[];
  stall: StallFlag | null;
  /** When something shown here last changed (local clock, ms). */
  updatedAt: number;
};

/** The no-progress detector's observation (main/core/stall-detector.ts). */
export type StallFlag =
  | {
      kind: "polling";
      /** How many identical calls in a row so far. */
      count: number;
      /** The repeated call's line, e.g. `Shell · print text`. */
      label: string;
      tool: string;
      /** When the first of the identical calls started (ms). */
      since: number;
      text: string;
    }
  | { kind: "silent"; sinceMs: number; lastEventAt: number; text: string }
  | { kind: "idle-child"; sinceMs: number; parentKey: string | null; text: string };

// ——— boards (P3; main/core/boards.ts reads them) ———

export type BoardPin = {
  /** The session whose board holds the widget. */
  boardSessionKey: string;
  widget: string;
  title: string | null;
  /** The session whose card the widget shows. */
  sessionKey: string;
};

export type BoardsState = {
  /** null until the first hello; false when the Gateway has no `board.get` (update required). */
  supported: boolean | null;
  pins: BoardPin[];
};

// ——— actions ———

/** What a dismiss came to (main/core/actions.ts). */
/** A1: the question the Gateway's refusal of a conditional clear makes the app ask (core and card alike). */
export const CONFIRM_CLEAR_QUESTION = "Clear this saved progress for everyone?";

export type DismissResult =
  | { outcome: "cleared" }
  /** Unfinished, paused or note-only: ask first, then call again with confirmed. */
  | { outcome: "confirm"; question: string }
  /** The agent wrote a newer revision: it stays and is shown. */
  | { outcome: "newer"; card: ProgressCard }
  /** The Gateway kept the card (not all steps completed at the Gateway). */
  | { outcome: "kept"; card: ProgressCard }
  | { outcome: "gone" }
  | { outcome: "error"; code: string; message: string };

// ——— time on the card (common/card-timing.ts derives it from the local history) ———

export type StepTiming = { step: string; status: StepStatus; startedAt: number | null; finishedAt: number | null };
export type Estimate = { minMs: number; maxMs: number };

export type CardTiming = {
  /** When the step in progress started (null: none in progress, or its start was not seen). */
  currentStepSince: number | null;
  /** When the card last changed as we saw it (null: it changed while nothing was watched). */
  lastChangeAt: number | null;
  /** One per step of the current card, in order. */
  steps: StepTiming[];
  estimate: Estimate | null;
  /** Complete cards seen from their creation without a gap: how long the whole plan took. */
  planMs: number | null;
  /** The gaps in this card's history: [from, to], from null when unknown. */
  gaps: { from: number | null; to: number }[];
};

// ——— needs you (main/core/needs.ts keeps it; requirements Y1–Y7) ———

/**
 * What an entry waits on: an exec or plugin approval, an `ask_user` question, or a run
 * that reported `waiting-approval` on its lifecycle stream while this connection may not
 * read approvals (only the approval id and the session are known then).
 */
export type NeedKind = "exec" | "plugin" | "question" | "waiting";

export type NeedDecision = "allow-once" | "allow-always" | "deny";

export type NeedQuestion = {
  questionId: string;
  header: string;
  question: string;
  options: { label: string; description: string | null }[];
  multiSelect: boolean;
  /** An "Other" free answer is allowed. */
  isOther: boolean;
};

/** One thing an agent waits on the person for, on one Gateway. Text is as the Gateway sent it. */
export type NeedEntry = {
  gatewayId: string;
  /** The approval id (exec, plugin, waiting) or the question id (`ask_…`). */
  id: string;
  kind: NeedKind;
  sessionKey: string | null;
  agentId: string | null;
  runId: string | null;
  toolCallId: string | null;
  /** Exec: the full command text, the working folder and the host it runs on. */
  command: string | null;
  cwd: string | null;
  host: string | null;
  /** Plugin: its title and description. */
  title: string | null;
  description: string | null;
  questions: NeedQuestion[];
  /** The decisions the Gateway accepts for this approval (empty for questions and waiting runs). */
  allowedDecisions: NeedDecision[];
  /** When the Gateway created it (its clock), else when we first saw it (ours). */
  arrivedAt: number;
  /** When the Gateway expires it; null when unknown (a waiting run). */
  expiresAt: number | null;
  /** The Control UI page for it on its Gateway: `/approve/<id>` or `/ask/<id>` (no secret; null when unknown). */
  linkPath: string | null;
};

/** How an entry ended, as remembered in the local record. */
export type NeedOutcome =
  | "allowed-once"
  | "allowed-always"
  | "denied"
  | "expired"
  | "answered"
  | "cancelled"
  /** Gone from the Gateway's list, or the run ended, without a decision we saw. */
  | "gone";

/** One ended entry in the local record (the last 200): no command output, secrets masked. */
export type NeedRecord = {
  gatewayId: string;
  id: string;
  kind: NeedKind;
  sessionKey: string | null;
  agentId: string | null;
  /** The command (secrets masked), the plugin's title or the first question; null for a waiting run. */
  summary: string | null;
  arrivedAt: number;
  endedAt: number;
  outcome: NeedOutcome;
  /** The answering client's name as the Gateway reported it, when it did. */
  resolvedBy: string | null;
  /** "allowed once in Progress Desk", "expired, denied" … */
  text: string;
};

/**
 * Whether this connection answers approvals: `on` (asked for the scopes, declared the
 * approvals capability, reads the lists), `off` (lifecycle events only), `refused` (asked,
 * but the Gateway did not grant the scopes: lifecycle events only).
 */
export type NeedsAnswering = "on" | "off" | "refused";

export type NeedsState = {
  answering: NeedsAnswering;
  /** What the person should know about `answering` (why refused, what to do). */
  advice: string | null;
  /** Pending entries, oldest first. */
  entries: NeedEntry[];
};

/** Which needs-you entry: its Gateway and its id (the approval or question id). */
export type NeedRef = { gatewayId: string; id: string };

/**
 * One entry's change, in order: `resolved` carries the record it left, and `answeredHere`
 * when the person answered it in this desk (no notice is due for it, ever).
 */
export type NeedEvent =
  { kind: "arrived" | "updated"; entry: NeedEntry } | { kind: "resolved"; entry: NeedEntry; record: NeedRecord; answeredHere: boolean };

/**
 * The person's answer to a pending entry (Y13): a decision for an approval, the chosen
 * labels (or an own answer where `isOther`) per question id, or cancelling a question.
 * `kind` must be the entry's own: the core checks every field against the entry it holds.
 */
export type NeedAnswer =
  | { kind: "exec" | "plugin"; decision: NeedDecision }
  | { kind: "question"; answers: Record<string, string[]> }
  | { kind: "question"; cancel: true };
