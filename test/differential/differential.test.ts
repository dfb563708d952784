// The differential judge: every case file (*.cases.js) and every generator file (*.gen.js) in
// this directory is run against a real redis-server and sluice, and the raw reply bytes must be
// equal, in RESP2 and RESP3. A missing redis-server is a failure, not a skip.
//
//   SLUICE_DIFF_SEED=123 node --test dist/test/differential/   reproduces a randomized run
//   SLUICE_DIFF_SCRIPTS=200 SLUICE_DIFF_STEPS=300 ...           runs more / longer random scripts
//   SLUICE_DIFF_TARGET=embedded ...                             sluice in process instead of over TCP
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type DiffCase, keySpace, Rng, type Step, type StepGenerator } from './case-types.js';
import { formatMismatch, runScript } from './runner.js';
import { useTargets } from './targets.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const files = readdirSync(dir).sort();

const caseFiles: Array<{ file: string; cases: DiffCase[] }> = [];
for (const file of files.filter((f) => f.endsWith('.cases.js'))) {
  const mod = (await import(new URL(file, import.meta.url).href)) as { cases: DiffCase[] };
  caseFiles.push({ file, cases: mod.cases });
}
const generators: StepGenerator[] = [];
for (const file of files.filter((f) => f.endsWith('.gen.js'))) {
  const mod = (await import(new URL(file, import.meta.url).href)) as { generators: StepGenerator[] };
  generators.push(...mod.generators);
}

const targets = useTargets();

for (const { file, cases } of caseFiles) {
  describe(file, () => {
    for (const c of cases) {
      if (c.tcpOnly === true && process.env.SLUICE_DIFF_TARGET === 'embedded') continue;
      for (const protocol of c.protocols ?? [2, 3]) {
        // A step expecting more frames than a server sends would wait for ever: fail instead.
        test(`${c.name} (RESP${protocol})`, { timeout: 60_000 }, async () => {
          const mismatch = await runScript(targets.redis, targets.sluice, c.steps, protocol);
          if (mismatch !== null) assert.fail(`${file} "${c.name}" RESP${protocol}\n${formatMismatch(mismatch, c.steps)}`);
        });
      }
    }
  });
}

function pickWeighted(rng: Rng, gens: StepGenerator[], total: number): StepGenerator {
  let x = rng.next() * total;
  for (const g of gens) {
    x -= g.weight;
    if (x < 0) return g;
  }
  return gens[gens.length - 1]!;
}

/** The random scripts for a seed: a pure function of the seed and the registered generators. */
export function randomScripts(seed: number, count: number, length: number): Step[][] {
  const rng = new Rng(seed);
  const space = keySpace(rng);
  const total = generators.reduce((n, g) => n + g.weight, 0);
  return Array.from({ length: count }, () =>
    Array.from({ length }, () => pickWeighted(rng, generators, total).next(rng, space)),
  );
}

test('randomized command sequences match redis-server', async () => {
  assert.ok(generators.length > 0, 'no *.gen.js generator files found');
  const seed = process.env.SLUICE_DIFF_SEED !== undefined ? Number(process.env.SLUICE_DIFF_SEED) : (Math.random() * 2 ** 32) >>> 0;
  const count = Number(process.env.SLUICE_DIFF_SCRIPTS ?? 40);
  const length = Number(process.env.SLUICE_DIFF_STEPS ?? 80);
  const scripts = randomScripts(seed, count, length);
  for (let i = 0; i < scripts.length; i++) {
    const protocol = i % 2 === 0 ? 2 : 3;
    const mismatch = await runScript(targets.redis, targets.sluice, scripts[i]!, protocol);
    if (mismatch !== null) {
      assert.fail(
        `randomized run failed: reproduce with SLUICE_DIFF_SEED=${seed} SLUICE_DIFF_SCRIPTS=${count} ` +
          `SLUICE_DIFF_STEPS=${length} (script ${i}, RESP${protocol})\n` +
          formatMismatch(mismatch, scripts[i]!),
      );
    }
  }
});
