// The public entry of the `sluice` package: what applications use. Internals (codec helpers,
// cluster slot arithmetic, command tables) are reached through their modules, not from here;
// api/sluice.api.md lists this surface and a test keeps it in step.
//
// The declarations name Node's types (Buffer, node:http, node:events): the directive below makes
// a consumer's compiler load @types/node, which TypeScript 6+ no longer includes by default.
/// <reference types="node" preserve="true" />

// Connections: connect() is the front door (docs/connections.md); the classes are what it returns.
export { connect, type Connectable, type ConnectOptions } from './client/connect.js';
export { type Connection, type BlockingConnection, type CloseConnectionOptions, type Value, type Arg, ReplyError, TransactionError } from './client/connection.js';
export { open, EmbeddedDatabase, EmbeddedSession, type OpenOptions } from './client/embedded.js';
export { EmbeddedConnection } from './client/embedded-connection.js';
export { RedisConnection } from './client/redis-connection.js';
export { ClusterConnection, connectCluster } from './client/cluster-connection.js';
export type { IoredisClient, IoredisCluster, ClusterSeed, RedisLinkOptions, RedisClientOptions, ClusterClientOptions } from './client/ioredis-types.js';
export { silentLogger, type Logger, type LogMethod } from './logger.js';

// The broker.
export { Producer, ReplicationError, type ProducerOptions, type AddOptions } from './broker/producer.js';
export {
  Worker,
  exponentialBackoff,
  LeaseLostError,
  TimeoutError,
  WorkerClosedError,
  CloseTimeoutError,
  SandboxExitError,
  SandboxLoadError,
  type BatchHandler,
  type BatchOptions,
  type BatchWorkerOptions,
  type CloseOptions,
  type DeadLetteredJob,
  type Job,
  type JobContext,
  type JobHandler,
  type SandboxedProcessor,
  type SandboxOptions,
  type WorkerEvents,
  type WorkerOptions,
} from './broker/worker.js';
export { DeadLetters, type DeadLetter } from './broker/dead-letters.js';
export { FlowJobIdError, FlowProducer, FlowSlotError, type FlowJob, type FlowJobOptions, type FlowNode, type FlowProducerOptions, type FlowTree, type JobAddress, type OnFailure } from './broker/flows/flow-producer.js';
export { Queue, JobView, JobFailedError, JobNotFoundError, WaitTimeoutError, JobActiveError, JobStateError, type CleanState, type QueueOptions, type JobInfo, type JobCounts } from './broker/queue.js';
export { QueueEvents, type QueueEventsOptions, type QueueEventsMap, type QueueEventPayloads, type QueueEventBase } from './broker/queue-events.js';
export type { JobState } from './broker/jobs/record.js';
export type { QueueEventName, EventsOption } from './broker/jobs/events.js';
export type { KeepJobs, BackoffOption, PerJobOptions, DeduplicationOptions } from './broker/jobs/job-options.js';
export { DelayedMover, delayedKey, type DelayedMoverOptions } from './broker/delayed.js';
export { Metrics, groupLag, type MetricsSnapshot, type GroupLag, type CounterName } from './broker/metrics.js';
export { jsonCodec, MalformedEntryError, type Codec } from './broker/codec.js';
export { partitionStreams, partitionOf } from './broker/partition.js';
export { probeStreamFeatures, type StreamFeatures } from './broker/stream-features.js';
export { pauseGroup, resumeGroup, pausedGroups, isGroupPaused } from './broker/pause.js';
export type { LimiterOptions } from './broker/rate-limiter.js';
export type { FairnessOptions } from './broker/fairness/taker.js';
export { Scheduler, type Every, type ScheduleInfo, type SchedulerOptions } from './broker/schedules.js';
export type { Clock } from './broker/clock.js';

// Servers: RESP, Prometheus metrics, the dashboard.
export { serve, type ServeOptions, type Server } from './server/serve.js';
export { metricsHandler, startMetricsServer, serverMetricsRegistry, type MetricsServer, type MetricsSource } from './server/metrics.js';
export { dashboardHandler, startDashboard, DashboardRefusal, type DashboardHandler, type DashboardOptions, type DashboardServer } from './dashboard/index.js';
