#!/usr/bin/env bash
# quarry-bench/run.sh idle-connections: the memory a server spends on each idle keep-alive connection, Quarry
# against Jetty 12 (and Netty, Undertow, Helidon and nginx for information).
#
# Each server in turn runs pinned to one core with a 5-minute idle timeout (so that it does not close the
# connections while they are measured), is warmed up with wrk, and then measured twice: before and after a client
# (IdleClient in the peers jar, pinned to the other core) opened CONNECTIONS connections, sent one GET /plaintext on
# each, read the response, and left them open and idle. Each measurement is the server's live heap after a full GC
# (`jcmd PID GC.class_histogram`, which collects first, then totals the live objects) and its RSS (VmRSS). The
# differences divided by the number of connections give bytes of heap and of RSS per connection. The RSS
# difference shows native memory (direct buffers, thread stacks, and the heap the server's GCs spread into), not
# the kernel's socket buffers.
#
# Ends with GOAL idle.heap-per-connection.vs-jetty: Jetty's bytes / Quarry's bytes (higher is better for Quarry),
# target 1.00, and an INFO line for RSS.
#
# Quarry is started as `./quarry plaintext --port N --idle-timeout 300` (see qb_start_server in lib/common.sh).
#
# Environment: CONNECTIONS (default 10000; 2000 with QUARRY_BENCH_QUICK=1), WARMUP (s of wrk, default 5),
# SERVERS (default "quarry jetty netty undertow helidon nginx"), and the knobs of lib/common.sh.
set -euo pipefail
QB_SCENARIO=idle
# shellcheck source=lib/common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/common.sh"

if [ "$QB_QUICK" = 1 ]; then
    CONNECTIONS=${CONNECTIONS:-2000}
    WARMUP=${WARMUP:-2}
else
    CONNECTIONS=${CONNECTIONS:-10000}
    WARMUP=${WARMUP:-5}
fi
SERVERS=${SERVERS:-quarry jetty netty undertow helidon nginx}
# Quarry caps connections at half its descriptor limit by default (9,900 with ulimit -n 20000): fewer than the
# scenario opens, and IdleClient would wait for responses from connections never accepted. The peers have no cap.
export QUARRY_PLAINTEXT_ARGS="${QUARRY_PLAINTEXT_ARGS:-} --max-connections 0"
OPEN_SECONDS=120

# Every connection is a descriptor in the server and one in the client: raise the limit both inherit.
files=$((CONNECTIONS + 1024))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$files" ]; then
    if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$files" ]; then
        ulimit -Hn "$files" 2>/dev/null || true
    fi
    ulimit -n "$files" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
fi
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$files" ]; then
    qb_log "error: need $files open files for $CONNECTIONS connections, the limit is $(ulimit -n) (ulimit -n)"
    exit 1
fi

qb_require wrk nginx curl taskset ss
qb_check_cores
qb_build_peers

qb_header "idle-connections: memory per idle keep-alive connection"
echo "client:   IdleClient (peers jar), $CONNECTIONS connections, one GET /plaintext each, then idle; ulimit -n $(ulimit -n)"
echo "heap:     live bytes after a full GC (jcmd GC.class_histogram); RSS: VmRSS; both minus the same before connecting"
[ "$QB_QUICK" = 1 ] && echo "note:     QUARRY_BENCH_QUICK=1: a smoke run, not numbers to record"
echo

declare -A HEAP0 HEAP1 HEAPPER RSS0 RSS1 RSSPER OPENED OPENSECS SKIP

# The live heap of a JVM in bytes, after the full GC that the class histogram starts with; nothing if it fails.
live_heap() {
    local pid=$1
    "$JAVA_HOME/bin/jcmd" "$pid" GC.run >/dev/null 2>&1 || true
    "$JAVA_HOME/bin/jcmd" "$pid" GC.class_histogram 2>/dev/null | awk '$1 == "Total" { print $3 }' | tail -n1 || true
}

