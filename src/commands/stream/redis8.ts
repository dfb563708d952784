// The Redis 8.2–8.8 stream commands, implemented from their documentation (no reference
// server exists here): XDELEX and XACKDEL (8.2 deletion policies), XNACK (8.8), XCFGSET (8.6)
// and XIDMPRECORD (8.8, the replay form of IDMP). Where the docs give no error text the
// message follows the closest Redis 7 wording and says so.
import { releasePending } from '../../engine/consumer-group.js';
import { IDMP_MAX_DURATION, IDMP_MAX_MAXSIZE, IdmpState } from '../../engine/idmp.js';
import { keyOf } from '../../engine/keyspace.js';
import { dropReferences, isReferenced, policyKeyword, type RefPolicy } from '../../engine/ref-policy.js';
import { compareIds, type StreamId } from '../../engine/stream-id.js';
import { parseStrictId } from './ids.js';
import type { Stream } from '../../engine/stream.js';
import { fail, OK, type Reply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { ArgCursor } from '../arg-cursor.js';
import { command, type CommandFlag, type CommandSpec, type Context, type CommandHandler } from '../types.js';
import {
  existingGroup,
  existingStream,
  lookupGroup,
  noGroupError,
  nowMs,
  oneKey,
  signalChanges,
} from './common.js';
import { lookupTyped } from '../typed-lookup.js';

/** The "numids id [id ...]" after an IDS keyword. */
function idsBlock(cur: ArgCursor): StreamId[] {
  if (cur.done) fail(Errors.syntax);
  const n = cur.int64(Errors.numIds);
  if (n <= 0n) fail(Errors.numIds);
  if (BigInt(cur.remaining) < n) fail(Errors.numIdsMismatch);
  // All ids are checked before anything changes, as XDEL/XACK do.
  return Array.from({ length: Number(n) }, () => cur.streamId());
}

/** Options of XDELEX / XACKDEL after `from`: one policy keyword and the IDS block, in any order. */
function parsePolicyAndIds(argv: Buffer[], from: number): { policy: RefPolicy; ids: StreamId[] } {
  let policy: RefPolicy | undefined;
  let ids: StreamId[] | undefined;
  const cur = new ArgCursor(argv, from);
  while (!cur.done) {
    const opt = cur.keyword();
    const p = policyKeyword(opt);
    if (p !== undefined && policy === undefined) policy = p;
    else if (opt === 'ids' && ids === undefined) ids = idsBlock(cur);
    else fail(Errors.syntax);
  }
  if (ids === undefined) fail(Errors.syntax);
  return { policy: policy ?? 'keepref', ids };
}

// --- XDELEX key [KEEPREF | DELREF | ACKED] IDS numids id [id ...] -----------------------------
// Per id: -1 no such entry, 1 deleted, 2 kept because a group still references it (ACKED).

function xdelex(ctx: Context, argv: Buffer[]): Reply {
  const { policy, ids } = parsePolicyAndIds(argv, 2);
  const key = keyOf(argv[1]!);
  const s = lookupTyped(ctx.db, key, 'stream');
  if (s === undefined) return ids.map(() => -1);
  const changes = { count: 0 };
  const out = ids.map((id) => deleteUnderPolicy(s, id, policy, changes));
  signalChanges(ctx, key, changes.count);
  return out;
}

/**
 * Deletes one entry under a reference policy, the per-id step XDELEX and XACKDEL share:
 * -1 no such entry, 1 deleted, 2 kept because a group still references it (ACKED). Adds what
 * it changed (the entry, each reference DELREF dropped) to `changes`: a command that changed
 * something is logged, even when its reply is -1.
 */
function deleteUnderPolicy(s: Stream, id: StreamId, policy: RefPolicy, changes: { count: number }): -1 | 1 | 2 {
  if (policy === 'acked') {
    if (s.get(id) === undefined) return -1;
    if (isReferenced(s, id)) return 2;
  }
  const deleted = s.delete(id);
  if (deleted) changes.count++;
  // DELREF removes dangling references even when the entry itself is already gone.
  if (policy === 'delref') changes.count += dropReferences(s, id);
  return deleted ? 1 : -1;
}

// --- XACKDEL key group [KEEPREF | DELREF | ACKED] IDS numids id [id ...] -----------------------
// Per id: -1 no such entry, 1 acknowledged and deleted, 2 acknowledged but kept (ACKED).

function xackdel(ctx: Context, argv: Buffer[]): Reply {
  const { policy, ids } = parsePolicyAndIds(argv, 3);
  const key = keyOf(argv[1]!);
  const s = lookupTyped(ctx.db, key, 'stream');
  if (s === undefined) return ids.map(() => -1);
  const g = lookupGroup(s, argv[2]!);
  // The docs do not say; XREADGROUP/XPENDING's NOGROUP error is the closest Redis behaviour.
  if (g === undefined) fail(noGroupError(argv[1]!, argv[2]!));
  const changes = { count: 0 };
  const out = ids.map((id) => {
    if (g.ack(id)) changes.count++;
    return deleteUnderPolicy(s, id, policy, changes);
  });
  signalChanges(ctx, key, changes.count);
  return out;
}

// --- XNACK key group <SILENT | FAIL | FATAL> IDS numids id [id ...] [RETRYCOUNT count] [FORCE] --

/**
 * FATAL's count is LLONG_MAX in Redis; a PEL delivery count here is a JS number, so it is
 * the largest exact one (2^53 - 1). Any maxDeliveries check treats both the same.
 */
export const FATAL_DELIVERY_COUNT = Number.MAX_SAFE_INTEGER;

function xnack(ctx: Context, argv: Buffer[]): Reply {
  let mode: 'silent' | 'fail' | 'fatal' | undefined;
  let ids: StreamId[] | undefined;
  let retryCount: number | undefined;
  let force = false;
  const cur = new ArgCursor(argv, 3);
  while (!cur.done) {
    const opt = cur.keyword();
    if ((opt === 'silent' || opt === 'fail' || opt === 'fatal') && mode === undefined) {
      mode = opt;
    } else if (opt === 'ids' && ids === undefined) {
      ids = idsBlock(cur);
    } else if (opt === 'retrycount' && cur.remaining > 0) {
      // XCLAIM's RETRYCOUNT error text; at most FATAL_DELIVERY_COUNT.
      const message = Errors.xnackRetryCount;
      retryCount = cur.nonNegative(message, message);
    } else if (opt === 'force') {
      force = true;
    } else {
      fail(Errors.syntax);
    }
  }
  if (mode === undefined || ids === undefined) fail(Errors.syntax);
  const { key, stream: s, group: g } = existingGroup(ctx, argv);
  const adjust = (old: number): number => {
    if (retryCount !== undefined) return retryCount;
    if (mode === 'fatal') return FATAL_DELIVERY_COUNT;
    if (mode === 'silent') return Math.max(0, old - 1);
    return old;
  };
  let released = 0;
  for (const id of ids) {
    if (releasePending(g, id, adjust)) {
      released++;
      continue;
    }
    // FORCE: a new unowned entry with count 0 (or RETRYCOUNT, or FATAL's maximum). The entry
    // must exist (documented), so a rewrite drops dangling unowned references exactly as
    // Redis's XCLAIM ... FORCE drops dangling owned ones.
    if (force && s.get(id) !== undefined) {
      g.assign(id, g.unowned, 0, retryCount ?? (mode === 'fatal' ? FATAL_DELIVERY_COUNT : 0));
      released++;
    }
  }
  signalChanges(ctx, key, released);
  return released;
}

// --- XCFGSET key [IDMP-DURATION seconds] [IDMP-MAXSIZE n] -------------------------------------

function xcfgset(ctx: Context, argv: Buffer[]): Reply {
  let duration: number | undefined;
  let maxSize: number | undefined;
  /** An integer (else Redis's not-an-integer error) in 1..max, else `name`'s range error. */
  const inRange = (cur: ArgCursor, name: string, max: number, unit: string): number => {
    const n = cur.int64();
    if (n < 1n || n > BigInt(max)) fail(Errors.cfgRange(name, max, unit));
    return Number(n);
  };
  // Texts as Redis 8.6's tests and clients' tests against it show them.
  if (argv.length === 2) fail(Errors.cfgNoParameter);
  const cur = new ArgCursor(argv, 2);
  while (!cur.done) {
    const opt = cur.keyword();
    if (cur.done) fail(Errors.syntax);
    if (opt === 'idmp-duration') duration = inRange(cur, 'IDMP-DURATION', IDMP_MAX_DURATION, 'seconds');
    else if (opt === 'idmp-maxsize') maxSize = inRange(cur, 'IDMP-MAXSIZE', IDMP_MAX_MAXSIZE, 'entries');
    else fail(Errors.syntax);
  }
  const key = keyOf(argv[1]!);
  const s = existingStream(ctx, argv[1]!);
  const created = s.idmp === undefined;
  s.idmp ??= new IdmpState();
  // An option not given keeps its value; the iid history is cleared only when a value changes.
  const changed = s.idmp.configure(duration ?? s.idmp.durationSec, maxSize ?? s.idmp.maxSize);
  if (created || changed) ctx.modified(key);
  else ctx.addDirty(1); // logged all the same: replaying it changes nothing
  return OK;
}

// --- XIDMPRECORD key pid iid stream-id ---------------------------------------------------------

function xidmprecord(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const s = existingStream(ctx, argv[1]!);
  const pid = argv[2]!;
  const iid = argv[3]!;
  if (pid.length === 0 || iid.length === 0) fail(Errors.idmpEmptyPair);
  const id = parseStrictId(argv[4]!);
  // The AOF may hold a record whose entry was trimmed by the XADD itself (MAXLEN 0) or that
  // the rewrite kept for a deleted entry: replay records it anyway.
  if (!ctx.client.mustObey && s.get(id) === undefined) fail(Errors.idmpNoSuchId);
  s.idmp ??= new IdmpState();
  const seen = s.idmp.lookup(pid.toString('latin1'), iid.toString('latin1'));
  if (seen !== undefined) {
    if (compareIds(seen, id) === 0) return OK;
    fail(Errors.idmpOtherId);
  }
  const at = ctx.client.mustObey ? Number(id.ms) : nowMs(ctx);
  s.idmp.record(pid.toString('latin1'), iid.toString('latin1'), id, at);
  ctx.modified(key);
  return OK;
}

/** A Redis 8 stream command: one key, in @write @stream @fast. */
function redis8Command(name: string, arity: number, flags: CommandFlag[], handler: CommandHandler, since: string, summary: string): CommandSpec {
  return command(name, arity, flags, oneKey, handler, { categories: ['write', 'stream', 'fast'], summary, since, group: 'stream' });
}

export const commands: CommandSpec[] = [
  redis8Command('xdelex', -5, ['write', 'fast'], xdelex, '8.2.0',
    'Deletes one or multiple entries from the stream.'),
  redis8Command('xackdel', -6, ['write', 'fast'], xackdel, '8.2.0',
    'Acknowledges and conditionally deletes one or multiple entries for a stream consumer group.'),
  redis8Command('xnack', -7, ['write', 'fast'], xnack, '8.8.0',
    "Releases pending messages back to the group's PEL without acknowledging them, making them available for re-delivery."),
  redis8Command('xcfgset', -2, ['write', 'fast'], xcfgset, '8.6.0',
    'Sets the IDMP configuration parameters for a stream.'),
  redis8Command('xidmprecord', 5, ['write', 'denyoom', 'fast'], xidmprecord, '8.8.0',
    'An internal command for setting IDMP metadata on an existing stream message.'),
];
