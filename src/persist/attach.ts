import type { Instance } from '../commands/instance.js';

export interface PersistOptions {
  dir: string;
  appendfsync: 'always' | 'everysec' | 'no';
}

/** Loads the append-only file in `dir` into the instance and logs every later write to it. */
export async function attachPersistence(
  _instance: Instance,
  _options: PersistOptions,
  _onClose: (fn: () => Promise<void>) => void,
): Promise<void> {
  throw new Error('persistence is not available yet');
}
