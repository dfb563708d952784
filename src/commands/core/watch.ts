// WATCH bookkeeping: which clients watch which "db:key", and marking their transactions
// dirty (CAS) when a watched key changes, as Redis's touchWatchedKey.
import type { ClientState } from '../client-state.js';

export class WatchRegistry {
  private readonly watchers = new Map<string, Set<ClientState>>();

  get size(): number {
    return this.watchers.size;
  }

  watch(client: ClientState, id: string): void {
    if (client.watched.has(id)) return;
    client.watched.add(id);
    let set = this.watchers.get(id);
    if (set === undefined) this.watchers.set(id, (set = new Set()));
    set.add(client);
  }

  unwatchAll(client: ClientState): void {
    for (const id of client.watched) {
      const set = this.watchers.get(id);
      set?.delete(client);
      if (set?.size === 0) this.watchers.delete(id);
    }
    client.watched.clear();
    client.dirtyCas = false;
  }

  /** A watched key changed: every client watching it fails its EXEC. */
  touch(id: string): void {
    const watching = this.watchers.get(id);
    if (watching !== undefined) for (const c of watching) c.dirtyCas = true;
  }

  /** Touches every watched key of database `db` (all when null) for which `exists` holds. */
  touchAll(db: number | null, exists: (db: number, key: string) => boolean): void {
    for (const [id, clients] of this.watchers) {
      const sep = id.indexOf(':');
      const keyDb = Number(id.slice(0, sep));
      if (db !== null && keyDb !== db) continue;
      if (!exists(keyDb, id.slice(sep + 1))) continue;
      for (const c of clients) c.dirtyCas = true;
    }
  }
}
