// Error texts have one home, src/resp/errors.ts: a text written inline elsewhere drifts from the
// copy beside it (two wordings of one error, or a constant re-defined). This parses every module
// of src/ and fails on a string or template literal that is an error reply's text ("ERR ...",
// "WRONGTYPE ...") outside errors.ts. A bare prefix ("ERR " + a cause from elsewhere) and the
// argument of `startsWith` (recognizing a reply) are not texts and pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { Errors } from '../../src/resp/errors.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const SRC = join(ROOT, 'src');
const HOME = join(SRC, 'resp', 'errors.ts');
const ERROR_TEXT = /^(ERR|WRONGTYPE|NOAUTH|NOGROUP|BUSYGROUP|NOSCRIPT|NOPERM|MISCONF|OOM|EXECABORT|BUSY|LOADING|NOPROTO|READONLY|WRONGPASS|BUSYKEY|NOTBUSY|UNBLOCKED) \S/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

function isStartsWithArgument(node: ts.Node): boolean {
  const call = node.parent;
  return ts.isCallExpression(call) && ts.isPropertyAccessExpression(call.expression) && call.expression.name.text === 'startsWith';
}

/** Error texts written as literals in `file`, as "path:line text". */
function inlineTexts(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const text = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) ? node.text : null;
    if (text !== null && ERROR_TEXT.test(text) && !isStartsWithArgument(ts.isTemplateHead(node) ? node.parent : node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push(`${relative(ROOT, file)}:${line} ${text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('error texts are written only in src/resp/errors.ts', () => {
  const files = sourceFiles(SRC);
  assert.ok(inlineTexts(HOME).length > 100, 'the scan finds the texts where they live');
  assert.deepEqual(files.filter((f) => f !== HOME).flatMap(inlineTexts), []);
});

test('no two names give the same error text', () => {
  const byText = new Map<string, string[]>();
  for (const [name, value] of Object.entries(Errors)) {
    if (typeof value !== 'string') continue;
    byText.set(value, [...(byText.get(value) ?? []), name]);
  }
  assert.deepEqual([...byText.values()].filter((names) => names.length > 1), []);
});
