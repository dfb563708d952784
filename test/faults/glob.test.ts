// Glob patterns that are exponential for a naive matcher (`a*a*…*b` against a long run of 'a'),
// sent to KEYS, SCAN MATCH and PSUBSCRIBE + PUBLISH on sluice server and redis-server side by
// side. Redis's stringmatchlen gives up once the rest of a pattern failed everywhere, so it
// answers at once; sluice must too, and another client's PING must not wait behind it.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { type ServerProcess, startRedisProcess, startSluiceProcess, stopAll } from '../server/processes.js';
import { RespClient, type Wire } from '../server/resp-client.js';

after(stopAll);

const LIMIT_MS = 3000;

/** The reply, or a failure naming `what` once LIMIT_MS passed (the server is then stuck). */
async function within<T>(what: string, work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${LIMIT_MS} ms`)), LIMIT_MS);
  });
  try {
    const value = await Promise.race([work, deadline]);
    return { value, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

const long = 'a'.repeat(30_000);
const hostile = ['a*'.repeat(40) + 'b', '*a'.repeat(40) + 'b', '*a*?'.repeat(30) + '[b]', ('a*'.repeat(20) + '?').repeat(3) + 'b'];

const show = (w: Wire): string => JSON.stringify(w, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

/** The key names of a KEYS reply or of a SCAN reply's second element, sorted, long ones by length. */
function names(w: Wire): string {
  const list = w.t === 'array' && w.v?.[1]?.t === 'array' ? w.v[1] : w;
  if (list.t !== 'array' || list.v === null) return show(list);
  return list.v.map((k) => (k.t === 'bulk' && k.v !== null && k.v.length > 40 ? `<${k.v.length} bytes>` : show(k))).sort().join(',');
}

async function probe(server: ServerProcess): Promise<string[]> {
  const client = await RespClient.connect(server.port);
  const bystander = await RespClient.connect(server.port);
  const subscriber = await RespClient.connect(server.port);
  const seen: string[] = [];
  try {
    await client.call('SET', long, '1');
    await client.call('SET', `${long}b`, '1');
    await client.call('SET', 'ab', '1');
    for (const pattern of hostile) {
      const name = `${server.name} ${pattern.slice(0, 12)}…`;
      const keys = client.call('KEYS', pattern);
      const ping = bystander.call('PING');
      const { value } = await within(`${name} KEYS`, keys);
      await within(`${name} PING behind KEYS`, ping);
      const scan = await within(`${name} SCAN MATCH`, client.call('SCAN', '0', 'COUNT', '100', 'MATCH', pattern));
      await within(`${name} PSUBSCRIBE`, subscriber.call('PSUBSCRIBE', pattern));
      const published = await within(`${name} PUBLISH`, client.call('PUBLISH', long, 'm'));
      seen.push(`KEYS ${names(value)} SCAN ${names(scan.value)} PUBLISH ${show(published.value)}`);
    }
    return seen;
  } finally {
    client.close();
    bystander.close();
    subscriber.close();
  }
}

test('exponential glob patterns: KEYS, SCAN MATCH, PUBLISH to pattern subscribers answer at once, as on redis-server', async () => {
  const redis = await startRedisProcess();
  const sluice = await startSluiceProcess();
  const expected = await probe(redis);
  assert.deepEqual(await probe(sluice), expected);
});
