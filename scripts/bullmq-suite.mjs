#!/usr/bin/env node
// Runs BullMQ's own test suite (its two vitest configs for ioredis, as its `test` and
// `test:ioredis` scripts: the adapter-agnostic tests, then cluster, connection and sandboxed
// processors) against redis-server and against `sluice server`, each started here on a free port,
// and prints passed/failed per server, the ratio sluice/redis, and each test that passes on
// redis-server but not on sluice with the first line of its error. The measure of issue 36's
// "BullMQ itself runs on sluice". Not in CI: it needs a BullMQ checkout fetched from the network
// and takes about 20 minutes a server.
//
//   node scripts/bullmq-suite.mjs BULLMQ_DIR [--only redis|sluice] [--configs default,ioredis]
//        [--files tests/a.test.ts,...] [--timeout-ms 20000] [--ports 46000-46499] [--json-dir DIR]
//        [--netns] [--report-only]
//
// BULLMQ_DIR is a checkout of taskforcesh/bullmq with its devDependencies installed (`npm install`
// there; vitest and ioredis are what the suite needs). Its generated scripts (src/scripts) are
// made here when missing, as its `pretest` does, and its CommonJS build (dist/cjs), which
// sandboxed processors run. sluice is dist/src/cli/main.js (npm run build first); redis is the
// redis-server on the PATH. --timeout-ms is each test's and hook's limit (BullMQ's own is 10 s;
// a shared machine wants more). --json-dir keeps vitest's JSON reports.
//
// Some of BullMQ's tests (sandboxed processors, connection, the script loader's) connect to
// localhost:6379 whatever REDIS_PORT says, so on a free port they fail on both servers. --netns
// runs everything inside a private network namespace of its own (`unshare -rn`, Linux), where
// each server listens on 6379 without touching the machine's: then those tests count too.
//
// --report-only runs nothing and compares the JSON reports already in --json-dir: so the two
// servers can be run at once, each with --only and the same --json-dir (and --netns, each then
// in a namespace of its own), and compared after.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SLUICE_MAIN = join(ROOT, 'dist/src/cli/main.js');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
const BULLMQ = process.argv[2] === undefined || process.argv[2].startsWith('--') ? undefined : resolve(process.argv[2]);
if (BULLMQ === undefined || !existsSync(join(BULLMQ, 'vitest.config.ts'))) {
  process.stderr.write('usage: node scripts/bullmq-suite.mjs BULLMQ_DIR [--only redis|sluice] [--files a,b] [--timeout-ms N] [--ports LO-HI] [--json-dir DIR]\n');
  process.exit(2);
}
const ONLY = arg('only', '');
const CONFIGS = arg('configs', 'default,ioredis').split(',');
const FILES = arg('files', '').split(',').filter((f) => f !== '');
const TIMEOUT_MS = Number(arg('timeout-ms', '20000'));
const JSON_DIR = arg('json-dir', '') || mkdtempSync(join(tmpdir(), 'bullmq-suite-'));
const REPORT_ONLY = process.argv.includes('--report-only');
const NETNS = process.argv.includes('--netns') && !REPORT_ONLY;
const IN_NETNS = process.env.BULLMQ_SUITE_IN_NETNS === '1';
if (NETNS && !IN_NETNS) {
  // Again, inside a new user and network namespace with its loopback up.
  const r = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BULLMQ_SUITE_IN_NETNS: '1' },
  });
  process.exit(r.status ?? 1);
}
const range = /^(\d+)-(\d+)$/.exec(arg('ports', ''));
let nextPort = range === null ? 0 : Number(range[1]);

function listenOnce(port) {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(undefined));
    s.listen(port, '127.0.0.1', () => {
      const got = s.address().port;
      s.close(() => res(got));
    });
  });
}

async function freePort() {
  if (IN_NETNS) return 6379; // the servers run one after the other, alone in the namespace
  if (range === null) return listenOnce(0);
  for (let p = nextPort; p <= Number(range[2]); p++) {
    nextPort = p + 1;
    if ((await listenOnce(p)) !== undefined) return p;
  }
  throw new Error(`no free port in ${arg('ports', '')}`);
}

