# shellcheck shell=bash
# shellcheck disable=SC2034 # the QB_* variables are for the scripts that source this file
# Shared by the load scenarios in quarry-bench/scripts (plaintext.sh, h2.sh, tls.sh, idle-connections.sh): tools, the
# servers under test (Quarry, the Java peers, nginx), process bookkeeping, /proc sampling and GOAL lines.
# Sourced, not run. Expects `set -euo pipefail` and QB_SCENARIO (a short name used for temp files) in the caller.
#
# Knobs (environment):
#   QUARRY_BENCH_QUICK=1      short smoke run (its numbers are not meant to be recorded)
#   QUARRY_BENCH_JVM_FLAGS    the JVM flags of every Java server, Quarry included (default: QB_JVM_FLAGS below)
#   SERVER_CPU / CLIENT_CPU   the cores of the server and of the load generator (default 0 and 1)
#   PORT_BASE                 first port to listen on (default 18080; each server gets its own)
#   QUARRY_BENCH_SKIP_BUILD=1 use the peers jar as it is
#   QUARRY_BENCH_KEEP=1       keep the temp dir with the servers' logs and configs

qb_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
QB_SCRIPTS=$(dirname "$qb_here")
QB_BENCH=$(dirname "$QB_SCRIPTS")
QB_ROOT=$(dirname "$QB_BENCH")
QB_LIB=$qb_here
# shellcheck source=../../../.ci/jdk.sh
source "$QB_ROOT/.ci/jdk.sh"

QB_QUICK=${QUARRY_BENCH_QUICK:-0}
QB_PEERS_JAR="$QB_BENCH/peers/target/quarry-peers.jar"
QB_QUARRY="$QB_ROOT/quarry"
QB_SERVER_CPU=${SERVER_CPU:-0}
QB_CLIENT_CPU=${CLIENT_CPU:-1}
QB_PORT_BASE=${PORT_BASE:-18080}

# One place for the JVM flags of every Java server, Quarry included, so that they are measured alike:
#  - a fixed 512 MiB heap (-Xms = -Xmx): no heap resizing during a run, and room for 10,000 connections;
#  - Parallel GC: the throughput collector; on one core it uses one GC thread, with no concurrent GC threads
#    competing with the server for its core (JVM ergonomics would pick Serial on one CPU: Parallel is what a
#    throughput-minded deployment chooses);
#  - no -XX:+AlwaysPreTouch: the peak RSS then shows the memory a server actually touched (a server that
#    allocates less touches less of its young generation), rather than 512 MiB for everyone.
# Everything else is the JVM's default: on Java 25+ that means no sun.misc.Unsafe for Netty (its own default
# there); add --sun-misc-unsafe-memory-access=allow here to give it back.
QB_JVM_FLAGS=${QUARRY_BENCH_JVM_FLAGS:--Xms512m -Xmx512m -XX:+UseParallelGC}

QB_WRK_HEADERS=(
    -H 'Host: localhost'
    -H 'Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7'
    -H 'Connection: keep-alive'
)

QB_TMP=$(mktemp -d "/tmp/quarry-bench-${QB_SCENARIO:-run}.XXXXXX")
QB_PIDS=()
QB_SCRIPT_PID=$$
QB_CLK_TCK=$(getconf CLK_TCK)

qb_log() { echo "$*" >&2; }

# Stops every process this script started (servers, load generators, watchdogs): TERM, then KILL after 10 s.
qb_cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ ${#QB_PIDS[@]} -gt 0 ]; then
        qb_kill_pids "${QB_PIDS[@]}"
    fi
    if [ "${QUARRY_BENCH_KEEP:-0}" = 1 ] || [ "$status" -ne 0 ]; then
        qb_log "logs and configs kept in $QB_TMP"
    else
        rm -rf "$QB_TMP"
    fi
    exit "$status"
}
trap qb_cleanup EXIT
# Under set -e a failing command ends the script silently: say which one.
set -E
trap 'qb_log "error: ${BASH_SOURCE[0]##*/} line $LINENO: \"$BASH_COMMAND\" failed with status $?"' ERR
trap 'exit 130' INT
trap 'exit 143' TERM

# Sends TERM to the given PIDs that are alive, waits up to 10 s for them to end, then KILLs the rest.
qb_kill_pids() {
    local pid alive deadline
    for pid in "$@"; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
        fi
    done
    deadline=$((SECONDS + 10))
    while [ $SECONDS -lt $deadline ]; do
        alive=0
        for pid in "$@"; do
            if kill -0 "$pid" 2>/dev/null && [ "$(qb_proc_state "$pid")" != Z ]; then
                alive=1
            fi
        done
        [ $alive = 0 ] && break
        sleep 0.2
    done
    for pid in "$@"; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    for pid in "$@"; do
        wait "$pid" 2>/dev/null || true
    done
}

