// The first agent turn after a Gateway starts is slow (workspace, index and database set-up).
// Suites that time agent turns run untimed turns first. Warming up is set-up, not the subject
// of any test: a first turn that does not end is reported (with the Gateway's own last lines)
// and tried once more on a fresh session; only a second failure fails the suite.
import type { BareClient } from "./bare-client.ts";
import type { TestGateway } from "./gateway.ts";

export const WARM_UP_ATTEMPT_MS = 90_000;

export async function warmUpAgent(user: BareClient, gw: TestGateway, attemptMs = WARM_UP_ATTEMPT_MS): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    const key = await user.createSession();
    try {
      await user.runTurn(key, [{ text: "warmed up" }], { timeoutMs: attemptMs });
      return;
    } catch (error) {
      const tail = gw.logs().split("\n").slice(-40).join("\n");
      const report = `warm-up turn ${attempt} failed after ${Date.now() - started} ms: ${(error as Error).message}\nGateway output (last 40 lines):\n${tail}`;
      if (attempt >= 2) throw new Error(report, { cause: error });
      console.warn(`${report}\n(trying once more on a fresh session)`);
    }
  }
}
