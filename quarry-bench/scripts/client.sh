#!/usr/bin/env bash
# quarry-bench/run.sh client: HTTP clients under load against one fixed server -- Quarry's client against Jetty 12's
# HttpClient, the JDK's java.net.http.HttpClient, and wrk / h2load as the native reference.
#
# nginx (one worker, `return 200 "Hello, World!"`) runs pinned to SERVER_CPU (default 0) with two ports: HTTP/1.1
# keep-alive, and h2c by prior knowledge (nginx announces SETTINGS_MAX_CONCURRENT_STREAMS 32 there, so that every
# client multiplexes the same 32 streams per connection: Jetty's client has no other way to be told). Each client in
# turn runs pinned to CLIENT_CPU (default 1), in two rows:
#   h1-c64       64 connections, one request in flight on each (keep-alive, no pipelining)
#   h2c-c16-m32  16 connections x 32 streams = 512 requests in flight
# The Java clients run the same closed loop (`java -jar quarry-peers.jar load-<quarry|jetty|jdk>`, see LoadMain in
# quarry-bench/peers): every request in flight sends the next one from its predecessor's completion, through the
# client's asynchronous API (CLIENT_MODE=blocking: one virtual thread per request in flight on the blocking API). They
# warm up for WARMUP seconds, then measure DURATION seconds; their requests/s, errors, CPU time (user + system from
# /proc/self/stat) and heap allocation are differences between the start and the end of that window, so that the
# JVM's start and JIT do not count. wrk and h2load have no warm-up to exclude: their CPU is their whole run's (from
# the kernel's accounting of the finished process, through perl's times()).
#
# The JDK's client has no h2c by prior knowledge: asked for HTTP/2 with an http:// URL it sends Upgrade: h2c, which
# nginx does not implement (and nginx's prior-knowledge port does not speak HTTP/1.1 at all). So in the h2c row the JDK
# client asks for HTTP/2 on the HTTP/1.1 port, is answered in HTTP/1.1 and opens one connection per request in flight:
# 512. That is what it does against this server; the table says so.
#
# Columns: req/s; errors (failures + non-2xx); connections established to nginx's port in the middle of the window;
# the client's CPU seconds and microseconds per request; heap bytes allocated per request (Java clients); the client's
# read and write system calls per request (/proc/PID/io); nginx's CPU microseconds per request over the same window.
# GOAL lines: client.<row>.vs-jetty (Quarry's req/s over Jetty's, 1.20), client.<row>.vs-jdk (over the JDK's, 1.50),
# client.<row>.cpu-vs-native (native CPU per request over Quarry's, 0.50: Quarry within 2x of wrk / h2load). INFO lines:
# CPU per request against Jetty and the JDK (theirs over Quarry's), and allocation.
#
# Environment: DURATION (s measured per run, default 10), WARMUP (s, default 5), CLIENTS (default
# "quarry jetty jdk native"), CLIENT_MODE (async or blocking), CLIENT_JAVA_OPTS (extra JVM flags for the Java
# clients, e.g. a Flight Recorder recording), QUARRY_BENCH_QUICK=1 (3 s runs), and the knobs of lib/common.sh.
set -euo pipefail
QB_SCENARIO=client
# shellcheck source=lib/common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/common.sh"

if [ "$QB_QUICK" = 1 ]; then
    DURATION=${DURATION:-3}
    WARMUP=${WARMUP:-2}
else
    DURATION=${DURATION:-10}
    WARMUP=${WARMUP:-5}
fi
CLIENTS=${CLIENTS:-quarry jetty jdk native}
CLIENT_MODE=${CLIENT_MODE:-async}
CLIENT_JAVA_OPTS=${CLIENT_JAVA_OPTS:-}
ROWS=(h1-c64 h2c-c16-m32)
H2_STREAMS=32

case $CLIENT_MODE in
    async | blocking) ;;
    *) qb_log "error: CLIENT_MODE must be async or blocking, not '$CLIENT_MODE'"; exit 2 ;;
