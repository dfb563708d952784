// ARCHITECTURE.md says data flows downward through the layers of its diagram and nothing imports
// upward. This reads the diagram from the page itself and every import of src/ (type imports,
// re-exports and dynamic imports included), and fails on a module the diagram does not place or
// on an import from a lower layer into a higher one: the page and the code cannot drift apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const SRC = join(ROOT, 'src');

/** The diagram's layers, top first: `src/cli/` gives `cli`, `src/index.ts` gives `index.ts`. */
function diagramLayers(): string[] {
  const page = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const section = page.slice(page.indexOf('## Layers'));
  const block = /```\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'ARCHITECTURE.md has a code block under "## Layers"');
  const layers = [...block[1]!.matchAll(/^src\/([^/\s]+)/gm)].map((m) => m[1]!);
  assert.ok(layers.length >= 5, `layers read from the diagram: ${layers.join(', ')}`);
  return layers;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The layer of a file under src/: its top folder, or its own name for a file at the top. */
const layerOf = (file: string): string => relative(SRC, file).split(sep)[0]!;

/** The src/ files a module imports (relative specifiers, `.js` mapped back to `.ts`). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
}

test('every module of src/ sits in a layer of the ARCHITECTURE.md diagram', () => {
  const layers = new Set(diagramLayers());
  const unplaced = [...new Set(sourceFiles(SRC).map(layerOf))].filter((l) => !layers.has(l));
  assert.deepEqual(unplaced, [], 'src/ entries missing from the diagram in ARCHITECTURE.md');
});

test('nothing in src/ imports from a layer above its own', () => {
  const order = diagramLayers();
  const rank = (layer: string): number => order.indexOf(layer);
  const upward: string[] = [];
  let crossing = 0;
  for (const file of sourceFiles(SRC)) {
    for (const target of importsOf(file)) {
      if (!target.startsWith(SRC + sep)) continue;
      const from = layerOf(file);
      const to = layerOf(target);
      if (from === to) continue;
      crossing++;
      if (rank(to) < rank(from)) upward.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)} (${from} is below ${to})`);
    }
  }
  assert.ok(crossing > 100, `imports across layers found: ${crossing}`); // the parse found the graph
  assert.deepEqual(upward, []);
});

/** The import circles (strongly connected components of two or more files) among `files`. */
function importCircles(files: string[]): string[][] {
  const inSet = new Set(files);
  const edges = new Map(files.map((f) => [f, importsOf(f).filter((t) => inSet.has(t))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const circle: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      circle.push(relative(ROOT, w));
    } while (w !== v);
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return circles;
}

// The command families and the execution core once formed a 13-file circle (handlers typed their
// context with the Instance class, which imports the table of handlers). Handlers now see the
// InstanceView interface (commands/types.ts); type imports count here too.
test('the server side (commands, persist, replication, server) has no import circle', () => {
  const files = ['commands', 'persist', 'replication', 'server'].flatMap((layer) => sourceFiles(join(SRC, layer)));
  assert.ok(files.length > 100, `files read: ${files.length}`);
  assert.deepEqual(importCircles(files), []);
});

test('the circle check finds a circle, through type imports too', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-circle-'));
  writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B;\n");
  writeFileSync(join(dir, 'b.ts'), "import { c } from './c.js';\nimport type { A } from './a.js';\nexport type B = A | typeof c;\n");
  writeFileSync(join(dir, 'c.ts'), 'export const c = 1;\n');
  try {
    const circles = importCircles(['a.ts', 'b.ts', 'c.ts'].map((f) => join(dir, f)));
    assert.deepEqual(circles.map((c) => c.map((f) => f.slice(f.lastIndexOf('/') + 1))), [['a.ts', 'b.ts']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
