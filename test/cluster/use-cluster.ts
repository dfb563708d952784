// One Redis Cluster (3 masters, no replicas) for a test file's tests: started before them, a
// connection to it, and the workers they start; after them the workers are closed (100 ms
// each), then the connection, then the nodes. Read `conn` inside tests (it is set by `before`).
import { after, before } from 'node:test';
import type { Worker } from '../../src/broker/worker.js';
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import { LocalCluster } from './local-cluster.js';

export interface SharedCluster {
  readonly cluster: LocalCluster;
  readonly conn: Connection;
  /** Workers to close after the tests. */
  readonly workers: Worker[];
}

export function useCluster(): SharedCluster {
  let cluster: LocalCluster | undefined;
  let conn: Connection | undefined;
  const workers: Worker[] = [];
  before(async () => {
    cluster = await LocalCluster.start({ masters: 3, replicas: 0 });
    conn = await connect(cluster.url);
  });
  after(async () => {
    for (const w of workers) await w.close({ timeoutMs: 100 });
    await conn?.close();
    await cluster?.stop();
  });
  return {
    get cluster() {
      if (cluster === undefined) throw new Error('the cluster starts in before()');
      return cluster;
    },
    get conn() {
      if (conn === undefined) throw new Error('the cluster starts in before()');
      return conn;
    },
    workers,
  };
}
