// What the replication tests read from INFO: a field, a section, and "the replica applied all
// the primary produced" (its slave_repl_offset equals the primary's master_repl_offset).
import type { Redis } from 'ioredis';
import { pollFor } from '../support/wait.js';

export const field = (info: string, name: string): string | undefined => new RegExp(`^${name}:(.*?)\\r?$`, 'm').exec(info)?.[1];

export async function info(client: Redis, section = 'replication'): Promise<string> {
  return String(await client.info(section));
}

/** Waits until `replica` applied everything `primary` produced; returns that offset. */
export async function caughtUp(primary: Redis, replica: Redis): Promise<number> {
  return pollFor(async () => {
    const produced = field(await info(primary), 'master_repl_offset');
    const r = await info(replica);
    return field(r, 'master_link_status') === 'up' && field(r, 'slave_repl_offset') === produced ? Number(produced) : undefined;
  }, 'the replica to catch up');
}

/**
 * The offset a primary and its chain of replicas all report at once, link up. Read in one
 * poll, so a PING the primary sends meanwhile (every repl-ping-replica-period) only delays
 * agreement; offsets that are off by any byte never agree and the wait fails.
 */
export async function chainAgrees(primary: Redis, ...replicas: Redis[]): Promise<number> {
  return pollFor(async () => {
    const produced = field(await info(primary), 'master_repl_offset');
    for (const replica of replicas) {
      const r = await info(replica);
      if (field(r, 'master_link_status') !== 'up' || field(r, 'slave_repl_offset') !== produced) return undefined;
    }
    return field(await info(primary), 'master_repl_offset') === produced ? Number(produced) : undefined;
  }, 'the chain to agree on one offset');
}

/**
 * XINFO fields a replica does not reproduce exactly, in Redis 7.0 too: XREADGROUP is replicated
 * as XCLAIM ... LASTID, which moves a group's last id but not its entries-read (nor the lag
 * derived from it), and a consumer's seen-time is the replica's clock when it applied the claim.
 */
export const NOT_REPLICATED_EXACTLY = ['entries-read', 'lag', 'seen-time'];
