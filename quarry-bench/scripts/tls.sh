#!/usr/bin/env bash
# quarry-bench/run.sh tls: the plaintext endpoint over HTTPS (issue #11), Quarry against Jetty 12 (JSSE) and Netty 4
# (NIO; the JDK's TLS provider, and BoringSSL through netty-tcnative for information), all on the same JDK; then the
# offload question: Quarry terminating TLS itself versus haproxy terminating it in front of Quarry.
#
# One self-signed EC P-256 certificate per run (keytool, in the run's temp dir; a PKCS#12 keystore for the JVMs, the
# same key as PEM for haproxy). TLS 1.3 is what every client and server here negotiates; the table prints the
# cipher suite each server chose (h2load's "Cipher:").
#
# Each server in turn runs pinned to one core (SERVER_CPU, default 0), the load generator on the other (CLIENT_CPU,
# default 1), one client thread: a warm-up, then the measured rows
#   h2-c16-m32, h2-c64-m100  h2load over TLS (h2 by ALPN), 16 connections x 32 streams and 64 x 100;
#   h1-c64                   wrk over HTTPS (HTTP/1.1 by ALPN), 64 keep-alive connections;
#   handshake-c16            new connections per second, a full TLS 1.3 handshake each (X25519 + an ECDSA P-256
#                            signature by the server): 16 `openssl s_time -new` processes in parallel, each
#                            connecting, sending "GET /plaintext HTTP/1.0", reading the response to the server's
#                            close, and again, never resuming a session (-new). Not wrk with "Connection: close":
#                            wrk keeps the TLS session across its reconnects (SSL_shutdown + SSL_clear) and so
#                            resumes it (checked against `openssl s_server -www`: all but the first were session
#                            cache hits), which measures resumption where a server issues tickets, not handshakes.
# For each: requests/s (handshakes/s), errors, p99 latency (n/a for the handshake row: s_time gives none), the server's CPU seconds and CPU microseconds per request (/proc), and
# its peak RSS.
#
# Offload (the EWYK seed's question): the same load (h1-c64 and h2-c16-m32) against
#   quarry        Quarry's own TLS port (the rows above);
#   haproxy-unix  haproxy (one thread, `bind ... ssl crt`, ALPN h2,http/1.1) in front of `quarry --unix`;
#   haproxy-tcp   the same over loopback TCP to Quarry's cleartext port.
# haproxy and Quarry share the server core, so that each set-up has the same one core; the CPU reported is the total
# of haproxy and Quarry (and how much of it is haproxy's). haproxy talks HTTP/1.1 to Quarry with keep-alive.
#
# Idle TLS connections (IDLE_SERVERS, default quarry and jetty): like idle-connections.sh over TLS. After a wrk
# warm-up, the server's live heap (jcmd GC.class_histogram, which collects first) and RSS are taken before and after
# IdleTlsClient (peers jar, on the client core) opened IDLE_CONNECTIONS connections one after another (a full
# handshake each, HTTP/1.1 by ALPN), sent one GET /plaintext on each and read the response; the differences over the
# connections give bytes per idle TLS connection.
#
# Ends with GOAL lines tls.<row>.vs-jetty (target 1.20 for the throughput rows), tls.<row>.vs-netty-jdk (1.00),
# tls.handshake.vs-jetty (1.00), and INFO lines (Netty with OpenSSL, CPU per request, heap per idle TLS connection
# against Jetty, offload).
#
# Environment: DURATION (s per measured row, default 15), WARMUP (s, default 10), SERVERS (default
# "quarry jetty netty-jdk netty-openssl"), OFFLOAD (default "haproxy-unix haproxy-tcp"; empty to skip), IDLE_SERVERS
# (default "quarry jetty"; empty to skip), IDLE_CONNECTIONS (default 10000; 1000 with QUARRY_BENCH_QUICK=1),
# QUARRY_BENCH_QUICK=1 (3 s rows), and the knobs of lib/common.sh.
set -euo pipefail
QB_SCENARIO=tls
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
SERVERS=${SERVERS:-quarry jetty netty-jdk netty-openssl}
OFFLOAD=${OFFLOAD-haproxy-unix haproxy-tcp}
SCENARIOS=(h2-c16-m32 h2-c64-m100 h1-c64 handshake-c16)
OFFLOAD_SCENARIOS=(h1-c64 h2-c16-m32)
IDLE_SERVERS=${IDLE_SERVERS-quarry jetty}
if [ "$QB_QUICK" = 1 ]; then
    IDLE_CONNECTIONS=${IDLE_CONNECTIONS:-1000}
