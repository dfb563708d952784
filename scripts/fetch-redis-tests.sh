#!/usr/bin/env bash
# Fetches Redis 7.0's own test suite from Debian's source package (never copied into the repo)
# into .redis-src/, for test/compat/redis-harness.test.ts. Needs root (or sudo) for apt.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x .redis-src/runtest ]; then exit 0; fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
# A deb-src entry mirroring Debian's own source list.
if ! grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $sudo tee /etc/apt/sources.list.d/debian-src.sources >/dev/null
  else
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list | $sudo tee /etc/apt/sources.list.d/debian-src.list >/dev/null
  fi
  $sudo apt-get update
fi
if ! command -v tclsh >/dev/null 2>&1; then $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y tcl; fi
work=$(mktemp -d)
(cd "$work" && apt-get source --download-only redis >/dev/null 2>&1)
tar xzf "$work"/redis_*.orig.tar.gz -C "$work"
rm -rf .redis-src
mv "$work"/redis-*/ .redis-src
rm -rf "$work"
echo "Redis test suite in .redis-src ($(grep -o 'REDIS_VERSION "[^"]*"' .redis-src/src/version.h))"
