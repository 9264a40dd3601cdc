// The first agent turn after a Gateway starts is slow (workspace, index and database set-up).
// Suites that time agent turns run one untimed turn first; when even that does not end, the
// error carries the Gateway's own last lines so a CI log says why.
import type { BareClient } from "./bare-client.ts";
import type { TestGateway } from "./gateway.ts";

export const WARM_UP_TIMEOUT_MS = 150_000;

export async function warmUpAgent(user: BareClient, gw: TestGateway, timeoutMs = WARM_UP_TIMEOUT_MS): Promise<void> {
  const started = Date.now();
  const key = await user.createSession();
  try {
    await user.runTurn(key, [{ text: "warmed up" }], { timeoutMs });
  } catch (error) {
    const tail = gw.logs().split("\n").slice(-40).join("\n");
    throw new Error(`warm-up turn failed after ${Date.now() - started} ms: ${(error as Error).message}\nGateway output (last 40 lines):\n${tail}`);
  }
}
