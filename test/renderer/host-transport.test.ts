// The page's side of the host socket (renderer/lib/host-transport.ts) over a fake socket (a
// named fake: the real host is covered by test/gateway/host.test.ts and the e2e suites): events
// arrive one to a message or several in one, and reach the page in the order they were sent.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { DeskEvent } from "../../common/contract.ts";
import { hostTransport } from "../../renderer/lib/host-transport.ts";

/** A stand-in for the browser's WebSocket: records what is sent, lets the test deliver messages. */
class FakeSocket {
  static readonly OPEN = 1;
  static last: FakeSocket | null = null;
  readonly url: string;
  readyState = 0;
  readonly sent: string[] = [];
  private readonly handlers = new Map<string, ((ev: { data?: unknown }) => void)[]>();
  constructor(url: string) {
    this.url = url;
    FakeSocket.last = this;
  }
  addEventListener(type: string, fn: (ev: { data?: unknown }) => void): void {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), fn]);
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.readyState = 3;
  }
  fire(type: string, ev: { data?: unknown } = {}): void {
    if (type === "open") this.readyState = FakeSocket.OPEN;
    for (const fn of this.handlers.get(type) ?? []) fn(ev);
  }
}

const settingsEvent = (n: number): DeskEvent => ({ type: "settings", settings: { n } as never });

test("events sent one to a message and several to a message reach the listeners in order; replies still resolve", async () => {
  const loc = { pathname: "/s3cret/popover.html", protocol: "http:", host: "127.0.0.1:9" };
  const transport = hostTransport(loc, FakeSocket as unknown as typeof WebSocket);
  const socket = FakeSocket.last!;
  assert.equal(socket.url, "ws://127.0.0.1:9/s3cret/bridge/popover");
  const heard: unknown[] = [];
  transport.listen((e) => heard.push(e.type === "settings" ? (e.settings as unknown as { n: number }).n : e));
  socket.fire("open");
  heard.length = 0; // the open announces a reload; only the messages below count

  const reply = transport.invoke("getSettings", []);
  socket.fire("message", { data: JSON.stringify({ event: settingsEvent(1) }) });
  socket.fire("message", { data: JSON.stringify({ events: [settingsEvent(2), settingsEvent(3), settingsEvent(4)] }) });
  socket.fire("message", { data: JSON.stringify({ events: "not a list" }) });
  socket.fire("message", { data: JSON.stringify({ event: settingsEvent(5) }) });
  const { id } = JSON.parse(socket.sent[0]!) as { id: number };
  socket.fire("message", { data: JSON.stringify({ id, ok: true, result: "settings" }) });

  assert.deepEqual(heard, [1, 2, 3, 4, 5]);
  assert.equal(await reply, "settings");
  transport.close();
});
