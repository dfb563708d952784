// The replica's side of replication, as Redis 7.0's replication.c: REPLICAOF host port starts a
// link to the primary (PING, AUTH with masterauth, REPLCONF listening-port and capa eof psync2,
// PSYNC with this instance's replid and offset), loads the RDB of a full sync (held whole
// first: a truncated or corrupt one is never half-loaded), then applies the primary's stream
// through a client whose commands must be obeyed, acknowledges its offset every second and on
// REPLCONF GETACK, and proxies the stream byte for byte into its own backlog for replicas of
// its own. REPLICAOF NO ONE promotes it (a new replid, the old one kept as replid2).
import { connect as connectSocket, type Socket } from 'node:net';
import type { ClientState } from '../commands/client-state.js';
import type { Instance } from '../commands/core/instance.js';
import type { PrimaryLinkInfo } from '../commands/core/replication.js';
import { IncomingRdb } from '../persist/rdb-snapshot.js';
import { crc64 } from '../rdb/crc64.js';
import { RequestParser } from '../resp/parser.js';
import { Errors } from '../resp/errors.js';
import { ErrorReply } from '../resp/reply.js';
import { createBacklog } from './backlog.js';
import type { PrimaryRole } from './primary.js';

const command = (...argv: string[]): string => `*${argv.length}\r\n${argv.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/**
 * Reads the handshake's lines and the RDB payload from the primary's socket. The payload is
 * copied into one buffer read by read as it arrives (payload()), its checksum computed as it
 * goes (an RDB of many megabytes arrives in thousands of reads: joining at each one was
 * quadratic, joining them at the end a pass over the file once it had all arrived).
 */
class HandshakeReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private wake: (() => void) | null = null;
  private failure: Error | null = null;

  constructor(private readonly socket: Socket) {
    socket.on('data', this.onData);
    socket.on('close', () => this.fail(new Error('connection closed by the primary')));
    socket.on('error', (err) => this.fail(err));
  }

  private readonly onData = (chunk: Buffer): void => {
    this.chunks.push(chunk);
    this.length += chunk.length;
    this.wake?.();
  };

  private fail(err: Error): void {
    this.failure ??= err;
    this.wake?.();
  }

  private async more(): Promise<void> {
    if (this.failure !== null) throw this.failure;
    await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = null;
    if (this.failure !== null) throw this.failure;
  }

  /** Everything read and not consumed, as one Buffer. */
  private joined(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks, this.length)];
    return this.chunks[0]!;
  }

  /**
   * Consumes the first `n` bytes and keeps the rest. The bytes are a view, not a copy (the
   * joined Buffer is this reader's own; an RDB was copied twice more here); the rest, a few
   * stream bytes at most, is copied so it does not hold the whole payload after it is loaded.
   */
  private take(n: number, skip = 0): Buffer {
    const all = this.joined();
    const out = all.subarray(0, n);
    const rest = all.subarray(n + skip);
    this.chunks = rest.length === 0 ? [] : [rest.length < all.length >> 1 ? Buffer.from(rest) : rest];
    this.length = rest.length;
    return out;
  }

  /** One reply line, without its CRLF; the primary's keepalive newlines before it are skipped. */
  async line(): Promise<string> {
    for (;;) {
      if (this.length > 0) {
        let all = this.joined();
        let skip = 0;
        while (skip < all.length && all[skip] === 0x0a) skip++;
        if (skip > 0) {
          all = all.subarray(skip);
          this.chunks = [all];
          this.length = all.length;
        }
        const eol = all.indexOf('\r\n');
        if (eol >= 0) return this.take(eol, 2).toString('latin1');
      }
      await this.more();
    }
  }

  /**
   * The RDB payload of a full sync: `length` bytes ("$<len>"), or (`mark`, a diskless
   * transfer's "$EOF:<mark>") the bytes up to the 40-byte end mark, dropped. Each read goes to
   * `sink` (the loader) as soon as it is known to be payload, and its CRC64 is computed then
   * (`crc` covers the payload's [0, crcEnd)): the RDB is loaded while the primary still sends,
   * and never held whole. Returns the payload's size.
   *
   * As Redis's readSyncBulkPayload, the end mark is looked for only in the last bytes read: a
   * primary sends nothing after it until the replica's first ACK (sluice's and every Redis's).
   */
  async payload(length: number | null, mark: Buffer | null, sink: (bytes: Buffer) => void): Promise<{ size: number; crc: bigint; crcEnd: number }> {
    /** The reads not yet both summed and given to the sink. */
    const parts: Buffer[] = [];
    let filled = 0;
    const sum = { part: 0, at: 0, end: 0, crc: 0n };
    const give = { part: 0, at: 0, end: 0 };
    /** Walks the parts from `cursor` up to payload position `to`, handing each piece to `use`. */
    const walk = (cursor: { part: number; at: number; end: number }, to: number, use: (piece: Buffer) => void): void => {
      while (cursor.end < to) {
        const part = parts[cursor.part]!;
        const n = Math.min(part.length - cursor.at, to - cursor.end);
        use(cursor.at === 0 && n === part.length ? part : part.subarray(cursor.at, cursor.at + n));
        cursor.end += n;
        cursor.at += n;
        if (cursor.at === part.length) {
          cursor.part++;
          cursor.at = 0;
        }
      }
    };
    const sumTo = (to: number): void => walk(sum, to, (piece) => (sum.crc = crc64(piece, sum.crc)));
    const giveTo = (to: number): void => walk(give, to, sink);
    // Bytes that may be the checksum itself, or the mark, are not summed until the end is known;
    // bytes that may be the mark are not given to the loader.
    const unsure = 8 + (mark?.length ?? 0);
    for (;;) {
      const rest: Buffer[] = [];
      for (const chunk of this.chunks) {
        const n = length === null ? chunk.length : Math.min(chunk.length, length - filled);
        // What follows a payload of known length is the stream: it stays to be read.
        if (n < chunk.length) rest.push(n === 0 ? chunk : chunk.subarray(n));
        if (n > 0) parts.push(n === chunk.length ? chunk : chunk.subarray(0, n));
        filled += n;
      }
      this.chunks = rest;
      this.length = 0;
      for (const r of rest) this.length += r.length;
      const done = length === null ? mark !== null && filled >= mark.length && endsWith(parts, mark) : filled >= length;
      if (done) {
        const size = length ?? filled - mark!.length;
        sumTo(size - 8);
        giveTo(size);
        return { size, crc: sum.crc, crcEnd: sum.end };
      }
      if (filled - unsure > sum.end) sumTo(filled - unsure);
      giveTo(length === null ? filled - mark!.length : filled);
      // Reads summed and given are let go.
      for (let i = Math.min(sum.part, give.part) - 1; i >= 0 && parts[i]!.length > 0; i--) parts[i] = EMPTY;
      await this.more();
    }
  }

  /** Hands the socket over to the stream: what was read past the handshake comes first. */
  detach(): Buffer {
    this.socket.off('data', this.onData);
    this.socket.removeAllListeners('close');
    this.socket.removeAllListeners('error');
    return this.length === 0 ? Buffer.alloc(0) : this.joined();
  }
}

const EMPTY = Buffer.alloc(0);

/** True when the bytes of `parts`, one after the other, end with `tail`. */
function endsWith(parts: readonly Buffer[], tail: Buffer): boolean {
  let want = tail.length;
  for (let i = parts.length - 1; i >= 0 && want > 0; i--) {
    const part = parts[i]!;
    const n = Math.min(part.length, want);
    if (part.compare(tail, want - n, want, part.length - n, part.length) !== 0) return false;
    want -= n;
  }
  return want === 0;
}

type LinkState = PrimaryLinkInfo['state'];

export class ReplicaRole implements PrimaryLinkInfo {
  host = '';
  port = 0;
  state: LinkState = 'connect';
  readOffset = 0;
  private socket: Socket | null = null;
  private client: ClientState | null = null;
  private lastIo = 0;
  /** When the current link attempt began (a handshake that hangs is timed out too). */
  private attemptStarted = 0;
  private downSince = Date.now();
  /** Bumped by each new link: callbacks of an older one do nothing. */
  private generation = 0;
  private readonly parser = new RequestParser({ maxBulkLen: 512 * 1024 * 1024, maxQueryBuffer: Number.MAX_SAFE_INTEGER });
  /**
   * Stream bytes read and not yet counted in the offset (from stream position `fedTo` on), as
   * the reads they came in: a read that ends inside a command leaves its tail here, and joining
   * that tail to the next read copied every read of a busy stream once more.
   */
  private pendingStream: Buffer[] = [];
  /**
   * A FAILOVER this instance coordinates (failover.ts): while it is under way the PSYNC carries
   * FAILOVER, and its answer ends the failover (accepted) or aborts it.
   */
  failover: { readonly psyncWithFailover: boolean; psyncAnswered(accepted: boolean): void } | null = null;
  /**
   * Positions in this link's stream (bytes pushed into the parser): all pushed, the end of the
   * last command applied outside a MULTI (what the offset may
   * count, as Redis updates reploff outside MULTI only), and the end of what the offset counts.
   */
  private pushed = 0;
  /** The stream waits for a script past busy-reply-threshold to end (applyBuffered). */
  private waitingForScript = false;
  private appliedEnd = 0;
  private fedTo = 0;
  /**
   * The db the primary's stream is in (the primary client's, kept across links as Redis's
   * cached master keeps it), and whether this history ever had a link (a full sync, a
   * partial one, or a dump.rdb that recorded it).
   */
  private linkDb = 0;
  private synced = false;
  /** Shut down: no connecting again. */
  private halted = false;

  constructor(
    private readonly instance: Instance,
    private readonly primary: PrimaryRole,
    /** The port this server listens on, announced with REPLCONF listening-port. */
    private readonly listeningPort: () => number,
  ) {}

  get following(): boolean {
    return this.host !== '';
  }

  get lastIoSecondsAgo(): number {
    return this.lastIo === 0 ? -1 : Math.floor((Date.now() - this.lastIo) / 1000);
  }

  get downSinceSeconds(): number {
    return this.instance.replication.linkUp ? -1 : Math.floor((Date.now() - this.downSince) / 1000);
  }

  /** The db of the primary's stream, for an RDB saved now (null: no link in this history yet). */
  streamDb(): number | null {
    if (this.client !== null) return this.client.db;
    return this.synced ? this.linkDb : null;
  }

  /** At start from a dump.rdb with replication AUX fields: its stream db (the id and offset are restored by the caller). */
  restore(streamDb: number): void {
    this.linkDb = streamDb;
    this.synced = true;
  }

  /** At shutdown: drops the link for good, keeping the role, ids and offset. */
  halt(): void {
    this.halted = true;
    if (this.following) this.dropLink();
  }

  /** REPLICAOF host port. False when already following it (Redis's "Already connected"). */
  follow(host: string, port: number): boolean {
    const r = this.instance.replication;
    if (this.host === host && this.port === port && r.role === 'slave') return false;
    const wasPrimary = r.role === 'master';
    this.dropLink();
    this.unblockClients();
    this.host = host;
    this.port = port;
    r.role = 'slave';
    r.linkUp = false;
    r.primaryLink = this;
    this.instance.config.setRaw('replicaof', `${host} ${port}`);
    this.downSince = Date.now();
    this.instance.keyspace.expiryByPrimary = true;
    // Its own replicas resync from the history this instance is about to follow.
    this.primary.disconnectReplicas();
    // A former primary may continue its history with the new primary (PSYNC2): its offset stays.
    if (wasPrimary) this.instance.logger.info(`sluice: Connecting to MASTER ${host}:${port}`);
    this.connect();
    return true;
  }

  /** REPLICAOF NO ONE: the link is dropped and this instance becomes a primary of a new history. */
  promote(): void {
    const r = this.instance.replication;
    if (r.role === 'master') return;
    this.dropLink();
    this.host = '';
    this.port = 0;
    r.role = 'master';
    r.linkUp = true;
    r.primaryLink = null;
    this.instance.config.setRaw('replicaof', '');
    r.shiftId();
    this.instance.keyspace.expiryByPrimary = false;
    // Its replicas reconnect to learn the new id, and continue from the backlog (replid2); the
    // stream of the new history starts with a SELECT (Redis's disconnectSlaves, slaveseldb -1).
    this.primary.currentBacklog?.forceSelect();
    this.primary.disconnectReplicas();
    this.instance.logger.info(`sluice: MASTER MODE enabled (new replid ${r.replid}, offset of the previous history ${r.secondOffset - 1})`);
  }

  /**
   * As disconnectAllBlockedClients when a server starts following a primary: a client blocked
   * in a read (XREAD, BLPOP ...) gets an error rather than waiting on data that will now only
   * come from elsewhere. A command postponed by a pause is not blocked that way: it is processed
   * again when the pause ends (and then refused if it writes).
   */
  private unblockClients(): void {
    for (const client of this.instance.clients.values()) {
      const blocked = client.blocked;
      if (blocked !== null && blocked.postponed !== true) blocked.finish(new ErrorReply(Errors.unblockedByRoleChange));
    }
  }

  private dropLink(): void {
    this.generation++;
    this.socket?.destroy();
    this.socket = null;
    if (this.client !== null) {
      const client = this.client;
      this.linkDb = client.db;
      this.client = null;
      this.instance.removeClient(client);
    }
    if (this.instance.replication.linkUp && this.instance.replication.role === 'slave') this.downSince = Date.now();
    this.instance.replication.linkUp = this.instance.replication.role === 'master';
    this.state = 'connect';
    this.parser.release();
    this.pendingStream = [];
    this.pushed = 0;
    this.appliedEnd = 0;
    this.fedTo = 0;
  }

  private connect(): void {
    const generation = ++this.generation;
    this.state = 'connecting';
    this.attemptStarted = Date.now();
    const socket = connectSocket(this.port, this.host);
    socket.setNoDelay(true);
    this.socket = socket;
    this.handshake(socket, generation).catch((err: unknown) => {
      if (generation !== this.generation) return;
      this.instance.logger.warn(`sluice: replication link to ${this.host}:${this.port} failed: ${(err as Error).message}`);
      this.linkLost();
    });
  }

  private linkLost(): void {
    if (this.instance.replication.linkUp) this.downSince = Date.now();
    this.dropLink();
    // cron() connects again within a second, as Redis's replicationCron.
  }

  private async handshake(socket: Socket, generation: number): Promise<void> {
    const reader = new HandshakeReader(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    this.state = 'handshake';
    const config = this.instance.config;
    socket.write(command('PING'));
    const pong = await reader.line();
    // As Redis: an auth error to PING still means the primary is there.
    if (pong.startsWith('-') && !/^-(NOAUTH|NOPERM|ERR operation not permitted)/.test(pong)) throw new Error(`error reply to PING from master: '${pong}'`);
    const auth = config.get('masterauth');
    if (auth !== '') {
      const user = config.get('masteruser');
      socket.write(user !== '' ? command('AUTH', user, auth) : command('AUTH', auth));
      const reply = await reader.line();
      if (reply.startsWith('-')) throw new Error(`unable to AUTH to MASTER: ${reply}`);
    }
    socket.write(command('REPLCONF', 'listening-port', String(this.listeningPort())));
    await reader.line(); // an error is only logged by Redis: an old primary may not know it
    socket.write(command('REPLCONF', 'capa', 'eof', 'capa', 'psync2'));
    await reader.line();
    const r = this.instance.replication;
    const failingOver = this.failover?.psyncWithFailover === true;
    socket.write(failingOver ? command('PSYNC', r.replid, String(r.offset + 1), 'FAILOVER') : command('PSYNC', r.replid, String(r.offset + 1)));
    const reply = await reader.line();
    this.lastIo = Date.now();
    const full = /^\+FULLRESYNC ([0-9a-f]{40}) (\d+)/.exec(reply);
    // As syncWithMaster: a failover expects +CONTINUE, takes a full sync, and aborts on anything else.
    if (failingOver && generation === this.generation) this.failover?.psyncAnswered(full !== null || reply.startsWith('+CONTINUE'));
    if (generation !== this.generation) return;
    if (full !== null) {
      // As Redis's REPL_STATE_TRANSFER: the RDB is on its way (master_sync_in_progress:1).
      this.state = 'sync';
      const started = performance.now();
      // Decoded aside as it arrives; swapped in once whole and checked (loadFullSync).
      const incoming = new IncomingRdb(this.instance);
      const payload = await this.readPayload(reader, (bytes) => {
        if (generation === this.generation) incoming.push(bytes);
      });
      this.instance.logger.info(`sluice: MASTER <-> REPLICA sync: received and decoded ${payload.size} bytes of RDB in ${(performance.now() - started).toFixed(0)} ms`);
      if (generation !== this.generation) return;
      this.loadFullSync(incoming, payload.size, { end: payload.crcEnd, crc: payload.crc }, full[1]!, Number(full[2]));
    } else if (reply.startsWith('+CONTINUE')) {
      const newId = reply.slice('+CONTINUE'.length).trim();
      if (newId !== '' && newId !== r.replid) {
        // The primary's history has a new id (it was promoted): ours continues under it, and
        // our own replicas reconnect to learn it (Redis's disconnectSlaves here), continuing
        // from our backlog under replid2.
        this.instance.logger.info(`sluice: Master replication ID changed to ${newId}`);
        r.replid2 = r.replid;
        r.secondOffset = r.offset + 1;
        r.replid = newId;
        this.primary.disconnectReplicas();
      }
      this.instance.logger.info('sluice: MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.');
    } else {
      throw new Error(`unexpected reply to PSYNC from master: ${reply}`);
    }
    if (generation !== this.generation) return;
    this.startStream(socket, reader.detach(), generation);
  }

  private async readPayload(reader: HandshakeReader, sink: (bytes: Buffer) => void): Promise<{ size: number; crc: bigint; crcEnd: number }> {
    const header = await reader.line();
    if (header.startsWith('-')) throw new Error(`master aborted the sync: ${header}`);
    if (header.startsWith('$EOF:')) return reader.payload(null, Buffer.from(header.slice(5), 'latin1'), sink);
    const length = Number(header.slice(1));
    if (!header.startsWith('$') || !Number.isSafeInteger(length) || length < 0) throw new Error(`bad bulk header from master: ${header}`);
    return reader.payload(length, null, sink);
  }

  /**
   * The whole RDB was received and decoded aside: check it and swap it in (a bad one throws
   * before anything changes), then follow.
   */
  private loadFullSync(incoming: IncomingRdb, size: number, knownCrc: { end: number; crc: bigint }, replid: string, offset: number): void {
    const instance = this.instance;
    instance.keyspace.loading = true;
    const started = performance.now();
    let result;
    try {
      result = incoming.finish(undefined, knownCrc);
      instance.logger.info(`sluice: MASTER <-> REPLICA sync: Finished with success (${result.keysLoaded} keys, ${size} bytes of RDB, the last of it loaded in ${(performance.now() - started).toFixed(0)} ms)`);
    } finally {
      instance.keyspace.loading = false;
    }
    const r = instance.replication;
    r.replid = replid;
    r.replid2 = '0'.repeat(40);
    r.secondOffset = -1;
    r.offset = offset;
    this.readOffset = offset;
    // As replicationCreateMasterClient(rsi.repl_stream_db): a primary that is itself a replica
    // proxies its stream without a SELECT first; its RDB says which db that stream is in.
    this.linkDb = Number(result.aux.get('repl-stream-db') ?? -1);
    if (!Number.isInteger(this.linkDb) || this.linkDb < 0 || this.linkDb >= instance.keyspace.dbs.length) this.linkDb = 0;
    // As replicationAttachToNewMaster: our own replicas held the old dataset and history, and
    // the new backlog cannot continue them: they reconnect and sync in full from the new one.
    this.primary.disconnectReplicas();
    this.primary.useBacklog(createBacklog(instance));
    // The AOF held the old dataset: it starts over from the loaded one.
    if (instance.persistence !== null && !instance.persistence.rewriting) instance.persistence.rewriteNow();
  }

  private startStream(socket: Socket, already: Buffer, generation: number): void {
    const r = this.instance.replication;
    const client = this.instance.newClient('primary', `${this.host}:${this.port}`, `${socket.localAddress}:${socket.localPort}`);
    client.authenticated = true;
    client.db = this.linkDb;
    this.synced = true;
    client.kill = () => {
      if (generation === this.generation) this.linkLost();
    };
    this.client = client;
    this.state = 'connected';
    r.linkUp = true;
    this.readOffset = r.offset;
    socket.on('data', (chunk: Buffer) => {
      if (generation === this.generation) this.onStream(chunk);
    });
    socket.on('close', () => {
      if (generation !== this.generation) return;
      this.instance.logger.warn('sluice: Connection with master lost.');
      this.linkLost();
    });
    socket.on('error', () => undefined);
    this.sendAck();
    if (already.length > 0) this.onStream(already);
  }

  /** Applies every whole command of the stream; proxies what was applied into the backlog. */
  private onStream(chunk: Buffer): void {
    const client = this.client;
    if (client === null) return;
    this.lastIo = Date.now();
    this.readOffset += chunk.length;
    this.pendingStream.push(chunk);
    this.parser.push(chunk); // a socket's chunks are never reused
    this.pushed += chunk.length;
    this.applyBuffered(client);
  }

  /**
   * Applies what the primary sent, unless a script here has yielded past busy-reply-threshold
   * (the primary's commands wait for its end, as Redis's processInputBuffer holds the master's).
   */
  private applyBuffered(client: ClientState): void {
    if (this.instance.busyScript !== null) {
      if (this.waitingForScript) return;
      this.waitingForScript = true;
      const retry = (): void => {
        if (this.instance.busyScript !== null) {
          setTimeout(retry, 1);
          return;
        }
        this.waitingForScript = false;
        if (this.client === client) this.applyBuffered(client);
      };
      setTimeout(retry, 1);
      return;
    }
    // The read's commands run as a connection's do: one clock reading, effects written out once.
    const batch = this.instance.beginBatch();
    try {
      this.applyStream(client);
    } finally {
      if (batch) this.instance.endBatch();
    }
  }

  private applyStream(client: ClientState): void {
    const keyspace = this.instance.keyspace;
    for (;;) {
      let args;
      try {
        args = this.parser.nextArgs();
      } catch (err) {
        this.instance.logger.error(`sluice: unparsable replication stream from master, dropping the link: ${(err as Error).message}`);
        this.linkLost();
        return;
      }
      if (args === null) break;
      // Where this command ends in the stream. (Not how much the parser's buffer shrank: the
      // arguments of a command split across reads left it before the command was whole.)
      const end = this.pushed - this.parser.bufferedBytes;
      if (args.is(0, 'replconf') && args.length > 1 && args.is(1, 'getack')) {
        // Answered with the offset before this command, as replicationSendAck from within it.
        this.feedApplied();
        this.sendAck();
      } else {
        keyspace.obeyingPrimary = true;
        const stream = this.pendingStream;
        const streamAt = this.fedTo;
        try {
          // In place, as a connection runs its requests (no argv built for the common commands).
          const reply = this.instance.executeArgs(client, args);
          if (reply instanceof ErrorReply) this.instance.logger.warn(`sluice: == CRITICAL == This replica is sending an error to its master: '${reply.message}' after processing the command '${args.key(0).toLowerCase()}'`);
        } finally {
          keyspace.obeyingPrimary = false;
        }
        if (this.client !== client) {
          // The command dropped the link (REPLICAOF from the stream): what was applied still counts.
          this.feedFront(stream, end - streamAt);
          return;
        }
      }
      if (client.multi === null) this.appliedEnd = end;
    }
    this.feedApplied();
  }

  /** Counts what was applied in the offset, and passes it on to this replica's own replicas. */
  private feedApplied(): void {
    const n = this.appliedEnd - this.fedTo;
    if (n === 0) return;
    this.fedTo = this.appliedEnd;
    this.feedFront(this.pendingStream, n);
  }

  /** Feeds the first `n` bytes of `parts` (reads of the stream, in order) and drops them from it. */
  private feedFront(parts: Buffer[], n: number): void {
    while (n > 0) {
      const part = parts[0]!;
      if (part.length <= n) {
        parts.shift();
        n -= part.length;
        this.feed(part);
      } else {
        parts[0] = part.subarray(n);
        this.feed(part.subarray(0, n));
        n = 0;
      }
    }
  }

  private feed(bytes: Buffer): void {
    const backlog = this.primary.currentBacklog;
    if (backlog !== null) backlog.feed(bytes);
    else this.instance.replication.offset += bytes.length;
  }

  private sendAck(): void {
    if (this.socket === null || this.state !== 'connected') return;
    this.socket.write(command('REPLCONF', 'ACK', String(this.instance.replication.offset)));
  }

  /** Every second: ACK the offset, time the link out, or connect again. */
  cron(): void {
    if (!this.following || this.halted) return;
    const timeoutMs = this.instance.config.getNumber('repl-timeout') * 1000;
    if (this.state === 'connecting' || this.state === 'handshake' || this.state === 'sync') {
      if (Date.now() - Math.max(this.attemptStarted, this.lastIo) > timeoutMs) {
        this.instance.logger.warn('sluice: Timeout connecting to the MASTER...');
        this.linkLost();
      }
    } else if (this.state === 'connected') {
      if (Date.now() - this.lastIo > timeoutMs) {
        this.instance.logger.warn('sluice: MASTER timeout: no data nor PING received...');
        this.linkLost();
        return;
      }
      this.sendAck();
    } else if (this.state === 'connect') {
      this.connect();
    }
  }
}
