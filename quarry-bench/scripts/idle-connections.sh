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
# PROTOCOLS (default "h1") chooses what the idle connections speak: h1 (one HTTP/1.1 GET, keep-alive) and/or h2c
# (HTTP/2 with prior knowledge: the preface and an empty SETTINGS frame, the server's SETTINGS acknowledged, one GET
# on stream 1 with a static-table-only HPACK block, the server's SETTINGS ACK and the whole response read; the state
# a real client leaves an idle HTTP/2 connection in). `PROTOCOLS="h1 h2c"` measures both, every server in turn for
# each. nginx speaks h2c with prior knowledge only on a port of its own ("listen ... http2"), which it gets here.
#
# Ends with GOAL idle.heap-per-connection.vs-jetty: Jetty's bytes / Quarry's bytes (higher is better for Quarry),
# target 1.00, and an INFO line for RSS; with h2c, GOAL idle.h2c.heap-per-connection.vs-<peer> for every Java peer
# measured (target 1.00: the fewest bytes of all) and INFO idle.h2c.rss-per-connection.vs-<peer>.
#
# Quarry is started as `./quarry plaintext --port N --idle-timeout 300 --max-connections 0` (see qb_start_server in
# lib/common.sh); with QUARRY_BASELINE=/path/to/another/checkout/quarry, SERVERS may name quarry-baseline too.
#
# Environment: CONNECTIONS (default 10000; 2000 with QUARRY_BENCH_QUICK=1), WARMUP (s of wrk, default 5),
# PROTOCOLS (default "h1"), SERVERS (default "quarry jetty netty undertow helidon nginx" for h1 alone, and with h2c
# "quarry jetty netty netty-epoll vertx undertow helidon nginx": the h2 scenario's servers), and the knobs of
# lib/common.sh.
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
PROTOCOLS=${PROTOCOLS:-h1}
for protocol in $PROTOCOLS; do
    case $protocol in
        h1 | h2c) ;;
        *) qb_log "error: PROTOCOLS: unknown protocol $protocol (h1, h2c)"; exit 1 ;;
    esac
done
if [[ " $PROTOCOLS " == *" h2c "* ]]; then
    SERVERS=${SERVERS:-quarry jetty netty netty-epoll vertx undertow helidon nginx}
else
    SERVERS=${SERVERS:-quarry jetty netty undertow helidon nginx}
fi
# Quarry caps connections at half its descriptor limit by default (9,900 with ulimit -n 20000): fewer than the
# scenario opens, and IdleClient would wait for responses from connections never accepted. The peers have no cap.
# Passed to every Quarry row (quarry-baseline too, which takes no QUARRY_PLAINTEXT_ARGS), see the loop below.
QUARRY_UNCAPPED="--max-connections 0"
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
[[ " $PROTOCOLS " == *" h2c "* ]] && qb_require h2load
qb_check_cores
qb_build_peers

qb_header "idle-connections: memory per idle keep-alive connection"
echo "client:   IdleClient (peers jar), $CONNECTIONS connections, one GET /plaintext each, then idle; ulimit -n $(ulimit -n)"
echo "protocols: $PROTOCOLS (h2c: prior knowledge, SETTINGS exchanged both ways, one request on stream 1)"
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