else
    IDLE_CONNECTIONS=${IDLE_CONNECTIONS:-10000}
fi

# Every idle connection is a descriptor in the server and one in the client: raise the limit both inherit.
files=$((IDLE_CONNECTIONS + 1024))
if [ -n "$IDLE_SERVERS" ] && [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$files" ]; then
    if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$files" ]; then
        ulimit -Hn "$files" 2>/dev/null || true
    fi
    ulimit -n "$files" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
fi

qb_require h2load wrk haproxy openssl curl taskset ss
qb_check_cores
qb_build_peers
PERF=$(qb_perf_instructions_supported)

# The run's certificate: a throwaway key for 127.0.0.1/localhost, made fresh each run.
KEYSTORE=$QB_TMP/bench.p12
PEM=$QB_TMP/bench.pem
PASSWORD=quarry-bench-$$
"$JAVA_HOME/bin/keytool" -genkeypair -alias bench -keyalg EC -groupname secp256r1 -sigalg SHA256withECDSA \
    -dname CN=localhost -ext SAN=dns:localhost,ip:127.0.0.1 -validity 2 -storetype PKCS12 \
    -keystore "$KEYSTORE" -storepass "$PASSWORD" -keypass "$PASSWORD" >"$QB_TMP/keytool.log" 2>&1
# haproxy takes the chain and the key in one PEM file: only the PEM blocks, not openssl's "Bag Attributes".
{
    openssl pkcs12 -in "$KEYSTORE" -passin "pass:$PASSWORD" -nokeys -clcerts
    openssl pkcs12 -in "$KEYSTORE" -passin "pass:$PASSWORD" -nocerts -nodes
} 2>>"$QB_TMP/keytool.log" | sed -n '/^-----BEGIN/,/^-----END/p' >"$PEM"

qb_header "tls: GET /plaintext over HTTPS (TLS 1.3, EC P-256 certificate)"
echo "haproxy:  $(haproxy -v 2>&1 | sed -n '1s/ - https.*//p'), $(openssl version)"
echo "load:     $(h2load --version 2>&1 | sed -n 1p) -t1; $(wrk -v 2>&1 | sed -n '1s/ Copyright.*//p' || true) -t1; openssl s_time -new; ${DURATION}s measured per row after ${WARMUP}s warm-up (+${SHAPE_WARMUP}s per wrk and s_time row)"
echo "cpu:      user+sys CPU from /proc over each measured run (offload: haproxy + Quarry); instructions: perf $([ "$PERF" = yes ] && echo "counts them" || echo "cannot count them on this machine (n/a)")"
[ "$QB_QUICK" = 1 ] && echo "note:     QUARRY_BENCH_QUICK=1: a smoke run, not numbers to record"
echo

declare -A RPS ERR P99 CPU CPUREQ INSTR RSS SKIP CIPHER FRONTCPU
FRONT_PIDS=""  # haproxy's PIDs in the offload set-ups: its share of the CPU is reported apart

# record ROW_KEY COMPLETED TICKS0 TICKS1 FRONT_TICKS PERF_OUT: the CPU, RSS and instruction columns of a measured row.
record() {
    local key=$1 completed=$2 ticks=$(($4 - $3)) front=$5 perf_out=$6 instructions=""
    [ -n "$perf_out" ] && instructions=$(qb_perf_read "$perf_out")
    CPU[$key]=$(awk -v t="$ticks" -v hz="$QB_CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')
    CPUREQ[$key]=$(awk -v t="$ticks" -v hz="$QB_CLK_TCK" -v r="$completed" \
        'BEGIN { printf "%.2f", (r > 0 ? t / hz * 1e6 / r : 0) }')
    INSTR[$key]=$([ -n "$instructions" ] && awk -v i="$instructions" -v r="$completed" \
        'BEGIN { printf "%.0f", (r > 0 ? i / r : 0) }' || echo n/a)
    FRONTCPU[$key]=$(awk -v t="$front" -v hz="$QB_CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')
    # shellcheck disable=SC2086
    RSS[$key]=$(($(qb_status_kb VmHWM $QB_SERVER_PIDS) / 1024))
}

# Starts perf on the server's PIDs for a measured row; sets PERF_OUT (empty when perf cannot count).
perf_begin() {
    PERF_OUT=""
    PERF_PID=""
    if [ "$PERF" = yes ]; then
        PERF_OUT="$QB_TMP/perf.txt"
        # shellcheck disable=SC2086
        qb_perf_start "$1" "$PERF_OUT" $QB_SERVER_PIDS
        PERF_PID=$QB_PERF_PID
    fi
}

# wait_bounded PID SECONDS: waits for a load generator; kills it (and returns 1) if it is still running SECONDS later.
# h2load 1.52 over TLS sometimes never returns from "Stopping all clients" (seen once in a warm-up against Jetty,
# spinning a core): a bounded wait keeps the run going, and the row is then reported as skipped.
wait_bounded() {
    local pid=$1 deadline=$((SECONDS + $2))
    while kill -0 "$pid" 2>/dev/null && [ "$(qb_proc_state "$pid")" != Z ]; do
        if [ $SECONDS -ge $deadline ]; then
            qb_kill_pids "$pid"
            return 1
        fi
        sleep 0.2
    done
    wait "$pid" || qb_log "warning: load generator exited with $?"
    return 0
}

# run_h2load PORT SCENARIO SECONDS [KEY]: one h2load run over TLS; with KEY ("server/scenario"), records it.
run_h2load() {
    local port=$1 scenario=$2 seconds=$3 key=${4:-} clients streams name out log ticks0 ticks1 front0 front1 h2_pid
    clients=${scenario#h2-c}
    clients=${clients%%-*}
    streams=${scenario##*-m}
    name=${key:-warmup/$scenario}
    out="$QB_TMP/h2load-${name//\//-}.txt"
    log="$QB_TMP/h2load-${name//\//-}.log"
    # shellcheck disable=SC2086
    ticks0=$(qb_cpu_ticks $QB_SERVER_PIDS)
    # shellcheck disable=SC2086
    front0=$(qb_cpu_ticks $FRONT_PIDS)
    PERF_OUT=""
    PERF_PID=""
    [ -n "$key" ] && perf_begin "$seconds"
    taskset -c "$QB_CLIENT_CPU" h2load -t1 -c"$clients" -m"$streams" -D "$seconds" \
        -H 'accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' \
        --log-file="$log" "https://127.0.0.1:$port/plaintext" >"$out" 2>&1 &
    h2_pid=$!
    qb_track "$h2_pid"
    local hung=0
    wait_bounded "$h2_pid" $((seconds + 30)) || hung=1
    [ $hung = 1 ] && qb_log "warning: h2load did not stop 30 s after its run, killed ($out)"
    # shellcheck disable=SC2086
    ticks1=$(qb_cpu_ticks $QB_SERVER_PIDS)
    # shellcheck disable=SC2086
    front1=$(qb_cpu_ticks $FRONT_PIDS)
    [ -n "$PERF_PID" ] && { wait "$PERF_PID" 2>/dev/null || true; }
    if [ -z "$key" ]; then
        rm -f "$log"
        return 0
    fi
    local rps completed failed errored timeout non2xx
    if [ $hung = 1 ]; then
        SKIP[$key]="h2load hung while stopping its clients (killed after ${seconds}s + 30 s)"
        rm -f "$log"
        return 0
    fi
    rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$out")
    completed=$(sed -n 's/^requests: .* \([0-9]*\) done,.*/\1/p' "$out")
    if [ -z "$rps" ] || [ -z "$completed" ] || [ "$completed" = 0 ]; then
        SKIP[$key]="h2load completed no request: $(grep -m1 -i -e error -e fail -e 'no protocol' "$out" | cut -c1-120 || true)"
        rm -f "$log"
        return 0
    fi
    failed=$(sed -n 's/^requests: .* \([0-9]*\) failed,.*/\1/p' "$out")
    errored=$(sed -n 's/^requests: .* \([0-9]*\) errored,.*/\1/p' "$out")
    timeout=$(sed -n 's/^requests: .* \([0-9]*\) timeout.*/\1/p' "$out")
    non2xx=$(sed -n 's/^status codes: [0-9]* 2xx, \([0-9]*\) 3xx, \([0-9]*\) 4xx, \([0-9]*\) 5xx.*/\1 \2 \3/p' "$out" \
        | awk '{ print $1 + $2 + $3 }')
    CIPHER[${key%%/*}]="$(sed -n 's/^TLS Protocol: //p' "$out") $(sed -n 's/^Cipher: //p' "$out") $(sed -n 's/^Application protocol: //p' "$out")"
    RPS[$key]=$(awk -v r="$rps" 'BEGIN { printf "%.0f", r }')
    ERR[$key]=$((${failed:-0} + ${errored:-0} + ${timeout:-0} + ${non2xx:-0}))
    P99[$key]=$(awk -F'\t' '$2 != -1 { print $3 }' "$log" | sort -n \
        | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } i = int(NR * 0.99); if (i < NR * 0.99) i++; printf "%.2f", v[i] / 1000 }')
    record "$key" "$completed" "$ticks0" "$ticks1" $((front1 - front0)) "$PERF_OUT"
    rm -f "$log"
}

# The value of NAME=.. in the QUARRY_WRK line printed by wrk-plaintext.lua (0 when absent).
wrk_field() {
    local value
    value=$(echo "$2" | tr ' ' '\n' | sed -n "s/^$1=\([0-9]*\).*/\1/p")
    echo "${value:-0}"
}

# run_wrk PORT SCENARIO SECONDS [KEY]: one wrk run over HTTPS with keep-alive; with KEY, records it.
run_wrk() {
    local port=$1 scenario=$2 seconds=$3 key=${4:-} connections name out line ticks0 ticks1 \
        front0 front1 wrk_pid
    connections=${scenario##*-c}
    name=${key:-warmup/$scenario}
    out="$QB_TMP/wrk-${name//\//-}.txt"
    # shellcheck disable=SC2086
    ticks0=$(qb_cpu_ticks $QB_SERVER_PIDS)
    # shellcheck disable=SC2086
    front0=$(qb_cpu_ticks $FRONT_PIDS)
    PERF_OUT=""
    PERF_PID=""
    [ -n "$key" ] && perf_begin "$seconds"
    taskset -c "$QB_CLIENT_CPU" wrk -t1 -c"$connections" -d"${seconds}s" --timeout 2s --latency \
        -H 'Host: localhost' \
        -H 'Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' \
        -H 'Connection: keep-alive' -s "$QB_LIB/wrk-plaintext.lua" \
        "https://127.0.0.1:$port/plaintext" >"$out" 2>&1 &
    wrk_pid=$!
    qb_track "$wrk_pid"
    wait_bounded "$wrk_pid" $((seconds + 30)) || qb_log "warning: wrk did not stop 30 s after its run, killed ($out)"
    # shellcheck disable=SC2086
    ticks1=$(qb_cpu_ticks $QB_SERVER_PIDS)
    # shellcheck disable=SC2086
    front1=$(qb_cpu_ticks $FRONT_PIDS)
    [ -n "$PERF_PID" ] && { wait "$PERF_PID" 2>/dev/null || true; }
    [ -n "$key" ] || return 0
    line=$(grep -m1 '^QUARRY_WRK ' "$out" || true)
    if [ -z "$line" ]; then
        SKIP[$key]="wrk printed no result: $(head -n1 "$out")"
        return 0
    fi
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
    record "$key" "$requests" "$ticks0" "$ticks1" $((front1 - front0)) "$PERF_OUT"
}

# run_handshakes PORT SCENARIO SECONDS [KEY]: N `openssl s_time -new` in parallel (handshake-cN) for SECONDS;
# with KEY, records the handshakes per second (connections completed / wall-clock time of the whole run).
run_handshakes() {
    local port=$1 scenario=$2 seconds=$3 key=${4:-} clients name i pids=() ticks0 ticks1 front0 front1 t0 t1 \
        completed=0 errors=0 count file
    clients=${scenario##*-c}
    name=${key:-warmup/$scenario}
    name=${name//\//-}
    # shellcheck disable=SC2086
    ticks0=$(qb_cpu_ticks $QB_SERVER_PIDS)
    # shellcheck disable=SC2086
    front0=$(qb_cpu_ticks $FRONT_PIDS)
    PERF_OUT=""
    PERF_PID=""
    [ -n "$key" ] && perf_begin "$seconds"
    t0=$(date +%s%N)
    for i in $(seq "$clients"); do
        taskset -c "$QB_CLIENT_CPU" openssl s_time -connect "127.0.0.1:$port" -new -time "$seconds" \
            -www /plaintext </dev/null >"$QB_TMP/s_time-$name-$i.txt" 2>&1 &
        pids+=($!)
        qb_track "$!"
    done
    for i in "${pids[@]}"; do
        wait_bounded "$i" $((seconds + 30)) || qb_log "warning: openssl s_time did not stop 30 s after its run, killed"
    done
    t1=$(date +%s%N)
    # shellcheck disable=SC2086
    ticks1=$(qb_cpu_ticks $QB_SERVER_PIDS)
    # shellcheck disable=SC2086
    front1=$(qb_cpu_ticks $FRONT_PIDS)
    [ -n "$PERF_PID" ] && { wait "$PERF_PID" 2>/dev/null || true; }
    [ -n "$key" ] || return 0
    for i in $(seq "$clients"); do
        file="$QB_TMP/s_time-$name-$i.txt"
        # "N connections in T real seconds, B bytes read per connection"; a client that printed none failed.
        count=$(sed -n 's/^\([0-9]*\) connections in [0-9.]* real seconds.*/\1/p' "$file")
        if [ -z "$count" ]; then
            errors=$((errors + 1))
        else
            completed=$((completed + count))
        fi
        # OpenSSL's error lines (a failed connect or handshake) look like "...:error:...".
        errors=$((errors + $(grep -c ':error:' "$file" || true)))
    done
    if [ "$completed" = 0 ]; then
        SKIP[$key]="no handshake completed: $(grep -h -m1 -i error "$QB_TMP/s_time-$name-"*.txt | cut -c1-120 || true)"
        return 0
    fi
    RPS[$key]=$(awk -v n="$completed" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1e9 / ns }')
    ERR[$key]=$errors
    P99[$key]=n/a
    record "$key" "$completed" "$ticks0" "$ticks1" $((front1 - front0)) "$PERF_OUT"
}

# run_rows PORT SERVER SCENARIO...: the warm-up, then each row (and its own short warm-up for the wrk rows).
run_rows() {
    local port=$1 server=$2 scenario
    shift 2
    qb_log "-- $server: warm-up ${WARMUP}s"
    run_h2load "$port" h2-c16-m32 "$WARMUP"
    for scenario in "$@"; do
        case $scenario in
            h2-*)
                qb_log "-- $server: $scenario ${DURATION}s"
                run_h2load "$port" "$scenario" "$DURATION" "$server/$scenario"
                ;;
            handshake-*)
                run_handshakes "$port" "$scenario" "$SHAPE_WARMUP"
                qb_log "-- $server: $scenario ${DURATION}s"
                run_handshakes "$port" "$scenario" "$DURATION" "$server/$scenario"
                ;;
            *)
                run_wrk "$port" "$scenario" "$SHAPE_WARMUP"
                qb_log "-- $server: $scenario ${DURATION}s"
                run_wrk "$port" "$scenario" "$DURATION" "$server/$scenario"
                ;;
        esac
    done
}

# Checks that the HTTPS port negotiates h2 by ALPN (curl), so that h2load measures HTTP/2.
speaks_h2() {
    [ "$(curl -sk --http2 -o /dev/null -m 5 -w '%{http_version}' "https://127.0.0.1:$1/plaintext" 2>/dev/null)" = 2 ]
}

# ---------------------------------------------------------------------------------------------------------------
# Quarry and the peers, each terminating TLS itself.

# start_tls_server SERVER PORT: starts SERVER terminating TLS itself, pinned like the others; sets TLS_PORT (PORT, or
# PORT + 1 for Quarry, which keeps a cleartext port too), or returns 1 with QB_SKIP_REASON set.
start_tls_server() {
    local server=$1 port=$2 started=0
    TLS_PORT=$port
    QB_PEER=""
    case $server in
        quarry | quarry-baseline)
            TLS_PORT=$((port + 1))
            QB_SERVER_ARGS="--host 127.0.0.1 --https-port $TLS_PORT --keystore $KEYSTORE --keystore-password $PASSWORD"
            ;;
        jetty) QB_SERVER_ARGS="--tls-keystore $KEYSTORE --tls-password $PASSWORD" ;;
        netty-jdk | netty-openssl)
            QB_PEER=netty
            QB_SERVER_ARGS="--tls-keystore $KEYSTORE --tls-password $PASSWORD --tls-provider ${server#netty-}"
            ;;
        *)
            QB_SKIP_REASON="no TLS set-up for $server in this scenario"
            return 1
            ;;
    esac
    QB_READY_URL="https://127.0.0.1:$TLS_PORT/plaintext"
    QB_READY_CURL_FLAGS=-k
    qb_log "-- $server: starting on core $QB_SERVER_CPU, https port $TLS_PORT"
    qb_start_server "$server" "$port" && started=1
    QB_SERVER_ARGS=""
    QB_PEER=""
    QB_READY_URL=""
    [ $started = 1 ]
}

port=$QB_PORT_BASE
for server in $SERVERS; do
    port=$((port + 2))
    if ! start_tls_server "$server" "$port"; then
        SKIP[$server]=$QB_SKIP_REASON
        qb_log "-- $server: SKIPPED ($QB_SKIP_REASON)"
        continue
    fi
    tls_port=$TLS_PORT
    if ! speaks_h2 "$tls_port"; then
        SKIP[$server]="does not negotiate h2 by ALPN"
        qb_stop_server
        continue
    fi
    run_rows "$tls_port" "$server" "${SCENARIOS[@]}"
    qb_stop_server
done

# ---------------------------------------------------------------------------------------------------------------
# Offload: haproxy terminates TLS in front of Quarry (over a Unix socket, or loopback TCP), on the same core.

# haproxy_config LISTEN_PORT BACKEND_ADDRESS: a config for one haproxy thread in $QB_TMP/haproxy.cfg.
haproxy_config() {
    cat >"$QB_TMP/haproxy.cfg" <<EOF
# Generated by quarry-bench/scripts/tls.sh: TLS termination in front of Quarry, one thread, no logging.
global
    nbthread 1
    # Enough for the load (64 client connections, up to 512 streams each forwarded on its own connection to
    # Quarry); haproxy needs about two descriptors per connection and exits when the limit cannot be raised to that.
    maxconn 4096
defaults
    mode http
    timeout connect 5s
    timeout client 300s
    timeout server 300s
    timeout http-keep-alive 300s
    option http-keep-alive
    http-reuse always
frontend tls
    bind 127.0.0.1:$1 ssl crt $PEM alpn h2,http/1.1
    default_backend quarry
backend quarry
    server quarry $2
EOF
}

offload_port=$((port + 10))
for setup in $OFFLOAD; do
    offload_port=$((offload_port + 2))
    backend_port=$((offload_port + 1))
    case $setup in
        haproxy-unix)
            socket=$QB_TMP/quarry.sock
            rm -f "$socket"
            QB_SERVER_ARGS="--unix $socket"
            QB_READY_URL=http://localhost/plaintext
            QB_READY_CURL_FLAGS="--unix-socket $socket"
            backend=unix@$socket
            ;;
        haproxy-tcp)
            QB_SERVER_ARGS="--host 127.0.0.1"
            QB_READY_CURL_FLAGS=""
            backend=127.0.0.1:$backend_port
            ;;
        *)
            SKIP[$setup]="unknown offload set-up (expected haproxy-unix or haproxy-tcp)"
            continue
            ;;
    esac
    qb_log "-- $setup: starting Quarry ($backend) and haproxy on core $QB_SERVER_CPU, https port $offload_port"
    started=0
    qb_start_server quarry "$backend_port" && started=1
    QB_SERVER_ARGS=""
    QB_READY_URL=""
    QB_READY_CURL_FLAGS=-k
    if [ $started = 0 ]; then
        SKIP[$setup]="quarry: $QB_SKIP_REASON"
        qb_log "-- $setup: SKIPPED ($QB_SKIP_REASON)"
        continue
    fi
    backend_pids=$QB_SERVER_PIDS
    haproxy_config "$offload_port" "$backend"
    taskset -c "$QB_SERVER_CPU" haproxy -db -f "$QB_TMP/haproxy.cfg" </dev/null >"$QB_TMP/$setup.log" 2>&1 &
    haproxy_pid=$!
    qb_track "$haproxy_pid"
    QB_READY_URL="https://127.0.0.1:$offload_port/plaintext"
    ready=0
    qb_wait_ready "$haproxy_pid" "$offload_port" 30 && ready=1
    QB_READY_URL=""
    if [ $ready = 0 ]; then
        SKIP[$setup]="haproxy did not answer: $(grep -m1 -i -e alert -e error "$QB_TMP/$setup.log" | cut -c1-120 || true)"
        qb_kill_pids "$haproxy_pid"
        qb_stop_server
        continue
    fi
    # haproxy -db with one thread is one process: no tree to walk.
    FRONT_PIDS=$haproxy_pid
    # shellcheck disable=SC2086
    qb_watchdog $FRONT_PIDS
    QB_SERVER_PIDS="$backend_pids $FRONT_PIDS"
    if ! speaks_h2 "$offload_port"; then
        SKIP[$setup]="haproxy does not negotiate h2 by ALPN"
    else
        run_rows "$offload_port" "$setup" "${OFFLOAD_SCENARIOS[@]}"
    fi
    # shellcheck disable=SC2086
    qb_kill_pids $FRONT_PIDS
    QB_SERVER_PIDS=$backend_pids
    qb_stop_server
    FRONT_PIDS=""
done

# ---------------------------------------------------------------------------------------------------------------
# Idle TLS connections: the server's live heap (after a full GC) and RSS per idle connection, like
# idle-connections.sh but over TLS, with IdleTlsClient (peers jar) opening them one after another.

declare -A HEAPPER RSSPER OPENED
# The live heap of a JVM in bytes, after the full GC that the class histogram starts with; nothing if it fails.
live_heap() {
    "$JAVA_HOME/bin/jcmd" "$1" GC.class_histogram 2>/dev/null | awk '$1 == "Total" { print $3 }' | tail -n1 || true
}

idle_port=$((offload_port + 10))
for server in $IDLE_SERVERS; do
    idle_port=$((idle_port + 2))
    key=idle-$server
    if ! start_tls_server "$server" "$idle_port"; then
        SKIP[$key]=$QB_SKIP_REASON
        continue
    fi
    # shellcheck disable=SC2086
    java_pid=$(qb_java_pid $QB_SERVER_PIDS)
    qb_log "-- $server: idle TLS connections: warm-up ${WARMUP}s"
    run_wrk "$TLS_PORT" h1-c64 "$WARMUP"
    sleep 2 # let the warm-up's connections close on both sides
    heap0=$([ -n "$java_pid" ] && live_heap "$java_pid" || true)
    # shellcheck disable=SC2086
    rss0=$(qb_status_kb VmRSS $QB_SERVER_PIDS)
    qb_log "-- $server: opening $IDLE_CONNECTIONS idle TLS connections"
    client_log="$QB_TMP/idle-tls-client-$server.txt"
    taskset -c "$QB_CLIENT_CPU" "$JAVA_HOME/bin/java" -Xmx2g -XX:+UseSerialGC -cp "$QB_PEERS_JAR" \
        dev.quarry.bench.peers.IdleTlsClient --port "$TLS_PORT" --connections "$IDLE_CONNECTIONS" \
        --open-seconds 300 --hold-seconds 900 </dev/null >"$client_log" 2>&1 &
    client_pid=$!
    qb_track "$client_pid"
    qb_watchdog "$client_pid"
    deadline=$((SECONDS + 360))
    # The whole line: read while IdleTlsClient was still writing it, a READY line has no count yet.
    while ! grep -q '^READY .*elapsed-ms=[0-9]' "$client_log" 2>/dev/null && kill -0 "$client_pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
        sleep 0.5
    done
    opened=$(sed -n 's/^READY established=\([0-9]*\).*/\1/p' "$client_log")
    if [ -z "$opened" ] || [ "$opened" = 0 ]; then
        SKIP[$key]="the client established no connection: $(tail -n1 "$client_log" | cut -c1-120 || true)"
        qb_kill_pids "$client_pid"
        qb_stop_server
        continue
    fi
    [ "$opened" -lt "$IDLE_CONNECTIONS" ] && qb_log "warning: $server: only $opened of $IDLE_CONNECTIONS connections"
    OPENED[$key]=$opened
    sleep 2 # let the server finish whatever the last responses left behind
    heap1=$([ -n "$java_pid" ] && live_heap "$java_pid" || true)
    # shellcheck disable=SC2086
    rss1=$(qb_status_kb VmRSS $QB_SERVER_PIDS)
    qb_kill_pids "$client_pid"
    qb_stop_server
    if [ -n "$heap0" ] && [ -n "$heap1" ]; then
        HEAPPER[$key]=$(((heap1 - heap0) / opened))
    fi
    RSSPER[$key]=$(((rss1 - rss0) * 1024 / opened))
done

# ---------------------------------------------------------------------------------------------------------------
# Report.

label() {
    case $1 in
        netty-openssl) echo "netty-openssl*" ;;
        *) echo "$1" ;;
    esac
}

