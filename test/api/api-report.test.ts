// api/sluice.api.md is API Extractor's report of the package's public surface, generated from
// the emitted declarations (scripts/api-report.mjs). The check must pass on this build, and must
// fail, naming the change, when the surface changes and the report was not regenerated.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runToExit } from '../support/processes.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const SCRIPT = join(ROOT, 'scripts/api-report.mjs');
// API Extractor takes 10-30 s under load.
const check = (...args: string[]) => runToExit(process.execPath, [SCRIPT, '--check', ...args], { cwd: ROOT, timeoutMs: 240_000 });

test('api/sluice.api.md matches the emitted declarations', async () => {
  const { code, output } = await check();
  assert.equal(code, 0, output);
});

test('the check fails when a constructor changes and the report was not regenerated', async () => {
  // A copy of the declarations inside dist/, so that their imports (prom-client, @types/node)
  // resolve as they do for the real ones; only the changed constructor differs.
  const copy = mkdtempSync(join(ROOT, 'dist', 'api-check-'));
  try {
    cpSync(join(ROOT, 'dist/src'), join(copy, 'src'), { recursive: true, filter: (f) => statSync(f).isDirectory() || f.endsWith('.d.ts') });
    const file = join(copy, 'src/broker/producer.d.ts');
    const before = readFileSync(file, 'utf8');
    const after = before.replace('constructor(conn: Connection, options: ProducerOptions);', 'constructor(conn: Connection, options?: ProducerOptions);');
    assert.notEqual(after, before, 'the constructor to change is in the declarations');
    writeFileSync(file, after);
    const { code, output } = await check('--entry', join(copy, 'src/index.d.ts'));
    assert.equal(code, 1, output);
    assert.match(output, /api\/sluice\.api\.md is stale/);
    assert.match(output, /^- +constructor\(conn: Connection, options: ProducerOptions\);$/m);
    assert.match(output, /^\+ +constructor\(conn: Connection, options\?: ProducerOptions\);$/m);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
