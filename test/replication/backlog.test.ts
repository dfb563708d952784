// The replication backlog: the bytes it holds are the replication stream a real redis-server
// 7.0 sends its replica for the same commands (a raw PSYNC to redis-server, compared byte for
// byte), its offsets are Redis's, and PSYNC ranges are answered as Redis answers them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as connectSocket, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { allCommands } from '../../src/commands/index.js';
import { Instance } from '../../src/commands/core/instance.js';
import { createBacklog, ReplicationBacklog } from '../../src/replication/backlog.js';
import { ReplicationState } from '../../src/commands/core/replication.js';
import { open } from '../../src/client/embedded.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';
import { installed, startRedisServer, stopChild, type RedisServer } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

// Sent in this order to redis-server (with a replica attached) and to an instance with a backlog.
const COMMANDS: string[][] = [
  ['SET', 'a', '1'],
  ['INCR', 'n'],
  ['XADD', 's', '1-1', 'f', 'v'],
  ['XADD', 's', 'MAXLEN', '5', '2-1', 'g', 'w'],
  ['GET', 'a'], // a read: nothing in the stream
  ['SELECT', '1'],
  ['XADD', 's', '3-1', 'f', 'v'],
  ['XGROUP', 'CREATE', 's', 'g', '0'],
  ['MULTI'],
  ['SET', 'b', '2'],
  ['LPUSH', 'l', 'x', 'y'],
  ['HSET', 'h', 'f', 'v'],
  ['EXEC'],
  ['SELECT', '0'],
  ['XTRIM', 's', 'MAXLEN', '1'],
  ['SADD', 'set', 'm'],
  ['ZADD', 'z', '1', 'm'],
  ['DEL', 'a', 'missing'],
  ['XGROUP', 'SETID', 's', 'nogroup', '0'], // an error: nothing in the stream
];

