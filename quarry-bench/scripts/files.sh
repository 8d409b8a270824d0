#!/usr/bin/env bash
# quarry-bench/run.sh files: static files, `quarry serve DIR` against nginx (issue #14), the same files from the same
# directory: 1 KiB, 100 KiB and 10 MiB of random bytes (application/octet-stream, so nothing is compressed).
#
# Each server in turn runs pinned to one core (SERVER_CPU, default 0), the load generator on the other (CLIENT_CPU,
# default 1), one client thread. Rows, for each size (SIZES, default "1k 100k 10m"):
#   h1      wrk, HTTP/1.1 keep-alive, 64 connections;
#   h2c     h2load, h2c by prior knowledge, 16 connections x 32 streams;
#   tls-h1  wrk over HTTPS (TLS 1.3, HTTP/1.1 by ALPN), 64 connections;
#   tls-h2  h2load over HTTPS (h2 by ALPN), 16 connections x 32 streams.
# The 10 MiB rows use fewer connections (16 for h1, 4 x 4 streams for h2): 64 or 512 downloads of 10 MiB at once
# would only measure how the load generator interleaves them (the labels say which). For each row: requests/s,
# MB/s (bytes received by the client, heads included, per second), errors (wrk's socket errors + non-2xx; h2load's
# failed, errored and timed-out requests + non-2xx), the server's CPU seconds and CPU microseconds per request (user +
# sys of its process tree, /proc/PID/stat over the measured run), its context switches per request (all threads,
# /proc/PID/task/*/status) and its peak RSS.
#
# The servers:
#   quarry  `quarry serve DIR --host 127.0.0.1 --port P --idle-timeout 300` with the JVM flags of every scenario
#           (lib/common.sh); HTTP/1.1 and h2c (prior knowledge) on P, HTTPS (h2, http/1.1) on --https-port with a
#           fresh self-signed EC P-256 certificate (a PKCS#12 keystore, made like tls.sh's). Everything else is the
#           default: files up to 16 KiB cached in memory, larger ones kept open and mapped (up to 64 MiB), written
#           from the mapping on HTTP/1.1 (cleartext and TLS).
#   nginx   1.22 from apt, one worker, generated config (kept with QUARRY_BENCH_KEEP=1): `sendfile on`,
#           `tcp_nopush on` (TCP_CORK around the head and the file: one segment train), `tcp_nodelay on`,
#           `open_file_cache max=1000 inactive=60s` (open descriptors and sizes kept, revalidated every 60 s),
#           `keepalive_requests 1000000`, no access log, `default_type application/octet-stream`, ETag on; h2c on an
#           HTTP/2-only port (nginx 1.22 serves h2c only by prior knowledge there), HTTPS on `listen ... ssl http2`
#           with the same certificate as PEM, TLS 1.3. Over TLS nginx encrypts with OpenSSL in user space and the
#           kernel cannot sendfile (no kTLS here), as Quarry (JSSE) reads and encrypts.
#   quarry-baseline  the ./quarry of another checkout (QUARRY_BASELINE=/path/to/it/quarry), to compare a change with
#           the code before it in the same run.
#
# Ends with GOAL lines files.<row>.vs-nginx (req/s, target 1.00) and files.<row>.cpu-per-request.vs-nginx (nginx's
# CPU per request over Quarry's, target 1.00), and INFO lines against the baseline when it ran.
#
# Environment: DURATION (s per measured row, default 10), WARMUP (s, default 6; half of it per protocol, each
# protocol on the first file), SERVERS (default
# "quarry nginx"), SIZES (default "1k 100k 10m"), PROTOCOLS (default "h1 h2c tls-h1 tls-h2"), QUARRY_BASELINE,
# QUARRY_BENCH_QUICK=1 (3 s rows), and the knobs of lib/common.sh.
set -euo pipefail
QB_SCENARIO=files
# shellcheck source=lib/common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/common.sh"

if [ "$QB_QUICK" = 1 ]; then
    DURATION=${DURATION:-3}
    WARMUP=${WARMUP:-2}
else
    DURATION=${DURATION:-10}
    WARMUP=${WARMUP:-6}
fi
SERVERS=${SERVERS:-quarry nginx}
SIZES=${SIZES:-1k 100k 10m}
PROTOCOLS=${PROTOCOLS:-h1 h2c tls-h1 tls-h2}

qb_require wrk h2load nginx openssl curl taskset ss
qb_check_cores

