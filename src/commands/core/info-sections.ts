// The built-in INFO sections, field for field as Redis 7.0 names them.
import { migrateConnections } from '../migrate.js';
import * as os from 'node:os';
import { getHeapSpaceStatistics } from 'node:v8';
import { REDIS_VERSION, RUN_ID } from './identity.js';
import type { RdbStatus } from './persistence.js';
import { replicationInfoLines } from './replication.js';
import type { InstanceView } from '../types.js';
import { usedMemory } from '../used-memory.js';
import { scriptMemory } from '../lua/script-memory.js';

/** INFO persistence's RDB fields where no data directory is set (nothing saved or loaded). */
const NO_SNAPSHOTS: RdbStatus = { saves: 0, lastSaveOk: true, lastSaveSeconds: -1, lastLoadKeysLoaded: 0, lastLoadKeysExpired: 0 };

/** Redis's bytesToHuman. */
function human(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  const units = ['K', 'M', 'G', 'T', 'P'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(2)}${units[i]}`;
}

/** Registers the sections in INFO's order; commandstats is shown only by INFO all / everything. */
export function registerBuiltinSections(instance: InstanceView): void {
  const { info, stats, config } = instance;
  info.register('server', () => {
    const now = Date.now();
    const uptime = Math.floor((now - instance.startedAt) / 1000);
    return [
      `redis_version:${REDIS_VERSION}`,
      'redis_git_sha1:00000000',
      'redis_git_dirty:0',
      'redis_build_id:0',
      'redis_mode:standalone',
      `os:${os.type()} ${os.release()} ${os.arch()}`,
      `arch_bits:${process.arch.includes('64') ? 64 : 32}`,
      'multiplexing_api:libuv',
      `process_id:${process.pid}`,
      'process_supervised:no',
      `run_id:${RUN_ID}`,
      `tcp_port:${config.get('port')}`,
      `server_time_usec:${now * 1000}`,
      `uptime_in_seconds:${uptime}`,
      `uptime_in_days:${Math.floor(uptime / 86400)}`,
      `hz:${config.get('hz')}`,
      `configured_hz:${config.get('hz')}`,
      `executable:${process.argv[1] ?? ''}`,
      `config_file:${instance.configFile?.path ?? ''}`,
      'io_threads_active:0',
      `sluice_node_version:${process.version}`,
    ];
  }, true);
  info.register('clients', () => {
    let connected = 0;
    for (const c of instance.clients.values()) if (c.kind === 'tcp') connected++;
    return [
      `connected_clients:${connected}`,
      'cluster_connections:0',
      `maxclients:${config.get('maxclients')}`,
      'client_recent_max_input_buffer:0',
      'client_recent_max_output_buffer:0',
      `blocked_clients:${instance.blockedClientCount()}`,
      `tracking_clients:${instance.tracking.clientCount}`,
      'clients_in_timeout_table:0',
    ];
  }, true);
  const replicaOutput = (): number => {
    let bytes = 0;
    for (const client of instance.clients.values()) if (client.isReplica) bytes += client.buffers?.().outputUnsent ?? 0;
    return bytes;
  };
  info.register('memory', () => {
    // used_memory as Redis counts it (used-memory.ts), the figure maxmemory is checked against.
    const used = usedMemory(instance);
    const mem = process.memoryUsage();
    const peak = instance.usedMemoryPeak;
    const maxmemory = config.getNumber('maxmemory');
    const percent = (part: number, whole: number) => `${((part * 100) / Math.max(whole, 1)).toFixed(2)}%`;
    const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b).toFixed(2);
    // The allocator's figures as MEMORY STATS gives them: V8's heap in use, its heap, the RSS.
    const [allocated, active, resident] = [mem.heapUsed, mem.heapTotal, mem.rss];
    const lua = scriptMemory(instance);
    return [
      `used_memory:${used.total}`,
      `used_memory_human:${human(used.total)}`,
      `used_memory_rss:${mem.rss}`,
      `used_memory_rss_human:${human(mem.rss)}`,
      `used_memory_peak:${peak}`,
      `used_memory_peak_human:${human(peak)}`,
      `used_memory_peak_perc:${percent(used.total, peak)}`,
      `used_memory_overhead:${used.total - used.dataset}`,
      `used_memory_startup:${used.startup}`,
      `used_memory_dataset:${used.dataset}`,
      `used_memory_dataset_perc:${percent(used.dataset, used.total - used.startup)}`,
      `allocator_allocated:${allocated}`,
      `allocator_active:${active}`,
      `allocator_resident:${resident}`,
      `total_system_memory:${os.totalmem()}`,
      `total_system_memory_human:${human(os.totalmem())}`,
      // The interpreters and the script caches (lua/script-memory.ts), as Redis 7.0 lists them.
      `used_memory_lua:${lua.vmEval}`,
      `used_memory_vm_eval:${lua.vmEval}`,
      `used_memory_lua_human:${human(lua.vmEval)}`,
      `used_memory_scripts_eval:${lua.scriptsEval}`,
      `number_of_cached_scripts:${lua.cachedScripts}`,
      `number_of_functions:${lua.functions}`,
      `number_of_libraries:${lua.libraries}`,
      `used_memory_vm_functions:${lua.vmFunctions}`,
      `used_memory_vm_total:${lua.vmEval + lua.vmFunctions}`,
      `used_memory_vm_total_human:${human(lua.vmEval + lua.vmFunctions)}`,
      `used_memory_functions:${lua.functionsCaches}`,
      `used_memory_scripts:${lua.scriptsEval + lua.functionsCaches}`,
      `used_memory_scripts_human:${human(lua.scriptsEval + lua.functionsCaches)}`,
      `maxmemory:${maxmemory}`,
      `maxmemory_human:${human(maxmemory)}`,
      `maxmemory_policy:${instance.config.get('maxmemory-policy')}`,
      `allocator_frag_ratio:${ratio(active, allocated)}`,
      `allocator_frag_bytes:${active - allocated}`,
      `allocator_rss_ratio:${ratio(resident, active)}`,
      `allocator_rss_bytes:${resident - active}`,
      'rss_overhead_ratio:1.00',
      'rss_overhead_bytes:0',
      `mem_fragmentation_ratio:${(mem.rss / Math.max(used.total, 1)).toFixed(2)}`,
      `mem_fragmentation_bytes:${mem.rss - used.total}`,
      `mem_not_counted_for_evict:${used.notCountedForEvict}`,
      // The backlog's ring is allocated whole when the first replica attaches; a replica's unsent
      // output (a full sync's RDB, then the stream) is its own, not shared with the backlog as in 7.0.
      `mem_replication_backlog:${instance.replication.backlog?.size ?? 0}`,
      `mem_total_replication_buffers:${(instance.replication.backlog?.size ?? 0) + replicaOutput()}`,
      `mem_clients_slaves:${replicaOutput()}`,
      `mem_clients_normal:${used.clients}`,
      'mem_cluster_links:0',
      `mem_aof_buffer:${used.aofBuffer}`,
      'mem_allocator:v8',
      'active_defrag_running:0',
      // sluice frees in the same turn, UNLINK and lazyfree-lazy-* too: nothing is ever pending.
      'lazyfree_pending_objects:0',
      'lazyfreed_objects:0',
      // V8's heap as the operator tunes it (node --max-old-space-size, semi-space flags); the
      // heap in use includes garbage not yet collected.
      `v8_heap_used:${mem.heapUsed}`,
      `v8_external:${mem.external}`,
      `v8_heap_total:${mem.heapTotal}`,
      `v8_new_space_size:${newSpaceSize()}`,
    ];
  }, true);
  // Without an AOF; the persistence layer replaces this section when it attaches.
  // Saves are synchronous (BGSAVE too), so no save is ever "in progress".
  info.register('persistence', () => {
    const rdb = instance.snapshots?.status ?? NO_SNAPSHOTS;
    return [
    'loading:0',
    'async_loading:0',
    'current_cow_peak:0',
    'current_cow_size:0',
    'current_cow_size_age:0',
    'current_fork_perc:0.00',
    'current_save_keys_processed:0',
    'current_save_keys_total:0',
    `rdb_changes_since_last_save:${instance.dirty}`,
    'rdb_bgsave_in_progress:0',
    `rdb_last_save_time:${instance.lastSaveTime}`,
    `rdb_last_bgsave_status:${rdb.lastSaveOk ? 'ok' : 'err'}`,
    `rdb_last_bgsave_time_sec:${rdb.lastSaveSeconds}`,
    'rdb_current_bgsave_time_sec:-1',
    `rdb_saves:${rdb.saves}`,
    'rdb_last_cow_size:0',
    `rdb_last_load_keys_expired:${rdb.lastLoadKeysExpired}`,
    `rdb_last_load_keys_loaded:${rdb.lastLoadKeysLoaded}`,
    `aof_enabled:${instance.persistence !== null ? 1 : 0}`,
    'aof_rewrite_in_progress:0',
    'aof_rewrite_scheduled:0',
    'aof_last_rewrite_time_sec:-1',
    'aof_current_rewrite_time_sec:-1',
    'aof_last_bgrewrite_status:ok',
    'aof_rewrites:0',
    `aof_last_write_status:${instance.persistence?.writeError() ? 'err' : 'ok'}`,
    ];
  }, true);
  info.register('stats', () => [
    `total_connections_received:${stats.connectionsReceived}`,
    `total_commands_processed:${stats.commandsProcessed}`,
    'instantaneous_ops_per_sec:0',
    `total_net_input_bytes:${stats.netInputBytes}`,
    `total_net_output_bytes:${stats.netOutputBytes}`,
    `rejected_connections:${stats.rejectedConnections}`,
    `sync_full:${stats.syncFull}`,
    `sync_partial_ok:${stats.syncPartialOk}`,
    `sync_partial_err:${stats.syncPartialErr}`,
    `expired_keys:${stats.expiredKeys}`,
    `evicted_keys:${stats.evictedKeys}`,
    'evicted_clients:0',
    `total_eviction_exceeded_time:${instance.eviction.exceededTime().total}`,
    `current_eviction_exceeded_time:${instance.eviction.exceededTime().current}`,
    `keyspace_hits:${stats.keyspaceHits}`,
    `keyspace_misses:${stats.keyspaceMisses}`,
    `pubsub_channels:${instance.pubsub.channelCount('channel')}`,
    `pubsub_patterns:${instance.pubsub.patternCount}`,
    `pubsubshard_channels:${instance.pubsub.channelCount('shard')}`,
    'latest_fork_usec:0',
    'total_forks:0',
    `migrate_cached_sockets:${migrateConnections(instance).size}`,
    `tracking_total_keys:${instance.tracking.totalKeys}`,
    `tracking_total_items:${instance.tracking.items}`,
    `tracking_total_prefixes:${instance.tracking.totalPrefixes}`,
    'unexpected_error_replies:0',
    `total_error_replies:${stats.totalErrorReplies}`,
  ], true);
  info.register('replication', () => replicationInfoLines(
      instance.replication,
      instance.config.getNumber('repl-backlog-size'),
      instance.replicationControl?.replicas() ?? [],
      instance.config.getNumber('replica-priority'),
      instance.config.get('replica-read-only') === 'yes',
    ), true);
  info.register('cpu', () => {
    const cpu = process.cpuUsage();
    const secs = (us: number) => (us / 1e6).toFixed(6);
    return [
      `used_cpu_sys:${secs(cpu.system)}`,
      `used_cpu_user:${secs(cpu.user)}`,
      'used_cpu_sys_children:0.000000',
      'used_cpu_user_children:0.000000',
      `used_cpu_sys_main_thread:${secs(cpu.system)}`,
      `used_cpu_user_main_thread:${secs(cpu.user)}`,
    ];
  }, true);
  info.register('commandstats', () => {
    const lines: string[] = [];
    for (const [cmd, s] of stats.perCommand) {
      if (s.calls === 0 && s.rejectedCalls === 0 && s.failedCalls === 0) continue;
      const usec = Math.round(s.usec);
      const perCall = s.calls === 0 ? 0 : usec / s.calls;
      lines.push(
        `cmdstat_${cmd}:calls=${s.calls},usec=${usec},usec_per_call=${perCall.toFixed(2)},` +
          `rejected_calls=${s.rejectedCalls},failed_calls=${s.failedCalls}`,
      );
    }
    return lines;
  }, false);
  info.register('modules', () => [], true);
  // Redis keeps error codes in a radix tree: listed in byte order of the code.
  const byCode = ([a]: [string, number], [b]: [string, number]) => (a < b ? -1 : a > b ? 1 : 0);
  info.register('errorstats', () => [...stats.errorCodes].sort(byCode).map(([code, n]) => `errorstat_${code}:count=${n}`), true);
  info.register('cluster', () => ['cluster_enabled:0'], true);
  info.register('keyspace', () => {
    const lines: string[] = [];
    for (const db of instance.keyspace.dbs) {
      if (db.size === 0) continue;
      lines.push(`db${db.index}:keys=${db.size},expires=${db.expires.size},avg_ttl=0`);
    }
    return lines;
  }, true);
}

/** Bytes V8 holds for its young generation (both semi-spaces), used or not. */
function newSpaceSize(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}
