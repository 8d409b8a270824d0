#!/usr/bin/env bash
# quarry-bench/run.sh alloc: bytes allocated on the Java heap per request, Quarry (its asynchronous plaintext handler,
# and the same endpoint as a blocking Handler on a virtual thread) against Jetty 12, Netty 4 (NIO and epoll),
# Vert.x 5, Undertow 2.3 and Helidon 4 SE, all serving the TechEmpower plaintext endpoint over HTTP/1.1 keep-alive.
#
# Each server in turn runs pinned to one core; h2load (--h1, 64 connections, one request in flight each) first
# warms it up with WARMUP_REQUESTS requests, then a Flight Recorder recording of jdk.ThreadAllocationStatistics
# (each thread's total allocated bytes, at the start and at the end of the recording) brackets exactly REQUESTS
# requests. Bytes per request = the growth of every thread's total (a thread born during the run counts whole; the
# recorder's own threads are left out) / the requests answered. Allocation is counted per carrier thread, so what
# virtual threads allocate is included. The figure does not depend on how busy the machine is, unlike req/s.
#
# Ends with GOAL lines: alloc.async.max-bytes (Quarry's asynchronous handler, at most 64 B/request),
# alloc.blocking.max-bytes (the blocking handler, at most 512 B/request), and alloc.<shape>.vs-<peer> (the peer's
# bytes over Quarry's, target 1.00: lower than every peer).
#
# Environment: REQUESTS (default 1000000; 200000 with QUARRY_BENCH_QUICK=1), WARMUP_REQUESTS (default 500000; 100000
# quick), SERVERS (default "quarry quarry-blocking jetty netty netty-epoll vertx undertow helidon"), and the knobs of
# lib/common.sh.
set -euo pipefail
QB_SCENARIO=alloc
# shellcheck source=lib/common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/common.sh"

if [ "$QB_QUICK" = 1 ]; then
    REQUESTS=${REQUESTS:-200000}
    WARMUP_REQUESTS=${WARMUP_REQUESTS:-100000}
else
    REQUESTS=${REQUESTS:-1000000}
    WARMUP_REQUESTS=${WARMUP_REQUESTS:-500000}
fi
SERVERS=${SERVERS:-quarry quarry-blocking jetty netty netty-epoll vertx undertow helidon}

qb_require h2load curl taskset ss python3
qb_check_cores
qb_build_peers

qb_header "alloc: heap bytes allocated per request, HTTP/1.1 plaintext"
echo "load:     h2load --h1 -c64 -m1, $WARMUP_REQUESTS requests to warm up, then $REQUESTS measured"
echo "counted:  JFR jdk.ThreadAllocationStatistics at the start and end of the measured requests, every thread"
[ "$QB_QUICK" = 1 ] && echo "note:     QUARRY_BENCH_QUICK=1: a smoke run, not numbers to record"
echo

cat >"$QB_TMP/alloc.jfc" <<'JFC'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="quarry-alloc">
  <event name="jdk.ThreadAllocationStatistics">
    <setting name="enabled">true</setting>
    <setting name="period">everyChunk</setting>
  </event>
</configuration>
JFC

declare -A BYTES ANSWERED SKIP

# h2load_run PORT COUNT OUT: COUNT requests; prints how many succeeded.
h2load_run() {
    local port=$1 count=$2 out=$3 pid
    taskset -c "$QB_CLIENT_CPU" h2load --h1 -n "$count" -c 64 -m 1 -t 1 \
        "http://127.0.0.1:$port/plaintext" >"$out" 2>&1 &
    pid=$!
    qb_track "$pid"
    wait "$pid" || qb_log "warning: h2load exited with $? ($out)"
    sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' "$out" | head -n1
}