port=$QB_PORT_BASE
for server in $SERVERS; do
    port=$((port + 1))
    qb_log "-- $server: starting on core $QB_SERVER_CPU, port $port"
    if ! qb_start_server "$server" "$port"; then
        SKIP[$server]=$QB_SKIP_REASON
        qb_log "-- $server: SKIPPED ($QB_SKIP_REASON)"
        continue
    fi
    # shellcheck disable=SC2086
    java_pid=$(qb_java_pid $QB_SERVER_PIDS)
    qb_log "-- $server: warm-up ${WARMUP}s"
    taskset -c "$QB_CLIENT_CPU" wrk -t1 -c64 -d"${WARMUP}s" "${QB_WRK_HEADERS[@]}" \
        "http://127.0.0.1:$port/plaintext" >"$QB_TMP/wrk-$server.txt" 2>&1 &
    wrk_pid=$!
    qb_track "$wrk_pid"
    wait "$wrk_pid" || qb_log "warning: wrk exited with $?"
    sleep 2 # let the warm-up's connections close on both sides

    [ -n "$java_pid" ] && HEAP0[$server]=$(live_heap "$java_pid")
    # shellcheck disable=SC2086
    RSS0[$server]=$(qb_status_kb VmRSS $QB_SERVER_PIDS)

    qb_log "-- $server: opening $CONNECTIONS idle connections"
    client_log="$QB_TMP/idle-client-$server.txt"
    taskset -c "$QB_CLIENT_CPU" "$JAVA_HOME/bin/java" -Xmx512m -XX:+UseSerialGC -cp "$QB_PEERS_JAR" \
        dev.quarry.bench.peers.IdleClient --port "$port" --connections "$CONNECTIONS" \
        --open-seconds "$OPEN_SECONDS" --hold-seconds 600 </dev/null >"$client_log" 2>&1 &
    client_pid=$!
    qb_track "$client_pid"
    qb_watchdog "$client_pid"
    deadline=$((SECONDS + OPEN_SECONDS + 60))
    # The whole line: read while IdleClient was still writing it, a READY line has no count yet.
    while ! grep -q '^READY .*elapsed-ms=[0-9]' "$client_log" 2>/dev/null && kill -0 "$client_pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
        sleep 0.5
    done
    ready=$(grep -m1 '^READY .*elapsed-ms=[0-9]' "$client_log" || true)
    opened=$(echo "$ready" | sed -n 's/.*established=\([0-9]*\).*/\1/p')
    if [ -z "$opened" ] || [ "$opened" = 0 ]; then
        SKIP[$server]="the client established no connection: $(tail -n1 "$client_log" | cut -c1-120)"
        qb_kill_pids "$client_pid"
        qb_stop_server
        continue
    fi
    [ "$opened" -lt "$CONNECTIONS" ] && qb_log "warning: $server: only $opened of $CONNECTIONS connections: $ready"
    OPENED[$server]=$opened
    OPENSECS[$server]=$(echo "$ready" | sed -n 's/.*elapsed-ms=\([0-9]*\).*/\1/p' | awk '{ printf "%.1f", $1 / 1000 }')
    sleep 2 # let the server finish whatever the last responses left behind

    [ -n "$java_pid" ] && HEAP1[$server]=$(live_heap "$java_pid")
    # shellcheck disable=SC2086
    RSS1[$server]=$(qb_status_kb VmRSS $QB_SERVER_PIDS)
    closed=$(grep '^CLOSED-BY-SERVER ' "$client_log" | tail -n1 | awk '{ print $2 }' || true)
    if [ -n "$closed" ]; then
        qb_log "warning: $server closed $closed of the idle connections while they were measured"
        SKIP[$server/closed]=$closed
    fi
    qb_kill_pids "$client_pid"
    qb_stop_server

    if [ -n "${HEAP0[$server]:-}" ] && [ -n "${HEAP1[$server]:-}" ]; then
        HEAPPER[$server]=$(((HEAP1[$server] - HEAP0[$server]) / opened))
    fi
    RSSPER[$server]=$(((RSS1[$server] - RSS0[$server]) * 1024 / opened))
done

mib() { [ -n "${1:-}" ] && awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }' || echo n/a; }

printf '%-10s %11s %8s %11s %11s %10s %11s %11s %10s\n' \
    server connections 'open s' 'heap0 MiB' 'heap1 MiB' 'heap B/c' 'RSS0 MiB' 'RSS1 MiB' 'RSS B/c'
for server in $SERVERS; do
    if [ -n "${SKIP[$server]:-}" ]; then
        printf '%-10s SKIPPED: %s\n' "$server" "${SKIP[$server]}"
        continue
    fi
    printf '%-10s %11s %8s %11s %11s %10s %11s %11s %10s\n' "$server" "${OPENED[$server]}" "${OPENSECS[$server]}" \
        "$(mib "${HEAP0[$server]:-}")" "$(mib "${HEAP1[$server]:-}")" "${HEAPPER[$server]:-n/a}" \
        "$(mib $((RSS0[$server] * 1024)))" "$(mib $((RSS1[$server] * 1024)))" "${RSSPER[$server]}"
    if [ -n "${SKIP[$server/closed]:-}" ]; then
        echo "WARN $server closed ${SKIP[$server/closed]} connections during the measurement: its numbers are too low"
    fi
done
echo "heap B/c and RSS B/c: bytes per connection (after - before) / connections; nginx has no heap (n/a)."
echo

# Ratios are theirs / ours: fewer bytes per connection is better for Quarry. A Quarry that measured no growth at
# all (or less, by noise) counts as 1 byte, so that it still meets the goal.
ours_heap=${HEAPPER[quarry]:-}
[ -n "$ours_heap" ] && [ "$ours_heap" -lt 1 ] && ours_heap=1
ours_rss=${RSSPER[quarry]:-}
[ -n "$ours_rss" ] && [ "$ours_rss" -lt 1 ] && ours_rss=1
qb_goal idle.heap-per-connection.vs-jetty "${HEAPPER[jetty]:-0}" "${ours_heap:-0}" 1.00
qb_info idle.rss-per-connection.vs-jetty "${RSSPER[jetty]:-0}" "${ours_rss:-0}"
