import assert from 'node:assert/strict';
import { test } from 'node:test';
import { globMatch } from '../../src/commands/glob.js';

test('glob matches as Redis stringmatchlen', () => {
  assert.equal(globMatch('*', 'anything'), true);
  assert.equal(globMatch('h?llo', 'hello'), true);
  assert.equal(globMatch('h?llo', 'hllo'), false);
  assert.equal(globMatch('h*llo', 'heeeello'), true);
  assert.equal(globMatch('h[ae]llo', 'hallo'), true);
  assert.equal(globMatch('h[ae]llo', 'hillo'), false);
  assert.equal(globMatch('h[^e]llo', 'hallo'), true);
  assert.equal(globMatch('h[^e]llo', 'hello'), false);
  assert.equal(globMatch('h[a-b]llo', 'hbllo'), true);
  assert.equal(globMatch('h\\*llo', 'h*llo'), true);
  assert.equal(globMatch('h\\*llo', 'hello'), false);
  assert.equal(globMatch('APPEND*', 'appendonly', true), true);
  assert.equal(globMatch('APPEND*', 'appendonly'), false);
  assert.equal(globMatch('a*b*c', 'aXXbYYc'), true);
  assert.equal(globMatch('a*b*c', 'aXXbYY'), false);
});

test("glob keeps stringmatchlen's quirks", () => {
  // An empty string matches nothing, not even "*" (KEYS and SCAN special-case "*" themselves).
  assert.equal(globMatch('*', ''), false);
  assert.equal(globMatch('', ''), true);
  assert.equal(globMatch('a*', 'a'), true);
  // An unclosed class ends with the pattern; "[^" alone matches any one byte.
  assert.equal(globMatch('[ab', 'b'), true);
  assert.equal(globMatch('[^', 'x'), true);
  assert.equal(globMatch('a[', 'a'), false);
  // Range bounds compare as signed chars: 0xe9 is below 'a', inside [\xff-a] (-1..97).
  assert.equal(globMatch('[\u00ff-a]', '\u00e9'), false);
  assert.equal(globMatch('[\u00e9-a]', '\u00ff'), true);
  assert.equal(globMatch('[a-\u00e9]', 'b'), false);
  // An escape inside a class compares exactly, even without case.
  assert.equal(globMatch('[\\A]', 'a', true), false);
  assert.equal(globMatch('[A]', 'a', true), true);
  // A trailing backslash is a literal one.
  assert.equal(globMatch('a\\', 'a\\'), true);
});

test('glob gives up early and caps nesting (no exponential search, no deep recursion)', () => {
  const long = 'a'.repeat(100_000);
  const started = performance.now();
  assert.equal(globMatch('a*'.repeat(60) + 'b', long), false);
  assert.equal(globMatch('*a'.repeat(60) + '*', long), true);
  assert.equal(globMatch('a*'.repeat(60) + 'a', long), true);
  assert.ok(performance.now() - started < 5000);
  // More than 1000 nested '*' never match (Redis's limit) and never overflow the stack.
  assert.equal(globMatch('a*'.repeat(1000) + 'a', 'a'.repeat(2000)), true);
  assert.equal(globMatch('a*'.repeat(1002) + 'a', 'a'.repeat(2000)), false);
  assert.equal(globMatch('a*'.repeat(200_000) + 'a', 'a'.repeat(300_000)), false);
});
