// Command effects fan out to every sink: the AOF (Instance.persistence) and any other (the
// replication backlog) get the same batches, in order, and a sink removed gets no more.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allCommands } from '../../../src/commands/index.js';
import { Instance } from '../../../src/commands/core/instance.js';
import fc from 'fast-check';
import { type EffectSink, type Propagated, type PropagatedArg, WireCommand } from '../../../src/commands/core/effects.js';
import { BatchEncoder } from '../../../src/persist/batch-encoder.js';
import { Encoder, encodeCommand } from '../../../src/resp/encoder.js';
import { RequestParser } from '../../../src/resp/parser.js';
import { StreamIdReply } from '../../../src/resp/reply.js';
import { RequestArgs } from '../../../src/resp/request-args.js';
import { commandLine, recordingPersistence } from '../../support/recording-persistence.js';

const lines = (batches: Propagated[][]): string[][] => batches.map((b) => b.map(commandLine));

test('every sink receives each batch: a command, an EXEC, an expired key', async () => {
  let now = 1_700_000_000_000;
  const instance = new Instance(allCommands, { now: () => now });
  assert.equal(instance.effects.active, false);
  const aof: Propagated[][] = [];
  const other: Propagated[][] = [];
  instance.persistence = recordingPersistence((batch) => aof.push([...batch]));
  const sink: EffectSink = { append: (batch) => other.push([...batch]) };
  instance.effects.add(sink);
  instance.effects.add(sink); // added once only
  assert.equal(instance.effects.active, true);

  const client = instance.newClient('tcp');
  const run = async (...argv: string[]): Promise<unknown> => instance.execute(client, argv.map((a) => Buffer.from(a)));
  await run('XADD', 's', '5-1', 'f', 'v');
  await run('GET', 'nothing');
  await run('MULTI');
  await run('SET', 'k', 'v', 'PX', '10');
  await run('INCR', 'n');
  await run('EXEC');
  now += 20;
  assert.equal(await run('GET', 'k'), null); // expires on access: a DEL is propagated
  const expected = [['XADD s 5-1 f v'], ['SET k v PXAT 1700000000010', 'INCR n'], ['DEL k']];
  assert.deepEqual(lines(aof), expected);
  assert.deepEqual(lines(other), expected);

  // The AOF turned off (CONFIG SET appendonly no does this): the other sink carries on alone.
  instance.persistence = null;
  assert.equal(instance.effects.active, true);
  await run('SET', 'a', '1');
  assert.equal(aof.length, 3);
  assert.deepEqual(lines(other).at(-1), ['SET a 1']);
  instance.effects.remove(sink);
  assert.equal(instance.effects.active, false);
  await run('SET', 'a', '2');
  assert.equal(other.length, 4);
});

test('a request logged as its own bytes (WireCommand) encodes as its arguments would, one maybe replaced by an id', () => {
  const arg = fc.oneof(
    fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b)),
    fc.uint8Array({ minLength: 95, maxLength: 1100 }).map((b) => Buffer.from(b)),
    fc.constantFrom('XADD', 'set', '*', '$3', '\r\n').map((s) => Buffer.from(s)),
  );
  fc.assert(
    fc.property(fc.array(fc.array(arg, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 5 }), fc.integer({ min: -1, max: 7 }), (commands, cuts, at) => {
      const bytes = Buffer.concat(commands.map((c) => encodeCommand(c)));
      const offsets = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      const parser = new RequestParser();
      const logged: Propagated[] = [];
      const expected: PropagatedArg[][] = [];
      let n = 0;
      let from = 0;
      for (const to of [...offsets, bytes.length]) {
        parser.pushCopy(bytes.subarray(from, to));
        from = to;
        for (let args = parser.nextArgs(); args !== null; args = parser.nextArgs()) {
          const argv: PropagatedArg[] = [...commands[n++]!];
          const replace = at < argv.length ? at : -1;
          const id = new StreamIdReply(1_700_000_000_000 + n, n);
          if (replace >= 0) argv[replace] = id;
          logged.push(WireCommand.of(0, args, replace, replace >= 0 ? id : null));
          expected.push(argv);
        }
      }
      assert.equal(logged.length, commands.length);
      const encoder = new BatchEncoder();
      const reference = new Encoder(2);
      for (let i = 0; i < logged.length; i++) {
        encoder.encode([logged[i]!]);
        reference.command(expected[i]!);
        // What a reader of the arguments (an AOF rewrite) sees.
        assert.deepEqual(logged[i]!.argv.map(String), expected[i]!.map(String));
      }
      // The encoder's SELECT first, then the same commands byte for byte.
      assert.deepEqual(encoder.takeBytes().subarray(encodeCommand(['SELECT', '0']).length), reference.take());
    }),
    { numRuns: 300 },
  );
});

test('a request not in RESP\'s own form is logged from its arguments', () => {
  const parser = new RequestParser();
  // An inline command, then a bulk length with a leading zero where the parser takes it.
  parser.pushCopy(Buffer.from('SET k v\r\n'));
  const inline = parser.nextArgs()!;
  const item = WireCommand.of(0, inline);
  assert.equal(item instanceof WireCommand, false);
  assert.deepEqual(item.argv.map(String), ['SET', 'k', 'v']);
  // Bytes that look like RESP around an argument not read by the parser (an embedded call's
  // arena holds whatever earlier calls wrote there): not taken for a header.
  const arena = Buffer.from('$8\r\nFLUSHALL\r\n');
  const pushed = new RequestArgs();
  pushed.push(arena, 4, 12);
  const byHand = WireCommand.of(0, pushed);
  assert.equal(byHand instanceof WireCommand, false);
  assert.deepEqual(byHand.argv.map(String), ['FLUSHALL']);
  const argv = [Buffer.from('SET'), Buffer.from('k'), Buffer.from('v')];
  const fromArgv = WireCommand.of(0, RequestArgs.of(argv), 2, new StreamIdReply(1, 2));
  assert.equal(fromArgv instanceof WireCommand, false);
  assert.deepEqual(fromArgv.argv.map(String), ['SET', 'k', '1-2']);
});
