#!/bin/bash
# `npm test` twice in a row while a second `npm start` serves a steady ledger load on the same machine (issue #34's
# "green under load", docs/decisions/testing.md). Run from the repository: test/support/loaded-test-run.sh [out-dir]
# The second platform has its own data directory, lock and ports; nothing is shared with the tests but the CPU.
# Writes platform.log, load.log (committed tx/s every 10 s), uptime.log (load average every 10 s),
# test1.log, test2.log and summary.txt (each run's exit code and seconds) into out-dir (default /tmp/loaded).
set -u
OUT=${1:-/tmp/loaded}
rm -rf "$OUT" /tmp/load-platform
mkdir -p "$OUT"
# In a process group of its own, stopped as Ctrl+C stops it: SIGINT to the group (npm alone does not pass it on).
DATA_DIR=/tmp/load-platform PORT=8090 S3_PORT=0 setsid npm start >"$OUT/platform.log" 2>&1 &
PLATFORM=$!
for _ in $(seq 1 120); do
  curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8090/api/auth/.well-known/openid-configuration |
    grep -q 200 && break
  sleep 2
done
node --import tsx test/support/steady-load.ts http://127.0.0.1:8090 2 20 >"$OUT/load.log" 2>&1 &
LOAD=$!
(while true; do
  echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)"
  sleep 10
done) >"$OUT/uptime.log" 2>&1 &
SAMPLER=$!
for run in 1 2; do
  start=$(date +%s)
  npm test >"$OUT/test$run.log" 2>&1
  echo "run $run: exit $? after $(($(date +%s) - start)) s" >>"$OUT/summary.txt"
done
kill "$LOAD" "$SAMPLER"
kill -INT -- "-$PLATFORM"
wait "$PLATFORM"
cat "$OUT/summary.txt"
