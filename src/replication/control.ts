// A served instance's replication: both roles behind the one ReplicationControl the commands
// reach (commands/core/replication.ts). The primary side serves replicas whatever the role (a
// replica can have replicas of its own); the replica side follows a primary after REPLICAOF.
import type { ClientState } from '../commands/client-state.js';
import type { Instance } from '../commands/core/instance.js';
import type { ReplicaInfo, ReplicationControl } from '../commands/core/replication.js';
import type { Reply } from '../resp/reply.js';
import { PrimaryRole } from './primary.js';
import { ReplicaRole } from './replica.js';

export class ServerReplication implements ReplicationControl {
  readonly primary: PrimaryRole;
  readonly replica: ReplicaRole;

  constructor(instance: Instance, listeningPort: () => number) {
    this.primary = new PrimaryRole(instance);
    this.replica = new ReplicaRole(instance, this.primary, listeningPort);
  }

  sync(client: ClientState, psync: { replid: string; offset: number } | null): Reply {
    return this.primary.sync(client, psync);
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

  /** Every second (Redis's replicationCron). */
  cron(): void {
    this.primary.cron();
    this.replica.cron();
  }

  /** At shutdown: no reconnecting afterwards. */
  stop(): void {
    if (this.replica.following) this.replica.promote();
  }
}
