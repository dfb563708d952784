// Which clients hold bytes in their buffers now (a partial request, unread replies), so
// used_memory sums only those rather than every connection.
import type { ClientState } from '../client-state.js';

/**
 * The clients whose buffers hold bytes (a partial request, replies the client has not read),
 * registered by the transport while they do: summing them costs nothing for the quiet ones.
 */
export class BuffersHeld {
  private readonly holding = new Set<ClientState>();

  /** `client.buffers()` may hold bytes now. */
  holds(client: ClientState): void {
    this.holding.add(client);
  }

  /** `client.buffers()` holds nothing now (drained, released, or the client is gone). */
  released(client: ClientState): void {
    this.holding.delete(client);
  }

  /** As Redis counts clients in used_memory: a query buffer while a request is partly received, unsent replies. */
  bytes(): number {
    let n = 0;
    for (const client of this.holding) {
      const b = client.buffers?.();
      if (b === undefined) continue;
      n += (b.queryBuffered > 0 ? b.queryBuffered + b.queryFree : 0) + b.outputUnsent;
    }
    return n;
  }
}
