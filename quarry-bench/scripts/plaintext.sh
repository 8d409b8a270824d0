#!/usr/bin/env bash
# quarry-bench/run.sh plaintext: the TechEmpower plaintext test, Quarry against Jetty 12, Netty 4 (NIO and native
# epoll), Vert.x 5 (epoll), Undertow 2.3, Helidon 4 SE and nginx.
#
# Each server in turn runs pinned to one core (SERVER_CPU, default 0) and wrk drives it from the other
# (CLIENT_CPU, default 1) with TechEmpower's headers: a warm-up, then three measured runs -- 64 and 256
# connections without pipelining, and 256 connections with 16 requests per write. For each: requests/s, errors
# (socket errors + non-2xx), p99 latency, the server's CPU seconds and CPU microseconds per request (from
# /proc/PID/stat over the measured run: this machine is noisy, and CPU per request varies much less than req/s),
# instructions per request when perf can count them (not on most VMs), and the server's peak RSS (VmHWM).
# Ends with GOAL lines (Quarry over Jetty, Netty NIO, Netty epoll and Vert.x, target 1.00; over Jetty, moonshot
# 1.20) and INFO lines (ratios to nginx and of CPU per request).
#
# Environment: DURATION (s per measured run, default 15), WARMUP (s, default 10), WRK_THREADS (default 1),
# SERVERS (default "quarry jetty netty netty-epoll vertx undertow helidon nginx"), QUARRY_BENCH_QUICK=1 (3 s runs), and
# the knobs of lib/common.sh (JVM flags, cores, ports).
set -euo pipefail
QB_SCENARIO=plaintext
# shellcheck source=lib/common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/common.sh"

if [ "$QB_QUICK" = 1 ]; then
    DURATION=${DURATION:-3}
    WARMUP=${WARMUP:-2}
    SHAPE_WARMUP=1
else
    DURATION=${DURATION:-15}
    WARMUP=${WARMUP:-10}
    SHAPE_WARMUP=2
fi
WRK_THREADS=${WRK_THREADS:-1}
SERVERS=${SERVERS:-quarry jetty netty netty-epoll vertx undertow helidon nginx}
SCENARIOS=(c64 c256 c256-pipeline16)

qb_require wrk nginx curl taskset ss
qb_check_cores
qb_build_peers
PERF=$(qb_perf_instructions_supported)

qb_header "plaintext: wrk against GET /plaintext, HTTP/1.1"
echo "wrk:      $(wrk -v 2>&1 | head -n1 | sed 's/ Copyright.*//' || true), -t$WRK_THREADS, ${DURATION}s measured per row after ${WARMUP}s warm-up (+${SHAPE_WARMUP}s per row)"
echo "cpu:      server user+sys CPU from /proc over each measured run; instructions: perf $([ "$PERF" = yes ] && echo "counts them" || echo "cannot count them on this machine (n/a)")"
[ "$QB_QUICK" = 1 ] && echo "note:     QUARRY_BENCH_QUICK=1: a smoke run, not numbers to record"
echo

declare -A RPS ERR P99 CPU CPUREQ INSTR RSS SKIP

# The value of NAME=.. in the QUARRY_WRK line printed by wrk-plaintext.lua (0 when absent).
wrk_field() {
    local value
    value=$(echo "$2" | tr ' ' '\n' | sed -n "s/^$1=\([0-9]*\).*/\1/p")
    echo "${value:-0}"
}

