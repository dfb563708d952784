// The parsers' byte accumulator: adopted chunks, copied reads (the shared socket buffer), and
// when the arena is kept or given back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputBuffer } from '../../src/resp/input-buffer.js';
import { RequestParser } from '../../src/resp/parser.js';

test('copied reads do not change when the read buffer is reused, and fill one arena in turn', () => {
  const input = new InputBuffer();
  const read = Buffer.alloc(8);
  read.write('abcdefgh');
  input.pushCopy(read);
  const first = input.buf.subarray(input.start, input.end);
  input.consume(input.end);
  read.write('12345678');
  input.pushCopy(read);
  assert.equal(first.toString(), 'abcdefgh', 'bytes already handed out stay as they were');
  assert.equal(input.buf.subarray(input.start, input.end).toString(), '12345678');
  assert.equal(first.buffer, input.buf.buffer, 'the second read went into the same arena');
});

test('an empty arena with room is kept for the next read; releaseIfIdle gives it back', () => {
  const input = new InputBuffer();
  input.pushCopy(Buffer.from('hello'));
  input.consume(input.end);
  input.releaseIfEmpty();
  assert.ok(input.capacity > 0, 'kept: copied reads reuse it');
  input.releaseIfIdle();
  assert.equal(input.capacity, 0);
  // An adopted chunk has no room left: it is dropped as soon as it is read, as before.
  input.push(Buffer.from('chunk'));
  input.consume(input.end);
  input.releaseIfEmpty();
  assert.equal(input.capacity, 0);
});

test('a request split over copied reads of a reused buffer parses whole', () => {
  const parser = new RequestParser();
  const wire = Buffer.from('*3\r\n$3\r\nSET\r\n$20\r\nkey-with-a-long-name\r\n$25\r\nvalue-longer-than-6-bytes\r\n');
  const shared = Buffer.alloc(7);
  const got: string[][] = [];
  for (let i = 0; i < wire.length; i += shared.length) {
    const n = wire.copy(shared, 0, i, i + shared.length);
    parser.pushCopy(shared.subarray(0, n));
    shared.fill(0x21); // the next socket read overwrites the shared buffer
    for (let argv = parser.next(); argv !== null; argv = parser.next()) got.push(argv.map(String));
  }
  assert.deepEqual(got, [['SET', 'key-with-a-long-name', 'value-longer-than-6-bytes']]);
});
