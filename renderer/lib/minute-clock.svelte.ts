// One clock for every relative time on a page ("running 12 min", "updated 3 min ago"): a single
// timer, aligned to the start of each minute, running only while some component reads it.
// Only the small time texts read `now`, so a tick rewrites those texts and nothing else.
import { createSubscriber } from "svelte/reactivity";

const MINUTE = 60_000;

class MinuteClock {
  #now = Date.now();
  #subscribe: () => void;

  constructor() {
    this.#subscribe = createSubscriber((update) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const tick = (): void => {
        this.#now = Date.now();
        update();
        // Re-aligned every time: a timer that drifts (or a machine that slept) lands on the next minute.
        timer = setTimeout(tick, MINUTE - (this.#now % MINUTE));
      };
      this.#now = Date.now();
      timer = setTimeout(tick, MINUTE - (this.#now % MINUTE));
      const wake = (): void => {
        if (document.visibilityState === "visible") tick0();
      };
      // Back from hidden (or sleep): catch up at once instead of at the next minute.
      const tick0 = (): void => {
        clearTimeout(timer);
        tick();
      };
      document.addEventListener("visibilitychange", wake);
      return () => {
        clearTimeout(timer);
        document.removeEventListener("visibilitychange", wake);
      };
    });
  }

  /** The time of the last tick (ms); reading it inside an effect keeps the clock running. */
  get now(): number {
    this.#subscribe();
    return this.#now;
  }
}

export const minuteClock = new MinuteClock();
