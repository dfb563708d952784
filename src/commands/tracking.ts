// Client-side caching (Redis 7.0's tracking.c): the table of keys tracking clients read, the
// BCAST prefixes, and the invalidation messages sent when a key changes. Keys are global, not
// per database, as in Redis. Modifications arrive through the keyspace's one modification
// listener (Instance.onKeyModified, Redis's signalModifiedKey) and flushes through
// Instance.signalFlushedDb; reads are remembered by Instance.call after read-only commands.
import { Buffer } from 'node:buffer';
import { PushReply, type Reply } from '../resp/reply.js';
import { ClientTracking, type ClientState } from './client-state.js';

/** What tracking reads of a command's spec (KeyedSpec has it; declared here to keep types.ts out of the import graph). */
export interface KeyedSpec {
  readonly flags: readonly string[];
  readonly firstKey: number;
  readonly lastKey: number;
  readonly step: number;
  readonly keys?: (argv: Buffer[]) => number[];
}

export interface TrackingOptions {
  redirect: number;
  bcast: boolean;
  optin: boolean;
  optout: boolean;
  noloop: boolean;
  prefixes: string[];
}

/** A BCAST prefix: its clients, and the keys modified under it since the last broadcast (with who modified them last). */
interface BcastState {
  readonly clients: Set<ClientState>;
  keys: Map<string, ClientState | null>;
}

const INVALIDATE = Buffer.from('invalidate');
const REDIR_BROKEN = Buffer.from('tracking-redir-broken');
const CHANNEL = Buffer.from('__redis__:invalidate');
const MESSAGE = Buffer.from('message');

/** Commands Redis excludes from remembering keys: their scripts' read commands remember instead. */
const SCRIPT_RO = new Set(['eval_ro', 'evalsha_ro', 'fcall_ro']);

/** The key positions of a command line by its spec (Redis's getKeysFromCommand). */
export function commandKeyPositions(spec: KeyedSpec, argv: Buffer[]): number[] {
  if (spec.keys !== undefined) return spec.keys(argv);
  if (spec.firstKey === 0) return [];
  const last = spec.lastKey < 0 ? argv.length + spec.lastKey : spec.lastKey;
  const out: number[] = [];
  for (let i = spec.firstKey; i <= last && i < argv.length; i += Math.max(spec.step, 1)) out.push(i);
  return out;
}

export class Tracking {
  /** Key -> ids of the clients that may cache it (Redis's TrackingTable). */
  private readonly table = new Map<string, Set<number>>();
  /** Prefix -> BCAST state (Redis's PrefixTable). */
  private readonly prefixTable = new Map<string, BcastState>();
  /** Client ids across the whole table (INFO's tracking_total_items). */
  private totalItems = 0;
  /** Clients with tracking on (INFO's tracking_clients). */
  clientCount = 0;
  /** The client whose command runs at the top level (Redis's server.current_client), else null. */
  private current: ClientState | null = null;
  /** The top-level command's line and spec: what a script's read command remembers. */
  private currentArgv: (() => Buffer[]) | null = null;
  private currentSpec: KeyedSpec | null = null;
  private depth = 0;
  /** Set by the keyspace's expiry listener: the modification that follows is an expiry (no client). */
  private expiring = false;
  private broadcastScheduled = false;
  /** Successive limit checks that stayed over tracking-table-max-keys (Redis's timeout_counter). */
  private overLimitRuns = 0;

  constructor(
    private readonly clients: Map<number, ClientState>,
    /** tracking-table-max-keys (0: no limit). */
    private readonly maxKeys: () => number,
  ) {}

  /** Anything to do on a key's modification: a tracking client, or keys left in the table. */
  get active(): boolean {
    return this.clientCount > 0 || this.table.size > 0;
  }

  get totalKeys(): number {
    return this.table.size;
  }

  get totalPrefixes(): number {
    return this.prefixTable.size;
  }

  get items(): number {
    return this.totalItems;
  }

  // --- enabling ------------------------------------------------------------------------------