qb_print_table 14
echo "* for information, not in the goals. h2 rows: h2load, N connections x M streams, h2 by ALPN; h1-c64: wrk,"
echo "  64 keep-alive connections, HTTP/1.1; handshake-c16: 16 x openssl s_time -new, one full TLS 1.3 handshake"
echo "  per request, no resumption (req/s = new connections/s; errors = failed s_time connections). p99: h2load's"
echo "  per-request times; wrk's (coordinated-omission corrected). Netty: NIO transport. peak RSS: the server's VmHWM"
echo "  since its start."
echo
echo "negotiated (h2load): protocol, cipher suite, application protocol"
for server in $SERVERS; do
    [ -n "${CIPHER[$server]:-}" ] && printf "  %-14s %s\n" "$server" "${CIPHER[$server]}"
done
echo

if [ -n "$OFFLOAD" ]; then
    echo "offload: Quarry's own TLS vs haproxy terminating TLS in front of Quarry (both on core $QB_SERVER_CPU)"
    row="%-14s %-12s %12s %8s %9s %11s %11s %13s %13s\n"
    # shellcheck disable=SC2059
    printf "$row" set-up scenario 'req/s' errors 'p99 ms' 'total CPU s' 'CPU us/req' 'haproxy CPU s' 'peak RSS MiB'
    for setup in quarry $OFFLOAD; do
        for scenario in "${OFFLOAD_SCENARIOS[@]}"; do
            key=$setup/$scenario
            if [ -n "${SKIP[$setup]:-}" ] || [ -n "${SKIP[$key]:-}" ] || [ -z "${RPS[$key]:-}" ]; then
                printf "%-14s %-12s SKIPPED: %s\n" "$setup" "$scenario" "${SKIP[$key]:-${SKIP[$setup]:-not run}}"
                continue
            fi
            # shellcheck disable=SC2059
            printf "$row" "$setup" "$scenario" "${RPS[$key]}" "${ERR[$key]}" "${P99[$key]}" "${CPU[$key]}" \
                "${CPUREQ[$key]}" "${FRONTCPU[$key]}" "${RSS[$key]}"
        done
    done
    echo "  haproxy-*: total CPU and peak RSS are haproxy's + Quarry's; haproxy speaks HTTP/1.1 with keep-alive to"
    echo "  Quarry (over a Unix socket, or loopback TCP), whatever the client speaks."
    echo
