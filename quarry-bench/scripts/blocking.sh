#!/usr/bin/env bash
# quarry-bench/run.sh blocking: the plaintext endpoint written as a blocking handler on virtual threads, the way most
# applications are written: Quarry's blocking Handler (`quarry plaintext --blocking`: send(String) on a virtual
# thread of the server's bounded executor) against Helidon 4 SE (its routing handler runs on the connection's virtual
# thread for HTTP/1.1, on the stream's for HTTP/2: virtual threads by default) and Jetty 12 with virtual threads
# (`jetty-vt`: a QueuedThreadPool given Executors.newVirtualThreadPerTaskExecutor() as its virtual-threads executor,
# and a core Handler that is not NonBlocking, so Jetty runs it on a new virtual thread per request, where it writes
# with response.write and waits on a Blocker before succeeding its callback).
#
# Each server in turn runs pinned to one core (SERVER_CPU, default 0), the load generator on the other (CLIENT_CPU):
# after a warm-up, four measured rows: wrk -c64 and -c256 over HTTP/1.1 keep-alive (no pipelining), then h2load -c16
# -m32 and -c64 -m100 over h2c (prior knowledge). For each: requests/s, errors, p99, the server's CPU seconds and CPU
# microseconds per request (/proc/PID/stat over the measured run), instructions per request when perf can count them,
# and peak RSS; measured as plaintext.sh and h2.sh measure (lib/load.sh).
#
# GOAL lines per row: blocking.<row>.vs-helidon (req/s, target 1.20), blocking.<row>.vs-jetty-vt (1.00), and the
# same for CPU per request (theirs over ours): blocking.<row>.cpu-per-request.vs-helidon (1.20) and .vs-jetty-vt
# (1.00). With SERVERS="quarry-baseline-blocking quarry-blocking ..." and QUARRY_BASELINE=/other/checkout/quarry, INFO
# lines compare with the other checkout's blocking handler in the same run.
#
# Environment: DURATION (s per measured row, default 15), WARMUP (s, default 10), WRK_THREADS (default 1), SERVERS
# (default "quarry-blocking helidon jetty-vt"), QUARRY_BENCH_QUICK=1 (3 s runs), and the knobs of lib/common.sh.
set -euo pipefail
QB_SCENARIO=blocking
# shellcheck source=lib/common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/common.sh"
# shellcheck source=lib/load.sh
source "$QB_LIB/load.sh"

if [ "$QB_QUICK" = 1 ]; then
    DURATION=${DURATION:-3}
    WARMUP=${WARMUP:-2}
    ROW_WARMUP=1
else
    DURATION=${DURATION:-15}
    WARMUP=${WARMUP:-10}
    ROW_WARMUP=2
fi
WRK_THREADS=${WRK_THREADS:-1}
SERVERS=${SERVERS:-quarry-blocking helidon jetty-vt}
SCENARIOS=(h1-c64 h1-c256 h2c-c16-m32 h2c-c64-m100)

qb_require wrk h2load curl taskset ss
qb_check_cores
qb_build_peers
PERF=$(qb_perf_instructions_supported)

qb_header "blocking: a blocking handler on virtual threads, GET /plaintext over HTTP/1.1 (wrk) and h2c (h2load)"
echo "load:     wrk $(wrk -v 2>&1 | head -n1 | sed 's/ Copyright.*//;s/^wrk //' || true) -t$WRK_THREADS; $(h2load --version 2>&1 | head -n1) -t1; ${DURATION}s measured per row after ${WARMUP}s warm-up (+${ROW_WARMUP}s per row)"
echo "cpu:      server user+sys CPU from /proc over each measured run; instructions: perf $([ "$PERF" = yes ] && echo "counts them" || echo "cannot count them on this machine (n/a)")"
[ "$QB_QUICK" = 1 ] && echo "note:     QUARRY_BENCH_QUICK=1: a smoke run, not numbers to record"
echo

declare -A RPS ERR P99 CPU CPUREQ INSTR RSS SKIP

# measure PORT ROW SECONDS [KEY]: one run of the row's load.
measure() {
    local port=$1 row=$2 seconds=$3 key=${4:-} clients streams
    case $row in
        h1-c*) qb_run_wrk "$port" "${row#h1-c}" "$seconds" "$key" ;;
        h2c-*)
            clients=${row#h2c-c}
            clients=${clients%%-*}
            streams=${row##*-m}
            qb_run_h2load "$port" "$clients" "$streams" "$seconds" "$key"
            ;;
    esac
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
    if ! curl -s -o /dev/null -m 5 --http2-prior-knowledge "http://127.0.0.1:$port/plaintext"; then
        SKIP[$server]="does not speak h2c with prior knowledge"
        qb_stop_server
        continue
    fi
    qb_log "-- $server: warm-up ${WARMUP}s"
    measure "$port" h1-c256 "$WARMUP"
    measure "$port" h2c-c16-m32 "$WARMUP"
    for row in "${SCENARIOS[@]}"; do
        measure "$port" "$row" "$ROW_WARMUP"
        qb_log "-- $server: $row ${DURATION}s"
        measure "$port" "$row" "$DURATION" "$server/$row"
    done
    qb_stop_server
done

label() { echo "$1"; }

qb_print_table 13
echo "Rows: h1-cN = wrk, N HTTP/1.1 keep-alive connections; h2c-cN-mM = h2load, N connections x M streams (prior"
echo "  knowledge). Every server runs its handler on virtual threads: quarry-blocking a blocking Handler with send(String),"
echo "  helidon its routing Handler, jetty-vt a blocking core Handler with Executors.newVirtualThreadPerTaskExecutor()."
for key in "${!ERR[@]}"; do
    if [ "${ERR[$key]}" -gt 0 ]; then
        echo "WARN $key had ${ERR[$key]} errors"
    fi
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

for row in "${SCENARIOS[@]}"; do
    ours=${RPS[quarry-blocking/$row]:-0}
    qb_goal "blocking.$row.vs-helidon" "$ours" "${RPS[helidon/$row]:-0}" 1.20
    qb_goal "blocking.$row.vs-jetty-vt" "$ours" "${RPS[jetty-vt/$row]:-0}" 1.00
done
# CPU per request, theirs over ours (higher is better for Quarry): steadier than req/s on a noisy machine.
for row in "${SCENARIOS[@]}"; do
    ours=${CPUREQ[quarry-blocking/$row]:-0}
    qb_goal "blocking.$row.cpu-per-request.vs-helidon" "${CPUREQ[helidon/$row]:-0}" "$ours" 1.20
    qb_goal "blocking.$row.cpu-per-request.vs-jetty-vt" "${CPUREQ[jetty-vt/$row]:-0}" "$ours" 1.00
done
for row in "${SCENARIOS[@]}"; do
    if [ -n "${RPS[quarry-baseline-blocking/$row]:-}" ]; then
        qb_info "blocking.$row.vs-baseline" "${RPS[quarry-blocking/$row]:-0}" "${RPS[quarry-baseline-blocking/$row]:-0}"
        qb_info "blocking.$row.cpu-per-request.vs-baseline" "${CPUREQ[quarry-baseline-blocking/$row]:-0}" \
            "${CPUREQ[quarry-blocking/$row]:-0}"
    fi
done
