#!/usr/bin/env bash
# quarry-bench/run.sh h2: the plaintext endpoint over h2c (HTTP/2 without TLS, prior knowledge), Quarry against
# Jetty 12, Netty 4 (NIO and native epoll), Vert.x 5 (epoll), Undertow 2.3, Helidon 4 SE and nginx, driven by h2load.
#
# Each server in turn runs pinned to one core (SERVER_CPU, default 0) and h2load drives it from the other
# (CLIENT_CPU, default 1) with one thread: after a warm-up, two measured runs, 16 connections x 32 concurrent
# streams and 64 connections x 100 streams. For each: requests/s (h2load's), errors (failed + errored + timed-out
# requests + non-2xx responses; requests still in flight when the run's time is up are not errors), p99 latency,
# the server's CPU seconds and CPU microseconds per request (/proc/PID/stat), instructions per request when perf can
# count them, and peak RSS.
#
# p99: h2load itself prints only min/max/mean/sd of "time for request"; the p99 here is computed from its
# --log-file, which has one line per request with the microseconds from sending the request to the end of its
# response: the 99th percentile of those over the measured run.
#
# Every peer speaks h2c with prior knowledge on the same port as HTTP/1.1 (and by Upgrade too: see the peers
# module); nginx (1.22 from apt) can only do h2c with prior knowledge on a port that then speaks nothing else, so it
# gets "listen ... http2" here. Ends with GOAL lines h2.<row>.vs-jetty, .vs-netty-epoll and .vs-vertx (target 1.00:
# the fastest JVM peers), h2.<row>.vs-jetty-moonshot (1.30), and INFO lines (Netty NIO, nginx, CPU per request).
#
# Environment: DURATION (s per measured run, default 15), WARMUP (s, default 10), SERVERS (default
# "quarry jetty netty netty-epoll vertx undertow helidon nginx"), QUARRY_BENCH_QUICK=1 (3 s runs), and the knobs of lib/common.sh.
set -euo pipefail
QB_SCENARIO=h2
# shellcheck source=lib/common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/common.sh"

if [ "$QB_QUICK" = 1 ]; then
    DURATION=${DURATION:-3}
    WARMUP=${WARMUP:-2}
else
    DURATION=${DURATION:-15}
    WARMUP=${WARMUP:-10}
fi
SERVERS=${SERVERS:-quarry jetty netty netty-epoll vertx undertow helidon nginx}
SCENARIOS=(c16-m32 c64-m100)

qb_require h2load nginx curl taskset ss
qb_check_cores
qb_build_peers
PERF=$(qb_perf_instructions_supported)

qb_header "h2: h2load against GET /plaintext, h2c prior knowledge"
echo "h2load:   $(h2load --version 2>&1 | head -n1), -t1, ${DURATION}s measured per row after ${WARMUP}s warm-up"
echo "p99:      99th percentile of h2load's per-request times (--log-file: request sent -> response complete)"
echo "cpu:      server user+sys CPU from /proc over each measured run; instructions: perf $([ "$PERF" = yes ] && echo "counts them" || echo "cannot count them on this machine (n/a)")"
[ "$QB_QUICK" = 1 ] && echo "note:     QUARRY_BENCH_QUICK=1: a smoke run, not numbers to record"
echo

declare -A RPS ERR P99 CPU CPUREQ INSTR RSS SKIP

