// The primary's side of replication, as Redis 7.0's replication.c: replicas attach with SYNC or
// PSYNC, get a full sync (+FULLRESYNC, then the dataset as an RDB) or continue from the
// backlog (+CONTINUE), and from then on receive every command effect as the replication
// stream. They acknowledge offsets with REPLCONF ACK every second, which INFO replication,
// ROLE, WAIT and min-replicas-to-write read. Every repl-ping-replica-period the primary PINGs
// them through the stream; a replica silent past repl-timeout is dropped.
import { randomBytes } from 'node:crypto';
import type { ClientState } from '../commands/client-state.js';
import type { Instance } from '../commands/core/instance.js';
import type { ReplicaInfo } from '../commands/core/replication.js';
import { DirectReply, ErrorReply, type Reply, type ReplyWriter } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { saveRdbChunks } from '../persist/rdb-snapshot.js';
import { createBacklog, type ReplicationBacklog } from './backlog.js';
import { EarlySend } from './early-send.js';

/** Bytes written to a replica as they are (the RDB transfer, the replication stream). */
export class ReplicationBytes extends DirectReply {
  constructor(readonly bytes: Buffer) {
    super();
  }

  writeTo(w: ReplyWriter): void {
    w.raw(this.bytes);
  }

  toReply(): Reply {
    return this.bytes;
  }
}

const PING = Buffer.from('*1\r\n$4\r\nPING\r\n');
/** The reply of a SYNC whose header was already written (early-send.ts). */
const NOTHING = Buffer.alloc(0);
const GETACK = Buffer.from('*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n');

interface Replica {
  readonly client: ClientState;
  port: number;
  ip: string;
  readonly capa: Set<string>;
  state: 'wait_bgsave' | 'online';
  ackOffset: number;
  /** When the last ACK came (ms), or when it attached. */
  ackAt: number;
  /**
   * After a diskless transfer, the stream is held until the replica's first ACK (Redis's
   * repl_start_cmd_stream_on_ack): a replica finds the EOF mark by the last 40 bytes it read,
   * so nothing may follow the RDB before it has read all of it.
   */
  held: Buffer[] | null;
  /** The RDB of its full sync is still being sent: nothing else may go out before it ends. */
  sendingRdb: boolean;
}

/** A replica waiting for the full sync to start (repl-diskless-sync-delay). */
interface PendingSync {
  readonly replica: Replica;
  readonly psync: boolean;
  readonly resolve: (reply: Reply) => void;
}

interface Waiter {
  offset: number;
  count: number;
  resolve: (acked: number) => void;
  timer: NodeJS.Timeout | null;
}

export class PrimaryRole {
  private readonly byClient = new Map<ClientState, Replica>();
  /** Replicas in the order they attached (INFO's slave0, slave1 ...). */
  private readonly attached: Replica[] = [];
  private backlog: ReplicationBacklog | null = null;
  private waiters: Waiter[] = [];
  /** Seconds of the cron, for the PING period. */
  private cronTicks = 0;
  /** A GETACK is asked of the replicas at the end of this turn (WAIT), once per turn. */
  private getAckQueued = false;
  /**
   * Set by a FAILOVER with a TIMEOUT while it waits: no PING goes into the stream, so the
   * offset the replica must acknowledge stays put (Redis skips it while such a pause lasts).
   */
  holdPings = false;
  /** Replicas waiting for a diskless full sync to start, and the timer that starts it. */
  private pendingSyncs: PendingSync[] = [];
  private syncTimer: NodeJS.Timeout | null = null;
  /** When the last replica went away (Redis's repl_no_slaves_since), for repl-backlog-ttl. */
  private noReplicasSince = Date.now();

  constructor(private readonly instance: Instance) {}

  // --- REPLCONF (from a replica before and after its SYNC) --------------------------------------

