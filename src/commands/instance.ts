// The execution core lives in ./core/. This path only re-exports it for the layers above
// (src/server, src/persist, src/client) until their imports point at ./core/ directly.
export { Instance, type InstanceOptions } from './core/instance.js';
export type { Persistence, Propagated } from './core/persistence.js';
export { type CommandStats, Stats } from './core/stats.js';
