// P6: whether a load is on — BURST_CARDS different cards changed within BURST_WINDOW_MS, as at a
// start-up, which brings hundreds a second. One card changing fast (an agent writing often) is no
// load. The page batches its updates while one is on (renderer/lib/desk-state.svelte.ts), and the
// browser host holds a page's events (main/host/event-pacing.ts): both by this one test.

export const BURST_CARDS = 8;
export const BURST_WINDOW_MS = 100;

export class CardBurst {
  /** The card changes of the last BURST_WINDOW_MS, oldest first: when, and which card. */
  #recent: { at: number; key: string }[] = [];

  /** Records a change of card `key` at time `at` (ms, one clock for every call). */
  note(key: string, at: number): void {
    this.#recent.push({ at, key });
  }

  /** Whether BURST_CARDS different cards changed within BURST_WINDOW_MS before `now`. */
  isOn(now: number): boolean {
    const since = now - BURST_WINDOW_MS;
    while ((this.#recent[0]?.at ?? since) < since) this.#recent.shift();
    if (this.#recent.length < BURST_CARDS) return false;
    return new Set(this.#recent.map((r) => r.key)).size >= BURST_CARDS;
  }
}
