// BZPOPMIN / BZPOPMAX / BZMPOP over TCP, byte for byte against redis-server in RESP2 and RESP3:
// a client blocked on empty keys is woken by another client's ZADD (FIFO between two blocked
// clients), a timeout replies a null array, and a blocked command inside MULTI replies one at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WAIT_LIMIT_MS, waitFor } from '../support/wait.js';
import { type RawConnection, startRedis, startSluice, type Target } from './targets.js';

let redis: Target;
let sluice: Target;

before(async () => {
  sluice = await startSluice();
  redis = await startRedis();
});

after(async () => {
  await Promise.all([redis?.stop(), sluice?.stop()]);
});

/** Runs a scenario on a fresh database of a target and returns the raw replies it collected. */
async function scenario(target: Target, protocol: 2 | 3, run: (open: () => Promise<RawConnection>) => Promise<string[]>): Promise<string[]> {
  const conns: RawConnection[] = [];
  const open = async (): Promise<RawConnection> => {
    const c = await target.connect();
    conns.push(c);
    if (protocol === 3) await c.command(['HELLO', '3']);
    return c;
  };
  try {
    const admin = await open();
    await admin.command(['FLUSHALL']);
    return await run(open);
  } finally {
    for (const c of conns) c.close();
  }
}

/** Waits until `n` clients are blocked, as INFO clients reports. */
async function blockedClients(conn: RawConnection, n: number): Promise<void> {
  const blocked = async (): Promise<boolean> => (await conn.command(['INFO', 'clients'])).raw.toString('latin1').includes(`blocked_clients:${n}\r\n`);
  await waitFor(blocked, `${n} blocked clients`, WAIT_LIMIT_MS, 5);
}

const raw = async (p: Promise<{ raw: Buffer }>): Promise<string> => (await p).raw.toString('latin1');

const scenarios: Record<string, (open: () => Promise<RawConnection>) => Promise<string[]>> = {
  'two blocked clients are woken in order by one ZADD from a third': async (open) => {
    const [a, b, writer] = [await open(), await open(), await open()];
    const first = raw(a.command(['BZPOPMIN', 'nokey', 'z', '0']));
    await blockedClients(writer, 1);
    const second = raw(b.command(['BZPOPMAX', 'z', '0']));
    await blockedClients(writer, 2);
    const added = await raw(writer.command(['ZADD', 'z', '1.5', 'low', '2', 'mid', 'inf', 'high']));
    return [added, await first, await second, await raw(writer.command(['ZRANGE', 'z', '0', '-1', 'WITHSCORES']))];
  },
  'a timeout replies a null array': async (open) => {
    const a = await open();
    return [await raw(a.command(['BZPOPMIN', 'z', '0.05'])), await raw(a.command(['BZPOPMAX', 'z', 'y', '0.01']))];
  },
  'BZMPOP: blocked clients are served in order from the key that became ready, with COUNT': async (open) => {
    const [a, b, c, writer] = [await open(), await open(), await open(), await open()];
    const first = raw(a.command(['BZMPOP', '0', '2', 'z1', 'z2', 'MIN', 'COUNT', '2']));
    await blockedClients(writer, 1);
    const second = raw(b.command(['BZMPOP', '0', '1', 'z2', 'MAX']));
    await blockedClients(writer, 2);
    const third = raw(c.command(['BZMPOP', '0', '1', 'z2', 'MAX', 'COUNT', '10']));
    await blockedClients(writer, 3);
    // A key of another type leaves them waiting.
    const wrong = await raw(writer.command(['SET', 'z2', 'string']));
    const deleted = await raw(writer.command(['DEL', 'z2']));
    const added = await raw(writer.command(['ZADD', 'z2', '1', 'a', '2', 'b', '3', 'c', '4', 'd', '5', 'e']));
    return [wrong, deleted, added, await first, await second, await third, await raw(writer.command(['EXISTS', 'z2']))];
  },
  'a MULTI that fills two keys serves each blocked client from the key that became ready first': async (open) => {
    const [a, b, writer] = [await open(), await open(), await open()];
    const first = raw(a.command(['BZPOPMIN', 'k1', 'k2', '0']));
    await blockedClients(writer, 1);
    const second = raw(b.command(['BZMPOP', '0', '2', 'k1', 'k2', 'MAX']));
    await blockedClients(writer, 2);
    const out = [await raw(writer.command(['MULTI'])), await raw(writer.command(['ZADD', 'k2', '1', 'x', '2', 'y']))];
    out.push(await raw(writer.command(['ZADD', 'k1', '5', 'z'])), await raw(writer.command(['EXEC'])));
    return [...out, await first, await second, await raw(writer.command(['ZRANGE', 'k1', '0', '-1']))];
  },
  'BZMPOP: a timeout replies a null array; a wrong-type key errors at once': async (open) => {
    const a = await open();
    const out = [await raw(a.command(['BZMPOP', '0.05', '2', 'z', 'y', 'MIN']))];
    await a.command(['SET', 'y', 'v']);
    out.push(await raw(a.command(['BZMPOP', '0.01', '2', 'z', 'y', 'MAX', 'COUNT', '3'])));
    return out;
  },
  'inside MULTI the blocking pops reply at once': async (open) => {
    const a = await open();
    const out = [await raw(a.command(['MULTI'])), await raw(a.command(['BZPOPMIN', 'z', '0'])), await raw(a.command(['ZADD', 'z', '1', 'm']))];
    out.push(await raw(a.command(['BZPOPMAX', 'z', '0'])), await raw(a.command(['BZMPOP', '0', '2', 'y', 'z', 'MIN'])));
    out.push(await raw(a.command(['EXEC'])));
    return out;
  },
};

for (const [name, run] of Object.entries(scenarios)) {
  for (const protocol of [2, 3] as const) {
    test(`${name} (RESP${protocol})`, async () => {
      const expected = await scenario(redis, protocol, run);
      const actual = await scenario(sluice, protocol, run);
      assert.deepEqual(actual, expected);
    });
  }
}
