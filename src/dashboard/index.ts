// The dashboard's public surface: a request handler to mount, and a server to run it alone.
export { dashboardHandler, type DashboardHandler, type DashboardOptions } from './handler.js';
export { startDashboard, DashboardRefusal, type DashboardServer } from './server.js';
export { bindRefusal, isLoopback } from './guard.js';
export type { StreamView, GroupView, ConsumerView } from './overview.js';
