// Idempotent adds: each XADD carries a producer id (pid) and an idempotent id (iid), and the
// server remembers, per stream and pid, the iids of the last adds and the stream ids they gave.
// An XADD sent again (ioredis resends the commands left unanswered when a link drops, after it
// reconnects; a server restart is the usual case) then gets the first id back and adds nothing.
//
// Per server, the best it has:
//   - 'idmp' (Redis 8.6+, sluice): XADD key IDMP pid iid ... (IDMP-DURATION 100 s, IDMP-MAXSIZE
//     100 iids per pid by default; XCFGSET changes them per stream);
//   - 'script' (Redis/Valkey without IDMP, with EVAL): the same in one Lua script (EVALSHA;
//     the text itself again after a NOSCRIPT), which keeps
//     the pid's iids in a hash `STREAM:idmp:PID` (iid -> id) and their order in a list
//     `STREAM:idmp:PID:order`, at most SCRIPT_IDEMPOTENCE_WINDOW of them, both expiring
//     IDEMPOTENCE_TTL_MS after the pid's last add; in the stream's slot on a cluster;
//   - 'none' (neither): plain XADD, a resend can add an entry twice.
// The server remembers the last IDEMPOTENCE_WINDOW iids of a pid (SCRIPT_IDEMPOTENCE_WINDOW with
// the script), so a producer never has more XADDs than that unanswered at once (InFlightWindow):
// every resend finds its first add.
import { createHash } from 'node:crypto';
import type { Arg, Connection, Value } from '../client/connection.js';
import type { StreamFeatures } from './stream-features.js';
import { slotPrefix } from './partition.js';

export type IdempotenceMode = 'idmp' | 'script' | 'none';

/** The iids a server remembers per pid by default (IDMP-MAXSIZE); a producer's slice of adds. */
export const IDEMPOTENCE_WINDOW = 100;
/**
 * The iids the script remembers per pid: ten slices, so a producer keeps ten in flight (the
 * server runs one while the client encodes the next). ~100 KB for a busy pid, for 100 s.
 */
export const SCRIPT_IDEMPOTENCE_WINDOW = 1000;
/** How long the script remembers a pid's iids after its last add (IDMP-DURATION's default). */
export const IDEMPOTENCE_TTL_MS = 100_000;

/**
 * The Lua of an idempotent XADD, for scripts that go on after it (jobs/add-script.ts): returns
 * the id remembered for iid ARGV[1], else XADDs to KEYS[1] ARGV's arguments from index `from`
 * (a Lua expression) on, remembers the id in `id` and goes on. KEYS[2]: iid hash, KEYS[3]: iid
 * order list; ARGV[2]: window, ARGV[3]: ttl ms.
 */
export function idempotentXaddLua(from: string): string {
  return `local id = redis.call('HGET', KEYS[2], ARGV[1])
if id then return id end
id = redis.call('XADD', KEYS[1], unpack(ARGV, ${from}))
redis.call('HSET', KEYS[2], ARGV[1], id)
if redis.call('RPUSH', KEYS[3], ARGV[1]) > tonumber(ARGV[2]) then
  redis.call('HDEL', KEYS[2], redis.call('LPOP', KEYS[3]))
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])`;
}

/** KEYS: stream, iid hash, iid order list. ARGV: iid, window, ttl ms, XADD's arguments after the key. */
export const IDEMPOTENT_XADD_SCRIPT = `${idempotentXaddLua('4')}
return id`;

export const IDEMPOTENT_XADD_SHA1 = createHash('sha1').update(IDEMPOTENT_XADD_SCRIPT).digest('hex');

/** Which way this server can deduplicate adds: IDMP, else a script, else not at all. */
export async function probeIdempotence(conn: Connection, features: StreamFeatures): Promise<IdempotenceMode> {
  if (features.idmp) return 'idmp';
  try {
    const reply = (await conn.call('COMMAND', 'INFO', 'EVAL')) as Value[];
    return Array.isArray(reply) && reply[0] !== null && reply[0] !== undefined ? 'script' : 'none';
  } catch {
    return 'none';
  }
}

/** The hash of a pid's remembered iids in 'script' mode (its order list is this + ':order'). */
export function scriptIidsKey(stream: string, pid: string): string {
  return `${slotPrefix(stream)}:idmp:${pid}`;
}

/**
 * The command adding an entry idempotently: `rest` is XADD's arguments after the key (trim
 * options, `*`, fields). Not for mode 'none'. The script goes by its SHA1 unless `withText`: in a
 * MULTI it must, as a NOSCRIPT there would fail the XADD alone and leave the rest applied.
 */
export function idempotentXadd(mode: Exclude<IdempotenceMode, 'none'>, stream: string, pid: string, iid: string, rest: Arg[], withText = false): Arg[] {
  if (mode === 'idmp') return ['XADD', stream, 'IDMP', pid, iid, ...rest];
  const iids = scriptIidsKey(stream, pid);
  const script = withText ? ['EVAL', IDEMPOTENT_XADD_SCRIPT] : ['EVALSHA', IDEMPOTENT_XADD_SHA1];
  return [...script, 3, stream, iids, `${iids}:order`, iid, SCRIPT_IDEMPOTENCE_WINDOW, IDEMPOTENCE_TTL_MS, ...rest];
}

/**
 * The same commands with the script's text for those given by its SHA1: for a server that
 * answered NOSCRIPT (a restart empties its script cache; each cluster node has its own).
 */
export function withScriptText(commands: Arg[][]): Arg[][] {
  return commands.map((c) => (c[0] === 'EVALSHA' && c[1] === IDEMPOTENT_XADD_SHA1 ? ['EVAL', IDEMPOTENT_XADD_SCRIPT, ...c.slice(2)] : c));
}

/**
 * At most `size` adds unanswered at once; `acquire(n)` waits (first come, first served) until n
 * slots are free.
 */
export class InFlightWindow {
  private used = 0;
  private readonly waiting: Array<{ n: number; go: () => void }> = [];

  constructor(readonly size: number) {}

  acquire(n: number): Promise<void> {
    if (n > this.size) throw new RangeError(`at most ${this.size} at once`);
    if (this.waiting.length === 0 && this.used + n <= this.size) {
      this.used += n;
      return Promise.resolve();
    }
    return new Promise((go) => this.waiting.push({ n, go }));
  }

  release(n: number): void {
    this.used -= n;
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.n <= this.size) {
      const next = this.waiting.shift()!;
      this.used += next.n;
      next.go();
    }
  }
}