esac

qb_require wrk h2load nginx curl taskset ss
command -v perl >/dev/null 2>&1 || { qb_log "error: perl is needed (to read the native tools' CPU time)"; exit 1; }
qb_check_cores
qb_build_peers

h1_port=$((QB_PORT_BASE + 1))
h2_port=$((QB_PORT_BASE + 2))

qb_header "client: HTTP clients against nginx (GET /plaintext), closed loop"
echo "clients:  quarry-client (this checkout), jetty-client $(qb_pom_property jetty.version), the JDK's java.net.http, $(wrk -v 2>&1 | head -n1 | sed 's/ Copyright.*//' || true), $(h2load --version 2>&1 | head -n1)"
echo "loop:     Java clients: ${CLIENT_MODE} API, ${WARMUP}s warm-up then ${DURATION}s measured; wrk/h2load: ${DURATION}s; client JVM flags: $QB_JVM_FLAGS $CLIENT_JAVA_OPTS"
echo "server:   nginx, 1 worker, HTTP/1.1 on $h1_port, h2c (prior knowledge, max $H2_STREAMS concurrent streams) on $h2_port"
[ "$QB_QUICK" = 1 ] && echo "note:     QUARRY_BENCH_QUICK=1: a smoke run, not numbers to record"
echo

declare -A RPS ERR CONNS CPU CPUREQ ALLOC SRVREQ SYSCALLS SKIP

# The value of NAME=.. in a line of NAME=VALUE words (empty when absent).
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1; }

# Waits until FILE has a line starting with PREFIX, while PID lives (at most SECONDS); fails otherwise.
wait_line() {
    local file=$1 prefix=$2 pid=$3 seconds=$4 deadline
    deadline=$((SECONDS + seconds))
    while [ $SECONDS -lt $deadline ]; do
        grep -q "^$prefix" "$file" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || { grep -q "^$prefix" "$file" 2>/dev/null; return; }
        sleep 0.1
    done
    return 1
}

established() { ss -Htn state established "dport = :$1" 2>/dev/null | wc -l; }

cpu_per_request() { awk -v t="$1" -v hz="$QB_CLK_TCK" -v r="$2" 'BEGIN { printf "%.2f", (r > 0 ? t / hz * 1e6 / r : 0) }'; }

