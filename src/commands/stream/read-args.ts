// XREAD and XREADGROUP share one argument syntax (Redis parses both in xreadCommand):
// [GROUP g c] [COUNT n] [BLOCK ms] [NOACK] [CLAIM ms] STREAMS key ... id ...
import { fail } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { ArgCursor } from '../arg-cursor.js';
import { isKeyword } from '../args.js';

export interface ReadArgs {
  count: number;
  /** BLOCK in ms, or -1 when not given. */
  block: number;
  /** Index of the first key, after STREAMS. */
  streamsAt: number;
  /** Number of keys (as many ids follow them). */
  streamCount: number;
  /** XREADGROUP only. */
  group: Buffer | undefined;
  consumer: Buffer | undefined;
  noack: boolean;
  /** CLAIM min-idle-time (Redis 8.4), or -1 when not given. */
  claimMinIdle: number;
}

const UNBALANCED =
  Errors.unbalancedXread;

function onlyInReadGroup(option: string): string {
  return Errors.onlyInXreadgroup(option);
}

/**
 * Parses the options in Redis's order. XREAD refuses GROUP and NOACK as Redis 7.0 does (with
 * their own error) and CLAIM (Redis 8.4, XREADGROUP only) as a syntax error.
 */
export function parseReadArgs(argv: Buffer[], readGroup: boolean, fromScript = false): ReadArgs {
  const args: ReadArgs = {
    count: 0, block: -1, streamsAt: 0, streamCount: 0,
    group: undefined, consumer: undefined, noack: false, claimMinIdle: -1,
  };
  const cur = new ArgCursor(argv, 1);
  while (!cur.done) {
    const opt = cur.keyword();
    const more = cur.remaining;
    if (opt === 'block' && more > 0) {
      // BLOCK makes no sense in a script: Redis refuses it there rather than not block.
      if (fromScript) fail(Errors.blockFromScript(argv[0]!.toString('latin1')));
      args.block = cur.timeout();
    } else if (opt === 'count' && more > 0) {
      args.count = cur.count();
    } else if (opt === 'streams' && more > 0) {
      args.streamsAt = cur.index;
      if (more % 2 !== 0) fail(UNBALANCED);
      args.streamCount = more / 2;
      break;
    } else if (opt === 'group' && more >= 2) {
      if (!readGroup) fail(onlyInReadGroup('GROUP'));
      args.group = cur.next();
      args.consumer = cur.next();
    } else if (opt === 'noack') {
      if (!readGroup) fail(onlyInReadGroup('NOACK'));
      args.noack = true;
    } else if (readGroup && opt === 'claim' && more > 0) {
      // Redis 8.4. The docs give no error text; this one follows XCLAIM's min-idle-time error.
      const message = Errors.invalidMinIdle('XREADGROUP');
      args.claimMinIdle = cur.nonNegative(message, message);
    } else {
      fail(Errors.syntax);
    }
  }
  if (args.streamsAt === 0) fail(Errors.syntax);
  if (readGroup && (args.group === undefined || args.consumer === undefined)) {
    fail(Errors.missingGroup);
  }
  return args;
}

/**
 * Positions of the keys of XREAD/XREADGROUP (COMMAND GETKEYS): after STREAMS, the first half
 * of the rest. `oneValueOptions` are the options whose value is skipped.
 */
export function readKeyPositions(argv: Buffer[], oneValueOptions: string[]): number[] {
  for (let i = 1; i < argv.length; i++) {
    if (isKeyword(argv[i], 'streams')) {
      const count = Math.floor((argv.length - i - 1) / 2);
      return Array.from({ length: count }, (_, k) => i + 1 + k);
    }
    if (isKeyword(argv[i], 'group')) i += 2;
    else if (oneValueOptions.some((o) => isKeyword(argv[i], o))) i++;
  }
  return [];
}
