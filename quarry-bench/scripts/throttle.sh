#!/usr/bin/env bash
# quarry-bench/run.sh throttle: the experiment of "Tenfold increase in server throughput with Servlet
# 3.0 asynchronous processing" over real sockets. 100 concurrent clients each
# download a 200 KiB file at a per-request limit of 20 KiB/s from a server with 10 platform threads and no virtual
# threads: Quarry (writes parked on the timer) against a thread-per-request blocking baseline with the same 10 threads
# (the article's pre-Servlet-3.0 loop: take a 20 KiB token, waiting; write; repeat), where 90 clients queue for a thread
# (the article saw ~9 s to the first byte). Then two more experiments on Quarry alone:
#   - global limit: 100 clients download again and again for 30 s through a 20 MiB/s global limit (no per-request
#     limit); the body bytes they receive per second must be the limit within 2 %;
#   - never-reading clients (the article's "Dr. Evil"): 100 connections ask for an endless body (/big.bin, 1 GiB, at the
#     same 20 KiB/s per request; ThrottleServerMain: its own endless body) and never read, while 20 well-behaved clients
#     download the 200 KiB file at 20 KiB/s; the server's RSS must stay flat (growth under 10 MiB) and the good clients
#     must be unaffected (INFO line). At 20 KiB/s the kernel's socket buffers (~360 KiB per connection on loopback)
#     take everything sent during the 15 s hold, so the idle timeout does not get to close them here: the
#     ThrottleHandler tests cover back pressure and the idle timeout of a client that stops reading.
#
# Each server runs pinned to core SERVER_CPU with the JVM flags of lib/common.sh; the load client (ThrottleLoadClient in
# the quarry-bench jar, platform threads) runs on CLIENT_CPU. Every measured round follows a warm-up round on the same
# server. Server CPU is user + system time from /proc/PID/stat over the measured round, as a share of one core.
#
# Goals (GOAL lines; ratio >= target means met):
#   throttle.download-duration.within-5pct    ratio = fraction of Quarry's downloads within 10 s +-5 %     target 1.00
#   throttle.ttfb-p99-under-100ms             ratio = 100 ms / Quarry's p99 time to first byte           target 1.00
#   throttle.server-cpu-under-10pct           ratio = 10 % / Quarry's CPU share of one core              target 1.00
#   throttle.global-limit-within-2pct         ratio = 2 % / |measured rate - limit| in % of the limit    target 1.00
#   throttle.never-reading-clients.rss-flat   ratio = 10 MiB / RSS growth, heap pre-touched (under 1 KiB counts 1) 1.00
# The baseline's figures are printed beside Quarry's, and as INFO lines.
#
# Quarry's server: `./quarry serve DIR --port N --request-rate 20KiB/s --threads 10 --virtual-threads off` when
# `./quarry serve --help` mentions --request-rate; otherwise dev.quarry.bench.throttle.ThrottleServerMain from the
# quarry-bench jar, which serves the files of DIR from memory behind a ThrottleHandler (and /big.bin).
# The flags map one to one: --global-rate becomes --rate; --idle-timeout and --request-rate are the same.
#
# Environment: CLIENTS (100), SIZE_KIB (200; 80 with QUARRY_BENCH_QUICK=1), RATE_KIB (20), THREADS (10),
# GLOBAL_RATE (20MiB/s), GLOBAL_SECONDS (30; 8 quick), EVIL_CLIENTS (100), GOOD_CLIENTS (20), and lib/common.sh's knobs.
set -euo pipefail
# shellcheck disable=SC2034 # read by lib/common.sh
QB_SCENARIO=throttle
# shellcheck source=lib/common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/common.sh"

if [ "$QB_QUICK" = 1 ]; then
    SIZE_KIB=${SIZE_KIB:-80}
    GLOBAL_SECONDS=${GLOBAL_SECONDS:-8}
else
    SIZE_KIB=${SIZE_KIB:-200}
    GLOBAL_SECONDS=${GLOBAL_SECONDS:-30}
