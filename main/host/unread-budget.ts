// One budget for the output the host has queued and its clients have not read yet, across
// every bridge socket of both listeners. A per-socket cap alone lets many sockets that never
// read hold that cap each (64 sockets × 2 listeners × 16 MiB is 2 GiB); the budget bounds the
// host as a whole.
//
// The share rule: before a socket queues more, if the total is over the budget, the sockets
// holding the most unread are dropped, largest first, until it is not (so the total stays
// under the budget plus one message). A page that
// reads keeps almost nothing queued (the kernel takes its output at once), so the sockets
// dropped are the ones not reading; one dropped by mistake reconnects and reloads, as the
// page does after any drop. No floor per socket: with up to 128 sockets, any floor would let
// the total exceed the budget by 128 times it.

/** What the budget needs of a socket: how much it holds unread, and how to drop it. */
export type BudgetedSocket = { readonly bufferedAmount: number; terminate(): void };

export class UnreadBudget {
  private readonly totalBytes: number;
  private readonly sockets = new Set<BudgetedSocket>();

  constructor(totalBytes: number) {
    this.totalBytes = totalBytes;
  }

  add(socket: BudgetedSocket): void {
    this.sockets.add(socket);
  }

  delete(socket: BudgetedSocket): void {
    this.sockets.delete(socket);
  }

  /**
   * Before `socket` queues more: while the total is over the budget, drops the socket holding
   * the most. False when `socket` itself was dropped (or was never added): send nothing on it.
   */
  admit(socket: BudgetedSocket): boolean {
    let total = 0;
    for (const s of this.sockets) total += s.bufferedAmount;
    if (total > this.totalBytes) {
      const largestFirst = [...this.sockets].sort((a, b) => b.bufferedAmount - a.bufferedAmount);
      for (const s of largestFirst) {
        if (total <= this.totalBytes) break;
        total -= s.bufferedAmount;
        this.sockets.delete(s);
        s.terminate();
      }
    }
    return this.sockets.has(socket);
  }
}
