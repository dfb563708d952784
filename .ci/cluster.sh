#!/usr/bin/env bash
# A local Redis Cluster for manual runs: 3 masters + 3 replicas of Debian's redis-server on
# loopback ports BASE..BASE+5 (default 7100), data in .ci/cluster-data/. The automated tests do
# not need this: test/cluster/local-cluster.ts starts its own cluster on free ports.
#
#   .ci/cluster.sh start [BASE]   start, create, wait for cluster_state:ok; prints the URL
#   .ci/cluster.sh stop  [BASE]   shut every node down and remove the data dir
#   .ci/cluster.sh status [BASE]
set -euo pipefail
cd "$(dirname "$0")/.."
cmd=${1:-start}
base=${2:-7100}
dir=.ci/cluster-data
ports=$(seq "$base" $((base + 5)))

case "$cmd" in
  start)
    mkdir -p "$dir"
    for p in $ports; do
      redis-server --port "$p" --bind 127.0.0.1 --dir "$dir" --cluster-enabled yes \
        --cluster-config-file "nodes-$p.conf" --cluster-node-timeout 1500 \
        --save '' --appendonly no --daemonize yes --pidfile "$PWD/$dir/redis-$p.pid" \
        --logfile "redis-$p.log"
    done
    for p in $ports; do
      for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
    done
    # shellcheck disable=SC2046
    redis-cli --cluster create $(for p in $ports; do echo "127.0.0.1:$p"; done) --cluster-replicas 1 --cluster-yes >/dev/null
    for p in $ports; do
      for _ in $(seq 300); do
        redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok' && break
        sleep 0.1
      done
      redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok' || { echo "node $p: cluster not ok" >&2; exit 1; }
    done
    echo "redis+cluster://$(for p in $ports; do printf '127.0.0.1:%s,' "$p"; done | sed 's/,$//')"
    ;;
  stop)
    for p in $ports; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
    rm -rf "$dir"
    ;;
  status)
    redis-cli -p "$base" cluster nodes
    ;;
  *)
    echo "usage: $0 start|stop|status [BASE_PORT]" >&2
    exit 2
    ;;
esac
