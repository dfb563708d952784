// The package as a new user gets it: packed from a fresh checkout (no dist/: npm's `prepare`
// builds it), installed from the tarball into an empty project, then imported as ESM, required
// as CommonJS, type-checked by a strict TypeScript consumer without skipLibCheck, and run as
// `npx sluice`. Installing needs the npm registry (sluice's dependencies, typescript,
// @types/node); npm's cache, filled by `npm ci`, answers most of it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runToExit } from '../support/processes.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const ownPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; engines: { node: string } };
const installedVersion = (name: string): string =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

let work: string;
let tarball: string;
let app: string;

async function run(cmd: string, args: string[], cwd: string, timeoutMs = 240_000): Promise<string> {
  const { code, output } = await runToExit(cmd, args, { cwd, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' }, timeoutMs });
  assert.equal(code, 0, `${cmd} ${args.join(' ')} (in ${cwd}) exited ${code}:\n${output}`);
  return output;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'sluice-package-'));
  // A fresh checkout: the files git tracks or would (no dist/), with the dev dependencies the build needs.
  const checkout = join(work, 'checkout');
  const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of tracked) {
    if (!existsSync(join(ROOT, file))) continue; // deleted in the work tree, not yet committed
    mkdirSync(dirname(join(checkout, file)), { recursive: true });
    cpSync(join(ROOT, file), join(checkout, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
  await run('npm', ['pack', '--pack-destination', work], checkout);
  tarball = join(work, `sluice-${ownPackage.version}.tgz`);

  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sluice-consumer', version: '1.0.0', private: true }));
  await run(
    'npm',
    ['install', '--prefer-offline', '--no-package-lock', tarball, `typescript@${installedVersion('typescript')}`, `@types/node@${installedVersion('@types/node')}`],
    app,
  );
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the license, the built entry, the CLI and the sources its maps name', () => {
  const files = new Set(execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean));
  for (const f of ['LICENSE', 'README.md', 'package.json', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/main.js', 'dist/src/dashboard/assets/index.html']) {
    assert.ok(files.has(`package/${f}`), `package/${f} missing`);
  }
  assert.ok(![...files].some((f) => f.startsWith('package/dist/test/') || f.startsWith('package/dist/bench/')), 'tests or benches shipped');
  const root = join(app, 'node_modules/sluice');
  const maps = [...files].filter((f) => f.endsWith('.map')).map((f) => f.slice('package/'.length));
  assert.ok(maps.length > 100, `${maps.length} source maps`);
  const unresolved: string[] = [];
  for (const map of maps) {
    const { sources } = JSON.parse(readFileSync(join(root, map), 'utf8')) as { sources: string[] };
    for (const source of sources) {
      const target = posix.normalize(posix.join(posix.dirname(map), source));
      if (!files.has(`package/${target}`)) unresolved.push(`${map} -> ${source}`);
    }
  }
  assert.deepEqual(unresolved, []);
});

test('engines names the Node.js versions that can require() the ES module entry', () => {
  // require(esm) without a flag: Node 20.19 and later on the 20 line.
  assert.equal(ownPackage.engines.node, '>=20.19.0');
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  assert.ok(major > 20 || minor >= 19, `this Node (${process.versions.node}) is older than engines allows`);
});

// A small job end to end on the embedded engine: what the README's getting-started does.
const roundTrip = (load: string) => `
${load}
const db = await open();
const conn = await connect(db);
await new Producer(conn, { stream: 'orders' }).add({ orderId: 7 });
const worker = new Worker(conn, { stream: 'orders', group: 'billing' }, async (job) => job.payload.orderId);
const done = new Promise((resolve) => worker.once('completed', (job) => resolve(job.payload.orderId)));
await worker.start();
console.log('handled order', await done);
// Lua runs from the installed package (lua.wasm is found beside the compiled module's source).
console.log('script says', await db.call('EVAL', "return redis.call('XLEN', KEYS[1])", 1, 'orders'));
await worker.close();
await db.close();
`;

test('ESM: import from the package name', async () => {
  writeFileSync(join(app, 'esm.mjs'), roundTrip(`import { connect, open, Producer, Worker } from 'sluice';`));
  const out = await run(process.execPath, ['esm.mjs'], app, 30_000);
  assert.match(out, /handled order 7/);
  assert.match(out, /script says 1/);
});

test('CommonJS: require the package name', async () => {
  writeFileSync(join(app, 'cjs.cjs'), `(async () => {${roundTrip(`const { connect, open, Producer, Worker } = require('sluice');`)}})();`);
  const out = await run(process.execPath, ['cjs.cjs'], app, 30_000);
  assert.match(out, /handled order 7/);
  assert.match(out, /script says 1/);
});

test('a strict TypeScript consumer type-checks without skipLibCheck', async () => {
  writeFileSync(
    join(app, 'consumer.ts'),
    `import * as sluice from 'sluice';
import { connect, open, Producer, Worker, type Job, type Connection } from 'sluice';

interface Order { orderId: number }
export async function main(): Promise<void> {
  const db = await open();
  const conn: Connection = await connect(db);
  await new Producer(conn, { stream: 'orders' }).add({ orderId: 1 } satisfies Order);
  const worker = new Worker<Order>(conn, { stream: 'orders', group: 'g' }, async (job: Job<Order>) => {
    const id: number = job.payload.orderId;
    return id;
  });
  await worker.close();
  await db.close();
}
export const everything = Object.keys(sluice);
`,
  );
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'], skipLibCheck: false }, files: ['consumer.ts'] }));
  await run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], app, 120_000);
});

test('npx sluice --help lists the commands', async () => {
  const out = await run('npx', ['--no-install', 'sluice', '--help'], app, 30_000);
  for (const command of ['server', 'demo', 'stats', 'dlq', 'dashboard']) assert.match(out, new RegExp(`\\b${command}\\b`), out);
  assert.ok(readdirSync(join(app, 'node_modules/.bin')).includes('sluice'));
});
