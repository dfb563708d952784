// Shared set-up for the keyspace/string/hash/set tests: an embedded database on a clock the
// test moves by hand, and a recorder of what the database propagates to the AOF.
import { open, type EmbeddedDatabase } from '../../src/client/embedded.js';
import { recordPropagatedLines } from '../support/recording-persistence.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';

export interface Clock {
  now: number;
  advance(ms: number): void;
}

export async function openWithClock(start = 1_700_000_000_000): Promise<{ db: EmbeddedDatabase; clock: Clock }> {
  const clock: Clock = {
    now: start,
    advance(ms) {
      this.now += ms;
    },
  };
  const db = await open({ now: () => clock.now });
  return { db, clock };
}

/** Records each propagated batch as readable command lines, e.g. "PEXPIREAT k 1700000010000". */
export function recordPropagation(db: EmbeddedDatabase): string[] {
  return recordPropagatedLines(instanceBehind(db));
}