# run_java CLIENT ROW: one Java load generator; records its results under CLIENT/ROW.
run_java() {
    local client=$1 row=$2 key=$1/$2 port=$h1_port args out err pid line ticks0 ticks1 requests
    out="$QB_TMP/$client-$row.out"
    err="$QB_TMP/$client-$row.err"
    args=(-c 64)
    if [ "$row" = h2c-c16-m32 ]; then
        args=(--h2c -c 16 -m "$H2_STREAMS")
        # The JDK's client cannot speak h2c to nginx (see the top of this file): it asks for HTTP/2 on the HTTP/1.1 port.
        [ "$client" = jdk ] || port=$h2_port
    fi
    [ "$CLIENT_MODE" = blocking ] && args+=(--blocking)
    # shellcheck disable=SC2086 # the flags are words
    taskset -c "$QB_CLIENT_CPU" "$JAVA_HOME/bin/java" $QB_JVM_FLAGS $CLIENT_JAVA_OPTS -jar "$QB_PEERS_JAR" \
        "load-$client" "http://127.0.0.1:$port/plaintext" "${args[@]}" -d "$DURATION" -w "$WARMUP" \
        </dev/null >"$out" 2>"$err" &
    pid=$!
    qb_track "$pid"
    if ! wait_line "$out" QUARRY_LOAD_MEASURING "$pid" $((WARMUP + 120)); then
        wait "$pid" 2>/dev/null || true
        SKIP[$key]="no measured window: $(grep -m1 -e error -e Exception "$err" | cut -c1-120)"
        return 0
    fi
    # shellcheck disable=SC2086
    ticks0=$(qb_cpu_ticks $QB_SERVER_PIDS)
    sleep $((DURATION / 2))
    CONNS[$key]=$(established "$port")
    wait_line "$out" 'QUARRY_LOAD ' "$pid" $((DURATION + 60)) || true
    # shellcheck disable=SC2086
    ticks1=$(qb_cpu_ticks $QB_SERVER_PIDS)
    wait "$pid" 2>/dev/null || qb_log "warning: load-$client exited with $? ($err)"
    line=$(grep -m1 '^QUARRY_LOAD ' "$out" || true)
    if [ -z "$line" ]; then
        SKIP[$key]="no result: $(grep -m1 -e error -e Exception "$err" | cut -c1-120)"
        return 0
    fi
    requests=$(field requests "$line")
    RPS[$key]=$(field rps "$line")
    ERR[$key]=$(($(field errors "$line") + $(field non2xx "$line")))
    CPU[$key]=$(awk -v t="$(field cpu_ticks "$line")" -v hz="$QB_CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')
    CPUREQ[$key]=$(cpu_per_request "$(field cpu_ticks "$line")" "$requests")
    ALLOC[$key]=$(field alloc_bytes_per_req "$line")
    SRVREQ[$key]=$(cpu_per_request $((ticks1 - ticks0)) "$requests")
    SYSCALLS[$key]="$(field reads_per_req "$line")/$(field writes_per_req "$line")"
    grep -m1 'first error' "$err" >&2 || true
}

# run_native ROW: wrk (HTTP/1.1) or h2load (h2c) for DURATION seconds; records its results under native/ROW. Their CPU
# is the finished process's user + system time, which perl's times() reads from the kernel after waiting for it.
run_native() {
    local row=$1 key=native/$1 port out cpu_out pid ticks0 ticks1 requests cpu_ticks
    out="$QB_TMP/native-$row.out"
    cpu_out="$QB_TMP/native-$row.cpu"
    local tool=(wrk -t1 -c64 -d"${DURATION}s" --timeout 2s -s "$QB_LIB/wrk-plaintext.lua")
    port=$h1_port
    if [ "$row" = h2c-c16-m32 ]; then
        tool=(h2load -t1 -c16 -m"$H2_STREAMS" -D "$DURATION")
        port=$h2_port
    fi
    # shellcheck disable=SC2086
    ticks0=$(qb_cpu_ticks $QB_SERVER_PIDS)
    QB_CPU_OUT=$cpu_out taskset -c "$QB_CLIENT_CPU" perl -e '
        system { $ARGV[0] } @ARGV;
        my $status = $?;
        my (undef, undef, $user, $system) = times;
        open(my $f, ">", $ENV{QB_CPU_OUT}) or die "$ENV{QB_CPU_OUT}: $!";
        printf $f "%.2f\n", $user + $system;
        exit($status >> 8);
    ' "${tool[@]}" "http://127.0.0.1:$port/plaintext" </dev/null >"$out" 2>&1 &
    pid=$!
    qb_track "$pid"
    # The tool's read and write calls over the middle of its run (its /proc is gone once it ended), per request at
    # its average rate: an estimate, hence the ~ in the table.
    local tool_pid="" io0="" io1="" t0 t1
    sleep 1
    tool_pid=$(ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ' | head -n1)
    t0=$(date +%s.%N)
    io0=$(io_calls "$tool_pid")
    # From 1 s after the start to 1 s before the end, the connections counted half-way.
    local half
    half=$(awk -v d="$DURATION" 'BEGIN { print (d > 2 ? (d - 2) / 2 : 0) }')
    sleep "$half"
    CONNS[$key]=$(established "$port")
    sleep "$half"
    t1=$(date +%s.%N)
    io1=$(io_calls "$tool_pid")
    wait "$pid" || qb_log "warning: ${tool[0]} exited with $? ($out)"
    # shellcheck disable=SC2086
    ticks1=$(qb_cpu_ticks $QB_SERVER_PIDS)
    if [ "$row" = h2c-c16-m32 ]; then
        requests=$(sed -n 's/^requests: .* \([0-9]*\) succeeded,.*/\1/p' "$out")
        RPS[$key]=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$out" | awk '{ printf "%.0f", $1 }')
        local failed errored timeout non2xx
        failed=$(sed -n 's/^requests: .* \([0-9]*\) failed,.*/\1/p' "$out")
        errored=$(sed -n 's/^requests: .* \([0-9]*\) errored,.*/\1/p' "$out")
        timeout=$(sed -n 's/^requests: .* \([0-9]*\) timeout.*/\1/p' "$out")
        non2xx=$(sed -n 's/^status codes: [0-9]* 2xx, \([0-9]*\) 3xx, \([0-9]*\) 4xx, \([0-9]*\) 5xx.*/\1 \2 \3/p' "$out" \
            | awk '{ print $1 + $2 + $3 }')
        ERR[$key]=$((${failed:-0} + ${errored:-0} + ${timeout:-0} + ${non2xx:-0}))
    else
        local line errors=0 f v
        line=$(grep -m1 '^QUARRY_WRK ' "$out" || true)
        requests=$(field requests "$line")
        RPS[$key]=$(awk -v r="${requests:-0}" -v d="$(field duration_us "$line")" \
            'BEGIN { printf "%.0f", (d > 0 ? r * 1e6 / d : 0) }')
        for f in connect read write status timeout; do
            v=$(field "$f" "$line")
            errors=$((errors + ${v:-0}))
        done
        ERR[$key]=$errors
    fi
    if [ -z "${requests:-}" ] || [ "$requests" = 0 ] || [ ! -s "$cpu_out" ]; then
        SKIP[$key]="${tool[0]} completed no request: $(head -n1 "$out" | cut -c1-120)"
        return 0
    fi
    cpu_ticks=$(awk -v s="$(cat "$cpu_out")" -v hz="$QB_CLK_TCK" 'BEGIN { printf "%.0f", s * hz }')
    CPU[$key]=$(awk -v s="$(cat "$cpu_out")" 'BEGIN { printf "%.1f", s }')
    CPUREQ[$key]=$(cpu_per_request "$cpu_ticks" "$requests")
    ALLOC[$key]=n/a
    SRVREQ[$key]=$(cpu_per_request $((ticks1 - ticks0)) "$requests")
    SYSCALLS[$key]=$(awk -v a="$io0" -v b="$io1" -v t0="$t0" -v t1="$t1" -v rps="${RPS[$key]}" 'BEGIN {
        split(a, x, " "); split(b, y, " "); n = rps * (t1 - t0)
        if (a == "" || b == "" || n <= 0) print "n/a"; else printf "~%.2f/%.2f", (y[1] - x[1]) / n, (y[2] - x[2]) / n }')
}

# "syscr syscw" of a PID from /proc/PID/io (empty when unreadable).
io_calls() {
    [ -n "$1" ] || return 0
    awk '$1 == "syscr:" { r = $2 } $1 == "syscw:" { w = $2 } END { if (r != "") print r, w }' "/proc/$1/io" 2>/dev/null || true
}

qb_log "-- nginx: starting on core $QB_SERVER_CPU, ports $h1_port (HTTP/1.1) and $h2_port (h2c)"
QB_NGINX_SERVER_EXTRA="listen 127.0.0.1:$h2_port http2; http2_max_concurrent_streams $H2_STREAMS;"
if ! qb_start_server nginx "$h1_port"; then
    qb_log "error: nginx did not start: $QB_SKIP_REASON"
    exit 1
fi
if [ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' --http2-prior-knowledge "http://127.0.0.1:$h2_port/plaintext")" != 200 ]; then
    qb_log "error: nginx's h2c port $h2_port does not answer 200 by prior knowledge"
    exit 1
fi

for row in "${ROWS[@]}"; do
    for client in $CLIENTS; do
        qb_log "-- $client: $row (${DURATION}s$([ "$client" = native ] || echo " after ${WARMUP}s warm-up"))"
        case $client in
            quarry | jetty | jdk) run_java "$client" "$row" ;;
            native) run_native "$row" ;;
            *) qb_log "error: unknown client '$client' (quarry jetty jdk native)"; exit 2 ;;
        esac
    done
