// FAILOVER, the primary's side of a coordinated failover, as Redis 7.0's replication.c
// (failoverCommand, updateFailoverStatus, abortFailover, clearFailoverState): writes are paused,
// the primary waits until the target replica (or, with no target, any replica) has acknowledged
// everything it produced, then it becomes a replica of that replica and sends it
// `PSYNC <replid> <offset> FAILOVER`, which makes the replica promote itself and accept the old
// primary as its replica. The pause ends when the PSYNC is answered (+CONTINUE or +FULLRESYNC),
// on FAILOVER ABORT, or when TIMEOUT passes (then, with FORCE, the failover goes ahead anyway).
// A PSYNC refused by the target aborts: the old primary becomes a primary again.
import type { Instance } from '../commands/core/instance.js';
import type { FailoverRequest } from '../commands/core/replication.js';
import { Errors } from '../resp/errors.js';
import type { PrimaryRole } from './primary.js';
import type { ReplicaRole } from './replica.js';

/** While waiting for the replica, its acknowledgement is looked for this often (Redis runs replicationCron every 100 ms then). */
const CHECK_MS = 100;

export class Failover {
  private targetHost: string | null = null;
  private targetPort = 0;
  /** When a waiting failover times out (ms since the epoch), 0: never. */
  private endTime = 0;
  private force = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly instance: Instance,
    private readonly primary: PrimaryRole,
    private readonly replica: ReplicaRole,
  ) {}

  get state(): Instance['replication']['failoverState'] {
    return this.instance.replication.failoverState;
  }

  private set state(s: Instance['replication']['failoverState']) {
    this.instance.replication.failoverState = s;
  }

  /** FAILOVER [TO host port [FORCE]] [TIMEOUT ms], parsed: the checks in Redis's order, then the pause. Returns an error text or null. */
  start(req: FailoverRequest): string | null {
    if (this.state !== 'no-failover') return Errors.failoverInProgress;
    if (this.instance.replication.role === 'slave') return Errors.failoverOnReplica;
    const replicas = this.primary.replicas();
    if (replicas.length === 0) return Errors.failoverNoReplicas;
    if (req.force && (req.timeoutMs === 0 || req.host === null)) return Errors.failoverForceNeeds;
    const log = this.instance.logger;
    if (req.host !== null) {
      const target = this.findReplica(req.host, req.port);
      if (target === undefined) return Errors.failoverTargetNotReplica;
      if (target.state !== 'online') return Errors.failoverTargetNotOnline;
      this.targetHost = req.host;
      this.targetPort = req.port;
      log.info(`sluice: FAILOVER requested to ${req.host}:${req.port}.`);
    } else {
      log.info('sluice: FAILOVER requested to any replica.');
    }
    this.endTime = req.timeoutMs > 0 ? Date.now() + req.timeoutMs : 0;
    this.force = req.force;
    this.state = 'waiting-for-sync';
    this.primary.holdPings = this.endTime > 0;
    this.instance.pause.pause('failover', Infinity, 'write');
    this.timer = setInterval(() => this.update(), CHECK_MS);
    this.timer.unref();
    return null;
  }

  /** FAILOVER ABORT; false when no failover is in progress. */
  abortCommand(): boolean {
    if (this.state === 'no-failover') return false;
    this.abort('Failover manually aborted');
    return true;
  }

  /** As abortFailover: a failover already under way turns this instance back into a primary. */
  abort(reason: string): void {
    if (this.state === 'no-failover') return;
    const to = this.targetHost !== null ? `to ${this.targetHost}:${this.targetPort}` : 'to any replica';
    this.instance.logger.info(`sluice: FAILOVER ${to} aborted: ${reason}`);
    if (this.state === 'failover-in-progress') this.replica.promote();
    this.clear();
  }

  /** The demoting primary's PSYNC carries FAILOVER (replica.ts asks while it handshakes). */
  get psyncWithFailover(): boolean {
    return this.state === 'failover-in-progress';
  }

  /** The target answered the PSYNC: +CONTINUE or +FULLRESYNC ends the failover, anything else aborts it. */
  psyncAnswered(accepted: boolean): void {
    if (this.state !== 'failover-in-progress') return;
    if (accepted) {
      this.instance.logger.info(`sluice: FAILOVER to ${this.targetHost}:${this.targetPort} succeeded.`);
      this.clear();
    } else {
      this.abort('Failover target rejected psync request');
    }
  }

  /** As clearFailoverState: no target, no deadline, clients unpaused. */
  private clear(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.targetHost = null;
    this.targetPort = 0;
    this.endTime = 0;
    this.force = false;
    this.state = 'no-failover';
    this.primary.holdPings = false;
    this.instance.pause.unpause('failover');
  }

  /** Server shutdown: nothing may run afterwards. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** As updateFailoverStatus, every CHECK_MS while waiting for the replica. */
  private update(): void {
    if (this.state !== 'waiting-for-sync') return;
    const log = this.instance.logger;
    if (this.endTime > 0 && this.endTime <= Date.now()) {
      if (this.force) {
        log.info(`sluice: FAILOVER to ${this.targetHost}:${this.targetPort} time out exceeded, failing over.`);
        this.failOver();
      } else {
        this.abort('Replica never caught up before timeout');
      }
      return;
    }
    const offset = this.instance.replication.offset;
    let caughtUp = false;
    if (this.targetHost !== null) {
      caughtUp = this.findReplica(this.targetHost, this.targetPort)?.ackOffset === offset;
    } else {
      const replica = this.primary.replicas().find((s) => s.ackOffset === offset);
      if (replica !== undefined) {
        this.targetHost = replica.ip;
        this.targetPort = replica.port;
        caughtUp = true;
      }
    }
    if (caughtUp) {
      log.info(`sluice: Failover target ${this.targetHost}:${this.targetPort} is synced, failing over.`);
      this.failOver();
    }
  }

  /** FAILOVER_IN_PROGRESS: follow the target (replica.ts then sends PSYNC ... FAILOVER). */
  private failOver(): void {
    this.state = 'failover-in-progress';
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.replica.follow(this.targetHost!, this.targetPort);
  }

  /** As findReplica: the announced (or peer) address, case-insensitively, and the listening port. */
  private findReplica(host: string, port: number): ReturnType<PrimaryRole['replicas']>[number] | undefined {
    const h = host.toLowerCase();
    return this.primary.replicas().find((s) => s.ip.toLowerCase() === h && s.port === port);
  }
}
