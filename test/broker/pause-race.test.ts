// A pause seen while the worker's next read is on its way to the server: the interrupt can
// arrive first (it travels on another connection), and that read then blocks for blockMs and
// takes entries added while the group is paused. The blocking connection here holds every
// XREADGROUP at a gate, so the interrupt surely comes first; 'paused' must then wait until
// that read has been ended too (and close() must not wait blockMs for it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import type { BlockingConnection, Connection } from '../../src/client/connection.js';
import { open } from '../../src/client/embedded.js';
import { groupLag } from '../../src/broker/metrics.js';
import { pauseGroup, resumeGroup } from '../../src/broker/pause.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { waitFor } from '../support/wait.js';

/** Forwards to `target`, with `call` and `interrupt` replaced where `overrides` says. */
function wrap<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(t, p) {
      if (p in overrides) return overrides[p as keyof T];
      const v = Reflect.get(t, p, t) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

/**
 * An embedded connection whose blocking duplicates hold every XREADGROUP while the gate is
 * shut (`held` counts them) and count their interrupts.
 */
async function gatedConnection() {
  const db = await open();
  const base = await connect(db);
  let gate: Promise<void> | null = null;
  let openGate = (): void => {};
  const counts = { held: 0, interrupts: 0 };
  const conn: Connection = wrap(base, {
    duplicate: async (): Promise<BlockingConnection> => {
      const blocking = await base.duplicate();
      return wrap(blocking, {
        call: async (...args: Parameters<BlockingConnection['call']>) => {
          if (args[0] === 'XREADGROUP' && gate !== null) {
            counts.held++;
            await gate;
          }
          return blocking.call(...args);
        },
        interrupt: async () => {
          counts.interrupts++;
          await blocking.interrupt();
        },
      });
    },
  });
  return {
    db,
    base,
    conn,
    counts,
    shut(): void {
      gate = new Promise((resolve) => (openGate = resolve));
    },
    open(): void {
      gate = null;
      openGate();
    },
  };
}

/** Starts a worker, handles one entry, and leaves its next read held at the shut gate. */
async function workerWithHeldRead(gated: Awaited<ReturnType<typeof gatedConnection>>, blockMs: number) {
  const stream = 'orders';
  const producer = new Producer(gated.base, { stream });
  const handled = { count: 0 };
  // claimIntervalMs bounds a CLAIM read's block too (the embedded engine has them): as long as blockMs.
  const worker = new Worker<number>(gated.conn, { stream, group: 'g', pauseCheckMs: 10, blockMs, claimIntervalMs: blockMs }, () => void handled.count++);
  await worker.start();
  await producer.add(1);
  await waitFor(() => handled.count === 1, 'the first entry');
  // The read after it must be blocked in the engine before the gate shuts, or add(2) below
  // would find nothing to wake and the read would be the one held (slow machines).
  await waitFor(async () => /blocked_clients:1\r?\n/.test(String(await gated.base.call('INFO', 'clients'))), 'the next read blocked');
  gated.shut();
  await producer.add(2); // ends the read blocked now; the one after it is held
  await waitFor(() => handled.count === 2 && gated.counts.held === 1, 'the next read held at the gate');
  return { stream, producer, handled, worker };
}

test('a read sent just before a pause is seen is ended too: nothing is taken while paused', async () => {
  const gated = await gatedConnection();
  const { stream, producer, handled, worker } = await workerWithHeldRead(gated, 5000);
  let paused = false;
  worker.on('paused', () => (paused = true));

  // The pause is seen and interrupted while the read is held on its way.
  const before = gated.counts.interrupts;
  await pauseGroup(gated.base, stream, 'g');
  await waitFor(() => gated.counts.interrupts > before, 'the pause interrupting (nothing blocked yet)');
  gated.open(); // the held XREADGROUP BLOCK reaches the engine after the interrupt
  await waitFor(() => paused, "'paused'");

  await producer.add(3);
  // A read still blocked would have been served by that XADD before it replied.
  const [group] = await groupLag(gated.base, stream);
  assert.deepEqual([group!.entriesRead, group!.pending], [2, 0], 'nothing taken while paused');

  await resumeGroup(gated.base, stream, 'g');
  await waitFor(() => handled.count === 3, 'the entry added while paused, after resume');
  await worker.close();
  await gated.db.close();
});

test('close ends a read that reached the server after its interrupt, not after blockMs', { timeout: 30_000 }, async () => {
  const gated = await gatedConnection();
  // A read left blocked would hold close() for a minute: past this test's timeout.
  const { worker } = await workerWithHeldRead(gated, 60_000);
  const before = gated.counts.interrupts;
  const closed = worker.close();
  await waitFor(() => gated.counts.interrupts > before, 'close interrupting (nothing blocked yet)');
  gated.open();
  await closed;
  await gated.db.close();
});