fi
CLIENTS=${CLIENTS:-100}
RATE_KIB=${RATE_KIB:-20}
THREADS=${THREADS:-10}
GLOBAL_RATE=${GLOBAL_RATE:-20MiB/s}
EVIL_CLIENTS=${EVIL_CLIENTS:-100}
GOOD_CLIENTS=${GOOD_CLIENTS:-20}
EXPECT_SECONDS=$(awk -v s="$SIZE_KIB" -v r="$RATE_KIB" 'BEGIN { printf "%.3f", s / r }')
EVIL_IDLE_TIMEOUT=5
JAR="$QB_BENCH/target/quarry-bench.jar"

qb_require curl taskset
qb_check_cores

if [ "${QUARRY_BENCH_SKIP_BUILD:-0}" != 1 ] || [ ! -f "$JAR" ]; then
    qb_log "building quarry-bench (mvn -q -Pbench package -DskipTests) ..."
    if ! (cd "$QB_ROOT" && mvn -q -B -Pbench package -DskipTests -Dspotless.check.skip=true \
        -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -pl quarry-bench -am) \
        >"$QB_TMP/build.log" 2>&1; then
        sed -e 's/\x1b\[[0-9;]*m//g' "$QB_TMP/build.log" | grep -v -e '^WARNING: ' -e '^$' >&2 || true
        qb_log "error: the quarry-bench build failed"
        exit 1
    fi
fi

