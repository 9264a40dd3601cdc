// The bare start-up client of bench/startup.ts, as a process of its own (so its time, like the desk's,
// runs from process start): connect, page through every `sessions.list` page, read every session's
// card with READS_IN_FLIGHT reads in flight, print one JSON line and exit.
//   argv: <url>; the token comes on stdin (never on the command line).
//   stdout: {"type":"done","sessions":N,"cards":N,"pages":N,"listedMs":…,"doneMs":…} (ms from process start)
import { performance } from "node:perf_hooks";
import { text } from "node:stream/consumers";
import { connectBareClient } from "../test/harness/bare-client.ts";

const READS_IN_FLIGHT = 8;
const PAGE = 100;

type ListResult = { sessions?: { key: string }[]; hasMore?: boolean; nextOffset?: number | null };

const url = process.argv[2]!;
const token = (await text(process.stdin)).trim();
const client = await connectBareClient({ url, token });
const keys: string[] = [];
const seen = new Set<string>();
let offset = 0;
let pages = 0;
for (;;) {
  const r = await client.request<ListResult>("sessions.list", { limit: PAGE, offset });
  pages += 1;
  for (const s of r.sessions ?? [])
    if (!seen.has(s.key)) {
      seen.add(s.key);
      keys.push(s.key);
    }
  if (!r.hasMore || !r.sessions?.length) break;
  offset = typeof r.nextOffset === "number" ? r.nextOffset : offset + r.sessions.length;
}
const listedMs = performance.now();
let next = 0;
let cards = 0;
async function reader(): Promise<void> {
  while (next < keys.length) {
    const key = keys[next++]!;
    const r = await client.get(key);
    if (r.card) cards += 1;
  }
}
await Promise.all(Array.from({ length: READS_IN_FLIGHT }, reader));
const doneMs = performance.now();
process.stdout.write(JSON.stringify({ type: "done", sessions: keys.length, cards, pages, listedMs, doneMs }) + "\n");
await client.close();
process.exit(0);
