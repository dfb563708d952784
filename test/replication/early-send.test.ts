// EarlySend writes a full sync's header and RDB chunks while the snapshot is being written, as
// far as the socket takes them: whatever the kernel takes at each write (all, part, nothing),
// the bytes written at once followed by rest() must be the header and the whole RDB, in order,
// each byte once; and nothing is written once a write fell short until what is queued went.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { ClientState } from '../../src/commands/client-state.js';
import { EarlySend } from '../../src/replication/early-send.js';

test('the bytes written at once, then the rest, are the header and every chunk in order', () => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ minLength: 1, maxLength: 50 }), { minLength: 1, maxLength: 12 }),
      // What the kernel takes at each write: a share of what is offered (0: nothing).
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }),
      fc.nat(5),
      (chunkBytes, takes, lastKept) => {
        const chunks = chunkBytes.map((b) => Buffer.from(b));
        const head = Buffer.from('+FULLRESYNC 0123 0\r\n$EOF:mark\r\n');
        const written: Buffer[] = [];
        let call = 0;
        const client = {
          writeNow: (bytes: Buffer): number => {
            const n = Math.floor(bytes.length * takes[call++ % takes.length]!);
            written.push(Buffer.from(bytes.subarray(0, n)));
            return n;
          },
        } as unknown as ClientState;
        const early = EarlySend.start(client, head)!;
        // The snapshot's chunks but the last few are full while it is written.
        const offered = Math.max(0, chunks.length - Math.min(lastKept, chunks.length));
        for (let i = 0; i < offered; i++) early.chunk(chunks[i]!);
        const rest = early.rest(chunks);
        assert.deepEqual(Buffer.concat([...written, ...rest]), Buffer.concat([head, ...chunks]));
      },
    ),
    { numRuns: 300 },
  );
});

test('a connection that cannot write at once sends nothing early', () => {
  assert.equal(EarlySend.start({ writeNow: null } as unknown as ClientState, Buffer.from('x')), null);
});