# The files: the download, a 1-second warm-up file, and a tiny file for the readiness check.
FILES="$QB_TMP/files"
mkdir -p "$FILES"
head -c $((SIZE_KIB * 1024)) /dev/urandom >"$FILES/download.bin"
head -c $((RATE_KIB * 1024)) /dev/urandom >"$FILES/warmup.bin"
printf 'ok\n' >"$FILES/ready.txt"
# The never-reading phase asks for /big.bin: with ./quarry serve it is a file (sparse: no disk used), throttled like
# any other; ThrottleServerMain serves its own endless /big.bin. It lives in a directory of its own, served only in
# that phase, because the baseline loads every file of the directory it serves into memory.
EVIL_FILES="$QB_TMP/files-never-reading"
mkdir -p "$EVIL_FILES"
cp "$FILES"/* "$EVIL_FILES"/
SERVE_DIR=$FILES
PHASE_JVM_FLAGS=""

USE_CLI=0
if [ -x "$QB_QUARRY" ] && timeout 300 "$QB_QUARRY" serve --help 2>/dev/null | grep -q -- '--request-rate'; then
    USE_CLI=1
    truncate -s 1G "$EVIL_FILES/big.bin" # ThrottleServerMain loads its directory into memory: only for the CLI
fi

qb_header "throttle: $CLIENTS clients x $SIZE_KIB KiB at $RATE_KIB KiB/s per request, $THREADS platform threads, no virtual threads"
echo "quarry:   $([ $USE_CLI = 1 ] && echo "./quarry serve" || echo "ThrottleServerMain (quarry-bench jar; ./quarry serve not available)")"
echo "baseline: BlockingBaselineMain: JDK com.sun.net.httpserver, fixed pool of $THREADS threads, blocking token loop (20 KiB tokens)"
echo "client:   ThrottleLoadClient (quarry-bench jar), one platform thread per client; expected duration ${EXPECT_SECONDS} s"
[ "$QB_QUICK" = 1 ] && echo "note:     QUARRY_BENCH_QUICK=1: a smoke run, not numbers to record"
echo

SERVER_PID=""
port=$QB_PORT_BASE

# start_server NAME PORT ARGS...: starts a Java server of the jar (or ./quarry serve) pinned to the server core and waits
# until it answers GET /ready.txt; sets SERVER_PID. Returns 1 (with QB_SKIP_REASON) if it does not come up.
start_server() {
    local name=$1 port=$2 log="$QB_TMP/$1-$2.log"
    shift 2
    QB_SKIP_REASON=""
    if ss -Htln "sport = :$port" 2>/dev/null | grep -q .; then
        QB_SKIP_REASON="port $port is already in use"
        return 1
    fi
    case $name in
        quarry-cli)
            JAVA_OPTS="$QB_JVM_FLAGS $PHASE_JVM_FLAGS" taskset -c "$QB_SERVER_CPU" \
                "$QB_QUARRY" serve "$SERVE_DIR" --port "$port" "$@" </dev/null >"$log" 2>&1 &
            ;;
        *)
            # shellcheck disable=SC2086 # the flags are words
            taskset -c "$QB_SERVER_CPU" "$JAVA_HOME/bin/java" $QB_JVM_FLAGS $PHASE_JVM_FLAGS -cp "$JAR" "dev.quarry.bench.throttle.$name" \
                --dir "$SERVE_DIR" --port "$port" "$@" </dev/null >"$log" 2>&1 &
            ;;
    esac
    SERVER_PID=$!
    qb_track "$SERVER_PID"
    qb_watchdog "$SERVER_PID"
    for _ in $(seq 240); do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            QB_SKIP_REASON="exited: $(grep -m1 -i -e error -e exception "$log" | cut -c1-160 || true)"
            return 1
        fi
        if [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$port/ready.txt" 2>/dev/null)" = 200 ]; then
            return 0
        fi
        sleep 0.5
    done
    QB_SKIP_REASON="did not answer GET /ready.txt on port $port within 120 s"
    qb_kill_pids "$SERVER_PID"
    return 1
}

stop_server() {
    [ -n "$SERVER_PID" ] && qb_kill_pids "$SERVER_PID"
    SERVER_PID=""
}

# The Quarry server with the scenario's limits plus extra arguments (ThrottleServerMain's names; translated for the CLI).
start_quarry() {
    local port=$1
    shift
    if [ $USE_CLI = 1 ]; then
        local args=() a
        for a in "$@"; do
            [ "$a" = --global-rate ] && a=--rate
            args+=("$a")
        done
        start_server quarry-cli "$port" --threads "$THREADS" --virtual-threads off "${args[@]}"
    else
        start_server ThrottleServerMain "$port" --threads "$THREADS" --virtual-threads off "$@"
    fi
}

# client MODE ARGS...: runs the load client pinned to the client core, bounded in time; prints its output.
client() {
    local mode=$1
    shift
    timeout 900 taskset -c "$QB_CLIENT_CPU" "$JAVA_HOME/bin/java" -Xmx512m -XX:+UseSerialGC -cp "$JAR" \
        dev.quarry.bench.throttle.ThrottleLoadClient "$mode" "$@" </dev/null
}

summary_field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$2" | head -n1; }

declare -A TTFB50 TTFB99 DMIN D50 D99 DMAX WITHIN OK CPU SKIP

# One downloads experiment: a warm-up (3 s of tiny requests from $CLIENTS clients, then $CLIENTS 1-second downloads:
# the JIT compiles on the server's core too, and a compilation during the burst of 100 requests would show as time to
# first byte), then $CLIENTS clients at once, measuring the server's CPU over the measured round.
run_downloads() {
    local name=$1 port=$2 out cpu0 cpu1 t0 t1 line
    client sustain --port "$port" --path /ready.txt --clients "$CLIENTS" --warmup-seconds 0 --seconds 3 \
        >"$QB_TMP/$name-warmup-requests.txt" || qb_log "warning: $name warm-up client exited with $?"
    client downloads --port "$port" --path /warmup.bin --clients "$CLIENTS" --expect-bytes $((RATE_KIB * 1024)) \
        --expect-seconds 1 >"$QB_TMP/$name-warmup.txt" || qb_log "warning: $name warm-up client exited with $?"
    cpu0=$(qb_cpu_ticks "$SERVER_PID")
    t0=$(date +%s.%N)
    out="$QB_TMP/$name-downloads.txt"
    client downloads --port "$port" --path /download.bin --clients "$CLIENTS" --expect-bytes $((SIZE_KIB * 1024)) \
        --expect-seconds "$EXPECT_SECONDS" >"$out" || qb_log "warning: $name client exited with $?"
    t1=$(date +%s.%N)
    cpu1=$(qb_cpu_ticks "$SERVER_PID")
    line=$(grep '^SUMMARY ' "$out" | tail -n1 || true)
    if [ -z "$line" ]; then
        SKIP[$name]="no summary from the client: $(tail -n1 "$out" | cut -c1-120)"
        return
    fi
    TTFB50[$name]=$(summary_field ttfb-p50-ms "$line")
    TTFB99[$name]=$(summary_field ttfb-p99-ms "$line")
    DMIN[$name]=$(summary_field duration-min-s "$line")
    D50[$name]=$(summary_field duration-p50-s "$line")
    D99[$name]=$(summary_field duration-p99-s "$line")
    DMAX[$name]=$(summary_field duration-max-s "$line")
    WITHIN[$name]=$(summary_field within-5pct "$line")
    OK[$name]=$(summary_field ok "$line")
    CPU[$name]=$(awk -v c=$((cpu1 - cpu0)) -v hz="$QB_CLK_TCK" -v t0="$t0" -v t1="$t1" \
        'BEGIN { printf "%.2f", 100 * c / hz / (t1 - t0) }')
    qb_log "-- $name: $line cpu=${CPU[$name]}%"
}

# --- 1. Quarry and the baseline, the article's experiment ------------------------------------------------------------
for name in quarry baseline; do
    port=$((port + 1))
    qb_log "-- $name: starting on core $QB_SERVER_CPU, port $port"
    if [ $name = quarry ]; then
        start_quarry "$port" --request-rate "${RATE_KIB}KiB/s" || true
    else
        start_server BlockingBaselineMain "$port" --request-rate "${RATE_KIB}KiB/s" --threads "$THREADS" || true
    fi
    if [ -n "$QB_SKIP_REASON" ]; then
        SKIP[$name]=$QB_SKIP_REASON
        qb_log "-- $name: SKIPPED ($QB_SKIP_REASON)"
        continue
    fi
    run_downloads "$name" "$port"
    stop_server
done

# --- 2. The global limit held over GLOBAL_SECONDS ---------------------------------------------------------------------
GLOBAL_LIMIT=$(awk -v r="$GLOBAL_RATE" 'BEGIN {
    n = r + 0; u = r; sub(/^[0-9.]+ */, "", u); sub(/\/s$/, "", u); u = tolower(u)
    m = (u == "kib" || u == "k") ? 1024 : (u == "mib" || u == "m") ? 1048576 : (u == "gib" || u == "g") ? 1073741824 \
        : (u == "kb") ? 1000 : (u == "mb") ? 1000000 : 1
    printf "%.0f", n * m }')
