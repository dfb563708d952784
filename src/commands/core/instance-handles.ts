// The Instance behind a public handle: an EmbeddedDatabase, or the Server that serve() returns.
// The handles' declared types do not show it (the Instance is sluice's inside, not its API, see
// api/sluice.api.md), so sluice's own code reaches it here: serverMetricsRegistry, the CLI,
// tests. The package entry does not export this module.
import type { Instance } from './instance.js';

const instances = new WeakMap<object, Instance>();

/** Records the instance a handle runs on; called once, where the handle is made. */
export function attachInstance(handle: object, instance: Instance): void {
  instances.set(handle, instance);
}

/** The instance of a handle made by open(), new EmbeddedDatabase() or serve(). */
export function instanceBehind(handle: object): Instance {
  const instance = instances.get(handle);
  if (instance === undefined) throw new TypeError('not a sluice database or server (made by open(), new EmbeddedDatabase() or serve())');
  return instance;
}