# Every server for each protocol in turn; the measurements are keyed server/protocol.
runs=$(for protocol in $PROTOCOLS; do for server in $SERVERS; do echo "$server/$protocol"; done; done)
port=$QB_PORT_BASE
for key in $runs; do
    server=${key%/*}
    protocol=${key#*/}
    port=$((port + 1))
    qb_log "-- $server ($protocol): starting on core $QB_SERVER_CPU, port $port"
    started=0
    QB_READY_CURL_FLAGS=""
    nginx_listen=""
    if [ "$server" = nginx ] && [ "$protocol" = h2c ]; then
        # nginx's h2c port speaks only HTTP/2: check readiness with prior knowledge, warm it up with h2load.
        QB_READY_CURL_FLAGS=--http2-prior-knowledge
        nginx_listen=http2
    fi
    QB_SERVER_ARGS=""
    [[ $server == quarry* ]] && QB_SERVER_ARGS=$QUARRY_UNCAPPED
    qb_start_server "$server" "$port" $nginx_listen && started=1
    QB_SERVER_ARGS=""
    QB_READY_CURL_FLAGS=""
    if [ $started = 0 ]; then
        SKIP[$key]=$QB_SKIP_REASON
        qb_log "-- $server ($protocol): SKIPPED ($QB_SKIP_REASON)"
        continue
    fi
    # shellcheck disable=SC2086
    java_pid=$(qb_java_pid $QB_SERVER_PIDS)
    qb_log "-- $server ($protocol): warm-up ${WARMUP}s"
    if [ "$protocol" = h2c ]; then
        # The HTTP/2 code paths warmed up too (h2load, one stream per connection like the idle client's).
        taskset -c "$QB_CLIENT_CPU" h2load -t1 -c64 -m1 -D "$WARMUP" \
            "http://127.0.0.1:$port/plaintext" >"$QB_TMP/h2load-$server.txt" 2>&1 &
    else
        taskset -c "$QB_CLIENT_CPU" wrk -t1 -c64 -d"${WARMUP}s" "${QB_WRK_HEADERS[@]}" \
            "http://127.0.0.1:$port/plaintext" >"$QB_TMP/wrk-$server.txt" 2>&1 &
    fi
    wrk_pid=$!
    qb_track "$wrk_pid"
    wait "$wrk_pid" || qb_log "warning: the warm-up load generator exited with $?"
    sleep 2 # let the warm-up's connections close on both sides

    [ -n "$java_pid" ] && HEAP0[$key]=$(live_heap "$java_pid")
    # shellcheck disable=SC2086
    RSS0[$key]=$(qb_status_kb VmRSS $QB_SERVER_PIDS)

    qb_log "-- $server ($protocol): opening $CONNECTIONS idle connections"
    client_log="$QB_TMP/idle-client-$server-$protocol.txt"
    taskset -c "$QB_CLIENT_CPU" "$JAVA_HOME/bin/java" -Xmx512m -XX:+UseSerialGC -cp "$QB_PEERS_JAR" \
        dev.quarry.bench.peers.IdleClient --port "$port" --connections "$CONNECTIONS" \
        --open-seconds "$OPEN_SECONDS" --hold-seconds 600 --protocol "$protocol" </dev/null >"$client_log" 2>&1 &
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
        SKIP[$key]="the client established no connection: $(tail -n1 "$client_log" | cut -c1-120)"
        qb_kill_pids "$client_pid"
        qb_stop_server
        continue
    fi
    [ "$opened" -lt "$CONNECTIONS" ] && qb_log "warning: $server ($protocol): only $opened of $CONNECTIONS connections: $ready"
    OPENED[$key]=$opened
    OPENSECS[$key]=$(echo "$ready" | sed -n 's/.*elapsed-ms=\([0-9]*\).*/\1/p' | awk '{ printf "%.1f", $1 / 1000 }')
    sleep 2 # let the server finish whatever the last responses left behind

    [ -n "$java_pid" ] && HEAP1[$key]=$(live_heap "$java_pid")
    # shellcheck disable=SC2086
    RSS1[$key]=$(qb_status_kb VmRSS $QB_SERVER_PIDS)
    closed=$(grep '^CLOSED-BY-SERVER ' "$client_log" | tail -n1 | awk '{ print $2 }' || true)
    if [ -n "$closed" ]; then
        qb_log "warning: $server ($protocol) closed $closed of the idle connections while they were measured"
        SKIP[$key/closed]=$closed
    fi
    qb_kill_pids "$client_pid"
    qb_stop_server

    if [ -n "${HEAP0[$key]:-}" ] && [ -n "${HEAP1[$key]:-}" ]; then
        HEAPPER[$key]=$(((HEAP1[$key] - HEAP0[$key]) / opened))
    fi
    RSSPER[$key]=$(((RSS1[$key] - RSS0[$key]) * 1024 / opened))