GLOBAL_MEASURED=""
GLOBAL_ERROR=""
port=$((port + 1))
qb_log "-- global limit: $CLIENTS clients through $GLOBAL_RATE for ${GLOBAL_SECONDS}s, port $port"
if start_quarry "$port" --global-rate "$GLOBAL_RATE" --request-rate 0; then
    line=$(client sustain --port "$port" --path /download.bin --clients "$CLIENTS" --warmup-seconds 3 \
        --seconds "$GLOBAL_SECONDS" | grep '^SUSTAIN ' | tail -n1 || true)
    qb_log "-- global limit: $line"
    GLOBAL_MEASURED=$(summary_field rate-bytes-per-s "$line")
    if [ -n "$GLOBAL_MEASURED" ]; then
        GLOBAL_ERROR=$(awk -v m="$GLOBAL_MEASURED" -v l="$GLOBAL_LIMIT" 'BEGIN { printf "%.3f", 100 * (m - l) / l }')
    fi
    stop_server
else
    qb_log "-- global limit: SKIPPED ($QB_SKIP_REASON)"
fi

# --- 3. Never-reading clients ----------------------------------------------------------------------------------------
# A warm-up round first (the same load), then a full GC, then the measured round. The server runs with
# -XX:+AlwaysPreTouch: otherwise the RSS grows as allocation first touches pages of the young generation (the heap is
# committed at start, -Xms = -Xmx, but not resident), whatever the clients hold; a first run without it grew 13.7 MiB
# while NMT showed nothing committed. So RSS growth here is native memory (direct buffers, stacks, code), and the live
# heap, measured after a full GC before the round and while the never-reading clients are held, shows what the
# heap keeps for them.
RSS0=""
RSS_MAX=""
HEAP0=""
HEAP1=""
GOOD_LINE=""
EVIL_LINE=""
port=$((port + 1))
qb_log "-- never-reading clients: $EVIL_CLIENTS of them beside $GOOD_CLIENTS good ones, port $port"
evil_round() {
    local hold=$1 good_path=$2 good_bytes=$3 good_seconds=$4 tag=$5 evil_pid good_pid rss
    client evil --port "$port" --path /big.bin --clients "$EVIL_CLIENTS" --hold-seconds "$hold" \
        >"$QB_TMP/evil-$tag.txt" 2>&1 &
    evil_pid=$!
    qb_track "$evil_pid"
    for _ in $(seq 100); do
        grep -q '^EVIL-READY' "$QB_TMP/evil-$tag.txt" 2>/dev/null && break
        sleep 0.1
    done
    client downloads --port "$port" --path "$good_path" --clients "$GOOD_CLIENTS" --expect-bytes "$good_bytes" \
        --expect-seconds "$good_seconds" >"$QB_TMP/good-$tag.txt" 2>&1 &
    good_pid=$!
    qb_track "$good_pid"
    if [ "$tag" = measured ]; then
        sleep "$(awk -v s="$good_seconds" 'BEGIN { print s / 2 }')"
        HEAP1=$(live_heap_kb)
    fi
    while kill -0 "$good_pid" 2>/dev/null || kill -0 "$evil_pid" 2>/dev/null; do
        rss=$(qb_status_kb VmRSS "$SERVER_PID")
        if [ -n "$RSS0" ] && [ "$rss" -gt "${RSS_MAX:-0}" ]; then
            RSS_MAX=$rss
        fi
        sleep 0.5
    done
    wait "$good_pid" || true
    wait "$evil_pid" || true
}
# Live heap after a full GC (class histogram total), in kB.
live_heap_kb() {
    "$JAVA_HOME/bin/jcmd" "$SERVER_PID" GC.class_histogram 2>/dev/null \
        | awk '$1 == "Total" { printf "%d", $3 / 1024 }'
}
SERVE_DIR=$EVIL_FILES
PHASE_JVM_FLAGS="-XX:+AlwaysPreTouch"
if start_quarry "$port" --request-rate "${RATE_KIB}KiB/s" --idle-timeout "$EVIL_IDLE_TIMEOUT"; then
    evil_round $((EVIL_IDLE_TIMEOUT + 10)) /download.bin $((SIZE_KIB * 1024)) "$EXPECT_SECONDS" warmup
    # The server is the JVM itself (java directly, or ./quarry, which execs it).
    "$JAVA_HOME/bin/jcmd" "$SERVER_PID" GC.run >/dev/null 2>&1 || qb_log "warning: jcmd GC.run failed"
    sleep 1
    HEAP0=$(live_heap_kb)
    RSS0=$(qb_status_kb VmRSS "$SERVER_PID")
    RSS_MAX=$RSS0
    evil_round $((EVIL_IDLE_TIMEOUT + 10)) /download.bin $((SIZE_KIB * 1024)) "$EXPECT_SECONDS" measured
    GOOD_LINE=$(grep '^SUMMARY ' "$QB_TMP/good-measured.txt" | tail -n1 || true)
    EVIL_LINE=$(grep '^EVIL ' "$QB_TMP/evil-measured.txt" | tail -n1 || true)
    qb_log "-- never-reading clients: RSS ${RSS0} -> max ${RSS_MAX} kB, live heap ${HEAP0} -> ${HEAP1} kB; good: $GOOD_LINE; $EVIL_LINE"
    stop_server