  /** The first prefix of `prefixes` colliding with one of the client's or a later one, as Redis's error. */
  prefixCollision(client: ClientState, prefixes: string[]): { prefix: string; other: string; existing: boolean } | null {
    const overlaps = (a: string, b: string): boolean => (a.length < b.length ? b.startsWith(a) : a.startsWith(b));
    for (let i = 0; i < prefixes.length; i++) {
      for (const own of client.tracking?.prefixes ?? []) {
        if (overlaps(own, prefixes[i]!)) return { prefix: prefixes[i]!, other: own, existing: true };
      }
      for (let j = i + 1; j < prefixes.length; j++) {
        if (overlaps(prefixes[i]!, prefixes[j]!)) return { prefix: prefixes[i]!, other: prefixes[j]!, existing: false };
      }
    }
    return null;
  }

  /** Redis's enableTracking: options replace the previous ones, BCAST prefixes add up. */
  enable(client: ClientState, options: TrackingOptions): void {
    let state = client.tracking;
    if (state === null) {
      state = client.tracking = new ClientTracking();
      this.clientCount++;
    }
    state.brokenRedirect = false;
    state.redirect = options.redirect;
    state.bcast = options.bcast;
    state.optin = options.optin;
    state.optout = options.optout;
    state.noloop = options.noloop;
    if (options.bcast) {
      const prefixes = options.prefixes.length === 0 ? [''] : options.prefixes;
      for (const prefix of prefixes) {
        let bs = this.prefixTable.get(prefix);
        if (bs === undefined) this.prefixTable.set(prefix, (bs = { clients: new Set(), keys: new Map() }));
        bs.clients.add(client);
        state.prefixes.add(prefix);
      }
    }
  }

  /** Redis's disableTracking: the client's ids stay in the table, dropped lazily. */
  disable(client: ClientState): void {
    const state = client.tracking;
    if (state === null) return;
    for (const prefix of state.prefixes) {
      const bs = this.prefixTable.get(prefix);
      if (bs === undefined) continue;
      bs.clients.delete(client);
      if (bs.clients.size === 0) this.prefixTable.delete(prefix);
    }
    client.tracking = null;
    this.clientCount--;
  }

  // --- the command being run -----------------------------------------------------------------

  /** Instance.call's start: the outermost call names the current client. Returns whether it was the outermost. */
  enter(client: ClientState, spec: KeyedSpec, argv: () => Buffer[]): boolean {
    if (this.depth++ > 0) return false;
    this.current = client;
    this.currentSpec = spec;
    this.currentArgv = argv;
    return true;
  }

  /** Instance.call's end. CLIENT CACHING lasts for one command (or transaction), as resetClient. */
  leave(outermost: boolean, client: ClientState, fullName: string): void {
    this.depth--;
    if (!outermost) return;
    this.current = null;
    this.currentSpec = null;
    this.currentArgv = null;
    const state = client.tracking;
    if (state !== null && state.caching && client.multi === null && !fullName.startsWith('client|')) state.caching = false;
  }

  /**
   * After a command ran (Redis's call()): a read-only command of a client tracking keys (not in
   * BCAST) remembers the keys it read. A script's command remembers the script's declared keys
   * for the script's caller.
   */
  afterCommand(client: ClientState, spec: KeyedSpec, fullName: string, argv: () => Buffer[]): void {
    if (SCRIPT_RO.has(fullName)) return;
    let caller = client;
    if (client.fromScript) {
      if (this.current === null || this.currentSpec === null || this.currentArgv === null) return;
      caller = this.current;
      spec = this.currentSpec;
      argv = this.currentArgv;
    }
    const state = caller.tracking;
    if (state === null || state.bcast) return;
    if ((state.optin && !state.caching) || (state.optout && state.caching)) return;
    if (spec.flags.includes('pubsub')) return;
    const line = argv();
    for (const pos of commandKeyPositions(spec, line)) {
      const key = line[pos]!.toString('latin1');
      let ids = this.table.get(key);
      if (ids === undefined) this.table.set(key, (ids = new Set()));
      if (!ids.has(caller.id)) {
        ids.add(caller.id);
        this.totalItems++;
      }
    }
  }

  // --- invalidation --------------------------------------------------------------------------

  /** The keyspace's expiry listener: the modification signalled next is an expiry. */
  readonly onExpired = (): void => {
    if (this.clientCount > 0) this.expiring = true;
  };

  /** Redis's trackingInvalidateKey for a modified key (signalModifiedKey). */
  keyModified(key: string): void {
    const byExpiry = this.expiring;
    this.expiring = false;
    if (this.clientCount === 0 && this.table.size === 0) return;
    this.invalidate(key, byExpiry ? null : this.current, true);
  }

