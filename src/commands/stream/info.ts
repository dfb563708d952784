// XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS, XINFO HELP as Redis 7.0.15
// replies them (maps in RESP3, flat key/value arrays in RESP2), plus two Redis 7.2 consumer
// fields: "inactive" in XINFO CONSUMERS and "active-time" in XINFO STREAM FULL (listed in
// REDIS_72_FIELDS so a differential test against 7.0 can drop them).
//
// "radix-tree-keys" is the stream's node count (Redis: one rax key per listpack node);
// "radix-tree-nodes" is an internal of Redis's rax with no equivalent here: sluice reports
// keys + 1 (what Redis shows for small streams); differential tests must mask it.
import { type ConsumerGroup, computeGroupLag, INVALID_ENTRIES_READ } from '../../engine/consumer-group.js';
import type { Stream } from '../../engine/stream.js';
import { formatId, MAX_ID, MIN_ID } from '../../engine/stream-id.js';
import { fail, MapReply, type Reply } from '../../resp/reply.js';
import { capToSafe, int64Arg, isKeyword } from '../args.js';
import { helpReply, subcommandSyntaxError } from '../help.js';
import { command, type CommandSpec, container, type Context } from '../types.js';
import { entriesReply, entryReply, existingStream, lookupGroup, noSuchGroupForKey, nowMs, sortedGroups } from './common.js';

/** Fields sluice adds that Redis 7.0 does not have. */
export const REDIS_72_FIELDS = ['inactive', 'active-time'] as const;

const XINFO_HELP = [
  'CONSUMERS <key> <groupname>',
  '    Show consumers of <groupname>.',
  'GROUPS <key>',
  '    Show the stream consumer groups.',
  'STREAM <key> [FULL [COUNT <count>]',
  '    Show information about the stream.',
];

function map(entries: Array<[string, Reply]>): MapReply {
  return new MapReply(entries);
}

function entriesReadReply(g: ConsumerGroup): Reply {
  return g.entriesRead === INVALID_ENTRIES_READ ? null : g.entriesRead;
}

/** What Redis's rax would report: see the file comment. */
function radixTreeNodes(s: Stream): number {
  return s.nodeCount() + 1;
}

function streamHeader(s: Stream, now: number): Array<[string, Reply]> {
  const header: Array<[string, Reply]> = [
    ['length', s.length],
    ['radix-tree-keys', s.nodeCount()],
    ['radix-tree-nodes', radixTreeNodes(s)],
    ['last-generated-id', formatId(s.lastId)],
    ['max-deleted-entry-id', formatId(s.maxDeletedId)],
    ['entries-added', s.entriesAdded],
    ['recorded-first-entry-id', formatId(s.firstLiveId() ?? MIN_ID)],
  ];
  // Redis 8.6's IDMP fields, only for streams that use IDMP (XCFGSET or XADD IDMP), so a
  // Redis 7 stream's reply is unchanged. The docs list them without a position: sluice puts
  // them after the Redis 7 header fields.
  if (s.idmp !== undefined) {
    s.idmp.expire(now);
    header.push(
      ['idmp-duration', s.idmp.durationSec],
      ['idmp-maxsize', s.idmp.maxSize],
      ['pids-tracked', s.idmp.producers.size],
      ['iids-tracked', s.idmp.iidsTracked()],
      ['iids-added', s.idmp.iidsAdded],
      ['iids-duplicates', s.idmp.iidsDuplicates],
    );
  }
  return header;
}