qb_proc_state() { awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null || echo X; }

# Remembers a PID so that qb_cleanup stops it.
qb_track() { QB_PIDS+=("$1"); }

# A watchdog for processes that must not outlive this script even if it is killed with SIGKILL (when its EXIT
# trap cannot run): it polls every 2 s and TERMs (then KILLs) the given PIDs once the script is gone.
qb_watchdog() {
    local pids="$*"
    (
        # Ctrl-C and a closing terminal are the script's business; TERM from qb_cleanup ends the watchdog.
        trap '' INT HUP
        while kill -0 "$QB_SCRIPT_PID" 2>/dev/null; do
            sleep 2
            local any=0 pid
            for pid in $pids; do kill -0 "$pid" 2>/dev/null && any=1; done
            [ $any = 1 ] || exit 0
        done
        for pid in $pids; do kill -TERM "$pid" 2>/dev/null; done
        sleep 10
        for pid in $pids; do kill -KILL "$pid" 2>/dev/null; done
    ) </dev/null >/dev/null 2>&1 &
    qb_track $!
}

# Installs the Debian packages that provide the given commands, quietly, when they are not on PATH.
qb_require() {
    local missing=() command package
    for command in "$@"; do
        command -v "$command" >/dev/null 2>&1 && continue
        case $command in
            wrk) package=wrk ;;
            h2load) package=nghttp2-client ;;
            nginx) package=nginx-light ;;
            curl) package=curl ;;
            taskset) package=util-linux ;;
            haproxy) package=haproxy ;;
            openssl) package=openssl ;;
            ss) package=iproute2 ;;
            *) qb_log "error: $command is needed and not installed"; exit 1 ;;
        esac
        missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    qb_log "installing ${missing[*]} (apt-get) ..."
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
        $sudo apt-get update -qq >/dev/null 2>&1 || true
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# Builds target/quarry-peers.jar (quietly) unless QUARRY_BENCH_SKIP_BUILD=1 and it exists.
qb_build_peers() {
    if [ "${QUARRY_BENCH_SKIP_BUILD:-0}" = 1 ] && [ -f "$QB_PEERS_JAR" ]; then
        return 0
    fi
    qb_log "building quarry-bench/peers (mvn -q -Pbench package -DskipTests) ..."
    local log="$QB_TMP/build.log"
    # The peers are not in the default reactor: -Pbench adds them (see the root pom.xml). -am: the jar includes this
    # checkout's quarry-client (the client scenario's load-quarry).
    if ! (cd "$QB_ROOT" && mvn -q -B -Pbench package -DskipTests -Dspotless.check.skip=true -Dmaven.javadoc.skip=true \
        -Dmaven.source.skip=true -pl quarry-bench/peers -am) \
        >"$log" 2>&1; then
        # Maven's own JVM warns about sun.misc.Unsafe on recent JDKs: show only what matters.
        sed -e 's/\x1b\[[0-9;]*m//g' "$log" | grep -v -e '^WARNING: ' -e '^$' >&2 || true
        qb_log "error: the peers build failed"
        exit 1
    fi
}

# The number of cores the benchmark can pin to; warns when the server and the client must share one.
qb_check_cores() {
    if [ "$(nproc --all)" -lt 2 ] || [ "$QB_SERVER_CPU" = "$QB_CLIENT_CPU" ]; then
        qb_log "warning: server and load generator share a core: numbers will be meaningless"
    fi
}

# Prints the header every scenario starts with: what ran where, with which versions.
qb_header() {
    local title=$1
    echo "== $title =="
    echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "machine:  $(uname -srm), $(nproc --all) cores ($(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "pinning:  server on core $QB_SERVER_CPU, load generator on core $QB_CLIENT_CPU (taskset)"
    echo "java:     $("$JAVA_HOME/bin/java" -version 2>&1 | head -n1) ($JAVA_HOME)"
    echo "jvm flags (every Java server): $QB_JVM_FLAGS"
    echo "versions: jetty $(qb_pom_property jetty.version), netty $(qb_pom_property netty.version), vert.x $(qb_pom_property vertx.version), undertow $(qb_pom_property undertow.version), helidon $(qb_pom_property helidon.version), $(if command -v nginx >/dev/null 2>&1; then nginx -v 2>&1 | sed 's/^nginx version: //'; else echo "no nginx"; fi)"
}

