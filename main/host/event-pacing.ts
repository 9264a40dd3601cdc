// When the desk's events go out to one page socket, and how many to a message (P6, issue 21).
//
// An event on its own goes out at once; the events emitted after it in the same turn of the event
// loop follow as one message. During a load (a start-up reads hundreds of cards, each finishing in
// its own turn) that still made one message per card: 300 at a start-up, each a socket write here,
// a network IPC in the browser and a parse and a wake-up in the page, on a machine the Gateway's
// reads already fill. So while card changes come as a burst, events are held for BURST_HOLD_MS
// and go out together. The page applies a load's changes in batches of 250 ms anyway
// (renderer/lib/desk-state.svelte.ts), so holding them here delays nothing it shows. An event that
// ends a load (every card of a Gateway's roster read: the cards before it were the load's last) goes
// out at once with what is held: the page then applies the load at once instead of at its next batch.

import { CardBurst } from "../../common/card-burst.ts";

/** How long events are held while a burst goes on: a few frames. */
export const BURST_HOLD_MS = 50;

export type PacerClock = {
  now(): number;
  /** Runs `fn` in a later turn of the event loop. */
  nextTurn(fn: () => void): void;
  after(ms: number, fn: () => void): { cancel(): void };
};

const realClock: PacerClock = {
  now: () => performance.now(),
  nextTurn: (fn) => void setImmediate(fn),
  after: (ms, fn) => {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

export class EventPacer<E> {
  #held: E[] = [];
  #holding = false;
  #timer: { cancel(): void } | null = null;
  /** Whether a load is on: the page's own test (common/card-burst.ts). */
  #burst = new CardBurst();
  readonly #send: (events: E[]) => void;
  readonly #cardOf: (event: E) => string | null;
  readonly #endsLoad: (event: E) => boolean;
  readonly #clock: PacerClock;

  /**
   * `send` gets the events of one message, in the order they were pushed; `cardOf` names the card
   * an event changes, or null: only changes of different cards make a burst (an agent writing its
   * own card fast, or a run's activity lines, never start one); `endsLoad` says an event ends a load.
   */
  constructor(
    send: (events: E[]) => void,
    kinds: { cardOf: (event: E) => string | null; endsLoad?: (event: E) => boolean },
    clock: PacerClock = realClock,
  ) {
    this.#send = send;
    this.#cardOf = kinds.cardOf;
    this.#endsLoad = kinds.endsLoad ?? (() => false);
    this.#clock = clock;
  }

  push(event: E): void {
    const card = this.#cardOf(event);
    const burst = card !== null && this.#noteCard(card);
    if (this.#holding) {
      this.#held.push(event);
      // The hold goes on (what follows still waits for its end); what it held so far goes now.
      if (this.#endsLoad(event)) this.flush();
      return;
    }
    this.#holding = true;
    if (burst) {
      this.#held.push(event);
      this.#timer = this.#clock.after(BURST_HOLD_MS, () => this.#release());
    } else {
      this.#send([event]);
      this.#clock.nextTurn(() => this.#release());
    }
  }

  /** Sends what is held now: a reply must never overtake an event emitted before it. */
  flush(): void {
    const events = this.#held;
    this.#held = [];
    if (events.length > 0) this.#send(events);
  }

  /** The socket closed: nothing more is sent. */
  close(): void {
    this.#timer?.cancel();
    this.#timer = null;
    this.#held = [];
  }

  #release(): void {
    this.#timer = null;
    this.#holding = false;
    this.flush();
  }

  /** Records a change of `key`; whether a load is on. */
  #noteCard(key: string): boolean {
    const now = this.#clock.now();
    this.#burst.note(key, now);
    return this.#burst.isOn(now);
  }
}