# run_wrk PORT SCENARIO SECONDS [SERVER]: one wrk run; with SERVER, records its results under SERVER/SCENARIO.
run_wrk() {
    local port=$1 scenario=$2 seconds=$3 server=${4:-} connections depth=1 out ticks0 ticks1 perf_pid="" \
        perf_out="$QB_TMP/perf.txt" line wrk_pid
    connections=${scenario%%-*}
    connections=${connections#c}
    [[ $scenario == *-pipeline* ]] && depth=${scenario##*-pipeline}
    out="$QB_TMP/wrk-${server:-warmup}-$scenario.txt"
    # shellcheck disable=SC2086
    ticks0=$(qb_cpu_ticks $QB_SERVER_PIDS)
    if [ -n "$server" ] && [ "$PERF" = yes ]; then
        # shellcheck disable=SC2086
        qb_perf_start "$seconds" "$perf_out" $QB_SERVER_PIDS
        perf_pid=$QB_PERF_PID
    fi
    QUARRY_PIPELINE_DEPTH=$depth taskset -c "$QB_CLIENT_CPU" wrk -t"$WRK_THREADS" -c"$connections" -d"${seconds}s" \
        --timeout 2s --latency "${QB_WRK_HEADERS[@]}" -s "$QB_LIB/wrk-plaintext.lua" \
        "http://127.0.0.1:$port/plaintext" >"$out" 2>&1 &
    wrk_pid=$!
    qb_track "$wrk_pid"
    wait "$wrk_pid" || qb_log "warning: wrk exited with $? ($out)"
    # shellcheck disable=SC2086
    ticks1=$(qb_cpu_ticks $QB_SERVER_PIDS)
    if [ -n "$perf_pid" ]; then
        wait "$perf_pid" 2>/dev/null || true
    fi
    [ -n "$server" ] || return 0
    line=$(grep -m1 '^QUARRY_WRK ' "$out" || true)
    if [ -z "$line" ]; then
        SKIP[$server/$scenario]="wrk printed no result: $(head -n1 "$out")"
        return 0
    fi
    local key=$server/$scenario instructions=""
    [ -n "$perf_pid" ] && instructions=$(qb_perf_read "$perf_out")
    local requests duration_us p99_us errors=0 field
    requests=$(wrk_field requests "$line")
    duration_us=$(wrk_field duration_us "$line")
    p99_us=$(wrk_field p99_us "$line")
    for field in connect read write status timeout; do
        errors=$((errors + $(wrk_field "$field" "$line")))
    done
    RPS[$key]=$(awk -v r="$requests" -v d="$duration_us" 'BEGIN { printf "%.0f", (d > 0 ? r * 1e6 / d : 0) }')
    ERR[$key]=$errors
    P99[$key]=$(awk -v p="$p99_us" 'BEGIN { printf "%.2f", p / 1000 }')
    CPU[$key]=$(awk -v t=$((ticks1 - ticks0)) -v hz="$QB_CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')
    CPUREQ[$key]=$(awk -v t=$((ticks1 - ticks0)) -v hz="$QB_CLK_TCK" -v r="$requests" \
        'BEGIN { printf "%.2f", (r > 0 ? t / hz * 1e6 / r : 0) }')
    INSTR[$key]=$([ -n "$instructions" ] && awk -v i="$instructions" -v r="$requests" \
        'BEGIN { printf "%.0f", (r > 0 ? i / r : 0) }' || echo n/a)
    # shellcheck disable=SC2086
    RSS[$key]=$(($(qb_status_kb VmHWM $QB_SERVER_PIDS) / 1024))
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
    qb_log "-- $server: warm-up ${WARMUP}s"
    run_wrk "$port" c256 "$WARMUP"
    for scenario in "${SCENARIOS[@]}"; do
        run_wrk "$port" "$scenario" "$SHAPE_WARMUP"
        qb_log "-- $server: $scenario ${DURATION}s"
        run_wrk "$port" "$scenario" "$DURATION" "$server"
    done
    qb_stop_server
done

label() {
    case $1 in
        netty) echo "netty (nio)" ;;
        nginx) echo "nginx*" ;;
        *) echo "$1" ;;
    esac
}

qb_print_table 17
echo "* for information, not in the goals. p99: wrk's, corrected by wrk for coordinated omission; per batch of 16 in"
echo "  the pipelined row."
echo "  peak RSS: the server's VmHWM since its start."
for key in "${!ERR[@]}"; do
    if [ "${ERR[$key]}" -gt 0 ]; then
        echo "WARN $key had ${ERR[$key]} errors (socket errors + non-2xx)"
    fi
done
echo

for scenario in "${SCENARIOS[@]}"; do
    ours=${RPS[quarry/$scenario]:-0}
    qb_goal "plaintext.$scenario.vs-jetty" "$ours" "${RPS[jetty/$scenario]:-0}" 1.00
    qb_goal "plaintext.$scenario.vs-netty" "$ours" "${RPS[netty/$scenario]:-0}" 1.00
    qb_goal "plaintext.$scenario.vs-jetty-moonshot" "$ours" "${RPS[jetty/$scenario]:-0}" 1.20
    qb_goal "plaintext.$scenario.vs-netty-epoll" "$ours" "${RPS[netty-epoll/$scenario]:-0}" 1.00
    qb_goal "plaintext.$scenario.vs-vertx" "$ours" "${RPS[vertx/$scenario]:-0}" 1.00
done
# Against another checkout in the same run (SERVERS="quarry-baseline quarry ..." with QUARRY_BASELINE set).
for scenario in "${SCENARIOS[@]}"; do
    if [ -n "${RPS[quarry-baseline/$scenario]:-}" ]; then
        qb_info "plaintext.$scenario.vs-baseline" "${RPS[quarry/$scenario]:-0}" "${RPS[quarry-baseline/$scenario]:-0}"
        qb_info "plaintext.$scenario.cpu-per-request.vs-baseline" "${CPUREQ[quarry-baseline/$scenario]:-0}" \
            "${CPUREQ[quarry/$scenario]:-0}"
    fi
done
for scenario in "${SCENARIOS[@]}"; do
    qb_info "plaintext.$scenario.vs-nginx" "${RPS[quarry/$scenario]:-0}" "${RPS[nginx/$scenario]:-0}"
done
# CPU per request, theirs over ours (higher is better for Quarry): steadier than req/s on a noisy machine.
for scenario in "${SCENARIOS[@]}"; do
    qb_info "plaintext.$scenario.cpu-per-request.vs-jetty" "${CPUREQ[jetty/$scenario]:-0}" "${CPUREQ[quarry/$scenario]:-0}"
    qb_info "plaintext.$scenario.cpu-per-request.vs-netty" "${CPUREQ[netty/$scenario]:-0}" "${CPUREQ[quarry/$scenario]:-0}"
    qb_info "plaintext.$scenario.cpu-per-request.vs-netty-epoll" "${CPUREQ[netty-epoll/$scenario]:-0}" \
        "${CPUREQ[quarry/$scenario]:-0}"
    qb_info "plaintext.$scenario.cpu-per-request.vs-vertx" "${CPUREQ[vertx/$scenario]:-0}" "${CPUREQ[quarry/$scenario]:-0}"
done