else
    qb_log "-- never-reading clients: SKIPPED ($QB_SKIP_REASON)"
fi

# --- report -----------------------------------------------------------------------------------------------------------
printf '%-9s %8s %10s %10s %9s %9s %9s %9s %10s %8s\n' server ok 'ttfb p50' 'ttfb p99' 'dur min' 'dur p50' \
    'dur p99' 'dur max' 'within 5%' 'CPU %'
for name in quarry baseline; do
    if [ -n "${SKIP[$name]:-}" ]; then
        printf '%-9s SKIPPED: %s\n' "$name" "${SKIP[$name]}"
        continue
    fi
    printf '%-9s %8s %8sms %8sms %8ss %8ss %8ss %8ss %10s %8s\n' "$name" "${OK[$name]}/$CLIENTS" "${TTFB50[$name]}" \
        "${TTFB99[$name]}" "${DMIN[$name]}" "${D50[$name]}" "${D99[$name]}" "${DMAX[$name]}" "${WITHIN[$name]}" \
        "${CPU[$name]}"
done
echo "expected duration ${EXPECT_SECONDS} s (${SIZE_KIB} KiB at ${RATE_KIB} KiB/s); CPU: server user+system over the measured round, % of one core"
echo "global limit: ${GLOBAL_RATE} = ${GLOBAL_LIMIT} B/s, measured ${GLOBAL_MEASURED:-n/a} B/s over ${GLOBAL_SECONDS} s (error ${GLOBAL_ERROR:-n/a} %)"
echo "never-reading clients: RSS ${RSS0:-n/a} kB before, ${RSS_MAX:-n/a} kB max (heap pre-touched); live heap ${HEAP0:-n/a} kB before, ${HEAP1:-n/a} kB while they are held; good clients: ${GOOD_LINE:-n/a}; ${EVIL_LINE:-n/a}"
echo

