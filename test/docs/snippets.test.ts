// Every ```ts block of the README and docs/*.md is compiled against the package (imported by its
// name, `sluice`), and run, so the documentation cannot rot. A block whose info string is
// `ts no-run` (it needs a cluster, or serves forever) is compiled only. Snippets that talk to
// Redis read REDIS_URL, which points at a redis-server this test starts. The files of
// docs/examples/ (sandboxed processor modules) sit beside the compiled snippets, so a snippet
// names one as `new URL('./examples/NAME.js', import.meta.url)`; the docs show each whole.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { runToExit, startRedisServer } from '../support/processes.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
// Inside the package, so that `import … from 'sluice'` resolves to this package's entry.
const WORK = join(ROOT, '.snippets');

interface Snippet {
  file: string;
  line: number;
  code: string;
  run: boolean;
}

function snippetsOf(file: string): Snippet[] {
  const out: Snippet[] = [];
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```ts(\s+no-run)?\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i + 1;
    while (i + 1 < lines.length && lines[i + 1] !== '```') i++;
    out.push({ file, line: start, code: lines.slice(start, i + 1).join('\n'), run: open[1] === undefined });
    i++;
  }
  return out;
}

const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const snippets = files.flatMap(snippetsOf);
const sourceOf = (s: Snippet): string => join(WORK, `${s.file.replace(/[/.]/g, '_')}_${s.line}.ts`);

let redis: Awaited<ReturnType<typeof startRedisServer>>;

before(async () => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  // `export {}` makes each snippet a module (top-level await) even when it imports nothing.
  for (const s of snippets) writeFileSync(sourceOf(s), `${s.code}\nexport {};\n`);
  cpSync(join(ROOT, 'docs', 'examples'), join(WORK, 'out', 'examples'), { recursive: true });
  redis = await startRedisServer();
});

after(async () => {
  await redis?.stop();
  rmSync(WORK, { recursive: true, force: true });
});

test('the docs have snippets, and the Producer/Worker getting-started is among them', () => {
  assert.ok(snippets.length >= 10, `${snippets.length} snippets`);
  assert.ok(snippets.some((s) => s.file === 'README.md' && s.code.includes('new Worker')));
});

test('every file of docs/examples is shown whole in a doc', () => {
  const docs = files.map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
  const examples = readdirSync(join(ROOT, 'docs', 'examples'));
  assert.ok(examples.length > 0);
  for (const name of examples) {
    assert.ok(docs.includes(readFileSync(join(ROOT, 'docs', 'examples', name), 'utf8').trimEnd()), `docs/examples/${name} is not shown whole in the docs`);
  }
});

test('every ts snippet compiles against the package', () => {
  const program = ts.createProgram(snippets.map(sourceOf), {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    skipLibCheck: true,
    outDir: join(WORK, 'out'),
    rootDir: WORK,
  });
  const emitted = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => {
    const where = d.file ? `${d.file.fileName.replace(WORK + '/', '')}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  assert.deepEqual(problems, []);
});

for (const s of snippets.filter((x) => x.run)) {
  test(`runs: ${s.file}:${s.line}`, async () => {
    const js = join(WORK, 'out', sourceOf(s).slice(WORK.length + 1).replace(/\.ts$/, '.js'));
    // Its own temp directory: what a snippet makes there (an AOF directory, say) it must remove.
    const tmp = join(WORK, 'tmp', sourceOf(s).slice(WORK.length + 1));
    mkdirSync(tmp, { recursive: true });
    const { code, output } = await runNode(js, { ...process.env, TMPDIR: tmp, REDIS_URL: `redis://127.0.0.1:${redis.port}` });
    assert.equal(code, 0, output);
    assert.deepEqual(readdirSync(tmp), [], `${s.file}:${s.line} left files in its temp directory`);
  });
}

function runNode(file: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return runToExit(process.execPath, [file], { env, cwd: WORK, timeoutMs: 30_000 });
}
