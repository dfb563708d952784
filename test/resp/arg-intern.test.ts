// The parser's table of shared short arguments: same bytes as the request, shared only from the
// second sighting, never a view that pins the socket read it came from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ArgIntern, MAX_INTERNED } from '../../src/resp/arg-intern.js';
import { RequestParser } from '../../src/resp/parser.js';

/** A socket read: a Buffer with memory of its own (not a slice of Node's shared pool). */
function read(text: string): Buffer {
  const buf = Buffer.allocUnsafeSlow(text.length);
  buf.write(text, 'latin1');
  return buf;
}

test('an argument is a view the first time and a shared copy from the second on', () => {
  const table = new ArgIntern();
  const read1 = read('*1\r\n$4\r\nXADD\r\n');
  const first = table.get(read1, 8, 4);
  assert.equal(first.toString(), 'XADD');
  assert.equal(first.buffer, read1.buffer, 'first sighting: a view of the read');
  const read2 = read('..XADD');
  const second = table.get(read2, 2, 4);
  assert.equal(second.toString(), 'XADD');
  assert.notEqual(second.buffer, read2.buffer, 'shared: copied out of the read');
  const third = table.get(read('XADD'), 0, 4);
  assert.equal(third, second, 'later sightings get the same Buffer');
  read2.fill(0);
  assert.equal(third.toString(), 'XADD', 'the shared copy does not change with the read buffer');
});

test('arguments that differ in length or any byte never share a Buffer (property)', () => {
  const table = new ArgIntern();
  const arg = fc.uint8Array({ minLength: 0, maxLength: MAX_INTERNED });
  fc.assert(
    fc.property(fc.array(arg, { minLength: 1, maxLength: 40 }), (args) => {
      // Each twice, so most of them go through the shared table.
      for (const bytes of [...args, ...args]) {
        const read = Buffer.concat([Buffer.from('junk'), Buffer.from(bytes), Buffer.from('junk')]);
        assert.deepEqual([...table.get(read, 4, bytes.length)], [...bytes]);
      }
    }),
    { numRuns: 300 },
  );
});

test('the request parser hands out correct arguments across repeated pipelines', () => {
  const parser = new RequestParser();
  const request = Buffer.from('*5\r\n$4\r\nXADD\r\n$1\r\ns\r\n$1\r\n*\r\n$1\r\nf\r\n$7\r\nvalue-1\r\n');
  const seen: string[][] = [];
  for (let i = 0; i < 4; i++) {
    parser.push(Buffer.from(request));
    for (let argv = parser.next(); argv !== null; argv = parser.next()) seen.push(argv.map(String));
  }
  assert.deepEqual(seen, Array.from({ length: 4 }, () => ['XADD', 's', '*', 'f', 'value-1']));
});