# run_h2load PORT SCENARIO SECONDS [SERVER]: one h2load run; with SERVER, records its results under SERVER/SCENARIO.
run_h2load() {
    local port=$1 scenario=$2 seconds=$3 server=${4:-} clients streams out log ticks0 ticks1 perf_pid="" \
        perf_out="$QB_TMP/perf.txt" h2_pid
    clients=${scenario%%-*}
    clients=${clients#c}
    streams=${scenario##*-m}
    out="$QB_TMP/h2load-${server:-warmup}-$scenario.txt"
    log="$QB_TMP/h2load-${server:-warmup}-$scenario.log"
    # shellcheck disable=SC2086
    ticks0=$(qb_cpu_ticks $QB_SERVER_PIDS)
    if [ -n "$server" ] && [ "$PERF" = yes ]; then
        # shellcheck disable=SC2086
        qb_perf_start "$seconds" "$perf_out" $QB_SERVER_PIDS
        perf_pid=$QB_PERF_PID
    fi
    taskset -c "$QB_CLIENT_CPU" h2load -t1 -c"$clients" -m"$streams" -D "$seconds" \
        -H 'accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' \
        --log-file="$log" "http://127.0.0.1:$port/plaintext" >"$out" 2>&1 &
    h2_pid=$!
    qb_track "$h2_pid"
    wait "$h2_pid" || qb_log "warning: h2load exited with $? ($out)"
    # shellcheck disable=SC2086
    ticks1=$(qb_cpu_ticks $QB_SERVER_PIDS)
    if [ -n "$perf_pid" ]; then
        wait "$perf_pid" 2>/dev/null || true
    fi
    if [ -z "$server" ]; then
        rm -f "$log"
        return 0
    fi
    local key=$server/$scenario rps completed failed errored timeout non2xx instructions=""
    rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$out")
    completed=$(sed -n 's/^requests: .* \([0-9]*\) done,.*/\1/p' "$out")
    if [ -z "$rps" ] || [ -z "$completed" ] || [ "$completed" = 0 ]; then
        SKIP[$key]="h2load completed no request: $(grep -m1 -i -e error -e fail -e 'no protocol' "$out" | cut -c1-120)"
        rm -f "$log"
        return 0
    fi
    failed=$(sed -n 's/^requests: .* \([0-9]*\) failed,.*/\1/p' "$out")
    errored=$(sed -n 's/^requests: .* \([0-9]*\) errored,.*/\1/p' "$out")
    timeout=$(sed -n 's/^requests: .* \([0-9]*\) timeout.*/\1/p' "$out")
    non2xx=$(sed -n 's/^status codes: [0-9]* 2xx, \([0-9]*\) 3xx, \([0-9]*\) 4xx, \([0-9]*\) 5xx.*/\1 \2 \3/p' "$out" \
        | awk '{ print $1 + $2 + $3 }')
    [ -n "$perf_pid" ] && instructions=$(qb_perf_read "$perf_out")
    RPS[$key]=$(awk -v r="$rps" 'BEGIN { printf "%.0f", r }')
    ERR[$key]=$((${failed:-0} + ${errored:-0} + ${timeout:-0} + ${non2xx:-0}))
    P99[$key]=$(awk -F'\t' '$2 != -1 { print $3 }' "$log" | sort -n \
        | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } i = int(NR * 0.99); if (i < NR * 0.99) i++; printf "%.2f", v[i] / 1000 }')
    CPU[$key]=$(awk -v t=$((ticks1 - ticks0)) -v hz="$QB_CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')
    CPUREQ[$key]=$(awk -v t=$((ticks1 - ticks0)) -v hz="$QB_CLK_TCK" -v r="$completed" \
        'BEGIN { printf "%.2f", (r > 0 ? t / hz * 1e6 / r : 0) }')
    INSTR[$key]=$([ -n "$instructions" ] && awk -v i="$instructions" -v r="$completed" \
        'BEGIN { printf "%.0f", (r > 0 ? i / r : 0) }' || echo n/a)
    # shellcheck disable=SC2086
    RSS[$key]=$(($(qb_status_kb VmHWM $QB_SERVER_PIDS) / 1024))
    rm -f "$log"
}

port=$QB_PORT_BASE
for server in $SERVERS; do
    port=$((port + 1))
    qb_log "-- $server: starting on core $QB_SERVER_CPU, port $port"
    if [ "$server" = nginx ]; then
        # nginx's h2c port speaks only HTTP/2: check readiness with prior knowledge.
        QB_READY_CURL_FLAGS=--http2-prior-knowledge
        started=0
        qb_start_server nginx "$port" http2 && started=1
        QB_READY_CURL_FLAGS=""
    else
        started=0
        qb_start_server "$server" "$port" && started=1
    fi
    if [ $started = 0 ]; then
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
    run_h2load "$port" c16-m32 "$WARMUP"
    for scenario in "${SCENARIOS[@]}"; do
        qb_log "-- $server: $scenario ${DURATION}s"
        run_h2load "$port" "$scenario" "$DURATION" "$server"
    done
    qb_stop_server
done

label() {
    case $1 in
        netty) echo "netty (nio)" ;;
        undertow) echo "undertow*" ;;
        helidon) echo "helidon*" ;;
        nginx) echo "nginx*" ;;
        *) echo "$1" ;;
    esac
}

qb_print_table 12
echo "* for information, not in the goals. Rows: cN-mM = N connections x M concurrent streams each. h2c by prior"
echo "  knowledge for all; nginx 1.22 (apt) serves h2c only with prior knowledge on an HTTP/2-only port, no Upgrade."
for key in "${!ERR[@]}"; do
    if [ "${ERR[$key]}" -gt 0 ]; then
        echo "WARN $key had ${ERR[$key]} errors (failed/errored/timed-out requests + non-2xx)"
    fi
done
echo

for scenario in "${SCENARIOS[@]}"; do
    qb_goal "h2.$scenario.vs-jetty" "${RPS[quarry/$scenario]:-0}" "${RPS[jetty/$scenario]:-0}" 1.00
    qb_goal "h2.$scenario.vs-jetty-moonshot" "${RPS[quarry/$scenario]:-0}" "${RPS[jetty/$scenario]:-0}" 1.30
    qb_goal "h2.$scenario.vs-netty-epoll" "${RPS[quarry/$scenario]:-0}" "${RPS[netty-epoll/$scenario]:-0}" 1.00
    qb_goal "h2.$scenario.vs-vertx" "${RPS[quarry/$scenario]:-0}" "${RPS[vertx/$scenario]:-0}" 1.00
done
# Against another checkout in the same run (SERVERS="quarry-baseline quarry ..." with QUARRY_BASELINE set).
for scenario in "${SCENARIOS[@]}"; do
    if [ -n "${RPS[quarry-baseline/$scenario]:-}" ]; then
        qb_info "h2.$scenario.vs-baseline" "${RPS[quarry/$scenario]:-0}" "${RPS[quarry-baseline/$scenario]:-0}"
        qb_info "h2.$scenario.cpu-per-request.vs-baseline" "${CPUREQ[quarry-baseline/$scenario]:-0}" \
            "${CPUREQ[quarry/$scenario]:-0}"
    fi
done
for scenario in "${SCENARIOS[@]}"; do
    qb_info "h2.$scenario.vs-netty" "${RPS[quarry/$scenario]:-0}" "${RPS[netty/$scenario]:-0}"
    qb_info "h2.$scenario.vs-nginx" "${RPS[quarry/$scenario]:-0}" "${RPS[nginx/$scenario]:-0}"
    qb_info "h2.$scenario.cpu-per-request.vs-jetty" "${CPUREQ[jetty/$scenario]:-0}" "${CPUREQ[quarry/$scenario]:-0}"
    qb_info "h2.$scenario.cpu-per-request.vs-netty-epoll" "${CPUREQ[netty-epoll/$scenario]:-0}" \
        "${CPUREQ[quarry/$scenario]:-0}"
    qb_info "h2.$scenario.cpu-per-request.vs-vertx" "${CPUREQ[vertx/$scenario]:-0}" "${CPUREQ[quarry/$scenario]:-0}"
done
