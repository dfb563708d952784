// Shared setup for the consumer-group tests: an embedded database with a manual clock (so idle
// times and delivery times are exact) and the propagated commands captured as strings.
import { type EmbeddedDatabase, open } from '../../../src/client/embedded.js';
import { recordPropagatedLines } from '../../support/recording-persistence.js';
import { instanceBehind } from '../../../src/commands/core/instance-handles.js';

export interface GroupTestDb {
  db: EmbeddedDatabase;
  /** The manual clock, in ms since the epoch. */
  clock: { now: number };
  /** Propagated commands, each joined with spaces. */
  log: string[];
  call(...args: Array<string | number>): Promise<unknown>;
  /** The error message a command fails with (throws if it succeeds). */
  error(...args: Array<string | number>): Promise<string>;
}

export const T0 = 1_700_000_000_000;

export async function groupDb(): Promise<GroupTestDb> {
  const clock = { now: T0 };
  const db = await open({ now: () => clock.now });
  const log = recordPropagatedLines(instanceBehind(db));
  return {
    db,
    clock,
    log,
    call: (...args) => db.call(...args),
    async error(...args) {
      try {
        await db.call(...args);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error(`expected ${args.join(' ')} to fail`);
    },
  };
}

/** Adds entries with ids 1-1, 2-1, ... n-1 to `key`, each with field f<i> value v<i>. */
export async function seedStream(t: GroupTestDb, key: string, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) await t.call('XADD', key, `${i}-1`, `f${i}`, `v${i}`);
}

/** groupDb with stream "s" seeded with n entries (seedStream) and group "g" created at 0. */
export async function streamWithGroup(n: number): Promise<GroupTestDb> {
  const t = await groupDb();
  await seedStream(t, 's', n);
  await t.call('XGROUP', 'CREATE', 's', 'g', '0');
  return t;
}
