// The local Redis Cluster in test/broker/backends.ts's BackendFactory shape: suite.test.ts runs
// the broker suite on it besides the `backends` list. The suite's stream names carry a hash tag,
// so `${stream}:dead` shares the slot and dead-lettering's MULTI works (docs/cluster.md).
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import type { BackendFactory } from '../broker/backends.js';
import { LocalCluster } from './local-cluster.js';

export const redisCluster: BackendFactory = {
  name: 'redis-cluster',
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