fi

if [ -n "$IDLE_SERVERS" ]; then
    echo "idle TLS connections: live heap (after a full GC) and RSS per connection, (after - before) / connections"
    printf '%-14s %11s %10s %10s\n' server connections 'heap B/c' 'RSS B/c'
    for server in $IDLE_SERVERS; do
        key=idle-$server
        if [ -n "${SKIP[$key]:-}" ]; then
            printf '%-14s SKIPPED: %s\n' "$server" "${SKIP[$key]}"
            continue
        fi
        printf '%-14s %11s %10s %10s\n' "$server" "${OPENED[$key]}" "${HEAPPER[$key]:-n/a}" "${RSSPER[$key]}"
    done
    echo
fi

for key in "${!ERR[@]}"; do
    if [ "${ERR[$key]}" -gt 0 ]; then
        echo "WARN $key had ${ERR[$key]} errors (failed/errored/timed-out requests or socket errors + non-2xx)"
    fi
done

for scenario in h2-c16-m32 h2-c64-m100 h1-c64; do
    qb_goal "tls.$scenario.vs-jetty" "${RPS[quarry/$scenario]:-0}" "${RPS[jetty/$scenario]:-0}" 1.20
    qb_goal "tls.$scenario.vs-netty-jdk" "${RPS[quarry/$scenario]:-0}" "${RPS[netty-jdk/$scenario]:-0}" 1.00
