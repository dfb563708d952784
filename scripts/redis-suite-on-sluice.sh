#!/bin/sh
# Makes a copy of Redis's test suite whose `src/redis-server` is `sluice server`, so Redis's own
# framework spawns sluice (tests/support/server.tcl runs `src/redis-server <config file>` and
# waits for " PID: <pid>" and "Ready to accept connections" in its stdout, which sluice started
# from a config file prints). Nothing in the suite is modified: tests/ is copied (the framework
# writes its tmp/ there), the rest linked; redis-cli, redis-benchmark and redis-check-aof/-rdb
# are the installed ones. Prints the copy's directory; run `./runtest ...` inside it.
#   scripts/redis-suite-on-sluice.sh [SUITE] [DEST]   (SUITE default: .redis-src of this checkout)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITE=$(cd "${1:-$ROOT/.redis-src}" && pwd)
DEST=${2:-$(mktemp -d "${TMPDIR:-/tmp}/redis-suite-sluice.XXXXXX")}
MAIN="$ROOT/dist/src/cli/main.js"
[ -f "$MAIN" ] || { echo "build first: $MAIN missing" >&2; exit 1; }
[ -f "$SUITE/tests/test_helper.tcl" ] || { echo "no Redis test suite at $SUITE" >&2; exit 1; }
mkdir -p "$DEST/src"
cp -R "$SUITE/tests" "$DEST/tests"
cp "$SUITE/runtest" "$DEST/runtest"
for f in utils redis.conf sentinel.conf; do [ -e "$SUITE/$f" ] && ln -sfn "$SUITE/$f" "$DEST/$f"; done
cat > "$DEST/src/redis-server" <<LAUNCH
#!/bin/sh
# sluice server in redis-server's place (exec: the pid the framework knows is the server's).
exec "$(command -v node)" "$MAIN" server "\$@"
LAUNCH
chmod +x "$DEST/src/redis-server"
for tool in redis-cli redis-benchmark redis-check-aof redis-check-rdb; do
  if command -v "$tool" >/dev/null 2>&1; then ln -sfn "$(command -v "$tool")" "$DEST/src/$tool"; fi
done
echo "$DEST"
