// The page side of the contract, built once for both transports (the Electron preload and
// the browser host's socket): one function per verb of the table, each sending its own
// verb's name, so no entry can be pointed at another verb's channel. Only `invoke` and
// `listen` differ between transports.
import type { DeskApi, DeskEvent, DeskMethod, DeskVerbs } from "./contract.ts";
import { DESK_METHODS } from "./verbs.ts";

export type DeskTransport = {
  /** Sends one verb with its arguments; resolves with the result or rejects with the refusal. */
  invoke(method: DeskMethod, args: unknown[]): Promise<unknown>;
  /** Hears every contract event until the returned function is called. */
  listen(listener: (event: DeskEvent) => void): () => void;
};

/**
 * The page's API over `transport`. `local` answers a verb in the page itself instead (the
 * browser host opens links and switches pages in place); keyed by verb, typed by it.
 */
export function buildDeskApi(transport: DeskTransport, local: Partial<DeskVerbs> = {}): DeskApi {
  const api: Record<string, unknown> = {};
  for (const method of DESK_METHODS) {
    api[method] =
      local[method] ??
      ((...args: unknown[]): Promise<unknown> => {
        // A left-out optional argument is not sent: JSON would turn it into null.
        let given = args.length;
        while (given > 0 && args[given - 1] === undefined) given -= 1;
        return transport.invoke(method, args.slice(0, given));
      });
  }
  const on = <T extends DeskEvent["type"]>(type: T, pick: (event: Extract<DeskEvent, { type: T }>) => void): (() => void) =>
    transport.listen((event) => {
      if (event && typeof event === "object" && event.type === type) pick(event as Extract<DeskEvent, { type: T }>);
    });
  api.onChange = (listener: Parameters<DeskApi["onChange"]>[0]) => on("change", (e) => listener(e.change));
  api.onSettings = (listener: Parameters<DeskApi["onSettings"]>[0]) => on("settings", (e) => listener(e.settings));
  // Frozen plain functions: nothing the page can walk back to the transport through.
  return Object.freeze(api) as DeskApi;
}