  replconf(client: ClientState, option: string, value: string, extra: string[]): void {
    const pending = this.pendingOptions(client);
    switch (option) {
      case 'listening-port':
        pending.port = Number(value);
        break;
      case 'ip-address':
        pending.ip = value;
        break;
      case 'capa':
        pending.capa.add(value.toLowerCase());
        break;
      case 'ack': {
        const replica = this.byClient.get(client);
        if (replica === undefined) return;
        const offset = Number(value);
        if (offset > replica.ackOffset) replica.ackOffset = offset;
        replica.ackAt = Date.now();
        if (replica.held !== null && !replica.sendingRdb) {
          const held = replica.held;
          replica.held = null;
          if (held.length > 0) client.push?.(new ReplicationBytes(Buffer.concat(held)));
        }
        void extra;
        this.serveWaiters();
        break;
      }
    }
  }

  /** What a client said in REPLCONF before it became a replica (kept per client until then). */
  private readonly options = new WeakMap<ClientState, { port: number; ip: string; capa: Set<string> }>();

  private pendingOptions(client: ClientState): { port: number; ip: string; capa: Set<string> } {
    const replica = this.byClient.get(client);
    if (replica !== undefined) return replica;
    let o = this.options.get(client);
    if (o === undefined) {
      o = { port: 0, ip: '', capa: new Set() };
      this.options.set(client, o);
    }
    return o;
  }

  // --- SYNC / PSYNC ----------------------------------------------------------------------------

  /** The backlog the stream goes into (a replica makes a new one at each full sync from its primary). */
  useBacklog(backlog: ReplicationBacklog): void {
    if (this.backlog !== null && this.backlog !== backlog) {
      this.backlog.flush();
      this.backlog.onBytes = null;
      this.instance.effects.remove(this.backlog);
    }
    this.backlog = backlog;
    backlog.onBytes = (bytes) => this.broadcast(bytes);
  }

  get currentBacklog(): ReplicationBacklog | null {
    return this.backlog;
  }

  /** Drops every attached replica (a replica that changes primary: its history changes too). */
  disconnectReplicas(): void {
    for (const s of [...this.attached]) s.client.kill();
  }

  sync(client: ClientState, psync: { replid: string; offset: number } | null): Reply | Promise<Reply> {
    const r = this.instance.replication;
    if (r.role === 'slave' && !r.linkUp) return new ErrorReply(Errors.noMasterLink);
    const options = this.pendingOptions(client);
    if (psync !== null) {
      const sameHistory =
        psync.replid === r.replid || (psync.replid === r.replid2 && psync.offset <= r.secondOffset);
      const missing = sameHistory && this.backlog !== null ? this.backlog.since(psync.offset) : null;
      if (missing !== null) {
        const replica = this.attach(client, options, 'online');
        this.instance.stats.syncPartialOk++;
        this.instance.logger.info(`sluice: Partial resynchronization request from ${client.addr} accepted. Sending ${missing.length} bytes of backlog starting from offset ${psync.offset}.`);
        const head = Buffer.from(replica.capa.has('psync2') ? `+CONTINUE ${r.replid}\r\n` : '+CONTINUE\r\n');
        return new ReplicationBytes(Buffer.concat([head, missing]));
      }
      // A refused PSYNC counts, with or without a backlog (freed after repl-backlog-ttl), as in syncCommand.
      if (psync.replid !== '?') this.instance.stats.syncPartialErr++;
    }
    // A full sync. The first replica of a primary without a backlog starts a new history, as
    // Redis's syncCommand does (changeReplicationId, clearReplicationId2, createReplicationBacklog).
    let backlog = this.backlog;
    if (backlog === null) {
      r.replid = randomBytes(20).toString('hex');
      r.replid2 = '0'.repeat(40);
      r.secondOffset = -1;
      backlog = createBacklog(this.instance);
      this.useBacklog(backlog);
    }
    this.instance.stats.syncFull++;
    const replica = this.attach(client, options, 'wait_bgsave');
    const delay = this.instance.config.getNumber('repl-diskless-sync-delay');
    if (!this.diskless(replica) || (delay === 0 && this.pendingSyncs.length === 0)) return this.fullSync([replica], psync !== null)[0]!;
    // As syncCommand with repl-diskless-sync-delay: the transfer starts once the first replica
    // waiting has waited that long (or repl-diskless-sync-max-replicas are waiting), so that
    // replicas arriving meanwhile share it.
    this.instance.logger.info(`sluice: Delay next BGSAVE for diskless SYNC (replica ${client.addr})`);
    return new Promise<Reply>((resolve) => {
      this.pendingSyncs.push({ replica, psync: psync !== null, resolve });
      const most = this.instance.config.getNumber('repl-diskless-sync-max-replicas');
      if (most > 0 && this.pendingSyncs.length >= most) this.startPendingSyncs();
      else this.syncTimer ??= setTimeout(() => this.startPendingSyncs(), delay * 1000);
    });
  }

