// A pause seen while the worker's next read is on its way to the server: the interrupt can
// arrive first (it travels on another connection), and that read then blocks for blockMs and
// takes entries added while the group is paused. The blocking connection here holds every
// XREADGROUP at a gate, so the interrupt surely comes first; 'paused' must then wait until
// that read has been ended too.
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

test('a read sent just before a pause is seen is ended too: nothing is taken while paused', async () => {
  const db = await open();
  const base = await connect(db);
  let gate: Promise<void> | null = null;
  let openGate = (): void => {};
  let held = 0;
  let interrupts = 0;
  const conn: Connection = wrap(base, {
    duplicate: async (): Promise<BlockingConnection> => {
      const blocking = await base.duplicate();
      return wrap(blocking, {
        call: async (...args: Parameters<BlockingConnection['call']>) => {
          if (args[0] === 'XREADGROUP' && gate !== null) {
            held++;
            await gate;
          }
          return blocking.call(...args);
        },
        interrupt: async () => {
          interrupts++;
          await blocking.interrupt();
        },
      });
    },
  });
  const stream = 'orders';
  const producer = new Producer(base, { stream });
  let handled = 0;
  let paused = false;
  const worker = new Worker<number>(conn, { stream, group: 'g', pauseCheckMs: 10, blockMs: 5000 }, () => void handled++);
  worker.on('paused', () => (paused = true));
  await worker.start();
  await producer.add(1);
  await waitFor(() => handled === 1, 'the first entry');

  // The next read is held on its way; the pause is seen and interrupted while it is.
  gate = new Promise((resolve) => (openGate = resolve));
  await producer.add(2); // ends the read blocked now; the one after it is held
  await waitFor(() => handled === 2 && held === 1, 'the next read held at the gate');
  const before = interrupts;
  await pauseGroup(base, stream, 'g');
  await waitFor(() => interrupts > before, 'the pause interrupting (nothing blocked yet)');
  gate = null;
  openGate(); // the held XREADGROUP BLOCK reaches the engine after the interrupt
  await waitFor(() => paused, "'paused'");

  await producer.add(3);
  // A read still blocked would have been served by that XADD before it replied.
  const [group] = await groupLag(base, stream);
  assert.deepEqual([group!.entriesRead, group!.pending], [2, 0], 'nothing taken while paused');

  await resumeGroup(base, stream, 'g');
  await waitFor(() => handled === 3, 'the entry added while paused, after resume');
  await worker.close();
  await db.close();
});