abs() { awk -v x="${1:-}" 'BEGIN { if (x == "") print ""; else printf "%.4f", (x < 0 ? -x : x) }'; }
# Missing numbers give 0 (MISSED); a perfect one is floored so that the ratio stays finite.
floor_at() { awk -v x="${1:-}" -v f="$2" 'BEGIN { if (x == "") print 0; else printf "%.4f", (x < f ? f : x) }'; }
global_abs=$(abs "$GLOBAL_ERROR")
rss_growth=""
[ -n "$RSS0" ] && [ -n "$RSS_MAX" ] && rss_growth=$((RSS_MAX - RSS0))
qb_goal throttle.download-duration.within-5pct "${WITHIN[quarry]:-0}" 1 1.00
qb_goal throttle.ttfb-p99-under-100ms 100 "$(floor_at "${TTFB99[quarry]:-}" 0.1)" 1.00
qb_goal throttle.server-cpu-under-10pct 10 "$(floor_at "${CPU[quarry]:-}" 0.01)" 1.00
qb_goal throttle.global-limit-within-2pct 2 "$(floor_at "$global_abs" 0.01)" 1.00
qb_goal throttle.never-reading-clients.rss-flat 10240 "$(floor_at "$rss_growth" 1)" 1.00
qb_info throttle.baseline.download-duration.within-5pct "${WITHIN[baseline]:-0}" 1
qb_info throttle.ttfb-p99.baseline-over-quarry "${TTFB99[baseline]:-0}" "${TTFB99[quarry]:-0}"
heap_growth=""
[ -n "$HEAP0" ] && [ -n "$HEAP1" ] && heap_growth=$((HEAP1 - HEAP0))
qb_info throttle.never-reading-clients.live-heap-flat 10240 "$(floor_at "$heap_growth" 1)"
qb_info throttle.never-reading-clients.good-within-5pct "$(summary_field within-5pct "$GOOD_LINE")" 1
qb_info throttle.never-reading-clients.closed-by-idle-timeout \
    "$(sed -n 's/.*closed-by-server=\([0-9]*\).*/\1/p' <<<"$EVIL_LINE")" "$EVIL_CLIENTS"
