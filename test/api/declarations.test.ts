// What a consumer's compiler reads of sluice: the declarations reached from the package entry.
// They must compile for a strict consumer without skipLibCheck, must not import ioredis (whose
// own declarations import the untyped 'redis-errors': TS7016 for such a consumer, as TypeScript
// 7 reports it), and must not show sluice's internals (the engine, the command layer, replies).
import assert from 'node:assert/strict';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const ENTRY = join(ROOT, 'dist/src/index.d.ts');

// As a consumer compiles: strict, NodeNext, libraries checked, and (as TypeScript 6+ does by
// default) no @types package loaded unless a declaration asks for it.
const program = ts.createProgram([ENTRY], {
  strict: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  skipLibCheck: false,
  types: [],
  noEmit: true,
});
const files = program.getSourceFiles().map((f) => f.fileName);

test('the declarations compile for a strict consumer without skipLibCheck', () => {
  const problems = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${relative(ROOT, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
  assert.deepEqual(problems, []);
});

test('the declarations import nothing from ioredis', () => {
  assert.deepEqual(files.filter((f) => f.includes('/node_modules/ioredis/')), []);
});

test("the declarations show none of sluice's internals", () => {
  const ours = files.map((f) => relative(join(ROOT, 'dist/src'), f)).filter((f) => !f.startsWith('..'));
  assert.ok(ours.includes('client/embedded.d.ts') && ours.includes('broker/worker.d.ts'), ours.join(' '));
  const internal = /^(engine|commands|resp|persist|rdb)\/|^client\/(embedded-internals|embedded-execute|ioredis-link|ioredis-defaults)\.d\.ts$/;
  assert.deepEqual(ours.filter((f) => internal.test(f)), []);
});
