// When the page applies the changes that come during a load (used by renderer/lib/desk-state.svelte.ts).
import { BURST_HOLD_MS } from "../../common/card-burst.ts";

/*
 * P6: a change is applied the moment it arrives, unless a load is on (common/card-burst.ts: BURST_CARDS
 * different cards changed within BURST_WINDOW_MS). Changes are then applied together: once the
 * stream of cards pauses for LOAD_PAUSE_MS, and at the latest LOAD_BATCH_MS after the first change
 * of a batch. Drawing the list a few times a second instead of once per card leaves the CPU to
 * the Gateway and the core, which a start-up waits on (issue 21). Every batch lays the
 * whole list out again: every 100 ms, the page's main thread spent a median 1.6 s on a start-up of
 * 300 cards in the popover and 2.7 s in the dashboard (bench/startup.ts, one-line notes), every 250 ms
 * 1.4 s and 2.3 s. A pause alone is no end of a load: a start-up's reads come in clumps, with
 * pauses of 100–200 ms between them, and the load goes on (LOAD_LINGER_MS). But a batch waits for
 * no more than its clump: the last cards of a start-up show LOAD_PAUSE_MS after they came, not up
 * to LOAD_BATCH_MS (A/B on 2026-12-07, 300 cards: the popover's spawn to every card was shorter in 5
 * of 6 rounds, median 3.61 s against 3.81 s, the page's CPU the same; the dashboard's moved within
 * this machine's noise).
 * One card changing fast (an agent writing often) is no load, and neither is a put's card, session
 * row and activity.
 */
/** How often, at least, the changes queued during a load are applied. */
export const LOAD_BATCH_MS = 250;
/**
 * How long a pause in a load's cards applies the batch queued so far: longer than the host's hold
 * (BURST_HOLD_MS: during a load its messages come that far apart), so a clump is applied once.
 */
export const LOAD_PAUSE_MS = BURST_HOLD_MS + 20;
/**
 * How long after its latest card a load still batches what comes. Only the batching: near-screen
 * draws resume BURST_WINDOW_MS after the last card (#settle), and a batch is never held past LOAD_BATCH_MS.
 */
export const LOAD_LINGER_MS = 500;