done
qb_goal tls.handshake.vs-jetty "${RPS[quarry/handshake-c16]:-0}" "${RPS[jetty/handshake-c16]:-0}" 1.00
for scenario in "${SCENARIOS[@]}"; do
    qb_info "tls.$scenario.vs-netty-openssl" "${RPS[quarry/$scenario]:-0}" "${RPS[netty-openssl/$scenario]:-0}"
    # CPU per request, theirs over ours (higher is better for Quarry): steadier than req/s on a noisy machine.
    qb_info "tls.$scenario.cpu-per-request.vs-jetty" "${CPUREQ[jetty/$scenario]:-0}" "${CPUREQ[quarry/$scenario]:-0}"
    qb_info "tls.$scenario.cpu-per-request.vs-netty-jdk" "${CPUREQ[netty-jdk/$scenario]:-0}" \
        "${CPUREQ[quarry/$scenario]:-0}"
done
qb_info tls.handshake.vs-netty-jdk "${RPS[quarry/handshake-c16]:-0}" "${RPS[netty-jdk/handshake-c16]:-0}"
# Heap per idle TLS connection, theirs over ours (fewer bytes is better for Quarry; no growth counts as 1 byte).
ours_heap=${HEAPPER[idle-quarry]:-}
[ -n "$ours_heap" ] && [ "$ours_heap" -lt 1 ] && ours_heap=1
qb_info tls.idle.heap-per-connection.vs-jetty "${HEAPPER[idle-jetty]:-0}" "${ours_heap:-0}"
# Offload: Quarry's own TLS over haproxy in front of it (req/s; total CPU per request, haproxy's over direct).
for setup in $OFFLOAD; do
    for scenario in "${OFFLOAD_SCENARIOS[@]}"; do
        qb_info "tls.offload.$scenario.direct-vs-$setup" "${RPS[quarry/$scenario]:-0}" "${RPS[$setup/$scenario]:-0}"
        qb_info "tls.offload.$scenario.cpu-per-request.direct-vs-$setup" "${CPUREQ[$setup/$scenario]:-0}" \
            "${CPUREQ[quarry/$scenario]:-0}"
    done
done
