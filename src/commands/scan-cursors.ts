// Live cursors for SCAN-like commands. Redis's cursors encode a position in its hash table;
// ours park the iterator of a running scan under a fresh cursor number, per instance. Every key
// present for the whole scan is returned once; an unknown cursor (too old, from before a
// restart) restarts the scan, which keeps that guarantee. At most MAX_PARKED scans are kept.
import { keyOf } from '../engine/keyspace.js';
import { fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, isKeyword } from './args.js';
import type { InstanceView } from './types.js';
import { perInstance } from './per-instance.js';

const MAX_PARKED = 4096;

interface Parked<T> {
  /** What the iterator walks (a database, a sorted set): a cursor of another source restarts. */
  source: object;
  iterator: Iterator<T>;
  /** The next item, read ahead so a scan that has seen everything can reply cursor 0. */
  lookahead: IteratorResult<T>;
}

interface CursorState {
  next: bigint;
  parked: Map<string, Parked<unknown>>;
}

const stateOf = perInstance((): CursorState => ({ next: 1n, parked: new Map() }));

/**
 * Resumes the scan of `source` at `cursor` (or starts one with `start()`), hands up to `count`
 * items to `visit`, and returns the cursor to continue with ('0' when the scan is complete).
 */
export function scanStep<T>(instance: InstanceView, cursor: string, source: object, start: () => Iterator<T>, count: number, visit: (item: T) => void): string {
  const state = stateOf(instance);
  let parked = (cursor === '0' ? undefined : state.parked.get(cursor)) as Parked<T> | undefined;
  if (parked !== undefined) state.parked.delete(cursor);
  if (parked === undefined || parked.source !== source) {
    const iterator = start();
    parked = { source, iterator, lookahead: iterator.next() };
  }
  for (let examined = 0; examined < count; examined++) {
    const step = parked.lookahead;
    if (step.done === true) break;
    parked.lookahead = parked.iterator.next();
    visit(step.value);
  }
  if (parked.lookahead.done === true) return '0';
  const next = (state.next++).toString();
  state.parked.set(next, parked as Parked<unknown>);
  if (state.parked.size > MAX_PARKED) {
    const [oldest] = state.parked.keys();
    state.parked.delete(oldest!);
  }
  return next;
}

/**
 * The options of a scan of one value (SSCAN, ZSCAN) after its key and cursor: COUNT n (at least
 * 1, capped at a million) and MATCH pattern (null for none or '*'), with Redis's errors.
 */
export function memberScanOptions(argv: Buffer[]): { count: number; pattern: string | null } {
  let count = 10;
  let pattern: string | null = null;
  for (let i = 3; i < argv.length; i++) {
    const remaining = argv.length - i - 1;
    if (isKeyword(argv[i], 'count') && remaining >= 1) {
      const v = int64Arg(argv[++i]!);
      if (v < 1n) fail(Errors.syntax);
      count = v > 1000000n ? 1000000 : Number(v);
    } else if (isKeyword(argv[i], 'match') && remaining >= 1) {
      pattern = keyOf(argv[++i]!);
      if (pattern === '*') pattern = null;
    } else {
      fail(Errors.syntax);
    }
  }
  return { count, pattern };
}
