// The execution core lives in ./core/; this path stays for the layers that import it.
export { Instance, type InstanceOptions } from './core/instance.js';
export type { Persistence, Propagated } from './core/persistence.js';
export { type CommandStats, Stats } from './core/stats.js';
