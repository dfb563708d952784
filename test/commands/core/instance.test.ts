// The dispatcher, exercised with a small command table of its own so it does not depend on any
// command family: lookup and arity errors, NOAUTH, MULTI queueing, propagation, blocking.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyOf } from '../../../src/engine/keyspace.js';
import { Instance } from '../../../src/commands/core/instance.js';
import type { Propagated } from '../../../src/commands/core/effects.js';
import { command, container, type CommandSpec } from '../../../src/commands/types.js';
import { ErrorReply, NULL_ARRAY, OK, type Reply } from '../../../src/resp/reply.js';
import { recordingPersistence } from '../../support/recording-persistence.js';

const b = (...args: string[]) => args.map((a) => Buffer.from(a));

const specs: CommandSpec[] = [
  command('set', 3, ['write'], { first: 1, last: 1, step: 1 }, (ctx, argv) => {
    const key = keyOf(argv[1]!);
    ctx.db.set(key, argv[2]!);
    ctx.modified(key);
    return OK;
  }),
  command('get', 2, ['readonly'], { first: 1, last: 1, step: 1 }, (ctx, argv) => {
    const v = ctx.db.get(keyOf(argv[1]!));
    return v === undefined ? null : (v as Buffer);
  }),
  command('ping', -1, ['fast', 'no_auth'], null, () => 'PONG'),
  // Pops the key's value when there is one; blocks otherwise, like a tiny BLPOP.
  command('bpop', 3, ['write', 'blocking'], { first: 1, last: 1, step: 1 }, (ctx, argv) => {
    const key = keyOf(argv[1]!);
    const take = (c: typeof ctx): Reply | undefined => {
      const v = c.db.get(key);
      if (v === undefined) return undefined;
      c.db.delete(key);
      c.modified(key);
      c.propagate(['DEL', argv[1]!]);
      return v as Buffer;
    };
    const now = take(ctx);
    if (now !== undefined || ctx.noBlock) return now ?? NULL_ARRAY;
    return ctx.block([key], Number(argv[2]!.toString()), take, NULL_ARRAY);
  }),
  container('box', -2, [
    command('open', 3, [], null, (_ctx, argv) => argv[2]!),
  ]),
];

function setup(config: Record<string, string> = {}) {
  const instance = new Instance(specs, { config });
  const log: Propagated[][] = [];
  instance.persistence = recordingPersistence((batch) => log.push(batch));
  return { instance, log, client: instance.newClient('embedded') };
}

test('unknown commands and subcommands are rejected in Redis wording', () => {
  const { instance, client } = setup();
  assert.deepEqual(
    instance.execute(client, b('FOO', 'a', 'b')),
    new ErrorReply("ERR unknown command 'FOO', with args beginning with: 'a' 'b' ", true),
  );
  assert.deepEqual(
    instance.execute(client, b('foo')),
    new ErrorReply("ERR unknown command 'foo', with args beginning with: ", true),
  );
  assert.deepEqual(
    instance.execute(client, b('box', 'shut')),
    new ErrorReply("ERR unknown subcommand 'shut'. Try BOX HELP.", true),
  );
});

test('command names match on every byte, ASCII case folded only', () => {
  const { instance, client } = setup();
  instance.execute(client, b('SET', 'k', 'v'));
  assert.deepEqual(instance.execute(client, b('gEt', 'k')), Buffer.from('v'));
  // Same length and first letter as "get"/"set", differing later.
  assert.deepEqual(instance.execute(client, b('gex', 'k')), new ErrorReply("ERR unknown command 'gex', with args beginning with: 'k' ", true));
  assert.deepEqual(instance.execute(client, b('s')), new ErrorReply("ERR unknown command 's', with args beginning with: ", true));
  // A Latin-1 capital is not an ASCII one: 0xC7 must not be folded onto any letter.
  const latin = [Buffer.from([0xc7, 0x45, 0x54]), Buffer.from('k')];
  assert.ok(instance.execute(client, latin) instanceof ErrorReply);
  const long = 'g'.repeat(200);
  assert.deepEqual(
    instance.execute(client, b(long)),
    new ErrorReply(`ERR unknown command '${long.slice(0, 128)}', with args beginning with: `, true),
  );
});

test('arity is checked for commands, containers and subcommands', () => {
  const { instance, client } = setup();
  assert.deepEqual(instance.execute(client, b('GET')), new ErrorReply("ERR wrong number of arguments for 'get' command"));
  assert.deepEqual(instance.execute(client, b('box')), new ErrorReply("ERR wrong number of arguments for 'box' command"));
  assert.deepEqual(
    instance.execute(client, b('box', 'open')),
    new ErrorReply("ERR wrong number of arguments for 'box|open' command"),
  );
  assert.deepEqual(instance.execute(client, b('BOX', 'OPEN', 'x')), Buffer.from('x'));
});

