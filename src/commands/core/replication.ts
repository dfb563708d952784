// An instance's replication identity as every part of it reads it: its role, its replication
// ids (PSYNC2's replid and replid2) and its offsets, for INFO replication, ROLE and HELLO. An
// instance starts as a primary with no replicas, as Redis does; src/replication/ holds what
// moves these numbers (the backlog the effects feed, and later the links to replicas and to a
// primary).
import { randomBytes } from 'node:crypto';
import type { Reply } from '../../resp/reply.js';
import type { ClientState } from '../client-state.js';

/** Forty hex digits, as Redis's getRandomHexChars makes run ids and replication ids. */
export function randomReplicationId(): string {
  return randomBytes(20).toString('hex');
}

/** The id Redis shows for "no previous replication history" (master_replid2). */
export const NO_REPLICATION_ID = '0'.repeat(40);

/** What INFO replication reports about the backlog; src/replication/backlog.ts provides one. */
export interface BacklogStatus {
  readonly size: number;
  /** repl_backlog_first_byte_offset: the offset of the oldest byte kept. */
  readonly firstByteOffset: number;
  /** repl_backlog_histlen: how many bytes it holds. */
  readonly histlen: number;
}

/** A replica's view of its link (INFO replication's master_* fields, ROLE). */
export interface PrimaryLinkInfo {
  readonly host: string;
  readonly port: number;
  /** ROLE's words, as Redis's: connect, connecting (TCP), handshake (PING .. PSYNC's reply), sync (receiving the RDB), connected. */
  readonly state: 'connect' | 'connecting' | 'handshake' | 'sync' | 'connected';
  /** Seconds since the last byte from the primary (master_last_io_seconds_ago), -1 when never. */
  readonly lastIoSecondsAgo: number;
  /** Seconds since the link went down (master_link_down_since_seconds), -1 when it is up. */
  readonly downSinceSeconds: number;
  /** Bytes of the primary's stream read (slave_read_repl_offset), applied or not. */
  readonly readOffset: number;
}

export interface ReplicationView {
  /** 'master' or 'slave', in Redis's words (INFO role, ROLE, HELLO). */
  readonly role: 'master' | 'slave';
  readonly replid: string;
  readonly replid2: string;
  /** master_repl_offset: bytes of replication stream produced (or, on a replica, processed). */
  readonly offset: number;
  /** second_repl_offset: up to where replid2 is valid (-1: none). */
  readonly secondOffset: number;
  /** The backlog, null until one exists (Redis creates it when the first replica attaches). */
  readonly backlog: BacklogStatus | null;
  readonly linkUp: boolean;
  readonly primaryLink: PrimaryLinkInfo | null;
  /** DEBUG CHANGE-REPL-ID: a new replid, replid2 cleared (changeReplicationId + clearReplicationId2). */
  changeId(): void;
  /** master_failover_state: where a FAILOVER this instance coordinates stands. */
  readonly failoverState: FailoverState;
}

/** INFO's master_failover_state, in Redis's words (getFailoverStateString). */
export type FailoverState = 'no-failover' | 'waiting-for-sync' | 'failover-in-progress';

/** FAILOVER's arguments, parsed: TO host port (host null: any replica), FORCE, TIMEOUT ms (0: none). */
export interface FailoverRequest {
  readonly host: string | null;
  readonly port: number;
  readonly force: boolean;
  readonly timeoutMs: number;
}

/** A replica attached to this primary, as INFO replication and ROLE show it. */
export interface ReplicaInfo {
  readonly ip: string;
  /** The port it announced (REPLCONF listening-port), 0 when none. */
  readonly port: number;
  /** wait_bgsave, send_bulk or online. */
  readonly state: string;
  /** The offset it last acknowledged (REPLCONF ACK). */
  readonly ackOffset: number;
  /** Seconds since its last ACK. */
  readonly lagSeconds: number;
}

/**
 * The replication commands' way into src/replication/ (the server installs one; an instance
 * without one, the embedded engine, has no network to replicate over).
 */
