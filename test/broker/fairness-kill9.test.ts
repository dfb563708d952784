// Per-key fairness with a worker killed by SIGKILL while it holds fair-key slots, on redis-server
// and sluice server (the embedded engine lives in one process: no other process could take over).
// Three worker processes with fairness.concurrency 3 serve two keys; one is killed just after it
// started a job of the busy key (it holds that key's slot). Every start and end is stamped with
// the machine's monotonic clock. Checked: every job is handled; the killed worker's slots were
// leased to expire within claimIdleMs of the kill (its last renewal); the key never ran more
// than 3 first deliveries at once (the killed one's runs counted until the kill); and after the
// kill the survivors ran 3 of the key at once again: the dead slots came back.
// A job of the killed worker's, claimed and run again, runs without a slot (docs/fairness.md: a
// retry takes none), so such runs are left out of the count.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { activeKey } from '../../src/broker/fairness/lanes.js';
import { Producer } from '../../src/broker/producer.js';
import { describeEach, redisServer, sluiceServer } from './backends.js';
import { type LineReporter, spawnLineReporter, stopChild } from '../support/processes.js';
import { waitFor } from '../support/wait.js';
import { mostAtOnce } from './runs-at-once.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'fairness-worker-process.js');
const LIMIT = 3;
const HOT = 450;
const COOL = 100;
// Leases last claimIdleMs: a live process starved longer than that (a loaded machine) loses its
// slots by design, which is not what this test is about.
const CLAIM_IDLE_MS = 1000;
// The movers and renewals follow the server's clock from one TIME (global-concurrency.ts's
// SlotLeases.now), which may run ahead of it by that TIME's round trip.
const CLOCK_SLACK_MS = 200;

interface Run {
  key: string;
  first: boolean;
  token: string;
  start: bigint;
  end: bigint | null;
}

describeEach([redisServer, sluiceServer], (name) => `per-key fairness with a worker SIGKILLed holding slots on ${name}`, (b) => {
  const children: ChildProcess[] = [];
  after(async () => {
    for (const c of children) await stopChild(c, 'SIGKILL');
  });

  test(`${HOT} + ${COOL} jobs of two keys, 3 processes, fairness.concurrency ${LIMIT}, one SIGKILLed holding a slot: all handled, the slot back within claimIdleMs`, async () => {
    const conn = await b.connect();
    const stream = `{fk9-${process.pid}}`;
    const runs: Array<Map<string, Run>> = [];
    const workers: LineReporter[] = [];
    for (let i = 0; i < 3; i++) {
      const mine = new Map<string, Run>();
      runs.push(mine);
      const worker = spawnLineReporter(SCRIPT, [b.url!, stream, `w${i}`, String(CLAIM_IDLE_MS), String(LIMIT)], (line) => {
        const [kind, key, n, ...more] = line.split(' ');
        if (kind === 's') mine.set(`${key}:${n}:${more[3]}`, { key: key!, first: more[0] === '1', token: more[1]!, start: BigInt(more[2]!), end: null });
        if (kind === 'e') for (const [id, run] of mine) if (run.end === null && id.startsWith(`${key}:${n}:`)) run.end = BigInt(more[0]!);
      });
      workers.push(worker);
      children.push(worker.child);
      await worker.ready;
    }
    const producer = new Producer<{ k: string; n: number }>(conn, { stream });
    await producer.addMany(Array.from({ length: HOT }, (_, n) => ({ payload: { k: 'hot', n }, fairKey: 'hot' })), { keyed: true });
    await producer.addMany(Array.from({ length: COOL }, (_, n) => ({ payload: { k: 'cool', n }, fairKey: 'cool' })), { keyed: true });
    const receipts = async (): Promise<number> => Number(await conn.call('HLEN', `${stream}:receipts`));
    await waitFor(async () => (await receipts()) >= HOT / 5, 'a fifth handled');
    // A process that started a job of 'hot' within the last 15 ms: it still holds that slot
    // when the signal lands (one with any open run could have ended it already, unread here).
    const justStarted = (i: number): boolean => {
      const now = process.hrtime.bigint();
      return [...runs[i]!.values()].some((r) => r.key === 'hot' && r.first && r.end === null && now - r.start < 15_000_000n);
    };
    await waitFor(() => [0, 1, 2].some(justStarted), "a process that just took a slot of 'hot'", 20_000, 1);
    const victim = [0, 1, 2].find(justStarted)!;
    const killedAt = process.hrtime.bigint();
    await stopChild(children[victim]!, 'SIGKILL');
    await waitFor(() => workers[victim]!.exitedAt() !== null, 'the victim gone');

    // The victim's slots, as it left them: each lease ends within claimIdleMs of its last renewal.
    const [s, us] = (await conn.call('TIME')) as [string, string];
    const serverNow = Number(s) * 1000 + Math.floor(Number(us) / 1000);
    const victimTokens = new Set([...runs[victim]!.values()].map((r) => r.token));
    const leases = (await conn.call('ZRANGE', activeKey(stream, 'hot'), 0, -1, 'WITHSCORES')) as string[];
    const left: number[] = [];
    for (let i = 0; i < leases.length; i += 2) if (victimTokens.has(leases[i]!)) left.push(Number(leases[i + 1]));
    assert.ok(left.some((expiry) => expiry > serverNow), `the victim held a live slot of 'hot' (${left.length} of its leases left)`);
    for (const expiry of left) assert.ok(expiry <= serverNow + CLAIM_IDLE_MS + CLOCK_SLACK_MS, `a dead slot leased ${expiry - serverNow} ms past the kill (claimIdleMs ${CLAIM_IDLE_MS})`);

    await waitFor(async () => (await receipts()) === HOT + COOL, 'all handled', 60_000);
    // A receipt is written before its end is printed: wait for the live processes' ends.
    const open = (i: number): number => [...runs[i]!.values()].filter((r) => r.end === null).length;
    await waitFor(() => [0, 1, 2].every((i) => i === victim || open(i) === 0), 'every run of a live process ended', 10_000);

    for (const key of ['hot', 'cool']) {
      // First deliveries of `key` (a claimed rerun takes no slot).
      const { most, mostAfterKill } = mostAtOnce(runs, victim, killedAt, (r) => r.key === key && r.first);
      assert.ok(most <= LIMIT, `${most} jobs of '${key}' ran at once (limit ${LIMIT})`);
      // While a dead slot was held the survivors could run at most LIMIT - 1 of 'hot'.
      if (key === 'hot') assert.equal(mostAfterKill, LIMIT, "after the kill the survivors ran 3 of 'hot' at once: the dead slot came back");
    }
    await conn.close();
  });
});
