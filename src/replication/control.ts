// A served instance's replication: both roles behind the one ReplicationControl the commands
// reach (commands/core/replication.ts). The primary side serves replicas whatever the role (a
// replica can have replicas of its own); the replica side follows a primary after REPLICAOF.
import type { ClientState } from '../commands/client-state.js';
import type { Instance } from '../commands/core/instance.js';
import type { FailoverRequest, ReplicaInfo, ReplicationControl } from '../commands/core/replication.js';
import type { RdbReplicationInfo } from '../rdb/rdb-file.js';
import { Errors } from '../resp/errors.js';
import { ErrorReply, type Reply } from '../resp/reply.js';
import { createBacklog } from './backlog.js';
import { Failover } from './failover.js';
import { PrimaryRole } from './primary.js';
import { ReplicaRole } from './replica.js';

export class ServerReplication implements ReplicationControl {
  readonly primary: PrimaryRole;
  readonly replica: ReplicaRole;
  readonly failoverCoordinator: Failover;

  constructor(
    private readonly instance: Instance,
    listeningPort: () => number,
  ) {
    this.primary = new PrimaryRole(instance);
    this.replica = new ReplicaRole(instance, this.primary, listeningPort);
    this.failoverCoordinator = new Failover(instance, this.primary, this.replica);
    this.replica.failover = this.failoverCoordinator;
  }

  promoteForFailover(client: ClientState, replid: string): string | null {
    // As syncCommand: the primary failing over to this replica asks it to take over first.
    const r = this.instance.replication;
    this.instance.logger.warn(`sluice: Failover request received for replid ${replid}.`);
    if (r.role === 'master') return Errors.psyncFailoverToMaster;
    if (replid.toLowerCase() !== r.replid.toLowerCase()) return Errors.psyncFailoverReplid;
    this.replica.promote();
    this.instance.logger.info(`sluice: MASTER MODE enabled (failover request from ${client.addr})`);
    return null;
  }

  sync(client: ClientState, psync: { replid: string; offset: number } | null): Reply | Promise<Reply> {
    // Replicas do not attach to a primary that is failing over.
    if (this.instance.replication.failoverState !== 'no-failover') return new ErrorReply(Errors.syncWhileFailingOver);
    return this.primary.sync(client, psync);
  }

  failover(req: FailoverRequest): string | null {
    return this.failoverCoordinator.start(req);
  }

  failoverAbort(): boolean {
    return this.failoverCoordinator.abortCommand();
  }

  replconf(client: ClientState, option: string, value: string, extra: string[]): void {
    this.primary.replconf(client, option, value, extra);
  }

  replicas(): ReplicaInfo[] {
    return this.primary.replicas();
  }

  acknowledged(offset: number): number {
    return this.primary.acknowledged(offset);
  }

  goodReplicas(): number {
    return this.primary.goodReplicas();
  }

  waitFor(offset: number, count: number, timeoutMs: number): Promise<number> {
    return this.primary.waitFor(offset, count, timeoutMs);
  }

  replicaOf(host: string, port: number): boolean {
    return this.replica.follow(host, port);
  }

  replicaOfNoOne(): void {
    this.replica.promote();
  }

  saveInfo(): { streamDb: number } | null {
    const r = this.instance.replication;
    if (r.role === 'master') {
      const backlog = this.primary.currentBacklog;
      // -1: nothing written since the last full sync; the next command starts with a SELECT.
      return backlog === null ? null : { streamDb: Math.max(backlog.streamDb, 0) };
    }
    const db = this.replica.streamDb();
    return db === null ? null : { streamDb: db };
  }

  /**
   * At start, the replication AUX fields of the dump.rdb just loaded, as loadDataFromDisk: a
   * replica (started with replicaof) takes its primary's id and offset back and continues with
   * PSYNC; a primary keeps them as replid2, so its former replicas can continue too.
   */
  restoreFromRdb(info: RdbReplicationInfo, asReplica: boolean, expired: ReadonlyArray<{ db: number; key: string }> = []): void {
    const r = this.instance.replication;
    if (asReplica) {
      r.replid = info.replid;
      r.offset = info.offset;
      this.replica.restore(info.streamDb);
      return;
    }
    r.replid2 = info.replid;
    r.secondOffset = info.offset + 1;
    r.offset = info.offset;
    const backlog = createBacklog(this.instance);
    this.primary.useBacklog(backlog);
    // The keys the load dropped as expired follow the file's offset as DELs (UNLINKs under
    // lazyfree-lazy-expire), as rdbLoad feeds them: a replica continuing from that offset drops
    // them too, and one the DELs pushed out of the backlog takes a full sync.
    const del = this.instance.config.get('lazyfree-lazy-expire') === 'yes' ? 'UNLINK' : 'DEL';
    for (const { db, key } of expired) backlog.append([{ db, argv: [del, Buffer.from(key, 'latin1')] }]);
  }

  /** Every second (Redis's replicationCron). */
  cron(): void {
    this.primary.cron();
    this.replica.cron();
  }

  /**
   * At shutdown: the link is dropped and not made again. A replica stays one, with its
   * primary's id and offset, for the dump.rdb a shutdown may save.
   */
  stop(): void {
    this.failoverCoordinator.stop();
    this.replica.halt();
  }
}
