// State a command family keeps per server instance, made at its first use and dropped with the
// instance (a WeakMap, so an embedded database that is closed takes it along): the scripts, the
// function libraries, the ACL users, SCAN's cursors, MIGRATE's cached connections.
import type { InstanceView } from './types.js';

/** A getter of `make(instance)`'s value, made once per instance. */
export function perInstance<T>(make: (instance: InstanceView) => T): (instance: InstanceView) => T {
  const values = new WeakMap<InstanceView, T>();
  return (instance) => {
    let value = values.get(instance);
    if (value === undefined) {
      value = make(instance);
      values.set(instance, value);
    }
    return value;
  };
}