function xinfoStream(ctx: Context, argv: Buffer[]): Reply {
  // XINFO STREAM <key> [FULL [COUNT <count>]]
  let full = false;
  let count = 10;
  if (argv.length === 4 || argv.length === 6) {
    if (!isKeyword(argv[3], 'full')) fail(subcommandSyntaxError(argv[1]!, 'XINFO'));
    full = true;
    if (argv.length === 6) {
      if (!isKeyword(argv[4], 'count')) fail(subcommandSyntaxError(argv[1]!, 'XINFO'));
      const v = int64Arg(argv[5]!);
      count = v < 0n ? 10 : capToSafe(v);
    }
  } else if (argv.length !== 3) {
    fail(subcommandSyntaxError(argv[1]!, 'XINFO'));
  }
  const s = existingStream(ctx, argv[2]!);
  const header = streamHeader(s, ctx.instance.keyspace.now());
  if (!full) {
    const first = s.firstEntry();
    const last = s.lastEntry();
    return map([
      ...header,
      ['groups', s.groups.size],
      ['first-entry', first === undefined ? null : entryReply(first.id, first.fields)],
      ['last-entry', last === undefined ? null : entryReply(last.id, last.fields)],
    ]);
  }
  const entries = entriesReply(s.range(MIN_ID, MAX_ID, count, false));
  return map([...header, ['entries', entries], ['groups', sortedGroups(s).map((g) => fullGroup(s, g, count))]]);
}

function fullGroup(s: Stream, g: ConsumerGroup, count: number): Reply {
  const pending: Reply[] = [];
  for (const [id, nack] of g.pel.entries()) {
    if (count > 0 && pending.length >= count) break;
    pending.push([formatId(id), nack.consumer.name, nack.deliveryTime, nack.deliveryCount]);
  }
  const consumers = g.sortedConsumers().map((c) => {
    const own: Reply[] = [];
    for (const [id, nack] of c.pel.entries()) {
      if (count > 0 && own.length >= count) break;
      own.push([formatId(id), nack.deliveryTime, nack.deliveryCount]);
    }
    return map([
      ['name', c.name],
      ['seen-time', c.seenTime],
      ['active-time', c.activeTime],
      ['pel-count', c.pel.size],
      ['pending', own],
    ]);
  });
  return map([
    ['name', g.name],
    ['last-delivered-id', formatId(g.lastId)],
    ['entries-read', entriesReadReply(g)],
    ['lag', computeGroupLag(s, g)],
    ['pel-count', g.pel.size],
    ['pending', pending],
    ['consumers', consumers],
  ]);
}

function xinfoGroups(ctx: Context, argv: Buffer[]): Reply {
  const s = existingStream(ctx, argv[2]!);
  return sortedGroups(s).map((g) =>
    map([
      ['name', g.name],
      ['consumers', g.consumers.size],
      ['pending', g.pel.size],
      ['last-delivered-id', formatId(g.lastId)],
      ['entries-read', entriesReadReply(g)],
      ['lag', computeGroupLag(s, g)],
    ]),
  );
}

function xinfoConsumers(ctx: Context, argv: Buffer[]): Reply {
  const s = existingStream(ctx, argv[2]!);
  const g = lookupGroup(s, argv[3]!);
  if (g === undefined) fail(noSuchGroupForKey(argv[2]!, argv[3]!));
  const now = nowMs(ctx);
  return g.sortedConsumers().map((c) =>
    map([
      ['name', c.name],
      ['pending', c.pel.size],
      ['idle', Math.max(0, now - c.seenTime)],
      ['inactive', c.activeTime === -1 ? -1 : Math.max(0, now - c.activeTime)],
    ]),
  );
}

const infoKeys = { first: 2, last: 2, step: 1 };

export const commands: CommandSpec[] = [
  container('xinfo', -2, [
    command('stream', -3, ['readonly'], infoKeys, xinfoStream, { categories: ['read', 'stream', 'slow'] }),
    command('groups', 3, ['readonly'], infoKeys, xinfoGroups, { categories: ['read', 'stream', 'slow'] }),
    command('consumers', 4, ['readonly'], infoKeys, xinfoConsumers, { categories: ['read', 'stream', 'slow'] }),
    command('help', 2, ['loading', 'stale'], null, () => helpReply('XINFO', XINFO_HELP), { categories: ['stream', 'slow'] }),
  ], { categories: ['slow'] }),
];
