// A listener's connection slots. First come, first served would let one local process hold
// every slot with half-sent requests, refilling each as the host drops it, so that pages
// cannot load. Instead, over the cap, the oldest connections still waiting for a request
// (their first, or the next on a kept-alive connection) are dropped: a holder's slots are
// pushed out by every newcomer, while a page, which sends its request at once, is answered
// before it would be the oldest waiting. Connections being answered, and bridge sockets, are
// never pushed out.
//
// Connections are dropped at the end of an event-loop turn, and never in the turn they were
// accepted in: a page's connection is read only in the turn after it was accepted, so a
// flood arriving with it or just after it must not push it out before then. By the end of
// that next turn its request has been read (it is busy). Over the cap by at most one turn's
// arrivals, for one turn.

/** What the slots need of a connection: a way to drop it. */
export type Droppable = { destroy(): void };

export class ConnectionSlots<S extends Droppable> {
  private readonly max: number;
  private readonly atEndOfTurn: (run: () => void) => void;
  private readonly open = new Set<S>();
  /** Open connections waiting for a request, oldest first (a Set keeps insertion order). */
  private readonly waiting = new Set<S>();
  /** Connections accepted in this turn: not read yet, so not dropped yet. */
  private arrivals: S[] = [];
  private trimDue = false;

  constructor(max: number, atEndOfTurn: (run: () => void) => void = setImmediate) {
    this.max = max;
    this.atEndOfTurn = atEndOfTurn;
  }

  /** A connection just accepted; over the cap, room is made at the end of this turn (but not by dropping it). */
  accept(socket: S): void {
    this.arrivals.push(socket);
    this.trimAtEndOfTurn();
    this.open.add(socket);
    this.waiting.add(socket);
  }

  /** A complete request is being answered on it, or it became a bridge socket. */
  busy(socket: S): void {
    this.waiting.delete(socket);
  }

  /** Its answer is done and it stays open: it waits for the next request, as the newest. */
  idle(socket: S): void {
    if (this.open.has(socket)) this.waiting.add(socket);
  }

  closed(socket: S): void {
    this.open.delete(socket);
    this.waiting.delete(socket);
  }

  private trimAtEndOfTurn(): void {
    if (this.trimDue) return;
    this.trimDue = true;
    this.atEndOfTurn(() => {
      this.trimDue = false;
      this.trim();
    });
  }

  private trim(): void {
    const arrived = new Set(this.arrivals);
    this.arrivals = [];
    const drop = (socket: S): void => {
      this.closed(socket);
      socket.destroy();
    };
    for (const socket of [...this.waiting]) {
      if (this.open.size <= this.max) return;
      if (!arrived.has(socket)) drop(socket);
    }
    // Still over because of this turn's arrivals: they may go at the end of the next turn.
    if (this.open.size > this.max && arrived.size > 0) this.trimAtEndOfTurn();
  }
}
