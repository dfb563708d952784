#!/usr/bin/env node
// Runs Redis 7.0's whole unit suite (.redis-src, scripts/fetch-redis-tests.sh) in external mode,
// each unit against a fresh server of its own, and prints what passed per unit and in all: the
// measure of "how much of Redis does sluice do" (a unit aborted by an exception counts only the
// tests it ran). Run it for sluice and for redis-server on the same machine to compare.
//
//   node scripts/redis-suite-census.mjs [--server sluice|redis] [--units unit/a,unit/b]
//        [--timeout-s 300] [--tags -needs:debug] [--json FILE]
// sluice is dist/src/cli/main.js (npm run build first); redis is the redis-server on the PATH.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE = join(ROOT, '.redis-src');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
const SERVER = arg('server', 'sluice');
const TIMEOUT_S = Number(arg('timeout-s', '300'));
const TAGS = arg('tags', '-needs:debug');
const JSON_OUT = arg('json', '');

/** The units in the order the suite runs them (test_helper.tcl's ::all_tests). */
function allUnits() {
  const helper = readFileSync(join(SUITE, 'tests/test_helper.tcl'), 'utf8');
  const list = /set ::all_tests \{([^}]*)\}/.exec(helper);
  if (list === null) throw new Error('no ::all_tests in test_helper.tcl');
  return list[1].split(/\s+/).filter((u) => u.startsWith('unit/') && u !== 'unit/printver');
}
const UNITS = arg('units', '') === '' ? allUnits() : arg('units', '').split(',');

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts the server under test on `port`; resolves once it accepts commands. */
function startServer(port) {
  const [cmd, args] =
    SERVER === 'redis'
      ? ['redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']]
      : [process.execPath, [join(ROOT, 'dist/src/cli/main.js'), 'server', '--port', String(port)]];
  const child = spawn(cmd, args, { cwd: '/tmp', stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d) => {
      out += d;
      if (/ready on |Ready to accept connections/.test(out)) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${cmd} exited (${code}): ${out}`)));
  });
}

/** Runs one unit against `port`; its counts and how it ended. */
function runUnit(unit, port, baseport) {
  return new Promise((resolve) => {
    const args = ['--host', '127.0.0.1', '--port', String(port), '--single', unit, '--tags', TAGS, '--clients', '1', '--baseport', String(baseport)];
    const child = spawn('./runtest', args, { cwd: SUITE, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, TIMEOUT_S * 1000);
    child.on('exit', () => {
      clearTimeout(timer);
      const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
      const count = (tag) => plain.split('\n').filter((l) => l.startsWith(`[${tag}]`)).length;
      const firstProblem = plain.split('\n').find((l) => /^\[(err|exception)\]/.test(l));
      const end = /All tests passed without errors/.test(plain) ? 'passed' : timedOut ? 'timeout' : count('exception') > 0 ? 'aborted' : 'failed';
      resolve({ unit, ok: count('ok'), err: count('err'), exception: count('exception'), end, first: firstProblem ?? '' });
    });
  });
}

const results = [];
for (const unit of UNITS) {
  const port = await freePort();
  let server;
  try {
    server = await startServer(port);
  } catch (err) {
    results.push({ unit, ok: 0, err: 0, exception: 1, end: 'no server', first: String(err.message).slice(0, 200) });
    console.log(`${unit.padEnd(32)} the server did not start: ${String(err.message).slice(0, 110)}`);
    continue;
  }
  const started = Date.now();
  const r = await runUnit(unit, port, (await freePort()) + 32);
  server.kill('SIGKILL');
  r.seconds = Math.round((Date.now() - started) / 1000);
  results.push(r);
  console.log(`${unit.padEnd(32)} ok ${String(r.ok).padStart(4)}  err ${String(r.err).padStart(3)}  ${r.end.padEnd(8)} ${String(r.seconds).padStart(4)} s  ${r.first.slice(0, 110)}`);
}
const total = (k) => results.reduce((a, r) => a + r[k], 0);
console.log(`${SERVER}: ${total('ok')} passed, ${total('err')} failed, ${results.filter((r) => r.end === 'aborted').length} units aborted by an exception, ${results.filter((r) => r.end === 'passed').length} of ${results.length} units passed whole`);
if (JSON_OUT !== '') writeFileSync(JSON_OUT, JSON.stringify(results, null, 2));
