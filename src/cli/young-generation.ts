// `sluice server` keeps V8's young generation at its starting size. V8 doubles the semi-spaces
// (up to 16 MB each) once enough objects have survived scavenges, which any server holding data
// soon causes, and it never gives those pages back: 1M XADDs left 34 MB of RSS in an empty new
// space. Held at its starting size, a server that loaded a 1M-entry AOF held 98.7 -> 86.1 MB of
// RSS, with pipelined SET/GET/XADD and the AOF load unchanged within noise (bench/aof.js,
// bench/redis-benchmark.js). Only the server sets it: the embedded engine lives in someone
// else's process, whose heap is theirs to tune. `--semi-space-growth-factor`, unlike
// `--max-semi-space-size`, is read each time V8 grows the space, so it can be set at run time.
import { setFlagsFromString } from 'node:v8';

export function holdYoungGeneration(): void {
  // A NODE_OPTIONS or command-line choice of the operator's wins.
  const chosen = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (chosen.some((f) => f.includes('semi-space'))) return;
  setFlagsFromString('--semi-space-growth-factor=1');
}
