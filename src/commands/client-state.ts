import type { Protocol } from '../resp/encoder.js';
import type { QueuedRequest } from '../resp/request-args.js';

/** A blocked client's registration; see Instance.block. */
export interface BlockedState {
  readonly db: number;
  readonly keys: string[];
  /** Ends the block with this reply (timeout, CLIENT UNBLOCK, disconnect). */
  finish(reply: import('../resp/reply.js').Reply | undefined): void;
  /** What the command replies on timeout (CLIENT UNBLOCK ... TIMEOUT replies it too). */
  readonly timeoutReply?: import('../resp/reply.js').Reply;
  /** A command postponed by a client pause (core/client-pause.ts), not blocked on keys. */
  readonly postponed?: boolean;
}

/** One client's channels, patterns and shard channels, in subscription order. */
export class ClientSubscriptions {
  readonly channels = new Set<string>();
  readonly patterns = new Set<string>();
  readonly shardChannels = new Set<string>();

  /** Channels + patterns: the count SUBSCRIBE/PSUBSCRIBE replies carry. */
  get count(): number {
    return this.channels.size + this.patterns.size;
  }

  /** Any subscription at all: Redis's CLIENT_PUBSUB flag. */
  get active(): boolean {
    return this.count + this.shardChannels.size > 0;
  }
}

/** One client's tracking state (Redis's CLIENT_TRACKING_* flags; commands/tracking.ts); null on the client when off. */
export class ClientTracking {
  /** The client id invalidations go to (0: the client itself). */
  redirect = 0;
  bcast = false;
  optin = false;
  optout = false;
  noloop = false;
  /** CLIENT CACHING yes (OPTIN) or no (OPTOUT) given for the next command or transaction. */
  caching = false;
  /** The redirect client was gone when a message was due. */
  brokenRedirect = false;
  /** BCAST prefixes (latin1), in the order given. */
  readonly prefixes = new Set<string>();
}

/**
 * The ACL user a client runs as, as the permission check reads it (commands/acl/user.ts's
 * AclUser; declared here so the client's module imports nothing of the ACL's).
 */
export interface ClientUser {
  readonly name: string;
  /** Allowed every command, key and channel: the permission check is skipped. */
  readonly unrestricted: boolean;
}

let nextClientId = 1;

/** Per-connection state, shared by the TCP server and the embedded client. */
export class ClientState {
  readonly id = nextClientId++;
  name = '';
  db = 0;
  resp: Protocol = 2;
  authenticated: boolean;
  /**
   * The ACL user (Redis's c->user): the default user until AUTH or HELLO names another; null
   * for the clients that run anything (the AOF's, the link to a primary), as Redis's NULL user.
   */
  user: ClientUser | null = null;
  /** Commands queued by MULTI (RequestArgs.keep() of each request), or null outside a transaction. */
  multi: QueuedRequest[] | null = null;
  /** Set when a command queued in MULTI was rejected: EXEC then fails with EXECABORT. */
  multiAborted = false;
  /** "db:key" of every WATCHed key. */
  readonly watched = new Set<string>();
  /** Set when a WATCHed key changed: EXEC then returns a null array. */
  dirtyCas = false;
  blocked: BlockedState | null = null;
  readonly createdAt = Date.now();
  lastInteraction = Date.now();
  lastCommand = 'NULL';
  /** Close the connection once the pending replies are written (QUIT, CLIENT KILL). */
  closeAfterReply = false;
  libName = '';
  libVersion = '';
  /** CLIENT NO-EVICT; sluice never evicts clients, the flag is only reported. */
  noEvict = false;
  /** Pub/Sub subscriptions (latin1 names), kept in step with Instance.pubsub. */
  readonly subscriptions = new ClientSubscriptions();
  /** CLIENT REPLY OFF / SKIP (see client-reply.ts). */
  replyOff = false;
  replySkip: 'none' | 'next' | 'current' = 'none';
  /** CLIENT TRACKING's state while it is on (commands/tracking.ts), else null. */
  tracking: ClientTracking | null = null;
  /** Set by MONITOR: the client receives every command others run. */
  monitor = false;
  /** The client Lua scripts' commands run as (Redis's CLIENT_SCRIPT): commands/lua/script-engine.ts. */
  fromScript = false;
  /** A replica connected to this primary (after its SYNC/PSYNC): Redis's CLIENT_SLAVE. */
  isReplica = false;
  /** Called once when the instance forgets the client (its connection is gone). */
  onGone: (() => void) | null = null;
  /** master_repl_offset after this client's last command that propagated: what WAIT waits for. */
  replOffset = 0;
  /**
   * Set by a transport that can deliver out-of-band replies (Pub/Sub messages, MONITOR lines):
   * writes one reply to this client now, between or before its own replies. Null where no
   * such channel exists (the embedded client): SUBSCRIBE and MONITOR are then refused.
   * `afterReply`: the client is running a command, and this goes after that command's reply.
   */
  push: ((reply: import('../resp/reply.js').Reply, afterReply?: boolean) => void) | null = null;
  /**
   * Set by a transport with buffers of its own (a socket): what CLIENT LIST reports as qbuf,
   * qbuf-free and omem. Clients without (embedded, AOF replay) have none to report.
   */
  buffers: (() => ClientBuffers) | null = null;
  /**
   * Set by a socket transport: calls `fn` once everything pushed so far has been handed to the
   * kernel (nothing unsent), never if the connection closes first. A primary paces a full
   * sync's RDB with it, a chunk at a time, instead of queueing the whole file.
   */
  whenDrained: ((fn: () => void) => void) | null = null;
  /**
   * Set by a socket transport: writes `bytes` to the kernel at once, as far as it takes them
   * without waiting (a non-blocking write of the socket), and returns how many it took; 0 when
   * anything else is still to be sent on the connection (the order of its bytes holds). A
   * primary sends a full sync's RDB chunks with it while it is still writing the snapshot.
   */
  writeNow: ((bytes: Buffer) => number) | null = null;

  constructor(
    /** 'primary': on a replica, the link its primary's stream is applied through (src/replication/replica.ts). */
    readonly kind: 'tcp' | 'embedded' | 'aof' | 'primary',
    authenticated: boolean,
    readonly addr = '',
    readonly laddr = '',
    readonly fd = -1,
  ) {
    this.authenticated = authenticated;
  }

  /**
   * As Redis's mustObeyClient: the commands this client sends already happened elsewhere (the
   * AOF being loaded; on a replica, the link to its primary), so they are obeyed as written: no
   * OOM refusal, no blocking, no LIMIT on trimming, ids and times taken as given. The one place
   * to ask.
   */
  get mustObey(): boolean {
    return this.kind === 'aof' || this.kind === 'primary';
  }

  /** Set by the transport: drops the connection (CLIENT KILL, SHUTDOWN). */
  kill: () => void = () => {
    this.closeAfterReply = true;
  };
}

/** A client's buffers in bytes, as CLIENT LIST shows them. */
export interface ClientBuffers {
  /** Received bytes not yet parsed into a command (qbuf). */
  readonly queryBuffered: number;
  /** Room allocated for the query buffer beyond that (qbuf-free). */
  readonly queryFree: number;
  /** Reply bytes not yet sent (omem). */
  readonly outputUnsent: number;
}