# The row names, e.g. h1-c64-100k; the 10 MiB rows use fewer connections (see above).
SCENARIOS=()
for protocol in $PROTOCOLS; do
    for size in $SIZES; do
        case $protocol in
            h1 | tls-h1) shape=$([ "$size" = 10m ] && echo c16 || echo c64) ;;
            h2c | tls-h2) shape=$([ "$size" = 10m ] && echo c4-m4 || echo c16-m32) ;;
            *)
                qb_log "error: unknown protocol $protocol (expected h1, h2c, tls-h1, tls-h2)"
                exit 2
                ;;
        esac
        SCENARIOS+=("$protocol-$shape-$size")
    done
done

# The files: random bytes, so that no layer can compress them.
DOCROOT=$QB_TMP/www
mkdir -p "$DOCROOT"
for size in $SIZES; do
    case $size in
        1k) bytes=1024 ;;
        100k) bytes=$((100 * 1024)) ;;
        10m) bytes=$((10 * 1024 * 1024)) ;;
        *)
            qb_log "error: unknown size $size (expected 1k, 100k, 10m)"
            exit 2
            ;;
    esac
    head -c "$bytes" /dev/urandom >"$DOCROOT/$size.bin"
done
first_file=$(echo "$SIZES" | awk '{ print $1 }').bin
# nginx's worker runs as an unprivileged user when the script runs as root: it must reach the files (mktemp made the
# run's directory private).
chmod a+rx "$QB_TMP" "$DOCROOT"
chmod a+r "$DOCROOT"/*

# The run's certificate: a throwaway key for 127.0.0.1/localhost, PKCS#12 for Quarry, PEM for nginx.
KEYSTORE=$QB_TMP/bench.p12
PASSWORD=quarry-bench-$$
"$JAVA_HOME/bin/keytool" -genkeypair -alias bench -keyalg EC -groupname secp256r1 -sigalg SHA256withECDSA \
    -dname CN=localhost -ext SAN=dns:localhost,ip:127.0.0.1 -validity 2 -storetype PKCS12 \
    -keystore "$KEYSTORE" -storepass "$PASSWORD" -keypass "$PASSWORD" >"$QB_TMP/keytool.log" 2>&1
openssl pkcs12 -in "$KEYSTORE" -passin "pass:$PASSWORD" -nokeys -clcerts 2>>"$QB_TMP/keytool.log" \
    | sed -n '/^-----BEGIN/,/^-----END/p' >"$QB_TMP/cert.pem"
openssl pkcs12 -in "$KEYSTORE" -passin "pass:$PASSWORD" -nocerts -nodes 2>>"$QB_TMP/keytool.log" \
    | sed -n '/^-----BEGIN/,/^-----END/p' >"$QB_TMP/key.pem"

qb_header "files: static files, quarry serve vs nginx (1 KiB, 100 KiB, 10 MiB)"
echo "load:     $(wrk -v 2>&1 | sed -n '1s/ Copyright.*//p' || true) -t1; $(h2load --version 2>&1 | sed -n 1p) -t1; ${DURATION}s per row after $(((WARMUP + 1) / 2))s warm-up per protocol and server (+1 s per row)"
echo "cpu:      server user+sys CPU from /proc over each measured run"
echo "files:    $(for size in $SIZES; do printf '%s.bin=%s B ' "$size" "$(stat -c %s "$DOCROOT/$size.bin")"; done)"
[ "$QB_QUICK" = 1 ] && echo "note:     QUARRY_BENCH_QUICK=1: a smoke run, not numbers to record"
echo

declare -A RPS MBS ERR CPU CPUREQ CSREQ RSS SKIP

