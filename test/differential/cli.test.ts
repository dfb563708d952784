// The `cli` tag that case files write their steps with: splitting, quoting, interpolation, masks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cli } from './cli.js';
import { sorted, type Normaliser } from './normalize.js';

test('one command a line, quoted arguments keep spaces and may be empty, backslashes stay', () => {
  assert.deepEqual(
    cli`
      # a comment
      SET k "a b"

      SET k ""   x
      KEYS h\*llo
    `,
    [['SET', 'k', 'a b'], ['SET', 'k', '', 'x'], ['KEYS', 'h\\*llo']],
  );
});

test('interpolations: strings stay whole, arrays spread, numbers become text', () => {
  const many = ['1', 'a', '2', 'b'];
  assert.deepEqual(cli`ZADD z ${many} ${'x y'} ${7}`, [['ZADD', 'z', '1', 'a', '2', 'b', 'x y', '7']]);
});

test('masks by name or function, and pauses', () => {
  const fn: Normaliser = (f) => f.raw;
  assert.deepEqual(cli`
    SMEMBERS s => sorted
    XINFO STREAM s => ${fn}
    @sleep 15
  `, [{ argv: ['SMEMBERS', 's'], mask: 'sorted' }, { argv: ['XINFO', 'STREAM', 's'], mask: fn }, { sleepMs: 15 }]);
  assert.notEqual(sorted, fn);
});

test('mistakes are reported with the line', () => {
  assert.throws(() => cli`GET "k`, /unbalanced quotes in: GET "k/);
  assert.throws(() => cli`GET k => nosuchmask`, /unknown mask "nosuchmask"/);
  assert.throws(() => cli`GET k${'x'}`, /whole argument/);
  assert.throws(() => cli`GET k => sorted sorted`, /one mask/);
  assert.throws(() => cli`GET ${sorted}`, /can only follow/);
});