qb_pom_property() { sed -n "s|.*<$1>\(.*\)</$1>.*|\1|p" "$QB_ROOT/pom.xml" | head -n1; }

# ---------------------------------------------------------------------------------------------------------------
# Servers. qb_start_server NAME PORT [nginx-listen-suffix] starts one pinned to the server core and sets
# QB_SERVER_PID (the process started) and QB_SERVER_PIDS (it and its descendants: nginx's worker, the JVM behind a
# launcher script), or returns 1 with QB_SKIP_REASON set. qb_stop_server stops it.

QB_SERVER_PID=""
QB_SERVER_PIDS=""
QB_SKIP_REASON=""
QB_READY_CURL_FLAGS=""  # extra curl flags for the readiness check, e.g. --http2-prior-knowledge
QB_READY_URL=""         # the readiness check's URL, when not http://127.0.0.1:PORT/plaintext (e.g. an https port)
QB_SERVER_ARGS=""       # extra options for the server started (quarry or a peer), e.g. TLS options
QB_PEER=""              # the peer to run under another name (see qb_start_server)
QB_NGINX_SERVER_EXTRA="" # extra directives for nginx's server block, e.g. a second listen line (see qb_nginx_config)

qb_start_server() {
    local name=$1 port=$2 nginx_listen=${3:-} log="$QB_TMP/$1.log"
    QB_SERVER_PID=""
    QB_SERVER_PIDS=""
    QB_SKIP_REASON=""
    if ss -Htln "sport = :$port" 2>/dev/null | grep -q .; then
        QB_SKIP_REASON="port $port is already in use"
        return 1
    fi
    case $name in
        quarry | quarry-baseline | quarry-blocking | quarry-baseline-blocking)
            # quarry-baseline: the ./quarry of another checkout (QUARRY_BASELINE=/path/to/it/quarry), to compare a change
            # with the code before it in the same run. quarry-blocking: the same app as a blocking Handler
            # (--blocking: send(String) on a virtual thread); quarry-baseline-blocking: the other checkout's.
            # QUARRY_PLAINTEXT_ARGS: extra options for quarry alone (e.g. --access-log FILE to measure its cost).
            local launcher=$QB_QUARRY extra=${QUARRY_PLAINTEXT_ARGS:-}
            [[ $name == quarry-baseline* ]] && launcher=${QUARRY_BASELINE:-} && extra=
            [[ $name == *-blocking ]] && extra="--blocking $extra"
            if [ -z "$launcher" ] || [ ! -x "$launcher" ]; then
                QB_SKIP_REASON="${launcher:-QUARRY_BASELINE} not present"
                return 1
            fi
            # ./quarry passes JAVA_OPTS to the JVM and execs it, so the PID measured is the JVM's.
            JAVA_OPTS="$QB_JVM_FLAGS" QUARRY_JAVA_OPTS="$QB_JVM_FLAGS" \
                taskset -c "$QB_SERVER_CPU" "$launcher" plaintext --port "$port" --idle-timeout 300 \
                $extra $QB_SERVER_ARGS </dev/null >"$log" 2>&1 &
            ;;
        nginx)
            qb_nginx_config "$port" "$nginx_listen"
            taskset -c "$QB_SERVER_CPU" nginx -p "$QB_TMP/nginx" -c "$QB_TMP/nginx/nginx.conf" -e stderr \
                </dev/null >"$log" 2>&1 &
            ;;
        *)
            # shellcheck disable=SC2086 # the flags are words
            # QB_PEER: the peer to run when NAME is only the row's label (e.g. netty-openssl runs netty).
            taskset -c "$QB_SERVER_CPU" "$JAVA_HOME/bin/java" $QB_JVM_FLAGS -jar "$QB_PEERS_JAR" "${QB_PEER:-$name}" \
                --port "$port" --idle-timeout 300 $QB_SERVER_ARGS </dev/null >"$log" 2>&1 &
            ;;
    esac
    QB_SERVER_PID=$!
    qb_track "$QB_SERVER_PID"
    # Quarry's launcher may build it on its first start: give it longer.
    local ready_seconds=60
    [[ $name == quarry* ]] && ready_seconds=300
    if ! qb_wait_ready "$QB_SERVER_PID" "$port" "$ready_seconds"; then
        local why
        why=$(grep -m1 -i -e 'error' -e 'exception' -e 'emerg' "$log" \
            | sed -e 's/^error: //' -e 's/^could not start [^ ]* on [^ ]* idle-timeout=[0-9]*s: //' | cut -c1-160 || true)
        if kill -0 "$QB_SERVER_PID" 2>/dev/null; then
            QB_SKIP_REASON="did not answer 200 on port $port within ${ready_seconds}s${why:+: $why}"
        else
            QB_SKIP_REASON="exited${why:+: $why}"
        fi
        qb_kill_pids "$QB_SERVER_PID"
        return 1
    fi
    # nginx forks its worker after it answers: give it a moment, then take the whole tree.
    sleep 0.5
    QB_SERVER_PIDS=$(qb_tree "$QB_SERVER_PID")
    # The descendants too: a launcher script that does not exec leaves its JVM behind when only it is stopped.
    local pid
    for pid in $QB_SERVER_PIDS; do
        [ "$pid" = "$QB_SERVER_PID" ] || qb_track "$pid"
    done
    # shellcheck disable=SC2086 # a list of PIDs
    qb_watchdog $QB_SERVER_PIDS
    return 0
}

