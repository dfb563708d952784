// The local Redis Cluster in test/broker/backends.ts's BackendFactory shape: suite.test.ts runs
// the broker suite on it besides the `backends` list. The suite's stream names carry a hash tag,
// so `${stream}:dead` shares the slot and dead-lettering's MULTI works (docs/cluster.md).
// It is the one backend that may be absent: without redis-server and redis-cli there is no
// cluster to start (the redis-server backend fails the run then). Installed, it must start.
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import type { BackendFactory } from '../broker/backends.js';
import { installed } from '../support/processes.js';
import { LocalCluster } from './local-cluster.js';

export const redisCluster: BackendFactory = {
  name: 'redis-cluster',
  absent() {
    const missing = ['redis-server', 'redis-cli'].filter((p) => !installed(p));
    return missing.length === 0 ? null : `${missing.join(' and ')} not installed: no Redis Cluster to start`;
  },
  async start() {
    const cluster = await LocalCluster.start({ masters: 3, replicas: 1 });
    const conns: Connection[] = [];
    return {
      name: 'redis-cluster',
      url: cluster.url,
      async connect() {
        const c = await connect(cluster.url);
        conns.push(c);
        return c;
      },
      async stop() {
        for (const c of conns) await c.close().catch(() => {});
        await cluster.stop();
      },
    };
  },
};