async function waitForPort(port) {
  for (let i = 0; i < 400; i++) {
    const ok = await new Promise((res) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), res(true)));
      s.once('error', () => res(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** Starts a server; resolves with its port and a stop function. */
async function start(name) {
  const port = await freePort();
  const child =
    name === 'redis'
      ? spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
      : spawn(process.execPath, [SLUICE_MAIN, 'server', '--port', String(port)], { stdio: 'ignore' });
  await waitForPort(port);
  const stop = () =>
    new Promise((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      child.once('exit', () => res());
      child.kill('SIGTERM');
    });
  return { port, stop };
}

/**
 * BullMQ's pretest without its lint steps (the Lua scripts as TypeScript modules in src/scripts),
 * then its CommonJS build: sandboxed processors run dist/cjs/classes/main.js in child processes.
 */
function prepare() {
  const steps = [];
  if (!existsSync(join(BULLMQ, 'src/scripts'))) steps.push(['npm', 'run', 'generate:raw:scripts'], ['npm', 'run', 'transform:commands']);
  if (!existsSync(join(BULLMQ, 'dist/cjs/classes/main.js'))) steps.push(['npx', 'tsc', '-p', 'tsconfig-cjs.json']);
  for (const [cmd, ...args] of steps) {
    const r = spawnSync(cmd, args, { cwd: BULLMQ, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${BULLMQ}`);
  }
}

/** Runs the suite's configs against a port; returns Map(test full name -> { status, message }). */
function runSuite(name, port) {
  const tests = new Map();
  for (const config of CONFIGS) runConfig(name, port, config, tests);
  return tests;
}

function runConfig(name, port, config, tests) {
  const out = join(JSON_DIR, `${name}-${config}.json`);
  const args = ['vitest', 'run', '--config', config === 'default' ? 'vitest.config.ts' : `vitest.${config}.config.ts`, '--no-file-parallelism', `--testTimeout=${TIMEOUT_MS}`, `--hookTimeout=${TIMEOUT_MS}`, '--reporter=json', `--outputFile=${out}`, '--reporter=dot', ...FILES];
  if (!REPORT_ONLY) {
    process.stderr.write(`${name}: npx ${args.join(' ')} (REDIS_PORT=${port})\n`);
    rmSync(out, { force: true });
    spawnSync('npx', args, { cwd: BULLMQ, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, REDIS_HOST: '127.0.0.1', REDIS_PORT: String(port), VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' } });
  }
  if (!existsSync(out)) return; // --files named none of this config's tests
  const report = JSON.parse(readFileSync(out, 'utf8'));
  for (const file of report.testResults) {
    const rel = file.name.slice(BULLMQ.length + 1);
    // A file that failed to load or whose hooks failed reports no tests: one entry stands for it.
    if (file.assertionResults.length === 0 && file.status === 'failed') tests.set(`${rel} (file)`, { status: 'failed', message: file.message });
    for (const t of file.assertionResults) {
      tests.set(`${rel} > ${t.fullName}`, { status: t.status, message: (t.failureMessages ?? [])[0] ?? '' });
    }
  }
}

const firstLine = (message) => String(message).split('\n')[0].slice(0, 200);
const count = (tests, status) => [...tests.values()].filter((t) => t.status === status).length;

if (!REPORT_ONLY) prepare();
const results = {};
for (const name of ['redis', 'sluice']) {
  if (ONLY !== '' && ONLY !== name) continue;
  if (REPORT_ONLY) {
    results[name] = runSuite(name, 0);
    continue;
  }
  const server = await start(name);
  try {
    results[name] = runSuite(name, server.port);
  } finally {
    await server.stop();
  }
}

for (const [name, tests] of Object.entries(results)) {
  process.stdout.write(`${name.padEnd(7)} passed ${count(tests, 'passed')}, failed ${count(tests, 'failed')}, skipped ${tests.size - count(tests, 'passed') - count(tests, 'failed')}\n`);
}
if (results.redis && results.sluice) {
  const ratio = count(results.sluice, 'passed') / count(results.redis, 'passed');
  process.stdout.write(`ratio sluice/redis passed: ${(100 * ratio).toFixed(1)}%\n`);
  const lost = [...results.redis].filter(([k, t]) => t.status === 'passed' && results.sluice.get(k)?.status !== 'passed');
  process.stdout.write(`\npassed on redis-server, not on sluice (${lost.length}):\n`);
  for (const [k] of lost) {
    const s = results.sluice.get(k);
    const why = s === undefined ? 'not run' : `${s.status}: ${firstLine(s.message)}`;
    process.stdout.write(`  ${k}\n      ${why}\n`);
  }
  const gained = [...results.sluice].filter(([k, t]) => t.status === 'passed' && results.redis.get(k)?.status !== 'passed');
  if (gained.length > 0) process.stdout.write(`\npassed on sluice, not on redis-server (${gained.length}):\n${gained.map(([k]) => `  ${k}\n`).join('')}`);
}
for (const [name, tests] of Object.entries(results)) {
  const failed = [...tests].filter(([, t]) => t.status === 'failed');
  process.stdout.write(`\nfailed on ${name} (${failed.length}):\n${failed.map(([k, t]) => `  ${k}\n      ${firstLine(t.message)}\n`).join('')}`);
}
process.stderr.write(`vitest reports in ${JSON_DIR}\n`);