# The growth of every thread's allocated bytes in a recording, the recorder's own threads left out; the threads that
# allocated most, with their bytes per request over $2 requests, go to the file $3.
allocated_in() {
    "$JAVA_HOME/bin/jfr" print --json --events jdk.ThreadAllocationStatistics "$1" | python3 -c '
import json, re, sys
requests, report = int(sys.argv[1]), sys.argv[2]
events = json.load(sys.stdin)["recording"]["events"]
times = sorted({e["values"]["startTime"] for e in events})
first, samples = times[0], {}
for e in events:
    v = e["values"]
    thread = v.get("thread") or {}
    name = thread.get("javaName") or thread.get("osName") or ""
    if name.startswith("JFR ") or name in ("Attach Listener", "JFR Periodic Tasks", "JFR Recorder Thread"):
        continue
    key = (thread.get("javaThreadId") or thread.get("osThreadId"), name)
    samples.setdefault(key, []).append((v["startTime"], v["allocated"]))
total, groups = 0, {}
for (key, name), values in samples.items():
    values.sort()
    start = values[0][1] if values[0][0] == first else 0
    grown = values[-1][1] - start
    total += grown
    group = re.sub(r"[-#]?[0-9]+$", "-N", name)  # threads of one pool together
    groups[group] = groups.get(group, 0) + grown
with open(report, "w") as out:
    for group, grown in sorted(groups.items(), key=lambda g: -g[1])[:4]:
        if grown > 0:
            out.write("    %-36s %8.1f B/request\n" % (group, grown / requests))
print(total)
' "$2" "$3"
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
    if [ -z "$java_pid" ]; then
        SKIP[$server]="no JVM found among $QB_SERVER_PIDS"
        qb_stop_server
        continue
    fi
    qb_log "-- $server: warm-up, $WARMUP_REQUESTS requests"
    h2load_run "$port" "$WARMUP_REQUESTS" "$QB_TMP/h2load-$server-warmup.txt" >/dev/null
    recording="$QB_TMP/$server.jfr"
    "$JAVA_HOME/bin/jcmd" "$java_pid" JFR.start name=quarry-alloc settings="$QB_TMP/alloc.jfc" \
        filename="$recording" >/dev/null
    qb_log "-- $server: $REQUESTS requests, recorded"
    answered=$(h2load_run "$port" "$REQUESTS" "$QB_TMP/h2load-$server.txt")
    "$JAVA_HOME/bin/jcmd" "$java_pid" JFR.stop name=quarry-alloc >/dev/null
    qb_stop_server
    if [ -z "$answered" ] || [ "$answered" -eq 0 ] || [ ! -s "$recording" ]; then
        SKIP[$server]="no requests answered or no recording ($QB_TMP/h2load-$server.txt)"
        continue
    fi
    ANSWERED[$server]=$answered
    BYTES[$server]=$(awk -v b="$(allocated_in "$recording" "$answered" "$QB_TMP/$server.threads")" -v r="$answered" \
        'BEGIN { printf "%.0f", b / r }')
done

printf '%-16s %12s %14s\n' server requests "bytes/request"
for server in $SERVERS; do
    if [ -n "${SKIP[$server]:-}" ]; then
        printf '%-16s %s\n' "$server" "skipped: ${SKIP[$server]}"
    else
        printf '%-16s %12s %14s\n' "$server" "${ANSWERED[$server]}" "${BYTES[$server]}"
    fi
done
echo
echo "Threads that allocated most, per server:"
for server in $SERVERS; do
    if [ -s "$QB_TMP/$server.threads" ]; then
        echo "  $server"
        cat "$QB_TMP/$server.threads"
    fi
done
echo

# At most N bytes: the ratio is the target over ours (>= 1.00 when met).
max_goal() {
    local name=$1 ours=$2 limit=$3
    awk -v name="$name" -v ours="$ours" -v limit="$limit" 'BEGIN {
        met = (ours != "" && ours <= limit)
        printf "GOAL %s ratio=%.2f target=1.00 %s (%s B/request, at most %d)\n", name, (ours > 0 ? limit / ours : 0),
            (met ? "MET" : "MISSED"), (ours == "" ? "n/a" : ours), limit
    }'
}
max_goal alloc.async.max-bytes "${BYTES[quarry]:-}" 64
max_goal alloc.blocking.max-bytes "${BYTES[quarry-blocking]:-}" 512
for peer in jetty netty netty-epoll vertx undertow helidon; do
    # Theirs over ours: above 1.00 when Quarry allocates less.
    qb_goal "alloc.async.vs-$peer" "${BYTES[$peer]:-0}" "${BYTES[quarry]:-0}" 1.00
    qb_goal "alloc.blocking.vs-$peer" "${BYTES[$peer]:-0}" "${BYTES[quarry-blocking]:-0}" 1.00
done