const resp = (argv: string[]): string => `*${argv.length}\r\n${argv.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/** A raw replica: sends PSYNC ? -1 and collects what the primary sends after the RDB. */
class RawReplica {
  readonly socket: Socket;
  private buffer = Buffer.alloc(0);
  fullResyncOffset = -1;
  stream = Buffer.alloc(0);
  private rdbLeft = -1;

  constructor(port: number) {
    this.socket = connectSocket(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.write(resp(['PSYNC', '?', '-1']));
  }

  private onData(chunk: Buffer): void {
    if (this.rdbLeft === 0) {
      this.stream = Buffer.concat([this.stream, chunk]);
      return;
    }
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.rdbLeft > 0) {
        const n = Math.min(this.rdbLeft, this.buffer.length);
        this.rdbLeft -= n;
        this.buffer = this.buffer.subarray(n);
        if (this.rdbLeft === 0) {
          this.stream = Buffer.from(this.buffer);
          this.buffer = Buffer.alloc(0);
        }
        return;
      }
      if (this.buffer[0] === 0x0a) { // a keepalive newline while the RDB is prepared
        this.buffer = this.buffer.subarray(1);
        continue;
      }
      const eol = this.buffer.indexOf('\r\n');
      if (eol < 0) return;
      const line = this.buffer.subarray(0, eol).toString();
      this.buffer = this.buffer.subarray(eol + 2);
      const full = /^\+FULLRESYNC [0-9a-f]{40} (\d+)$/.exec(line);
      if (full) this.fullResyncOffset = Number(full[1]);
      else if (line.startsWith('$')) this.rdbLeft = Number(line.slice(1));
      else throw new Error(`unexpected line from the primary: ${line}`);
    }
  }
}

describe('the backlog against redis-server 7.0 as primary', { skip: !installed('redis-server') && 'redis-server is not installed' }, () => {
  let redis: RedisServer;
  let dir: string;
  before(async () => {
    // No periodic PING into the stream during the test. A replica without `capa eof` gets a
    // disk-based sync: its dump.rdb goes to a directory of its own.
    dir = mkdtempSync(join(tmpdir(), 'sluice-backlog-'));
    redis = await startRedisServer(['--repl-ping-replica-period', '3600', '--dir', dir]);
  });
  after(async () => {
    await stopChild(redis.child);
    rmSync(dir, { recursive: true, force: true });
  });

  test('holds the bytes redis-server streams to a replica, and counts the offset as Redis does', async () => {
    const replica = new RawReplica(redis.port);
    await waitFor(() => replica.fullResyncOffset >= 0 && replica.stream !== undefined && replica.socket.readyState === 'open', 'FULLRESYNC');
    const client = connectSocket(redis.port, '127.0.0.1');
    let replies = '';
    client.on('data', (d) => (replies += d.toString('latin1')));
    client.write(COMMANDS.map(resp).join('') + resp(['INFO', 'replication']));
    await waitFor(() => replies.includes('repl_backlog_histlen'), 'the INFO reply');
    const redisOffset = Number(/master_repl_offset:(\d+)/.exec(replies)![1]);

    const instance = new Instance(allCommands);
    const backlog = createBacklog(instance);
    const session = instance.newClient('tcp');
    for (const argv of COMMANDS) await instance.execute(session, argv.map((a) => Buffer.from(a)));
    const ours = backlog.since(backlog.firstByteOffset)!;

    await waitFor(() => replica.stream.length >= ours.length, `${ours.length} bytes of stream from redis-server`);
    assert.equal(ours.toString('latin1'), replica.stream.toString('latin1'));
    assert.equal(instance.replication.offset, redisOffset - replica.fullResyncOffset);
    assert.equal(backlog.firstByteOffset, 1);
    replica.socket.destroy();
    client.destroy();
  });
});

describe('ReplicationBacklog', () => {
  test('an offset is PSYNC-able from the oldest byte kept to one past the newest', () => {
    const state = new ReplicationState();
    const backlog = new ReplicationBacklog(state, 8);
    assert.equal(backlog.firstByteOffset, 1);
    assert.deepEqual(backlog.since(1), Buffer.alloc(0)); // nothing missed yet
    backlog.feed(Buffer.from('abcde'));
    assert.equal(state.offset, 5);
    assert.equal(backlog.since(1)!.toString(), 'abcde');
    assert.equal(backlog.since(4)!.toString(), 'de');
    assert.equal(backlog.since(6)!.toString(), '');
    assert.equal(backlog.since(7), null); // beyond what was produced
    assert.equal(backlog.since(0), null);
    // Wraps around: only the last 8 bytes stay.
    backlog.feed(Buffer.from('fghijk'));
    assert.equal(state.offset, 11);
    assert.equal(backlog.histlen, 8);
    assert.equal(backlog.firstByteOffset, 4);
    assert.equal(backlog.since(3), null);
    assert.equal(backlog.since(4)!.toString(), 'defghijk');
    assert.equal(backlog.since(10)!.toString(), 'jk');
    // A write longer than the backlog keeps its tail.
    backlog.feed(Buffer.from('0123456789'));
    assert.equal(backlog.since(backlog.firstByteOffset)!.toString(), '23456789');
    assert.equal(backlog.firstByteOffset, 21 - 8 + 1);
  });

  test('INFO replication and ROLE report the backlog and the offset', async () => {
    const db = await open({ config: { 'repl-backlog-size': '16kb' } });
    const instance = instanceBehind(db);
    const session = db.session();
    const run = (...argv: string[]): Promise<unknown> => session.call(...argv);
    const info = async (): Promise<string> => String(await run('INFO', 'replication'));
    assert.match(await info(), /repl_backlog_active:0\r\nrepl_backlog_size:16384\r\nrepl_backlog_first_byte_offset:0\r\nrepl_backlog_histlen:0/);
    createBacklog(instance);
    await run('SET', 'k', 'v');
    const bytes = resp(['SELECT', '0']).length + resp(['SET', 'k', 'v']).length;
    assert.match(await info(), new RegExp(`master_repl_offset:${bytes}\r\nsecond_repl_offset:-1\r\nrepl_backlog_active:1\r\nrepl_backlog_size:16384\r\nrepl_backlog_first_byte_offset:1\r\nrepl_backlog_histlen:${bytes}`));
    assert.deepEqual(await run('ROLE'), ['master', bytes, []]);
  });

  test('a promotion keeps the old replication id valid up to the offset (PSYNC2)', () => {
    const state = new ReplicationState();
    state.offset = 100;
    const before = state.replid;
    state.shiftId();
    assert.equal(state.replid2, before);
    assert.equal(state.secondOffset, 101);
    assert.notEqual(state.replid, before);
    assert.match(state.replid, /^[0-9a-f]{40}$/);
  });
});