test('NOAUTH before authentication except for no_auth commands', () => {
  const { instance } = setup({ requirepass: 'secret' });
  const client = instance.newClient('tcp');
  assert.deepEqual(instance.execute(client, b('get', 'k')), new ErrorReply('NOAUTH Authentication required.'));
  assert.equal(instance.execute(client, b('ping')), 'PONG');
  // Unknown commands are reported before authentication, as Redis does.
  assert.match((instance.execute(client, b('nope')) as ErrorReply).message, /^ERR unknown command/);
});

test('MULTI queues commands, EXEC runs them and propagates one batch', () => {
  const { instance, client, log } = setup();
  client.multi = [];
  assert.equal(String((instance.execute(client, b('set', 'k', 'v')) as { value: string }).value), 'QUEUED');
  instance.execute(client, b('set', 'k2', 'v2'));
  const replies = instance.exec(client);
  assert.deepEqual(replies, [OK, OK]);
  assert.equal(log.length, 1);
  assert.deepEqual(log[0]!.map((p) => p.argv.map(String)), [['set', 'k', 'v'], ['set', 'k2', 'v2']]);
});

test('a rejected command inside MULTI aborts the transaction', () => {
  const { instance, client } = setup();
  client.multi = [];
  instance.execute(client, b('get'));
  assert.equal(client.multiAborted, true);
});

test('reads are not propagated, writes are', () => {
  const { instance, client, log } = setup();
  instance.execute(client, b('get', 'k'));
  assert.equal(log.length, 0);
  instance.execute(client, b('set', 'k', 'v'));
  assert.deepEqual(log.map((batch) => batch.map((p) => p.argv.map(String))), [[['set', 'k', 'v']]]);
});

test('WATCH is invalidated by a change to the key', () => {
  const { instance, client } = setup();
  const other = instance.newClient('embedded');
  instance.watch(client, 0, 'k');
  instance.execute(other, b('set', 'other', '1'));
  assert.equal(client.dirtyCas, false);
  instance.execute(other, b('set', 'k', '1'));
  assert.equal(client.dirtyCas, true);
});

test('blocked clients are served in FIFO order and their effects propagated', async () => {
  const { instance, log } = setup();
  const first = instance.newClient('embedded');
  const second = instance.newClient('embedded');
  const writer = instance.newClient('embedded');
  const p1 = instance.execute(first, b('bpop', 'q', '0'));
  const p2 = instance.execute(second, b('bpop', 'q', '0'));
  assert.ok(p1 instanceof Promise && p2 instanceof Promise);
  assert.equal(instance.blockedClientCount(), 2);
  instance.execute(writer, b('set', 'q', 'one'));
  assert.deepEqual(await p1, Buffer.from('one'));
  assert.equal(instance.blockedClientCount(), 1);
  instance.execute(writer, b('set', 'q', 'two'));
  assert.deepEqual(await p2, Buffer.from('two'));
  assert.deepEqual(
    log.map((batch) => batch.map((p) => p.argv.map(String))),
    [[['set', 'q', 'one']], [['DEL', 'q']], [['set', 'q', 'two']], [['DEL', 'q']]],
  );
});

test('a blocked client times out with its timeout reply', async () => {
  const { instance, client } = setup();
  const reply = await instance.execute(client, b('bpop', 'q', '20'));
  assert.equal(reply, NULL_ARRAY);
  assert.equal(client.blocked, null);
});

test('a blocking command inside EXEC does not block', () => {
  const { instance, client } = setup();
  client.multi = [];
  instance.execute(client, b('bpop', 'q', '0'));
  assert.deepEqual(instance.exec(client), [NULL_ARRAY]);
});

test('removing a blocked client releases it', async () => {
  const { instance, client } = setup();
  const pending = instance.execute(client, b('bpop', 'q', '0'));
  instance.removeClient(client);
  assert.equal(await pending, null);
  assert.equal(instance.blockedClientCount(), 0);
});

test('a block longer than the largest timer does not time out early', async () => {
  const { instance, client } = setup();
  const writer = instance.newClient('embedded');
  const pending = instance.execute(client, b('bpop', 'q', '3000000000'));
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(instance.blockedClientCount(), 1);
  instance.execute(writer, b('set', 'q', 'late'));
  assert.deepEqual(await pending, Buffer.from('late'));
});

test('a batch of commands sees one clock reading, and commandstats still counts each command', () => {
  let clock = 1_000;
  const inst = new Instance(
    [command('now', 1, ['fast'], null, (ctx) => ctx.instance.keyspace.now()), ...specs],
    { now: () => clock++ },
  );
  const c = inst.newClient('embedded');
  assert.equal(inst.beginBatch(), true);
  assert.equal(inst.beginBatch(), false, 'batches do not nest');
  const inBatch = [inst.execute(c, b('now')), inst.execute(c, b('now')), inst.execute(c, b('now'))];
  inst.endBatch();
  assert.deepEqual(inBatch, [1_000, 1_000, 1_000]);
  const after = [inst.execute(c, b('now')), inst.execute(c, b('now'))];
  assert.deepEqual(after, [1_001, 1_002], 'outside a batch every command reads the clock');
  const stats = inst.stats.perCommand.get('now')!;
  assert.equal(stats.calls, 5);
  assert.ok(stats.usec > 0, 'the batch time is shared out');
});
