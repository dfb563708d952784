// Stream writes survive a restart through the append-only file: XADD "*" and "~" trimming are
// logged as their deterministic effect, so the replayed stream is the same even though the
// clock has moved and LIMIT/approximate trimming would cut elsewhere.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from '../../../src/client/embedded.js';

test('XADD * / MAXLEN ~ LIMIT / MINID ~ / XDEL / XSETID replay to the same stream', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-stream-aof-'));
  try {
    let clock = 1_000;
    const first = await open({ dir, appendfsync: 'always', now: () => clock });
    for (let i = 0; i < 450; i++) {
      if (i % 7 === 0) clock++;
      await first.call('XADD', 's', 'MAXLEN', '~', '120', 'LIMIT', '150', '*', 'n', String(i));
    }
    await first.call('XADD', 's', 'MINID', '~', '1040', '*', 'n', 'last');
    await first.call('XDEL', 's', '1064-0', '1064-1');
    await first.call('XTRIM', 's', 'MAXLEN', '~', '5');
    await first.call('XSETID', 's', '5000-0', 'ENTRIESADDED', '999', 'MAXDELETEDID', '1064-1');
    const before = await first.call('XRANGE', 's', '-', '+');
    const length = await first.call('XLEN', 's');
    await first.close();

    clock = 9_999_999; // a different clock: replay must not depend on it
    const second = await open({ dir, appendfsync: 'always', now: () => clock });
    assert.deepEqual(await second.call('XRANGE', 's', '-', '+'), before);
    assert.equal(await second.call('XLEN', 's'), length);
    // last_id came back too: the next generated id continues from XSETID's.
    clock = 1;
    assert.equal(await second.call('XADD', 's', '*', 'n', 'after'), '5000-1');
    await second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