  private diskless(replica: Replica): boolean {
    return replica.capa.has('eof') && this.instance.config.get('repl-diskless-sync') === 'yes';
  }

  /** The delay is over: one snapshot for every replica still waiting. */
  private startPendingSyncs(): void {
    if (this.syncTimer !== null) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    // Not mid-script (one yielded past busy-reply-threshold): its effects follow in the stream.
    if (this.instance.busyScript !== null) {
      this.syncTimer = setTimeout(() => this.startPendingSyncs(), 1);
      return;
    }
    const pending = this.pendingSyncs.filter((p) => this.byClient.get(p.replica.client) === p.replica);
    this.pendingSyncs = [];
    if (pending.length === 0) return;
    const replies = this.fullSync(
      pending.map((p) => p.replica),
      pending.map((p) => p.psync),
    );
    pending.forEach((p, i) => p.resolve(replies[i]!));
  }

  /**
   * +FULLRESYNC (for PSYNC) and the RDB, for replicas attached in wait_bgsave. The snapshot is
   * taken synchronously: nothing runs between it and their first stream bytes, so the stream
   * continues exactly at this offset. It starts with a SELECT. The reply is only the header:
   * the RDB follows in chunks (sendRdb), and the stream is held until it has all gone. A lone
   * diskless replica gets its header and the RDB's chunks while the snapshot is being written,
   * as far as its socket takes them (early-send.ts); its reply is then empty.
   */
  private fullSync(replicas: Replica[], psync: boolean | boolean[]): Reply[] {
    const r = this.instance.replication;
    const backlog = this.backlog!;
    // The headers first: a diskless transfer's ($EOF:<mark>) does not depend on the RDB.
    const heads = replicas.map((replica, i) => ({
      fullresync: (Array.isArray(psync) ? psync[i] : psync) ? `+FULLRESYNC ${r.replid} ${r.offset}\r\n` : '',
      mark: this.diskless(replica) ? Buffer.from(randomBytes(20).toString('hex'), 'latin1') : null,
    }));
    const lone = replicas.length === 1 && heads[0]!.mark !== null ? heads[0]! : null;
    const early = lone === null ? null : EarlySend.start(replicas[0]!.client, Buffer.from(`${lone.fullresync}$EOF:${lone.mark!.toString('latin1')}\r\n`, 'latin1'));
    const started = performance.now();
    const rdb = saveRdbChunks(this.instance, early === null ? undefined : (chunk) => early.chunk(chunk));
    let size = 0;
    for (const chunk of rdb) size += chunk.length;
    this.instance.logger.info(`sluice: Full sync snapshot: ${size} bytes of RDB in ${(performance.now() - started).toFixed(0)} ms`);
    backlog.forceSelect();
    return replicas.map((replica, i) => {
      const { fullresync, mark } = heads[i]!;
      replica.held = [];
      replica.state = 'online';
      if (early !== null) {
        this.sendRdb(replica, early.rest(rdb), size, mark);
        return new ReplicationBytes(NOTHING);
      }
      const head = mark !== null ? `${fullresync}$EOF:${mark.toString('latin1')}\r\n` : `${fullresync}$${size}\r\n`;
      this.sendRdb(replica, [...rdb], size, mark);
      return new ReplicationBytes(Buffer.from(head, 'latin1'));
    });
  }

