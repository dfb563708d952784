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
