// Pub/Sub commands as non-cluster Redis 7.0 answers them: SUBSCRIBE/UNSUBSCRIBE,
// PSUBSCRIBE/PUNSUBSCRIBE, SSUBSCRIBE/SUNSUBSCRIBE, PUBLISH/SPUBLISH and PUBSUB introspection.
// The registry (pubsub-registry.ts) holds who listens where; messages reach other sockets
// through ClientState.push, which only the TCP transport provides.
import { type Reply, Replies, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { helpReply, subcommandSyntaxError } from './help.js';
import type { ChannelKind } from './pubsub-registry.js';
import { type CommandSpec, type Context, command, container } from './types.js';

const name = (arg: Buffer): string => arg.toString('latin1');

/** The embedded client has no channel for messages: refuse rather than leave a caller waiting. */
function requirePushChannel(ctx: Context, cmd: string): void {
  if (ctx.client.push === null) {
    fail(Errors.pubsubEmbedded(cmd));
  }
}

function subscribe(kind: ChannelKind, cmd: string) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    requirePushChannel(ctx, cmd);
    // Inside EXEC Redis refuses SSUBSCRIBE (a "deny blocking" client); SUBSCRIBE keeps its
    // old leniency there.
    if (kind === 'shard' && ctx.noBlock) fail(Errors.denyBlocking(cmd));
    const registry = ctx.instance.pubsub;
    return new Replies(argv.slice(1).map((arg) => registry.subscribe(ctx.client, kind, name(arg))));
  };
}

function unsubscribe(kind: ChannelKind, cmd: string) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    requirePushChannel(ctx, cmd);
    const registry = ctx.instance.pubsub;
    if (argv.length === 1) return new Replies(registry.unsubscribeAll(ctx.client, kind));
    return new Replies(argv.slice(1).map((arg) => registry.unsubscribe(ctx.client, kind, name(arg))));
  };
}

function psubscribe(ctx: Context, argv: Buffer[]): Reply {
  requirePushChannel(ctx, 'PSUBSCRIBE');
  const registry = ctx.instance.pubsub;
  return new Replies(argv.slice(1).map((arg) => registry.psubscribe(ctx.client, name(arg))));
}

function punsubscribe(ctx: Context, argv: Buffer[]): Reply {
  requirePushChannel(ctx, 'PUNSUBSCRIBE');
  const registry = ctx.instance.pubsub;
  if (argv.length === 1) return new Replies(registry.punsubscribeAll(ctx.client));
  return new Replies(argv.slice(1).map((arg) => registry.punsubscribe(ctx.client, name(arg))));
}

function publish(kind: ChannelKind) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    // To replicas, as Redis outside cluster mode: their subscribers hear the primary's messages.
    if (ctx.propagating) ctx.propagate([...argv], true);
    return ctx.instance.pubsub.publish(kind, name(argv[1]!), argv[2]!);
  };
}

// --- PUBSUB ----------------------------------------------------------------------------------

function channels(kind: ChannelKind) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    if (argv.length > 3) fail(subcommandSyntaxError(argv[1]!, 'PUBSUB'));
    return ctx.instance.pubsub.activeNames(kind, argv.length === 3 ? name(argv[2]!) : null);
  };
}

function numsub(kind: ChannelKind) {
  return (ctx: Context, argv: Buffer[]): Reply =>
    argv.slice(2).flatMap((arg) => [arg, ctx.instance.pubsub.subscriberCount(kind, name(arg))]);
}

const PUBSUB_HELP = [
  'CHANNELS [<pattern>]',
  "    Return the currently active channels matching a <pattern> (default: '*').",
  'NUMPAT',
  '    Return number of subscriptions to patterns.',
  'NUMSUB [<channel> ...]',
  '    Return the number of subscribers for the specified channels, excluding',
  '    pattern subscriptions(default: no channels).',
  'SHARDCHANNELS [<pattern>]',
  "    Return the currently active shard level channels matching a <pattern> (default: '*').",
  'SHARDNUMSUB [<shardchannel> ...]',
  '    Return the number of subscribers for the specified shard level channel(s)',
];

const SUB_FLAGS: CommandSpec['flags'] = ['pubsub', 'noscript', 'loading', 'stale'];
const SLOW = { categories: ['pubsub', 'slow'], group: 'pubsub' };
const FAST = { categories: ['pubsub', 'fast'], group: 'pubsub' };
const SHARD_KEYS = { first: 1, last: -1, step: 1 };
const INTROSPECT: CommandSpec['flags'] = ['pubsub', 'loading', 'stale'];

/** Commands a RESP2 client in subscribed mode may still run (Redis's processCommand list). */
export const SUBSCRIBED_MODE_COMMANDS = new Set([
  'ping', 'subscribe', 'ssubscribe', 'unsubscribe', 'sunsubscribe', 'psubscribe', 'punsubscribe', 'quit', 'reset',
]);

export const commands: CommandSpec[] = [
  command('subscribe', -2, SUB_FLAGS, null, subscribe('channel', 'SUBSCRIBE'), SLOW),
  command('unsubscribe', -1, SUB_FLAGS, null, unsubscribe('channel', 'UNSUBSCRIBE'), SLOW),
  command('psubscribe', -2, SUB_FLAGS, null, psubscribe, SLOW),
  command('punsubscribe', -1, SUB_FLAGS, null, punsubscribe, SLOW),
  command('ssubscribe', -2, SUB_FLAGS, SHARD_KEYS, subscribe('shard', 'SSUBSCRIBE'), SLOW),
  command('sunsubscribe', -1, SUB_FLAGS, SHARD_KEYS, unsubscribe('shard', 'SUNSUBSCRIBE'), SLOW),
  command('publish', 3, ['pubsub', 'loading', 'stale', 'fast'], null, publish('channel'), FAST),
  command('spublish', 3, ['pubsub', 'loading', 'stale', 'fast'], { first: 1, last: 1, step: 1 }, publish('shard'), FAST),
  container('pubsub', -2, [
    command('channels', -2, INTROSPECT, null, channels('channel'), SLOW),
    command('numsub', -2, INTROSPECT, null, numsub('channel'), SLOW),
    command('numpat', 2, INTROSPECT, null, (ctx) => ctx.instance.pubsub.patternCount, SLOW),
    command('shardchannels', -2, INTROSPECT, null, channels('shard'), SLOW),
    command('shardnumsub', -2, INTROSPECT, null, numsub('shard'), SLOW),
    command('help', 2, ['loading', 'stale'], null, () => helpReply('PUBSUB', PUBSUB_HELP), { categories: ['slow'] }),
  ], { categories: ['slow'], group: 'pubsub', summary: 'A container for Pub/Sub commands', since: '2.8.0' }),
];
