export { Producer, type ProducerOptions, type AddOptions } from './producer.js';
export { Worker, exponentialBackoff, type WorkerOptions, type Job, type Handler, type WorkerEvent } from './worker.js';
export { DeadLetters, type DeadLetter } from './dead-letters.js';
export { Metrics, groupLag, type MetricsSnapshot, type GroupLag } from './metrics.js';
export { jsonCodec, encodeEntry, decodeEntry, Fields, MalformedEntryError, type Codec } from './codec.js';
export { partitionStreams, partitionOf, hashKey, defaultDeadLetterStream } from './partition.js';
export {
  PartitionedProducer,
  PartitionedWorker,
  ReplicationError,
  clusterPartitionStreams,
  partitionTag,
  keySlot,
  splitConcurrency,
  partitionsLength,
  type PartitionedProducerOptions,
  type PartitionedWorkerOptions,
} from './partitions.js';
