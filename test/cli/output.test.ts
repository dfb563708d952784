// Rendering helpers of the operator commands: tables, JSON of bigints, the progress helper on a
// terminal (one redrawn line) and off it (plain lines at each step), and --watch frames.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { progress, renderTable, toJson, watch } from '../../src/cli/output.js';

class Capture extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

test('renderTable pads columns and right-aligns numbers', () => {
  const t = renderTable(['name', 'pending'], [['a', 5], ['long-name', 12345]]);
  assert.equal(t, ['name       pending', '---------  -------', 'a                5', 'long-name    12345'].join('\n'));
  assert.equal(renderTable(['x', 'y'], [[null, 'v']]), 'x  y\n-  -\n-  v');
});

test('toJson writes safe bigints as numbers and huge ones as strings', () => {
  assert.deepEqual(JSON.parse(toJson({ a: 5n, b: 18446744073709551615n })), { a: 5, b: '18446744073709551615' });
});

test('progress off a terminal prints one plain line per 10% step and a final line', () => {
  const out = new Capture(false);
  const p = progress({ total: 1000, label: 'seeding', out });
  for (let i = 0; i <= 1000; i += 50) p.update(i);
  p.finish();
  const lines = out.text.trim().split('\n');
  assert.deepEqual(lines, Array.from({ length: 11 }, (_, i) => `seeding ${i * 10}% (${i * 100}/1000)`));
  assert.doesNotMatch(out.text, /\r|\x1b/);
});

test('progress off a terminal ends with where the work stopped', () => {
  const out = new Capture(false);
  const p = progress({ total: 30, label: 'work', out });
  p.update(3);
  p.update(5);
  p.finish('done');
  assert.deepEqual(out.text.trim().split('\n'), ['work 10% (3/30)', 'work 16% (5/30) done']);
});

test('progress on a terminal redraws one bar line and keeps log lines intact', () => {
  const out = new Capture(true);
  const logs = new Capture(true);
  const p = progress({ total: 10, label: 'orders', out });
  p.update(5, 'pending 2');
  p.log('worker killed', logs);
  p.update(10);
  p.finish();
  assert.equal(logs.text, 'worker killed\n');
  const frames = out.text.split('\r').filter((f) => f !== '');
  assert.match(frames[0]!, /^orders \[#{15} {15}\] 50% 5\/10 pending 2\x1b\[K$/);
  assert.equal(frames[1], '\x1b[K', 'the bar is cleared before the log line');
  assert.match(frames[2]!, /^orders \[#{15} {15}\] 50% 5\/10 pending 2/, 'and redrawn after it');
  assert.match(out.text, /orders \[#{30}\] 100% 10\/10\x1b\[K\n$/);
  assert.equal(out.text.split('\n').length, 2, 'one line in all');
});

test('watch prints frames separated by blank lines off a terminal, clears the screen on one', async () => {
  let n = 0;
  const plain = new Capture(false);
  await watch(async () => `frame ${++n}`, { intervalMs: 1, iterations: 3, out: plain });
  assert.equal(plain.text, 'frame 1\n\nframe 2\n\nframe 3\n');
  const tty = new Capture(true);
  await watch(async () => 'x', { intervalMs: 1, iterations: 2, out: tty });
  assert.equal(tty.text, '\x1b[H\x1b[2Jx\n\x1b[H\x1b[2Jx\n');
});