export interface ReplicationControl {
  /** SYNC (psync null) or PSYNC <replid> <offset>: the reply (+FULLRESYNC and the RDB, or +CONTINUE and the backlog). */
  sync(client: ClientState, psync: { replid: string; offset: number } | null): Reply | Promise<Reply>;
  /** PSYNC <replid> <offset> FAILOVER to a replica: it becomes a primary first (an error text when it cannot). */
  promoteForFailover(client: ClientState, replid: string): string | null;
  /** REPLCONF's options after validation: listening-port, ip-address, capa, ack. */
  replconf(client: ClientState, option: string, value: string, extra: string[]): void;
  replicas(): ReplicaInfo[];
  /** How many replicas acknowledged `offset` or more. */
  acknowledged(offset: number): number;
  /** Replicas online with a lag within min-replicas-max-lag (min-replicas-to-write counts these). */
  goodReplicas(): number;
  /** REPLICAOF host port: follow it (false: already following it). */
  replicaOf(host: string, port: number): boolean;
  /** REPLICAOF NO ONE: become a primary (PSYNC2: the old history stays valid as replid2). */
  replicaOfNoOne(): void;
  /** FAILOVER [TO host port [FORCE]] [TIMEOUT ms]: starts one; an error text when it cannot. */
  failover(req: FailoverRequest): string | null;
  /** FAILOVER ABORT: false when none is in progress. */
  failoverAbort(): boolean;
  /**
   * What an RDB saved now records of the replication history (rdbPopulateSaveInfo): the db the
   * stream is in, or null when the instance is in no replication chain (a primary without a
   * backlog, a replica that never had a link to its primary).
   */
  saveInfo(): { streamDb: number } | null;
  /** WAIT: resolves with the count of replicas that acknowledged `offset` once `count` did or `timeoutMs` passed (0: no limit). */
  waitFor(offset: number, count: number, timeoutMs: number): Promise<number>;
}

/** A primary with no replicas yet: what every instance is until replication changes it. */
export class ReplicationState implements ReplicationView {
  role: 'master' | 'slave' = 'master';
  replid = randomReplicationId();
  replid2 = NO_REPLICATION_ID;
  offset = 0;
  secondOffset = -1;
  backlog: BacklogStatus | null = null;
  /** A replica's link to its primary is up (synced and streaming); always true on a primary. */
  linkUp = true;
  /** A replica's primary and link, for INFO replication and ROLE; null on a primary. */
  primaryLink: PrimaryLinkInfo | null = null;
  /** Moved by src/replication/failover.ts while a FAILOVER runs. */
  failoverState: FailoverState = 'no-failover';

  /**
   * As Redis's shiftReplicationId (a replica promoted): the old id stays valid as replid2 up to
   * the current offset, so former siblings can continue from it with a partial resync.
   */
  changeId(): void {
    this.replid = randomReplicationId();
    this.replid2 = NO_REPLICATION_ID;
    this.secondOffset = -1;
  }

  shiftId(): void {
    this.replid2 = this.replid;
    this.secondOffset = this.offset + 1;
    this.replid = randomReplicationId();
  }
}

/** INFO replication, field for field as Redis 7.0 (a primary's view). */
export function replicationInfoLines(r: ReplicationView, backlogSize: number, replicas: ReplicaInfo[], priority = 100, readOnly = true): string[] {
  const link = r.primaryLink;
  const replicaLines =
    link === null
      ? []
      : [
          `master_host:${link.host}`,
          `master_port:${link.port}`,
          `master_link_status:${r.linkUp ? 'up' : 'down'}`,
          `master_last_io_seconds_ago:${link.lastIoSecondsAgo}`,
          `master_sync_in_progress:${link.state === 'sync' ? 1 : 0}`,
          `slave_read_repl_offset:${link.readOffset}`,
          `slave_repl_offset:${r.offset}`,
          ...(r.linkUp ? [] : [`master_link_down_since_seconds:${link.downSinceSeconds}`]),
          `slave_priority:${priority}`,
          `slave_read_only:${readOnly ? 1 : 0}`,
          'replica_announced:1',
        ];
  return [
    `role:${r.role}`,
    ...replicaLines,
    `connected_slaves:${replicas.length}`,
    ...replicas.map((s, i) => `slave${i}:ip=${s.ip},port=${s.port},state=${s.state},offset=${s.ackOffset},lag=${s.lagSeconds}`),
    `master_failover_state:${r.failoverState}`,
    `master_replid:${r.replid}`,
    `master_replid2:${r.replid2}`,
    `master_repl_offset:${r.offset}`,
    `second_repl_offset:${r.secondOffset}`,
    `repl_backlog_active:${r.backlog !== null ? 1 : 0}`,
    `repl_backlog_size:${r.backlog?.size ?? backlogSize}`,
    `repl_backlog_first_byte_offset:${r.backlog?.firstByteOffset ?? 0}`,
    `repl_backlog_histlen:${r.backlog?.histlen ?? 0}`,
  ];
}
