export { open, EmbeddedDatabase, EmbeddedSession, ReplyError, type OpenOptions, type Value } from './client/embedded.js';
export { connect, type Connectable } from './client/connect.js';
export { type Connection, TransactionError } from './client/connection.js';
export { RedisConnection } from './client/redis-connection.js';
export { ClusterConnection, connectCluster, parseClusterUrl } from './client/cluster-connection.js';
export { EmbeddedConnection } from './client/embedded-connection.js';
export * from './broker/index.js';
export { metricsHandler, startMetricsServer, serverMetricsRegistry, type MetricsServer, type MetricsSource } from './server/metrics.js';
export { dashboardHandler, startDashboard, DashboardRefusal, type DashboardHandler, type DashboardOptions, type DashboardServer } from './dashboard/index.js';