# Context switches (voluntary + involuntary) of the given PIDs' threads: a server that hands each request from one
# thread to another, and back, shows about two per request, and on a busy core each of them may wait behind other
# processes (its core then looks idle while the peer's is busy).
context_switches() {
    local pid total=0
    for pid in "$@"; do
        total=$((total + $(cat "/proc/$pid/task/"*/status 2>/dev/null \
            | awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }')))
    done
    echo $total
}

# nginx_config PORT: one worker serving $DOCROOT on PORT (HTTP/1.1), PORT+1 (h2c) and PORT+2 (HTTPS, h2 and http/1.1).
nginx_config() {
    local port=$1
    qb_nginx_write_config "static files (files.sh)" "    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    open_file_cache max=1000 inactive=60s;
    ssl_certificate $QB_TMP/cert.pem;
    ssl_certificate_key $QB_TMP/key.pem;
    ssl_protocols TLSv1.3;
    server {
        listen 127.0.0.1:$port;
        listen 127.0.0.1:$((port + 1)) http2;
        listen 127.0.0.1:$((port + 2)) ssl http2;
        root $DOCROOT;
    }"
}

# start_files_server SERVER PORT: starts SERVER pinned to the server core, sets QB_SERVER_PID(S) and the ports of
# each protocol (H1_PORT, H2C_PORT, TLS_PORT), or returns 1 with QB_SKIP_REASON set.
start_files_server() {
    local server=$1 port=$2 log="$QB_TMP/$1.log" launcher
    QB_SERVER_PID=""
    QB_SERVER_PIDS=""
    QB_SKIP_REASON=""
    H1_PORT=$port
    TLS_PORT=$((port + 2))
    case $server in
        quarry | quarry-baseline)
            launcher=$QB_QUARRY
            [ "$server" = quarry-baseline ] && launcher=${QUARRY_BASELINE:-}
            if [ -z "$launcher" ] || [ ! -x "$launcher" ]; then
                QB_SKIP_REASON="${launcher:-QUARRY_BASELINE} not present"
                return 1
            fi
            H2C_PORT=$port
            # ./quarry execs its JVM with JAVA_OPTS, so the PID measured is the JVM's.
            JAVA_OPTS="$QB_JVM_FLAGS" taskset -c "$QB_SERVER_CPU" "$launcher" serve "$DOCROOT" --host 127.0.0.1 \
                --port "$port" --https-port "$TLS_PORT" --keystore "$KEYSTORE" --keystore-password "$PASSWORD" \
                --idle-timeout 300 </dev/null >"$log" 2>&1 &
            ;;
        nginx)
            H2C_PORT=$((port + 1))
            nginx_config "$port"
            taskset -c "$QB_SERVER_CPU" nginx -p "$QB_TMP/nginx" -c "$QB_TMP/nginx/nginx.conf" -e stderr \
                </dev/null >"$log" 2>&1 &
            ;;
        *)
            QB_SKIP_REASON="unknown server (expected quarry, quarry-baseline or nginx)"
            return 1
            ;;
    esac
    QB_SERVER_PID=$!
    qb_track "$QB_SERVER_PID"
    QB_READY_URL="http://127.0.0.1:$H1_PORT/$first_file"
    local ready=0
    qb_wait_ready "$QB_SERVER_PID" "$H1_PORT" 300 && ready=1
    QB_READY_URL=""
    if [ $ready = 0 ]; then
        QB_SKIP_REASON="did not answer 200 on port $H1_PORT: $(grep -m1 -i -e error -e exception -e emerg "$log" | cut -c1-140 || true)"
        qb_kill_pids "$QB_SERVER_PID"
        return 1
    fi
    # nginx forks its worker after it answers: give it a moment, then take the whole tree.
    sleep 0.5
    QB_SERVER_PIDS=$(qb_tree "$QB_SERVER_PID")
    local pid
    for pid in $QB_SERVER_PIDS; do
        [ "$pid" = "$QB_SERVER_PID" ] || qb_track "$pid"
    done
    # shellcheck disable=SC2086
    qb_watchdog $QB_SERVER_PIDS
}

# wait_bounded PID SECONDS: waits for a load generator; kills it (and returns 1) if it is still running SECONDS later
# (h2load over TLS sometimes never returns from "Stopping all clients": see tls.sh).
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

# The value of NAME=.. in the QUARRY_WRK line printed by wrk-plaintext.lua (0 when absent).
wrk_field() {
    local value
    value=$(echo "$2" | tr ' ' '\n' | sed -n "s/^$1=\([0-9]*\).*/\1/p")
    echo "${value:-0}"
}

