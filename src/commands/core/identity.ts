/** The version HELLO and INFO report: the Redis release whose replies sluice reproduces. */
export const REDIS_VERSION = '7.0.15';

/** INFO's run_id: random per process, as Redis's (the replication id is another: core/replication.ts). */
export const RUN_ID = Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');
