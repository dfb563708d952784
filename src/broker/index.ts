export { Producer, ReplicationError, type ProducerOptions, type AddOptions } from './producer.js';
export {
  Worker,
  exponentialBackoff,
  LeaseLostError,
  TimeoutError,
  WorkerClosedError,
  type BatchHandler,
  type BatchOptions,
  type BatchWorkerOptions,
  type CloseOptions,
  type DeadLetteredJob,
  type Job,
  type JobContext,
  type JobHandler,
  type WorkerEvents,
  type WorkerOptions,
} from './worker.js';
export { DeadLetters, type DeadLetter } from './dead-letters.js';
export { Metrics, groupLag, type MetricsSnapshot, type GroupLag } from './metrics.js';
export { jsonCodec, MalformedEntryError, type Codec } from './codec.js';
export { partitionStreams, partitionOf, defaultDeadLetterStream } from './partition.js';
export { SafeTrimmer, type SafeTrimOptions } from './safe-trim.js';
export { probeStreamFeatures, type StreamFeatures } from './stream-features.js';