done
qb_stop_server

label() {
    case $1/$2 in
        native/h1-*) echo "wrk*" ;;
        native/h2c-*) echo "h2load*" ;;
        jdk/h2c-*) echo "jdk (HTTP/1.1)**" ;;
        *) echo "$1" ;;
    esac
}

row_format="%-12s %-17s %9s %6s %6s %6s %10s %11s %13s %12s\n"
# shellcheck disable=SC2059 # the format is built above
printf "$row_format" row client 'req/s' errors conns 'CPU s' 'CPU us/req' 'alloc B/req' 'rd/wr per req' 'nginx us/req'
for row in "${ROWS[@]}"; do
    for client in $CLIENTS; do
        key=$client/$row
        if [ -n "${SKIP[$key]:-}" ]; then
            printf "%-12s %-17s SKIPPED: %s\n" "$row" "$(label "$client" "$row")" "${SKIP[$key]}"
            continue
        fi
        # shellcheck disable=SC2059
        printf "$row_format" "$row" "$(label "$client" "$row")" "${RPS[$key]:-}" "${ERR[$key]:-}" "${CONNS[$key]:-}" \
            "${CPU[$key]:-}" "${CPUREQ[$key]:-}" "${ALLOC[$key]:-}" "${SYSCALLS[$key]:-}" "${SRVREQ[$key]:-}"
    done
