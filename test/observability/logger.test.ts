// The logger option: the library's notices reach the logger the user passes (open, connect,
// serve, Worker), and without one the library prints nothing at all.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect, type Logger, open, Producer, serve, silentLogger, Worker } from 'sluice';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const INCR = 'appendonlydir/appendonly.aof.1.incr.aof';

function recordingLogger(): Logger & { lines: Array<[level: string, msg: string]> } {
  const lines: Array<[string, string]> = [];
  const at = (level: string) => (msg: string) => void lines.push([level, msg]);
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A data directory whose AOF ends in a torn record (a crash mid-write). */
async function tornDir(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-logger-'));
  const db = await open({ dir, appendfsync: 'always' });
  await db.call('SET', 'k', 'v');
  await db.close();
  appendFileSync(join(dir, INCR), '*3\r\n$3\r\nSET\r\n$1\r\nx');
  return dir;
}

/** Opens a torn data directory through `use` with a recording logger; returns what was logged. */
async function loggedWhileOpening(use: (dir: string, logger: Logger) => Promise<void>): Promise<Array<[string, string]>> {
  const dir = await tornDir();
  try {
    const logger = recordingLogger();
    await use(dir, logger);
    return logger.lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const logged = (lines: Array<[string, string]>, level: string, text: string): boolean =>
  lines.some(([l, msg]) => l === level && msg.includes(text));

test('open({ dir, logger }) reports the torn AOF tail and the load to the logger', async () => {
  const lines = await loggedWhileOpening(async (dir, logger) => {
    const db = await open({ dir, logger });
    assert.equal(await db.call('GET', 'k'), 'v');
    await db.close();
  });
  assert.ok(logged(lines, 'warn', 'short read while loading the AOF file'), JSON.stringify(lines));
  assert.ok(logged(lines, 'info', 'DB loaded from append only file'));
});

test('connect("embedded:DIR", { logger }) passes the logger to the database', async () => {
  const lines = await loggedWhileOpening(async (dir, logger) => {
    const conn = await connect(`embedded:${dir}`, { logger });
    assert.equal(await conn.call('GET', 'k'), 'v');
    await conn.close();
  });
  assert.ok(logged(lines, 'warn', 'short read'));
});

test('serve({ dir, logger }) logs through the logger', async () => {
  const lines = await loggedWhileOpening(async (dir, logger) => {
    const server = await serve({ port: 0, dir, logger });
    await server.close();
  });
  assert.ok(logged(lines, 'warn', 'short read'));
  assert.ok(logged(lines, 'info', 'DB loaded from append only file'));
});

test('without a logger the library prints nothing, even on a torn AOF', async () => {
  const dir = await tornDir();
  try {
    const script = `
      import { open, serve } from 'sluice';
      const db = await open({ dir: process.argv[1] });
      if ((await db.call('GET', 'k')) !== 'v') process.exit(3);
      await db.close();
      const server = await serve({ port: 0, dir: process.argv[1] });
      await server.close();
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, dir], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.equal(run.stdout, '');
    // The same file did produce a notice: the silence is the default, not an absence of events.
    const logger = recordingLogger();
    await (await open({ dir: dir, logger })).close();
    assert.ok(logger.lines.length > 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a Worker logs dead letters (warn) and failures (debug) to its logger', async () => {
  const db = await open();
  const conn = await connect(db);
  const logger = recordingLogger();
  await new Producer(conn, { stream: 'jobs' }).add({ n: 1 });
  const worker = new Worker(conn, { stream: 'jobs', group: 'g', maxDeliveries: 1, logger }, () => {
    throw new Error('no luck');
  });
  const dead = new Promise((resolve) => worker.once('deadLettered', resolve));
  await worker.start();
  await dead;
  await worker.close();
  await conn.close();
  await db.close();
  assert.ok(logger.lines.some(([level, msg]) => level === 'debug' && msg.includes('failed (delivery 1): no luck')));
  assert.ok(logger.lines.some(([level, msg]) => level === 'warn' && msg.includes('dead-lettered after 1 deliveries: no luck')));
  assert.deepEqual(Object.keys(silentLogger).sort(), ['debug', 'error', 'info', 'warn']);
});
