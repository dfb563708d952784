// OBJECT and MEMORY: what Redis 7.0 answers about a key's representation and size, from
// object-encoding.ts. OBJECT IDLETIME reads the keyspace's access times (Database.idleSeconds:
// lookups touch a key, TYPE/EXISTS/TTL/OBJECT do not); Redis's shared integers share one
// access time, which runs from server start until a lookup touches the key. Under an LFU
// maxmemory-policy lookups count frequency instead (OBJECT FREQ), and each command answers the
// other's error, as Redis.
import { keyOf } from '../engine/keyspace.js';
import { type Reply, VerbatimReply, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { isKeyword, parseInt64 } from './args.js';
import { helpReply } from './help.js';
import { mallocStats, memoryPurge, memoryStats } from './memory-stats.js';
import { encodingOf, isSharedInteger, memoryUsage, refcountOf, sharesIntegers } from './object-encoding.js';
import { type CommandSpec, type Context, command, container } from './types.js';

/** Looks a key up without touching it, as OBJECT does (expired keys are gone). */
function lookup(ctx: Context, arg: Buffer) {
  return ctx.db.peek(keyOf(arg));
}

function objectEncoding(ctx: Context, argv: Buffer[]): Reply {
  const value = lookup(ctx, argv[2]!);
  return value === undefined ? null : encodingOf(value);
}

function objectRefcount(ctx: Context, argv: Buffer[]): Reply {
  const value = lookup(ctx, argv[2]!);
  return value === undefined ? null : refcountOf(value, sharesIntegers(ctx.instance.config));
}

function objectIdletime(ctx: Context, argv: Buffer[]): Reply {
  const value = lookup(ctx, argv[2]!);
  if (value === undefined) return null;
  if (ctx.instance.keyspace.lfuTracking !== null) fail(Errors.lfuSelected);
  return ctx.db.idleSeconds(keyOf(argv[2]!), isSharedInteger(value, sharesIntegers(ctx.instance.config)), Math.floor(ctx.instance.startedAt / 1000));
}

function objectFreq(ctx: Context, argv: Buffer[]): Reply {
  if (lookup(ctx, argv[2]!) === undefined) return null;
  if (ctx.instance.keyspace.lfuTracking === null) fail(Errors.lfuNotSelected);
  return ctx.db.frequency(keyOf(argv[2]!));
}

const OBJECT_HELP = [
  'ENCODING <key>',
  '    Return the kind of internal representation used in order to store the value',
  '    associated with a <key>.',
  'FREQ <key>',
  '    Return the access frequency index of the <key>. The returned integer is',
  '    proportional to the logarithm of the recent access frequency of the key.',
  'IDLETIME <key>',
  '    Return the idle time of the <key>, that is the approximated number of',
  '    seconds elapsed since the last access to the key.',
  'REFCOUNT <key>',
  '    Return the number of references of the value associated with the specified',
  '    <key>.',
];

/** MEMORY USAGE key [SAMPLES n]: like Redis, a key past its expiry still counts until removed. */
function memoryUsageCommand(ctx: Context, argv: Buffer[]): Reply {
  let samples = 5;
  for (let j = 3; j < argv.length; j++) {
    if (isKeyword(argv[j], 'samples') && j + 1 < argv.length) {
      const n = parseInt64(argv[j + 1]!);
      if (n === undefined) fail(Errors.notInteger);
      if (n < 0n) fail(Errors.syntax);
      samples = n === 0n || n > BigInt(Number.MAX_SAFE_INTEGER) ? 0 : Number(n);
      j++;
    } else {
      fail(Errors.syntax);
    }
  }
  const key = keyOf(argv[2]!);
  const value = ctx.db.values.get(key);
  return value === undefined ? null : memoryUsage(key, value, samples);
}

function memoryDoctor(): Reply {
  // Redis's answer for a small instance; sluice has no allocator statistics to diagnose.
  return new VerbatimReply('txt',
    'Hi Sam, this instance is empty or is using very little memory, my issues detector can\'t be used in these ' +
    'conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be ' +
    'back to our programming as soon as I finished rebooting.\n',
  );
}

const MEMORY_HELP = [
  'DOCTOR',
  '    Return memory problems reports.',
  'MALLOC-STATS',
  '    Return internal statistics report from the memory allocator.',
  'PURGE',
  '    Attempt to purge dirty pages for reclamation by the allocator.',
  'STATS',
  '    Return information about the memory usage of the server.',
  'USAGE <key> [SAMPLES <count>]',
  '    Return memory in bytes used by <key> and its value. Nested values are',
  '    sampled up to <count> times (default: 5, 0 means sample all).',
];

const KEY2 = { first: 2, last: 2, step: 1 };
const OBJECT_READ = { categories: ['keyspace', 'read', 'slow'] };

export const commands: CommandSpec[] = [
  container('object', -2, [
    command('encoding', 3, ['readonly'], KEY2, objectEncoding, OBJECT_READ),
    command('freq', 3, ['readonly'], KEY2, objectFreq, OBJECT_READ),
    command('idletime', 3, ['readonly'], KEY2, objectIdletime, OBJECT_READ),
    command('refcount', 3, ['readonly'], KEY2, objectRefcount, OBJECT_READ),
    command('help', 2, ['loading', 'stale'], null, () => helpReply('OBJECT', OBJECT_HELP), { categories: ['keyspace', 'slow'] }),
  ], { categories: ['slow'], group: 'generic', summary: 'A container for object introspection commands', since: '2.2.3' }),
  container('memory', -2, [
    command('usage', -3, ['readonly'], KEY2, memoryUsageCommand, { categories: ['read', 'slow'] }),
    command('doctor', 2, [], null, memoryDoctor, { categories: ['slow'] }),
    command('stats', 2, [], null, memoryStats, { categories: ['slow'] }),
    command('malloc-stats', 2, [], null, mallocStats, { categories: ['slow'] }),
    command('purge', 2, [], null, memoryPurge, { categories: ['slow'] }),
    command('help', 2, ['loading', 'stale'], null, () => helpReply('MEMORY', MEMORY_HELP), { categories: ['slow'] }),
  ], { categories: ['slow'], group: 'server', summary: 'A container for memory diagnostics commands', since: '4.0.0' }),
];
