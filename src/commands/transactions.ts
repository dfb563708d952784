// MULTI / EXEC / DISCARD / WATCH / UNWATCH, as Redis 7.0's multi.c. Queueing itself (and the
// flagging of a transaction whose queued command was rejected) happens in InstanceView.execute.
import { keyOf } from '../engine/keyspace.js';
import { NULL_ARRAY, OK, type Reply, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import type { ClientState } from './client-state.js';
import type { InstanceView } from './types.js';
import { type CommandSpec, type Context, command } from './types.js';

function discardTransaction(instance: InstanceView, client: ClientState): void {
  client.multi = null;
  client.multiAborted = false;
  instance.unwatchAll(client);
}

function multi(ctx: Context): Reply {
  if (ctx.client.multi !== null) fail(Errors.nestedMulti);
  ctx.client.multi = [];
  ctx.client.multiAborted = false;
  return OK;
}

function exec(ctx: Context): Reply {
  const { client, instance } = ctx;
  if (client.multi === null) fail(Errors.execWithoutMulti);
  if (client.multiAborted) {
    discardTransaction(instance, client);
    fail(Errors.execAbort);
  }
  if (client.dirtyCas) {
    discardTransaction(instance, client);
    return NULL_ARRAY;
  }
  // Unwatch first, as Redis does: the transaction's own writes must not mark it dirty.
  instance.unwatchAll(client);
  return instance.exec(client);
}

function discard(ctx: Context): Reply {
  if (ctx.client.multi === null) fail(Errors.discardWithoutMulti);
  discardTransaction(ctx.instance, ctx.client);
  return OK;
}

function watch(ctx: Context, argv: Buffer[]): Reply {
  if (ctx.client.multi !== null) fail(Errors.watchInMulti);
  for (let i = 1; i < argv.length; i++) ctx.instance.watch(ctx.client, ctx.db.index, keyOf(argv[i]!));
  return OK;
}

function unwatch(ctx: Context): Reply {
  ctx.instance.unwatchAll(ctx.client);
  return OK;
}

const TX = { categories: ['fast', 'transaction'] };

export const commands: CommandSpec[] = [
  command('multi', 1, ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], null, multi, {
    ...TX,
    summary: 'Start a transaction block',
  }),
  command('exec', 1, ['noscript', 'loading', 'stale', 'skip_slowlog'], null, exec, {
    categories: ['slow', 'transaction'],
    summary: 'Execute all commands issued after MULTI',
  }),
  command('discard', 1, ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], null, discard, {
    ...TX,
    summary: 'Discard all commands issued after MULTI',
  }),
  command('watch', -2, ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], { first: 1, last: -1, step: 1 }, watch, {
    ...TX,
    summary: 'Watch the given keys to determine execution of the MULTI/EXEC block',
  }),
  command('unwatch', 1, ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], null, unwatch, {
    ...TX,
    summary: 'Forget about all watched keys',
  }),
];
