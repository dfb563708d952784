// Which keys a running rewrite has serialised, without copying the keyspace when it starts
// (a snapshot of millions of keys would itself stall clients). The databases are walked in
// order with live Map iterators, which also visit keys inserted after they started:
//   - in a database already walked, every key counts as serialised (one created later is new
//     since the snapshot point, so its commands are replayed from the tail);
//   - in the database being walked, a key is serialised once visited (a visited key deleted and
//     re-created moves to the end of the Map and is skipped when met again);
//   - in later databases, every key is pending.
// The few keys marked redo/active during the rewrite get an entry keyed by "db:key".
import type { Database } from '../engine/keyspace.js';

export type KeyStatus = 'pending' | 'redo' | 'active';

function split(id: string): [number, string] {
  const sep = id.indexOf(':');
  return [Number(id.slice(0, sep)), id.slice(sep + 1)];
}

export class KeyStatusTable {
  private readonly marked = new Map<string, 'redo' | 'active'>();
  /** Keys of the current database already visited. */
  private visited = new Set<string>();
  private dbCursor = 0;
  private iterator: Iterator<string> | null = null;
  /** Keys that existed when the rewrite started. */
  readonly total: number;

  constructor(private readonly dbs: readonly Database[]) {
    this.total = dbs.reduce((n, db) => n + db.values.size, 0);
  }

  /** undefined means serialised, or created after the snapshot point. */
  get(id: string): KeyStatus | undefined {
    const m = this.marked.get(id);
    if (m !== undefined) return m;
    const [db, key] = split(id);
    if (db < this.dbCursor) return undefined;
    if (db > this.dbCursor) return 'pending';
    return this.visited.has(key) ? undefined : 'pending';
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, status: 'redo' | 'active'): void {
    this.visit(id);
    this.marked.set(id, status);
  }

  /** The key is serialised. */
  delete(id: string): void {
    this.visit(id);
    this.marked.delete(id);
  }

  private visit(id: string): void {
    const [db, key] = split(id);
    if (db === this.dbCursor) this.visited.add(key);
  }

  /** The next pending key ("db:key") in keyspace order, or null when none is left. */
  nextPending(): string | null {
    while (this.dbCursor < this.dbs.length) {
      this.iterator ??= this.dbs[this.dbCursor]!.values.keys();
      for (;;) {
        const next = this.iterator.next();
        if (next.done) break;
        if (this.visited.has(next.value)) continue;
        const id = `${this.dbCursor}:${next.value}`;
        if (this.marked.has(id)) continue;
        return id;
      }
      this.iterator = null;
      this.visited = new Set();
      this.dbCursor++;
    }
    return null;
  }

  /** Keys still marked (redo, or active if the rewrite is not done). */
  remaining(): Array<[string, KeyStatus]> {
    return [...this.marked];
  }
}