# Waits (at most $3 seconds) until GET /plaintext answers 200; fails at once if the process died.
qb_wait_ready() {
    local pid=$1 port=$2 seconds=$3 i
    for _ in $(seq $((seconds * 2))); do
        if ! kill -0 "$pid" 2>/dev/null; then
            return 1
        fi
        # shellcheck disable=SC2086
        if [ "$(curl -s -o /dev/null -m 1 -w '%{http_code}' $QB_READY_CURL_FLAGS "${QB_READY_URL:-http://127.0.0.1:$port/plaintext}" 2>/dev/null)" = 200 ]; then
            return 0
        fi
        sleep 0.5
    done
    return 1
}

qb_stop_server() {
    # shellcheck disable=SC2086
    [ -n "$QB_SERVER_PIDS" ] && qb_kill_pids $QB_SERVER_PIDS
    QB_SERVER_PID=""
    QB_SERVER_PIDS=""
}

# The PID and all its descendants, space-separated.
qb_tree() {
    local pids=$1 frontier=$1 next pid
    while [ -n "$frontier" ]; do
        next=""
        for pid in $frontier; do
            next="$next $(ps -o pid= --ppid "$pid" 2>/dev/null | tr -s ' \n' '  ')"
        done
        # shellcheck disable=SC2086 # squeezes the blanks
        next=$(echo $next)
        [ -n "$next" ] && pids="$pids $next"
        frontier=$next
    done
    # shellcheck disable=SC2086
    echo $pids
}

# The JVM among the given PIDs (for jcmd), or nothing.
qb_java_pid() {
    local pid
    for pid in "$@"; do
        if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = java ]; then
            echo "$pid"
            return 0
        fi
    done
}

# qb_nginx_write_config PURPOSE DIRECTIVES: writes $QB_TMP/nginx/nginx.conf, one worker, no logging, keep-alive
# without limits, temporary files in $QB_TMP/nginx/tmp; DIRECTIVES (http-level settings and server blocks) go inside
# the http block. PURPOSE names the scenario in the file's first line.
qb_nginx_write_config() {
    local purpose=$1 directives=$2 dir="$QB_TMP/nginx" files
    mkdir -p "$dir/logs" "$dir/tmp"
    # The worker may raise its descriptor limit only up to the hard limit.
    files=$(ulimit -Hn)
    [ "$files" = unlimited ] && files=65536
    [ "$files" -gt 65536 ] && files=65536
    cat >"$dir/nginx.conf" <<EOF
# Generated by quarry-bench/scripts: $purpose, one worker, no logging.
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log stderr warn;
worker_rlimit_nofile $files;
events {
    worker_connections $((files - 64));
    multi_accept on;
}
http {
    access_log off;
    server_tokens off;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
$directives
}
EOF
}

# An nginx config for the plaintext endpoint, in $QB_TMP/nginx. $2 is appended to the listen directive
# (e.g. "http2" for h2c with prior knowledge); QB_NGINX_SERVER_EXTRA is added to the server block (e.g. a second
# port: "listen 127.0.0.1:18082 http2; http2_max_concurrent_streams 32;").
qb_nginx_config() {
    local port=$1 listen_extra=${2:-}
    qb_nginx_write_config "the TechEmpower plaintext endpoint" "    server {
        listen 127.0.0.1:$port $listen_extra;
        ${QB_NGINX_SERVER_EXTRA:-}
        location = /plaintext {
            default_type text/plain;
            return 200 \"Hello, World!\";
        }
    }"
}

# ---------------------------------------------------------------------------------------------------------------
# Measurements of a process tree.