# record KEY REQUESTS BYTES MICROSECONDS TICKS0 TICKS1 SWITCHES: the columns of a measured row.
record() {
    local key=$1 requests=$2 bytes=$3 micros=$4 ticks=$(($6 - $5)) switches=$7
    RPS[$key]=$(awk -v r="$requests" -v d="$micros" 'BEGIN { printf "%.0f", (d > 0 ? r * 1e6 / d : 0) }')
    MBS[$key]=$(awk -v b="$bytes" -v d="$micros" 'BEGIN { printf "%.1f", (d > 0 ? b / d : 0) }')
    CPU[$key]=$(awk -v t="$ticks" -v hz="$QB_CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')
    CPUREQ[$key]=$(awk -v t="$ticks" -v hz="$QB_CLK_TCK" -v r="$requests" \
        'BEGIN { printf "%.2f", (r > 0 ? t / hz * 1e6 / r : 0) }')
    CSREQ[$key]=$(awk -v s="$switches" -v r="$requests" 'BEGIN { printf "%.2f", (r > 0 ? s / r : 0) }')
    # shellcheck disable=SC2086
    RSS[$key]=$(($(qb_status_kb VmHWM $QB_SERVER_PIDS) / 1024))
}

# run_row SCENARIO SECONDS [KEY]: one load run of the row's protocol, shape and file; with KEY, records it.
run_row() {
    local scenario=$1 seconds=$2 key=${3:-} protocol shape size url out ticks0 ticks1 switches0 switches1 pid name
    size=${scenario##*-}
    protocol=${scenario%%-c*}
    shape=${scenario#"$protocol"-}
    shape=${shape%-"$size"}
    case $protocol in
        h1) url="http://127.0.0.1:$H1_PORT/$size.bin" ;;
        h2c) url="http://127.0.0.1:$H2C_PORT/$size.bin" ;;
        *) url="https://127.0.0.1:$TLS_PORT/$size.bin" ;;
    esac
    name=${key:-warmup/$scenario}
    out="$QB_TMP/load-${name//\//-}.txt"
    # shellcheck disable=SC2086
    ticks0=$(qb_cpu_ticks $QB_SERVER_PIDS)
    # shellcheck disable=SC2086
    switches0=$(context_switches $QB_SERVER_PIDS)
    case $protocol in
        h1 | tls-h1)
            taskset -c "$QB_CLIENT_CPU" wrk -t1 -c"${shape#c}" -d"${seconds}s" --timeout 10s "${QB_WRK_HEADERS[@]}" \
                -s "$QB_LIB/wrk-plaintext.lua" "$url" >"$out" 2>&1 &
            ;;
        *)
            local clients=${shape%%-*} streams=${shape##*-m}
            taskset -c "$QB_CLIENT_CPU" h2load -t1 -c"${clients#c}" -m"$streams" -D "$seconds" "$url" >"$out" 2>&1 &
            ;;
    esac
    pid=$!
    qb_track "$pid"
    local hung=0
    wait_bounded "$pid" $((seconds + 30)) || hung=1
    # shellcheck disable=SC2086
    ticks1=$(qb_cpu_ticks $QB_SERVER_PIDS)
    # shellcheck disable=SC2086
    switches1=$(context_switches $QB_SERVER_PIDS)
    [ -n "$key" ] || return 0
    if [ $hung = 1 ]; then
        SKIP[$key]="the load generator did not stop 30 s after its run (killed)"
        return 0
    fi
    case $protocol in
        h1 | tls-h1)
            local line errors=0 field
            line=$(grep -m1 '^QUARRY_WRK ' "$out" || true)
            if [ -z "$line" ]; then
                SKIP[$key]="wrk printed no result: $(head -n1 "$out")"
                return 0
            fi
            for field in connect read write status timeout; do
                errors=$((errors + $(wrk_field "$field" "$line")))
            done
            ERR[$key]=$errors
            record "$key" "$(wrk_field requests "$line")" "$(wrk_field bytes "$line")" \
                "$(wrk_field duration_us "$line")" "$ticks0" "$ticks1" $((switches1 - switches0))
            ;;
        *)
            local completed failed errored timeout non2xx bytes elapsed
            completed=$(sed -n 's/^requests: .* \([0-9]*\) done,.*/\1/p' "$out")
            # "finished in 10.00s, ..." and "traffic: 4.66GB (5003473920) total, ..."
            elapsed=$(sed -n 's/^finished in \([0-9.]*\)\(m\{0,1\}s\),.*/\1 \2/p' "$out" \
                | awk '{ printf "%.0f", ($2 == "ms" ? $1 * 1e3 : $1 * 1e6) }')
            bytes=$(sed -n 's/^traffic: [^(]*(\([0-9]*\)) total.*/\1/p' "$out")
            if [ -z "$completed" ] || [ "$completed" = 0 ] || [ -z "$elapsed" ]; then
                SKIP[$key]="h2load completed no request: $(grep -m1 -i -e error -e fail -e 'no protocol' "$out" | cut -c1-120 || true)"
                return 0
            fi
            failed=$(sed -n 's/^requests: .* \([0-9]*\) failed,.*/\1/p' "$out")
            errored=$(sed -n 's/^requests: .* \([0-9]*\) errored,.*/\1/p' "$out")
            timeout=$(sed -n 's/^requests: .* \([0-9]*\) timeout.*/\1/p' "$out")
            non2xx=$(sed -n 's/^status codes: [0-9]* 2xx, \([0-9]*\) 3xx, \([0-9]*\) 4xx, \([0-9]*\) 5xx.*/\1 \2 \3/p' "$out" \
                | awk '{ print $1 + $2 + $3 }')
            ERR[$key]=$((${failed:-0} + ${errored:-0} + ${timeout:-0} + ${non2xx:-0}))
            record "$key" "$completed" "${bytes:-0}" "$elapsed" "$ticks0" "$ticks1" $((switches1 - switches0))
            ;;
    esac
}