  private invalidate(key: string, by: ClientState | null, bcast: boolean): void {
    if (bcast && this.prefixTable.size > 0) {
      for (const [prefix, bs] of this.prefixTable) {
        if (key.startsWith(prefix)) bs.keys.set(key, by);
      }
      this.scheduleBroadcast();
    }
    const ids = this.table.get(key);
    if (ids === undefined) return;
    for (const id of ids) {
      const target = this.clients.get(id);
      // Ids stay after tracking is turned off or switched to BCAST: those clients get nothing.
      if (target === undefined || target.tracking === null || target.tracking.bcast) continue;
      if (target.tracking.noloop && target === this.current) continue;
      this.send(target, [Buffer.from(key, 'latin1')]);
    }
    this.totalItems -= ids.size;
    this.table.delete(key);
  }

  /** Redis's trackingInvalidateKeysOnFlush: every tracking client is told "all keys" (a null). */
  flushed(): void {
    if (this.clientCount > 0) {
      for (const client of this.clients.values()) if (client.tracking !== null) this.send(client, null);
    }
    this.table.clear();
    this.totalItems = 0;
  }

  /**
   * Redis's sendTrackingMessage: `keys` (an array of keys, or null for all) to the client, or to
   * its redirect client: a push in RESP3, a message on __redis__:invalidate to a subscribed RESP2
   * client. A message for the client running the command goes after that command's reply.
   */
  private send(client: ClientState, keys: Buffer[] | null): void {
    const state = client.tracking!;
    let target = client;
    if (state.redirect !== 0) {
      const redirect = this.clients.get(state.redirect);
      if (redirect === undefined) {
        state.brokenRedirect = true;
        if (client.resp === 3) client.push?.(new PushReply([REDIR_BROKEN, state.redirect]), client === this.current);
        return;
      }
      target = redirect;
    }
    let reply: Reply;
    if (target.resp === 3) reply = new PushReply([INVALIDATE, keys]);
    else if (target !== client && target.subscriptions.active) reply = new PushReply([MESSAGE, CHANNEL, keys]);
    else return;
    target.push?.(reply, target === this.current);
  }

  // --- BCAST ---------------------------------------------------------------------------------

  /** Broadcasts once the commands of this turn have run (Redis does it in beforeSleep). */
  private scheduleBroadcast(): void {
    if (this.broadcastScheduled) return;
    this.broadcastScheduled = true;
    queueMicrotask(this.broadcast);
  }

  /** Redis's trackingBroadcastInvalidationMessages: per prefix, its modified keys to each of its clients. */
  readonly broadcast = (): void => {
    this.broadcastScheduled = false;
    for (const bs of this.prefixTable.values()) {
      if (bs.keys.size === 0) continue;
      // Redis keeps them in a radix tree: they go out in byte order.
      const keys = new Map([...bs.keys].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)));
      bs.keys = new Map();
      const all = [...keys.keys()].map((k) => Buffer.from(k, 'latin1'));
      for (const client of bs.clients) {
        if (client.tracking === null) continue;
        if (!client.tracking.noloop) {
          this.send(client, all);
          continue;
        }
        // NOLOOP: the keys this client modified last are left out.
        const own: Buffer[] = [];
        for (const [key, by] of keys) if (by !== client) own.push(Buffer.from(key, 'latin1'));
        if (own.length > 0) this.send(client, own);
      }
    }
  };

  // --- the table's size ----------------------------------------------------------------------

  /**
   * Redis's trackingLimitUsedSlots: past tracking-table-max-keys, keys are dropped (their
   * clients told, as if the keys changed), up to 100 per consecutive run over the limit.
   */
  limitUsedSlots(): void {
    const max = this.maxKeys();
    if (max === 0 || this.table.size <= max) {
      this.overLimitRuns = 0;
      return;
    }
    let effort = 100 * (this.overLimitRuns + 1);
    for (const key of this.table.keys()) {
      if (effort-- <= 0) break;
      this.invalidate(key, null, false);
      if (this.table.size <= max) {
        this.overLimitRuns = 0;
        return;
      }
    }
    this.overLimitRuns++;
  }
}
