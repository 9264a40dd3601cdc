// The real connect for listener-probe.ts: a plain TCP connect, closed the moment it succeeds.
// Nothing is written to the socket and nothing is read from it.
import net from "node:net";
import type { ProbeConnect } from "./listener-probe.ts";

export const tcpProbe: ProbeConnect = (target, done) => {
  const socket = net.connect({ host: target.host, port: target.port });
  let settled = false;
  const finish = (listening: boolean) => {
    if (settled) return;
    settled = true;
    socket.destroy();
    done(listening);
  };
  socket.once("connect", () => finish(true));
  socket.on("error", () => finish(false));
  socket.once("close", () => finish(false));
  return () => {
    settled = true;
    socket.destroy();
  };
};