  /**
   * Sends the RDB after the SYNC's reply, chunk by chunk as it was written (about 1 MiB each,
   * uncopied), each once the previous one is written (Redis writes a full sync's payload as
   * the replica's socket takes it): the replica's output holds one chunk, and each chunk is let
   * go once sent (`chunks` is this replica's own list). Then the diskless end mark, and, for a
   * disk-style transfer, the stream held meanwhile; a diskless one keeps it until the replica's
   * first ACK (see Replica.held).
   */
  private sendRdb(replica: Replica, chunks: Array<Buffer | null>, size: number, mark: Buffer | null): void {
    const client = replica.client;
    let at = 0;
    replica.sendingRdb = true;
    const started = performance.now();
    const next = (): void => {
      if (this.byClient.get(client) !== replica) return; // gone meanwhile
      if (at < chunks.length) {
        const chunk = chunks[at]!;
        chunks[at++] = null;
        client.push?.(new ReplicationBytes(chunk));
        if (client.whenDrained !== null) client.whenDrained(next);
        else next();
        return;
      }
      replica.sendingRdb = false;
      this.instance.logger.info(`sluice: Synchronization with replica ${client.addr} succeeded (full sync, ${size} bytes of RDB sent in ${(performance.now() - started).toFixed(0)} ms)`);
      if (mark !== null) {
        client.push?.(new ReplicationBytes(mark));
        return;
      }
      const held = replica.held ?? [];
      replica.held = null;
      if (held.length > 0) client.push?.(new ReplicationBytes(Buffer.concat(held)));
    };
    if (client.whenDrained !== null) client.whenDrained(next);
    else next();
  }

  private attach(client: ClientState, options: { port: number; ip: string; capa: Set<string> }, state: Replica['state']): Replica {
    const replica: Replica = {
      client,
      port: options.port,
      ip: options.ip !== '' ? options.ip : client.addr.slice(0, client.addr.lastIndexOf(':')).replace(/^\[|\]$/g, ''),
      capa: options.capa,
      state,
      ackOffset: 0,
      ackAt: Date.now(),
      held: null,
      sendingRdb: false,
    };
    client.isReplica = true;
    this.byClient.set(client, replica);
    this.attached.push(replica);
    const detach = client.onGone;
    client.onGone = () => {
      detach?.();
      this.detach(client);
    };
    return replica;
  }

  private detach(client: ClientState): void {
    const replica = this.byClient.get(client);
    if (replica === undefined) return;
    this.byClient.delete(client);
    this.attached.splice(this.attached.indexOf(replica), 1);
    if (this.attached.length === 0) this.noReplicasSince = Date.now();
    this.instance.logger.info(`sluice: Connection with replica ${client.addr} lost.`);
  }

  /** The stream's new bytes (a command's effects, a PING) to every attached replica. */
  private broadcast(bytes: Buffer): void {
    if (this.attached.length === 0) return;
    // The backlog hands over Buffers nobody writes into again: shared by every replica.
    const reply = new ReplicationBytes(bytes);
    for (const replica of this.attached) {
      // A replica waiting for its full sync gets the stream from the snapshot on.
      if (replica.state !== 'online') continue;
      if (replica.held !== null) replica.held.push(bytes);
      // After the reply of a command the replica itself is running (its PSYNC), never before it.
      else replica.client.push?.(reply, true);
    }
  }

  // --- what INFO, ROLE, WAIT and min-replicas-to-write read --------------------------------------