done

mib() { [ -n "${1:-}" ] && awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }' || echo n/a; }

printf '%-15s %-5s %11s %8s %11s %11s %10s %11s %11s %10s\n' \
    server proto connections 'open s' 'heap0 MiB' 'heap1 MiB' 'heap B/c' 'RSS0 MiB' 'RSS1 MiB' 'RSS B/c'
for protocol in $PROTOCOLS; do
    for server in $SERVERS; do
        key=$server/$protocol
        if [ -n "${SKIP[$key]:-}" ]; then
            printf '%-15s %-5s SKIPPED: %s\n' "$server" "$protocol" "${SKIP[$key]}"
            continue
        fi
        printf '%-15s %-5s %11s %8s %11s %11s %10s %11s %11s %10s\n' "$server" "$protocol" "${OPENED[$key]}" \
            "${OPENSECS[$key]}" "$(mib "${HEAP0[$key]:-}")" "$(mib "${HEAP1[$key]:-}")" "${HEAPPER[$key]:-n/a}" \
            "$(mib $((RSS0[$key] * 1024)))" "$(mib $((RSS1[$key] * 1024)))" "${RSSPER[$key]}"
        if [ -n "${SKIP[$key/closed]:-}" ]; then
            echo "WARN $server ($protocol) closed ${SKIP[$key/closed]} connections during the measurement: its numbers are too low"
        fi
    done
done
echo "heap B/c and RSS B/c: bytes per connection (after - before) / connections; nginx has no heap (n/a)."
echo

# Ratios are theirs / ours: fewer bytes per connection is better for Quarry. A Quarry that measured no growth at
# all (or less, by noise) counts as 1 byte, so that it still meets the goal.
# at least 1 byte: a Quarry figure below that (no growth, or noise) still counts, as meeting the goal.
at_least_1() { [ -n "${1:-}" ] && { [ "$1" -lt 1 ] && echo 1 || echo "$1"; } || true; }
if [[ " $PROTOCOLS " == *" h1 "* ]]; then
    ours_heap=$(at_least_1 "${HEAPPER[quarry/h1]:-}")
    ours_rss=$(at_least_1 "${RSSPER[quarry/h1]:-}")
    qb_goal idle.heap-per-connection.vs-jetty "${HEAPPER[jetty/h1]:-0}" "${ours_heap:-0}" 1.00
    qb_info idle.rss-per-connection.vs-jetty "${RSSPER[jetty/h1]:-0}" "${ours_rss:-0}"
fi
if [[ " $PROTOCOLS " == *" h2c "* ]]; then
    ours_heap=$(at_least_1 "${HEAPPER[quarry/h2c]:-}")
    ours_rss=$(at_least_1 "${RSSPER[quarry/h2c]:-}")
    # The goal is the fewest bytes of all: one GOAL line per Java peer measured (nginx has no heap: INFO only).
    for server in $SERVERS; do
        case $server in quarry* | nginx) continue ;; esac
        [ -n "${SKIP[$server/h2c]:-}" ] && continue
        qb_goal "idle.h2c.heap-per-connection.vs-$server" "${HEAPPER[$server/h2c]:-0}" "${ours_heap:-0}" 1.00
        qb_info "idle.h2c.rss-per-connection.vs-$server" "${RSSPER[$server/h2c]:-0}" "${ours_rss:-0}"
    done
    [[ " $SERVERS " == *" nginx "* ]] && qb_info idle.h2c.rss-per-connection.vs-nginx "${RSSPER[nginx/h2c]:-0}" "${ours_rss:-0}"
fi
