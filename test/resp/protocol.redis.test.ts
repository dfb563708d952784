// Replays request-cases.ts over real sockets against redis-server and the sluice server,
// and requires the same bytes back from both: the parser's errors as the client sees them,
// and the replies of the commands it parsed. Each exchange ends when the server closes the
// connection (after a protocol error, or after a trailing QUIT), so nothing waits on a timer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { startRedis, type Target } from '../differential/targets.js';
import fc from 'fast-check';
import { ReplyParser } from '../support/reply-parser.js';
import { parseChunks } from './helpers.js';
import { CASES } from './request-cases.js';

const QUIT = '*1\r\n$4\r\nQUIT\r\n';
/** Commands whose replies are settled elsewhere; other cases are compared only for errors. */
const SIMPLE = new Set(['ping', 'echo', 'set', 'get', 'quit']);

let redis: Target;
let redisPort: number;
let sluice: RunningServer;

before(async () => {
  redis = await startRedis();
  redisPort = Number(redis.name.split(':').pop()); // named "redis-server:PORT"
  sluice = await startServer({ port: 0, bind: '127.0.0.1' });
});

after(async () => {
  await redis?.stop();
  await sluice?.close();
});

/** Sends bytes and resolves to everything received until the server closes the connection. */
function exchange(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection({ port, host: '127.0.0.1' });
    const received: Buffer[] = [];
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d) => received.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(received).toString('latin1')));
  });
}

for (const c of CASES) {
  if (c.chunkSensitive) continue;
  let bytes: Buffer;
  if (c.error !== undefined) {
    bytes = Buffer.from(c.input, 'latin1');
  } else {
    // Only cases that end on a request boundary can be closed with QUIT.
    const withQuit = parseChunks([Buffer.from(c.input + QUIT, 'latin1')]);
    const atBoundary = withQuit.commands.length === c.commands.length + 1 && withQuit.commands.at(-1)?.[0] === 'QUIT';
    const simple = c.commands.every((argv) => SIMPLE.has(argv[0]!.toLowerCase()));
    if (!atBoundary || !simple) continue;
    bytes = Buffer.from(c.input + QUIT, 'latin1');
  }
  const label = JSON.stringify(c.input.length > 50 ? `${c.input.slice(0, 50)}...` : c.input);
  test(`redis-server and sluice answer ${label} alike`, { timeout: 30_000 }, async () => {
    const [fromRedis, fromSluice] = await Promise.all([exchange(redisPort, bytes), exchange(sluice.port, bytes)]);
    if (c.error !== undefined) assert.ok(fromRedis.endsWith(`-${c.error}\r\n`), `redis said ${JSON.stringify(fromRedis)}`);
    else assert.ok(fromRedis.endsWith('+OK\r\n'), `redis said ${JSON.stringify(fromRedis)}`);
    assert.equal(fromSluice, fromRedis);
  });
}

// Random protocol-flavoured garbage ending in "*x\r\n", kept when our parser ends it with a
// ProtocolError: redis-server must split it into as many commands (one reply each: the
// alphabet cannot spell a blocking or multi-reply command) and close with the same error.
const garbageByte = fc.oneof(
  fc.constantFrom(...'*$\r\n\r\n0123456789-+"\'\\ x\t'.split('').map((ch) => ch.charCodeAt(0))),
  fc.integer({ min: 0, max: 255 }),
);

test('redis-server splits random garbage into the same commands and the same protocol error', { timeout: 120_000 }, async (t) => {
  let compared = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(garbageByte, { maxLength: 120 }), async (garbage) => {
      const bytes = Buffer.concat([Buffer.from(garbage), Buffer.from('*x\r\n')]);
      const ours = parseChunks([bytes]);
      if (ours.error === undefined) return; // still waiting for bytes: no deterministic end
      compared++;
      const replies = new ReplyParser();
      replies.push(Buffer.from(await exchange(redisPort, bytes), 'latin1'));
      const raws: string[] = [];
      for (let r = replies.next(); r !== undefined; r = replies.next()) raws.push(r.raw.toString('latin1'));
      assert.equal(raws.length, ours.commands.length + 1, `commands ${JSON.stringify(ours.commands)}`);
      // Compared as bytes: Redis echoes a non-ASCII byte raw in "expected '$', got 'X'".
      assert.equal(raws.at(-1), `-${ours.error}\r\n`);
    }),
    { numRuns: 1000 },
  );
  assert.ok(compared > 150, `only ${compared} samples ended in an error`);
  t.diagnostic(`${compared} garbage samples compared`);
});

test('unauthenticated clients get the same limits and errors', { timeout: 30_000 }, async () => {
  const admin = await redis.connect();
  const guarded = await startServer({ port: 0, bind: '127.0.0.1', requirepass: 'pw' });
  try {
    assert.equal((await admin.command(['CONFIG', 'SET', 'requirepass', 'pw'])).raw.toString(), '+OK\r\n');
    for (const input of ['*11\r\n', '*10\r\n$16385\r\n', '*2\r\n$4\r\nAUTH\r\n$2\r\nno\r\n*11\r\n', '*1\r\n$4\r\nPING\r\n' + QUIT]) {
      const bytes = Buffer.from(input, 'latin1');
      const [fromRedis, fromSluice] = await Promise.all([exchange(redisPort, bytes), exchange(guarded.port, bytes)]);
      assert.match(fromRedis, /unauthenticated|NOAUTH/);
      assert.equal(fromSluice, fromRedis, JSON.stringify(input));
    }
  } finally {
    await admin.command(['CONFIG', 'SET', 'requirepass', '']);
    admin.close();
    await guarded.close();
  }
});

test('unknown commands and subcommands echo their arguments as raw bytes, cut where Redis cuts them', { timeout: 30_000 }, async () => {
  const multibulk = (...args: Buffer[]): Buffer =>
    Buffer.concat([Buffer.from(`*${args.length}\r\n`), ...args.flatMap((a) => [Buffer.from(`$${a.length}\r\n`), a, Buffer.from('\r\n')])]);
  const cases = [
    multibulk(Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('é'.repeat(100)), Buffer.from('x')),
    multibulk(Buffer.from('ñ'.repeat(70)), Buffer.from([0xc3])),
    multibulk(Buffer.from('CLIENT'), Buffer.from([0xff, 0x80, 0x41])),
  ];
  for (const request of cases) {
    const bytes = Buffer.concat([request, Buffer.from(QUIT)]);
    const [fromRedis, fromSluice] = await Promise.all([exchange(redisPort, bytes), exchange(sluice.port, bytes)]);
    assert.match(fromRedis, /^-ERR unknown (sub)?command/);
    assert.equal(fromSluice, fromRedis); // both read as latin1: byte for byte
  }
});
