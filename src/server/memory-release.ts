// Gives memory back after a client that held a big buffer leaves. A Buffer's memory is freed
// only when the garbage collector finalizes it, and an idle server allocates nothing that
// would start a collection: without this a 200 MB query buffer stays resident until the next
// burst of traffic. Redis frees such buffers at once; a full collection here does the same.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Buffers at least this big are worth a full collection once dropped. */
export const RELEASE_THRESHOLD = 16 * 1024 * 1024;

let collect: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    // Exposes gc() to contexts created from now on; this process's own flags are unchanged.
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  } catch {
    collect = null;
  }
  return collect;
}

let scheduled = false;

/** Schedules one full collection (coalesced) after `bytes` of buffers were dropped. */
export function buffersDropped(bytes: number): void {
  if (bytes < RELEASE_THRESHOLD || scheduled) return;
  const gc = collector();
  if (gc === null) return;
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    gc();
  }, 10).unref();
}
