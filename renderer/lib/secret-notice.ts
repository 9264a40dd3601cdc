// What the Gateway editor says before Save when the address moves to another server:
// saved secrets are bound to the server they were saved for, so they will be forgotten.
// Pure, and the same origin rule as the core (common/gateway-origin.ts).
import { gatewayOrigin } from "../../common/gateway-origin.ts";
import type { GatewaySettingsView } from "../../common/contract.ts";

export type SecretName = "token" | "password" | "setupCode";
const WORDS: Record<SecretName, string> = { token: "token", password: "password", setupCode: "setup code" };

function list(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/** The saved secrets that Save would drop because the origin changed (in a fixed order). */
export function secretsToForget(saved: GatewaySettingsView | null, nextUrl: string, keeping: Record<SecretName, boolean>): SecretName[] {
  if (!saved) return [];
  const before = gatewayOrigin(saved.url);
  const after = gatewayOrigin(nextUrl);
  if (!before || !after || before === after) return [];
  const has: Record<SecretName, boolean> = { token: saved.hasToken, password: saved.hasPassword, setupCode: saved.hasSetupCode };
  return (Object.keys(WORDS) as SecretName[]).filter((k) => has[k] && !keeping[k]);
}

/** "The saved token will be forgotten: …", or null when Save keeps every saved secret. */
export function forgottenSecretsNotice(
  saved: GatewaySettingsView | null,
  nextUrl: string,
  keeping: Record<SecretName, boolean>,
): string | null {
  const names = secretsToForget(saved, nextUrl, keeping);
  if (names.length === 0 || !saved) return null;
  const what = `The saved ${list(names.map((n) => WORDS[n]))} will be forgotten`;
  const it = names.length === 1 ? "it" : "them";
  const where = `${gatewayOrigin(nextUrl)} is another server than ${gatewayOrigin(saved.url)}`;
  return `${what}: ${where}, so Progress Desk won't send ${it} there. Enter ${it} again if that server needs ${it}.`;
}