done
echo "* the native reference: CPU over its whole run (no JIT to warm up). conns: connections established to nginx's"
echo "  port in the middle of the measured window. rd/wr per req: the client's read-like and write-like system calls"
echo "  per request (/proc/PID/io syscr, syscw); ~: the native tools' over the middle of their run at their average rate."
echo "** the JDK's client asked for HTTP/2 over http:// sends Upgrade: h2c, which nginx ignores: it stays on HTTP/1.1"
echo "  with one connection per request in flight (512), on nginx's HTTP/1.1 port."
for key in "${!ERR[@]}"; do
    if [ "${ERR[$key]:-0}" -gt 0 ]; then
        echo "WARN $key had ${ERR[$key]} errors (failures + non-2xx)"
    fi
done
echo

for row in "${ROWS[@]}"; do
    qb_goal "client.$row.vs-jetty" "${RPS[quarry/$row]:-0}" "${RPS[jetty/$row]:-0}" 1.20
    qb_goal "client.$row.vs-jdk" "${RPS[quarry/$row]:-0}" "${RPS[jdk/$row]:-0}" 1.50
    # Native CPU per request over Quarry's: 0.50 means Quarry spends twice what wrk / h2load spend.
    qb_goal "client.$row.cpu-vs-native" "${CPUREQ[native/$row]:-0}" "${CPUREQ[quarry/$row]:-0}" 0.50
done
# CPU per request, theirs over Quarry's (higher is better for Quarry): steadier than req/s on a noisy machine.
for row in "${ROWS[@]}"; do
    qb_info "client.$row.cpu-per-request.vs-jetty" "${CPUREQ[jetty/$row]:-0}" "${CPUREQ[quarry/$row]:-0}"
    qb_info "client.$row.cpu-per-request.vs-jdk" "${CPUREQ[jdk/$row]:-0}" "${CPUREQ[quarry/$row]:-0}"
    qb_info "client.$row.alloc-per-request.vs-jetty" "${ALLOC[jetty/$row]:-0}" "${ALLOC[quarry/$row]:-0}"
    qb_info "client.$row.vs-native" "${RPS[quarry/$row]:-0}" "${RPS[native/$row]:-0}"
done