  replicas(): ReplicaInfo[] {
    const now = Date.now();
    return this.attached.map((s) => ({
      ip: s.ip,
      port: s.port,
      state: s.state,
      ackOffset: s.ackOffset,
      lagSeconds: Math.floor((now - s.ackAt) / 1000),
    }));
  }

  acknowledged(offset: number): number {
    let n = 0;
    for (const s of this.attached) if (s.state === 'online' && s.ackOffset >= offset) n++;
    return n;
  }

  goodReplicas(): number {
    const maxLag = this.instance.config.getNumber('min-replicas-max-lag');
    const now = Date.now();
    let n = 0;
    for (const s of this.attached) if (s.state === 'online' && (now - s.ackAt) / 1000 <= maxLag) n++;
    return n;
  }

  waitFor(offset: number, count: number, timeoutMs: number): Promise<number> {
    return new Promise((resolve) => {
      const waiter: Waiter = { offset, count, resolve, timer: null };
      if (timeoutMs > 0) {
        waiter.timer = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(this.acknowledged(offset));
        }, timeoutMs);
      }
      this.waiters.push(waiter);
      // As Redis's beforeSleep: one REPLCONF GETACK * per turn asks the replicas for their offset.
      if (!this.getAckQueued) {
        this.getAckQueued = true;
        setImmediate(() => {
          this.getAckQueued = false;
          // Not while clients are paused, as beforeSleep: it would move the offset a FAILOVER waits for.
          if (this.waiters.length > 0 && this.attached.length > 0 && !this.instance.pause.paused) this.backlog?.feed(GETACK);
        });
      }
    });
  }

  private serveWaiters(): void {
    if (this.waiters.length === 0) return;
    const left: Waiter[] = [];
    for (const w of this.waiters) {
      const acked = this.acknowledged(w.offset);
      if (acked >= w.count) {
        if (w.timer !== null) clearTimeout(w.timer);
        w.resolve(acked);
      } else {
        left.push(w);
      }
    }
    this.waiters = left;
  }

  // --- every second (Redis's replicationCron) -----------------------------------------------------

  /**
   * repl-backlog-ttl: a primary without replicas for that many seconds frees its backlog, with
   * a new replication id (no offset could be served from it any more). Never on a replica: it
   * keeps its backlog for sub-replicas after a promotion; its clock starts when promoted.
   */
  private freeIdleBacklog(): void {
    const r = this.instance.replication;
    const now = Date.now();
    if (r.role !== 'master') {
      this.noReplicasSince = now;
      return;
    }
    const ttl = this.instance.config.getNumber('repl-backlog-ttl');
    const backlog = this.backlog;
    if (ttl === 0 || backlog === null || this.attached.length > 0) return;
    if (Math.floor((now - this.noReplicasSince) / 1000) <= ttl) return;
    r.replid = randomBytes(20).toString('hex');
    r.replid2 = '0'.repeat(40);
    r.secondOffset = -1;
    backlog.onBytes = null;
    this.instance.effects.remove(backlog);
    this.backlog = null;
    r.backlog = null;
    this.instance.logger.info(`sluice: Replication backlog freed after ${ttl} seconds without connected replicas.`);
  }

  cron(): void {
    this.cronTicks++;
    this.freeIdleBacklog();
    const period = this.instance.config.getNumber('repl-ping-replica-period');
    // A replica's sub-replicas get its primary's PINGs, proxied with the rest of the stream.
    if (this.attached.length > 0 && this.cronTicks % period === 0 && this.instance.replication.role === 'master' && !(this.holdPings && this.instance.pause.paused)) this.backlog?.feed(PING);
    const timeoutMs = this.instance.config.getNumber('repl-timeout') * 1000;
    const now = Date.now();
    for (const s of [...this.attached]) {
      if (s.state === 'online' && now - s.ackAt > timeoutMs) {
        this.instance.logger.warn(`sluice: Disconnecting timedout replica (streaming sync): ${s.client.addr}`);
        s.client.kill();
      }
    }
  }
}