# User + system CPU of the given PIDs, in clock ticks (threads that ended are included: the kernel adds their time
# to their process).
qb_cpu_ticks() {
    local total=0 pid fields
    for pid in "$@"; do
        fields=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null) || continue
        # After the command name: field 14 (utime) and 15 (stime) of stat(5) are the 12th and 13th here.
        total=$((total + $(echo "$fields" | awk '{ print $12 + $13 }')))
    done
    echo $total
}

# Sum of a /proc/PID/status field (in kB) over the PIDs: VmHWM (peak RSS) or VmRSS.
qb_status_kb() {
    local field=$1 total=0 pid value
    shift
    for pid in "$@"; do
        value=$(awk -v f="$field:" '$1 == f { print $2 }' "/proc/$pid/status" 2>/dev/null)
        total=$((total + ${value:-0}))
    done
    echo $total
}

# Whether perf can count instructions here (it cannot on most VMs): "yes" or "no".
qb_perf_instructions_supported() {
    if command -v perf >/dev/null 2>&1 \
        && perf stat -x, -e instructions -- true 2>&1 >/dev/null | grep -q ',instructions' \
        && ! perf stat -x, -e instructions -- true 2>&1 >/dev/null | grep -q 'not supported'; then
        echo yes
    else
        echo no
    fi
}

# Starts counting the instructions of the PIDs for $1 seconds into file $2, in the background (tracked); sets
# QB_PERF_PID.
QB_PERF_PID=""
qb_perf_start() {
    local seconds=$1 out=$2
    shift 2
    local list
    list=$(echo "$@" | tr ' ' ',')
    perf stat -x, -e instructions -p "$list" -o "$out" -- sleep "$seconds" >/dev/null 2>&1 &
    QB_PERF_PID=$!
    qb_track "$QB_PERF_PID"
}

# The instruction count perf wrote to $1, or nothing.
qb_perf_read() {
    awk -F, '$3 == "instructions" || $3 ~ /^instructions/ { print $1; exit }' "$1" 2>/dev/null | grep -E '^[0-9]+$' || true
}

# ---------------------------------------------------------------------------------------------------------------
# Goals.

# qb_print_table SCENARIO_WIDTH: the load scenarios' result table, one row per server and scenario, from the arrays the
# scenario filled (SKIP, RPS, ERR, P99, CPU, CPUREQ, INSTR, RSS keyed "server/scenario", SKIP also by server) over
# SERVERS and SCENARIOS; the scenario's label function names each server.
qb_print_table() {
    local width=$1 server scenario key
    local row="%-14s %-${width}s %12s %8s %9s %7s %11s %11s %13s\n"
    # shellcheck disable=SC2059 # the format is built above
    printf "$row" server scenario 'req/s' errors 'p99 ms' 'CPU s' 'CPU us/req' 'instr/req' 'peak RSS MiB'
    for server in $SERVERS; do
        if [ -n "${SKIP[$server]:-}" ]; then
            printf "%-14s %-${width}s SKIPPED: %s\n" "$(label "$server")" all "${SKIP[$server]}"
            continue
        fi
        for scenario in "${SCENARIOS[@]}"; do
            key=$server/$scenario
            if [ -n "${SKIP[$key]:-}" ]; then
                printf "%-14s %-${width}s SKIPPED: %s\n" "$(label "$server")" "$scenario" "${SKIP[$key]}"
                continue
            fi
            # shellcheck disable=SC2059
            printf "$row" "$(label "$server")" "$scenario" "${RPS[$key]}" "${ERR[$key]}" "${P99[$key]}" \
                "${CPU[$key]}" "${CPUREQ[$key]}" "${INSTR[$key]}" "${RSS[$key]}"
        done
    done
}

# qb_goal NAME OURS THEIRS TARGET: prints "GOAL name ratio=.. target=.. MET|MISSED" with ratio = ours / theirs
# (0 when either is missing or zero: a missing number is never a met goal).
qb_goal() {
    awk -v name="$1" -v ours="${2:-0}" -v theirs="${3:-0}" -v target="$4" 'BEGIN {
        ratio = (ours > 0 && theirs > 0) ? ours / theirs : 0
        printf "GOAL %s ratio=%.2f target=%.2f %s\n", name, ratio, target, ((ratio >= target && ratio > 0) ? "MET" : "MISSED")
    }'
}

# qb_info NAME OURS THEIRS: an informational ratio, "INFO name ratio=.." (n/a when a number is missing).
qb_info() {
    awk -v name="$1" -v ours="${2:-0}" -v theirs="${3:-0}" 'BEGIN {
        if (ours > 0 && theirs > 0) printf "INFO %s ratio=%.2f\n", name, ours / theirs
        else printf "INFO %s ratio=n/a\n", name
    }'
}
