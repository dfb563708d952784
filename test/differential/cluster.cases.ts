// CLUSTER on a server without cluster mode, compared with redis-server 7.0 (cluster-enabled no):
// every subcommand's reply, the table's arity and unknown-subcommand errors, scripts calling it
// (CLUSTER RESET is noscript), and the subcommand table as COMMAND INFO and COMMAND DOCS show it.
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';
import type { Frame } from './frames.js';
import type { Normaliser } from './normalize.js';

const text = (f: Frame): string => f.raw.toString('latin1');
/** A string reply's content (bulk or simple). */
const content = (f: Frame): string => text(f).replace(/^[$+]\d*\r?\n?/, '').replace(/\r\n$/, '');

/**
 * COMMAND INFO CLUSTER: the container's and each subcommand's fields (name, arity, flags, key
 * positions, categories, tips, key specs), the subcommands sorted (Redis lists them in its
 * dict's order).
 */
const clusterInfo: Normaliser = (frame) => {
  const entry = frame.children?.[0]?.children;
  if (entry === undefined) return frame.raw;
  const head = (e: Frame[]): string => e.slice(0, 9).map(text).join('');
  const subs = (entry[9]?.children ?? []).map((s) => head(s.children ?? []) + text(s.children![9]!)).sort();
  return [head(entry), ...subs].join('\n');
};

/**
 * COMMAND DOCS CLUSTER: summary, since and group of the container and of each subcommand,
 * sorted (sluice's docs have no complexity, arguments or deprecation fields).
 */
const clusterDocs: Normaliser = (frame) => {
  const fields = (docs: Frame | undefined): string[] => {
    const c = docs?.children ?? [];
    const out: string[] = [];
    for (let i = 0; i + 1 < c.length; i += 2) {
      const key = content(c[i]!);
      if (key === 'summary' || key === 'since' || key === 'group') out.push(key + text(c[i + 1]!));
      if (key === 'subcommands') {
        const subs = c[i + 1]!.children ?? [];
        const entries: string[] = [];
        for (let j = 0; j + 1 < subs.length; j += 2) entries.push(text(subs[j]!) + fields(subs[j + 1]).join(''));
        out.push(...entries.sort());
      }
    }
    return out;
  };
  const c = frame.children ?? [];
  return [text(c[0] ?? frame), ...fields(c[1])].join('\n');
};

export const cases: DiffCase[] = [
  {
    name: 'CLUSTER without cluster mode: every subcommand disabled, the table\'s own errors first',
    steps: cli`
      CLUSTER INFO
      CLUSTER NODES
      CLUSTER MYID
      CLUSTER SLOTS
      CLUSTER SHARDS
      CLUSTER LINKS
      CLUSTER KEYSLOT foo
      CLUSTER COUNTKEYSINSLOT 0
      CLUSTER GETKEYSINSLOT 0 10
      CLUSTER ADDSLOTS 1 2
      CLUSTER ADDSLOTSRANGE 1 2
      CLUSTER DELSLOTS 1
      CLUSTER DELSLOTSRANGE 1 2
      CLUSTER FLUSHSLOTS
      CLUSTER SETSLOT 1 STABLE
      CLUSTER MEET 127.0.0.1 1
      CLUSTER FORGET x
      CLUSTER REPLICATE x
      CLUSTER REPLICAS x
      CLUSTER SLAVES x
      CLUSTER COUNT-FAILURE-REPORTS x
      CLUSTER FAILOVER FORCE
      CLUSTER RESET
      CLUSTER RESET HARD
      CLUSTER SAVECONFIG
      CLUSTER BUMPEPOCH
      CLUSTER SET-CONFIG-EPOCH 1
      CLUSTER HELP
      cluster info
      CLUSTER
      CLUSTER NOSUCH
      CLUSTER KEYSLOT
      CLUSTER KEYSLOT a b
      CLUSTER INFO x
      CLUSTER GETKEYSINSLOT 0
      CLUSTER MEET 127.0.0.1
      CLUSTER HELP x
    `,
  },
  {
    name: 'CLUSTER from a script: RESET is noscript, INFO runs and fails',
    steps: cli`
      EVAL "return redis.pcall('cluster', 'reset')" 0
      EVAL "return redis.pcall('CLUSTER', 'RESET', 'SOFT')" 0
      EVAL "return redis.pcall('cluster', 'info')" 0
      EVAL "return redis.pcall('cluster', 'nosuch')" 0
      EVAL "return redis.pcall('cluster')" 0
      EVAL "redis.call('cluster', 'reset')" 0
    `,
  },
  {
    name: 'COMMAND INFO / DOCS of CLUSTER: Redis 7.0\'s subcommand table',
    steps: cli`
      COMMAND INFO cluster            => ${clusterInfo}
      COMMAND INFO cluster|reset
      COMMAND INFO cluster|nodes
      COMMAND INFO cluster|addslots
      COMMAND DOCS cluster            => ${clusterDocs}
      COMMAND GETKEYS cluster info
      # A command without subcommands ends its entry with an empty set (~0 in RESP3).
      COMMAND INFO get
    `,
  },
];
