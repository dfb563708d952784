// How many adds a batch of scripted adds (src/broker/scripted-batch.ts) makes: its ARGV[3],
// inside its one JSON argument when it goes as one.
import type { Arg } from '../../src/client/connection.js';

export function addsInBatch(c: Arg[]): number {
  const argv = c.slice(3 + Number(c[2]));
  return Number(argv.length === 1 ? (JSON.parse(String(argv[0])) as string[])[2] : argv[2]);
}
