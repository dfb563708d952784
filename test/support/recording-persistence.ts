// A persistence layer that only records what commands propagate: for tests of the
// propagated forms. It has no file, so it cannot rewrite; SAVE and friends fail loudly.
import type { Instance } from '../../src/commands/core/instance.js';
import type { Persistence } from '../../src/commands/core/persistence.js';
import type { Propagated } from '../../src/commands/core/effects.js';

function noRewrites(): never {
  throw new Error('ERR the recording persistence of this test does not rewrite');
}

export function recordingPersistence(onBatch: (batch: Propagated[]) => void): Persistence {
  return {
    append: onBatch,
    barrier: () => null,
    writeError: () => null,
    bufferedBytes: 0,
    rewriting: false,
    saving: false,
    startRewrite: noRewrites,
    schedule: noRewrites,
    waitForSave: noRewrites,
    rewriteNow: noRewrites,
  };
}

/** One propagated command as a readable line, e.g. "PEXPIREAT k 1700000010000". */
export function commandLine(p: Propagated): string {
  return p.argv.map((a) => (typeof a === 'string' ? a : a.toString('latin1'))).join(' ');
}

/** Records every command the instance propagates from now on, as readable lines. */
export function recordPropagatedLines(instance: Instance): string[] {
  const lines: string[] = [];
  instance.persistence = recordingPersistence((batch) => {
    for (const p of batch) lines.push(commandLine(p));
  });
  return lines;
}
