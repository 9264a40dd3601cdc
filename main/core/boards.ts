// P3: the progress widgets agents pinned on Gateway boards. A `session:progress` widget
// shows the card of `props.sessionKey`, else of the board's own session. Boards are read
// on connect (`sessions.list {hasBoard}` then `board.get` each) and again on
// `board.changed`; the cards themselves come from the card store like any other.
import { fallbackLogger, type Logger } from "./logger.ts";
import { errorFacts } from "./connection-state.ts";
import type { BoardPin, BoardsState } from "../../common/model.ts";

export type BoardTransport = {
  request<T>(method: string, params: unknown): Promise<T>;
  hasMethod(name: string): boolean;
};

export const PROGRESS_WIDGET = "session:progress";
const MAX_BOARDS = 500;

/** The progress pins of one `board.get` reply; anything malformed is skipped. */
export function pinsOfBoard(boardSessionKey: string, reply: unknown): BoardPin[] {
  const widgets = (reply as { widgets?: unknown })?.widgets;
  if (!Array.isArray(widgets)) return [];
  const pins: BoardPin[] = [];
  for (const w of widgets) {
    if (!w || typeof w !== "object") continue;
    const widget = w as Record<string, unknown>;
    const content = (widget.content && typeof widget.content === "object" ? widget.content : widget) as Record<string, unknown>;
    if (content.pluginKind !== PROGRESS_WIDGET) continue;
    const props = (content.props ?? widget.props) as Record<string, unknown> | undefined;
    const target = typeof props?.sessionKey === "string" && props.sessionKey !== "" ? props.sessionKey : boardSessionKey;
    pins.push({
      boardSessionKey,
      widget: typeof widget.name === "string" ? widget.name : "",
      title: typeof widget.title === "string" ? widget.title : null,
      sessionKey: target,
    });
  }
  return pins;
}

export class BoardStore {
  private readonly transport: BoardTransport;
  private readonly emit: (state: BoardsState) => void;
  private readonly follow: (sessionKey: string) => void;
  private readonly boards = new Map<string, BoardPin[]>();
  private readonly reading = new Map<string, boolean>(); // key → read again after this one
  private supported: boolean | null = null;
  private connected = false;

  private readonly log: Logger;

  constructor(opts: {
    transport: BoardTransport;
    emit: (state: BoardsState) => void;
    follow: (sessionKey: string) => void;
    logger?: Logger;
  }) {
    this.log = opts.logger ?? fallbackLogger();
    this.transport = opts.transport;
    this.emit = opts.emit;
    this.follow = opts.follow;
  }

  state(): BoardsState {
    return { supported: this.supported, pins: [...this.boards.values()].flat() };
  }

  async onReady(): Promise<void> {
    this.connected = true;
    this.supported = this.transport.hasMethod("board.get");
    if (!this.supported) {
      this.emit(this.state());
      return;
    }
    const keys = new Set<string>();
    try {
      let offset = 0;
      for (let page = 0; page < 10 && keys.size < MAX_BOARDS; page += 1) {
        const list = await this.transport.request<{ sessions?: { key?: unknown }[]; hasMore?: boolean; nextOffset?: number | null }>(
          "sessions.list",
          {
            hasBoard: true,
            limit: 100,
            offset,
          },
        );
        for (const row of list?.sessions ?? []) if (typeof row?.key === "string") keys.add(row.key);
        if (!list?.hasMore || typeof list.nextOffset !== "number") break;
        offset = list.nextOffset;
      }
    } catch (err) {
      if (this.connected) this.log.warn("listing boards failed", { error: errorFacts(err).message });
    }
    for (const known of this.boards.keys()) keys.add(known);
    await Promise.all([...keys].map((k) => this.read(k)));
    this.emit(this.state());
  }

  onDisconnected(): void {
    this.connected = false;
  }

  onEvent(event: string, payload: unknown): void {
    if (event !== "board.changed") return;
    const key = (payload as { sessionKey?: unknown })?.sessionKey;
    if (typeof key === "string" && key !== "" && this.connected) void this.read(key).then(() => this.emit(this.state()));
  }

  private async read(boardSessionKey: string): Promise<void> {
    if (this.reading.has(boardSessionKey)) {
      this.reading.set(boardSessionKey, true);
      return;
    }
    this.reading.set(boardSessionKey, false);
    try {
      const reply = await this.transport.request<unknown>("board.get", { sessionKey: boardSessionKey });
      const pins = pinsOfBoard(boardSessionKey, reply);
      if (pins.length > 0) this.boards.set(boardSessionKey, pins);
      else this.boards.delete(boardSessionKey);
      for (const p of pins) this.follow(p.sessionKey);
    } catch (err) {
      // Keep the pins we had (P3: a failing read keeps the last state); a hidden board drops.
      const f = errorFacts(err);
      if (f.detailCode === "SESSION_PARTICIPATION_REQUIRED" || /was not found/i.test(f.message)) this.boards.delete(boardSessionKey);
    } finally {
      const again = this.reading.get(boardSessionKey);
      this.reading.delete(boardSessionKey);
      if (again && this.connected) await this.read(boardSessionKey);
    }
  }
}
