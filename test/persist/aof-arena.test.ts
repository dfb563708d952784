// The AOF writer encodes every turn's batches into one arena and, once a write(2) took them
// whole, starts the arena over: the log's bytes do not churn through a fresh Buffer per turn
// (which left freed memory malloc could not return). Bytes a failed write kept must survive
// the batches encoded after them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AofWriter } from '../../src/persist/writer.js';
import { encodeCommand } from '../../src/resp/encoder.js';
import { FlakyFs } from './flaky-fs.js';
import { withTempDir } from './helpers.js';

/** FlakyFs that remembers the memory each write's bytes lived in. */
class RecordingFs extends FlakyFs {
  readonly arenas = new Set<ArrayBufferLike>();
  override write(fd: number, buf: Buffer, offset: number, length: number): number {
    this.arenas.add(buf.buffer);
    return super.write(fd, buf, offset, length);
  }
}

const set = (i: number) => ['SET', `key:${i}`, `value-${i}-${'x'.repeat(100)}`];

/** What the file holds after SELECT 0 and these commands, one per batch. */
function expected(commands: string[][]): Buffer {
  return Buffer.concat([encodeCommand(['SELECT', '0']), ...commands.map((c) => encodeCommand(c))]);
}

test('AOF writer: the batches of successive writes share one arena', async () => {
  await withTempDir('aof-arena', async (dir) => {
    const path = join(dir, 'log.aof');
    const fs = new RecordingFs();
    const writer = new AofWriter(fs, path, () => 'everysec');
    const commands: string[][] = [];
    // ~135 KB in 1000 writes: without reuse, a 16 KB arena is replaced every ~120 of them.
    for (let i = 0; i < 1000; i++) {
      commands.push(set(i));
      writer.append([{ db: 0, argv: set(i) }]);
      assert.equal(writer.barrier(true), null);
    }
    writer.close();
    assert.deepEqual(readFileSync(path), expected(commands));
    assert.equal(fs.arenas.size, 1, `${fs.arenas.size} arenas for 1000 writes`);
  });
});

test('AOF writer: bytes a failed write kept are not overwritten by later batches', async () => {
  await withTempDir('aof-arena-fail', async (dir) => {
    const path = join(dir, 'log.aof');
    const fs = new FlakyFs();
    const writer = new AofWriter(fs, path, () => 'everysec');
    const commands = [set(1), set(2), set(3), set(4)];
    writer.append([{ db: 0, argv: commands[0]! }]);
    assert.equal(writer.barrier(true), null);
    // The second batch is cut short by the disk: 10 bytes land, the rest waits in memory.
    fs.writeError = 'ENOSPC';
    fs.partialBytes = 10;
    writer.append([{ db: 0, argv: commands[1]! }]);
    await assert.rejects(writer.barrier(true)!, /MISCONF/);
    // While it waits, more batches are encoded (an expired key's DEL can be logged so).
    writer.append([{ db: 0, argv: commands[2]! }]);
    writer.append([{ db: 0, argv: commands[3]! }]);
    fs.writeError = null;
    writer.syncNow(); // what the retry timer would do a second later
    assert.equal(writer.error, null);
    writer.close();
    assert.deepEqual(readFileSync(path), expected(commands));
  });
});
