// Pausing a consumer group across processes. The flag is a field of a hash beside the stream,
// `STREAM:paused` (same hash tag as the stream, so one slot on a cluster): field = group name,
// value = when it was paused (unix ms). Every worker of the group polls it (pauseCheckMs) and,
// while it is set, takes no new entries: running and already delivered jobs finish, and a
// blocking read in progress is interrupted.
import type { Connection, Value } from '../client/connection.js';
import { partitionStreams } from './partition.js';

/** The hash holding a stream's paused groups. */
export function pauseKey(stream: string): string {
  return `${stream}:paused`;
}

function streamsOf(stream: string, partitions: number | undefined): string[] {
  return partitions === undefined ? [stream] : partitionStreams(stream, partitions);
}

/** Pauses `group` on the stream (or on each of its partitions). */
export async function pauseGroup(conn: Connection, stream: string, group: string, options: { partitions?: number } = {}): Promise<void> {
  const now = Date.now();
  for (const s of streamsOf(stream, options.partitions)) await conn.call('HSET', pauseKey(s), group, now);
}

/** Lets `group`'s workers take entries again. */
export async function resumeGroup(conn: Connection, stream: string, group: string, options: { partitions?: number } = {}): Promise<void> {
  for (const s of streamsOf(stream, options.partitions)) await conn.call('HDEL', pauseKey(s), group);
}

/** The groups of a stream that are paused, with the time they were paused (unix ms). */
export async function pausedGroups(conn: Connection, stream: string): Promise<Map<string, number>> {
  const flat = (await conn.call('HGETALL', pauseKey(stream))) as Value[];
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < flat.length; i += 2) out.set(String(flat[i]), Number(flat[i + 1]));
  return out;
}

/** True while `group` is paused on `stream`. */
export async function isGroupPaused(conn: Connection, stream: string, group: string): Promise<boolean> {
  return Number(await conn.call('HEXISTS', pauseKey(stream), group)) === 1;
}