port=$QB_PORT_BASE
for server in $SERVERS; do
    port=$((port + 10))
    qb_log "-- $server: starting on core $QB_SERVER_CPU, ports $port-$((port + 2))"
    if ! start_files_server "$server" "$port"; then
        SKIP[$server]=$QB_SKIP_REASON
        qb_log "-- $server: SKIPPED ($QB_SKIP_REASON)"
        continue
    fi
    if ! curl -s -o /dev/null -m 5 --http2-prior-knowledge "http://127.0.0.1:$H2C_PORT/$first_file"; then
        qb_log "-- $server: warning: no h2c with prior knowledge on port $H2C_PORT"
    fi
    # Every protocol's code warms up (the JIT), TLS included: a first TLS row measured cold cost Quarry 4x its CPU.
    qb_log "-- $server: warm-up $(((WARMUP + 1) / 2))s per protocol"
    for protocol in $PROTOCOLS; do
        case $protocol in
            h1 | tls-h1) run_row "$protocol-c64-${first_file%.bin}" $(((WARMUP + 1) / 2)) ;;
            *) run_row "$protocol-c16-m32-${first_file%.bin}" $(((WARMUP + 1) / 2)) ;;
        esac
    done
    for scenario in "${SCENARIOS[@]}"; do
        run_row "$scenario" 1
        qb_log "-- $server: $scenario ${DURATION}s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
        run_row "$scenario" "$DURATION" "$server/$scenario"
    done
    qb_stop_server
done

row="%-16s %-20s %10s %9s %7s %7s %11s %8s %13s\n"
# shellcheck disable=SC2059
printf "$row" server scenario 'req/s' 'MB/s' errors 'CPU s' 'CPU us/req' 'cs/req' 'peak RSS MiB'
for server in $SERVERS; do
    if [ -n "${SKIP[$server]:-}" ]; then
        printf "%-16s %-20s SKIPPED: %s\n" "$server" all "${SKIP[$server]}"
        continue
    fi
    for scenario in "${SCENARIOS[@]}"; do
        key=$server/$scenario
        if [ -n "${SKIP[$key]:-}" ]; then
            printf "%-16s %-20s SKIPPED: %s\n" "$server" "$scenario" "${SKIP[$key]}"
            continue
        fi
        # shellcheck disable=SC2059
        printf "$row" "$server" "$scenario" "${RPS[$key]}" "${MBS[$key]}" "${ERR[$key]}" "${CPU[$key]}" \
            "${CPUREQ[$key]}" "${CSREQ[$key]}" "${RSS[$key]}"
    done
done
echo "rows: PROTOCOL-SHAPE-SIZE; cN = N connections (wrk), cN-mM = N connections x M streams (h2load). MB/s: bytes"
echo "  received by the client per second, heads included (10^6 B). cs/req: the server's context switches (voluntary +"
echo "  involuntary, all threads) per request. load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
for key in "${!ERR[@]}"; do
    if [ "${ERR[$key]}" -gt 0 ]; then
        echo "WARN $key had ${ERR[$key]} errors"
    fi
done
echo

for scenario in "${SCENARIOS[@]}"; do
    qb_goal "files.$scenario.vs-nginx" "${RPS[quarry/$scenario]:-0}" "${RPS[nginx/$scenario]:-0}" 1.00
    # CPU per request, nginx's over Quarry's: higher is better for Quarry.
    qb_goal "files.$scenario.cpu-per-request.vs-nginx" "${CPUREQ[nginx/$scenario]:-0}" \
        "${CPUREQ[quarry/$scenario]:-0}" 1.00
done
for scenario in "${SCENARIOS[@]}"; do
    if [ -n "${RPS[quarry-baseline/$scenario]:-}" ]; then
        qb_info "files.$scenario.vs-baseline" "${RPS[quarry/$scenario]:-0}" "${RPS[quarry-baseline/$scenario]:-0}"
        qb_info "files.$scenario.cpu-per-request.vs-baseline" "${CPUREQ[quarry-baseline/$scenario]:-0}" \
            "${CPUREQ[quarry/$scenario]:-0}"
    fi
done
