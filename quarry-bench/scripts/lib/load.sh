# shellcheck shell=bash
# shellcheck disable=SC2034 # the result arrays are the caller's
# One measured load run against a server started with qb_start_server (lib/common.sh), with wrk (HTTP/1.1) or h2load
# (h2c, prior knowledge), recording its results in the caller's associative arrays RPS ERR P99 CPU CPUREQ INSTR RSS
# SKIP under a KEY ("server/row"); without a KEY the run is a warm-up and records nothing. The caller sets PERF
# (qb_perf_instructions_supported) and WRK_THREADS. Sourced after lib/common.sh, not run. Used by blocking.sh; the
# measurements are the same as plaintext.sh's and h2.sh's (see their comments for p99 and errors).

# The value of NAME=.. in the QUARRY_WRK line printed by wrk-plaintext.lua (0 when absent).
qb_wrk_field() {
    local value
    value=$(echo "$2" | tr ' ' '\n' | sed -n "s/^$1=\([0-9]*\).*/\1/p")
    echo "${value:-0}"
}

# qb_load_begin SECONDS KEY: samples the server's CPU and starts perf (when it can count and KEY is set).
qb_load_begin() {
    # shellcheck disable=SC2086
    QB_LOAD_TICKS0=$(qb_cpu_ticks $QB_SERVER_PIDS)
    QB_LOAD_PERF_PID=""
    if [ -n "$2" ] && [ "$PERF" = yes ]; then
        # shellcheck disable=SC2086
        qb_perf_start "$1" "$QB_TMP/perf.txt" $QB_SERVER_PIDS
        QB_LOAD_PERF_PID=$QB_PERF_PID
    fi
}

# qb_load_end KEY REQUESTS: records CPU seconds, CPU per request, instructions per request and peak RSS under KEY.
qb_load_end() {
    local key=$1 requests=$2 ticks1 instructions=""
    # shellcheck disable=SC2086
    ticks1=$(qb_cpu_ticks $QB_SERVER_PIDS)
    if [ -n "$QB_LOAD_PERF_PID" ]; then
        wait "$QB_LOAD_PERF_PID" 2>/dev/null || true
        instructions=$(qb_perf_read "$QB_TMP/perf.txt")
    fi
    CPU[$key]=$(awk -v t=$((ticks1 - QB_LOAD_TICKS0)) -v hz="$QB_CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')
    CPUREQ[$key]=$(awk -v t=$((ticks1 - QB_LOAD_TICKS0)) -v hz="$QB_CLK_TCK" -v r="$requests" \
        'BEGIN { printf "%.2f", (r > 0 ? t / hz * 1e6 / r : 0) }')
    INSTR[$key]=$([ -n "$instructions" ] && awk -v i="$instructions" -v r="$requests" \
        'BEGIN { printf "%.0f", (r > 0 ? i / r : 0) }' || echo n/a)
    # shellcheck disable=SC2086
    RSS[$key]=$(($(qb_status_kb VmHWM $QB_SERVER_PIDS) / 1024))
}

# qb_run_wrk PORT CONNECTIONS SECONDS [KEY]: wrk with TechEmpower's headers against /plaintext, no pipelining.
qb_run_wrk() {
    local port=$1 connections=$2 seconds=$3 key=${4:-} name=${4:-warmup} out line wrk_pid
    out="$QB_TMP/wrk-${name//\//-}.txt"
    qb_load_begin "$seconds" "$key"
    QUARRY_PIPELINE_DEPTH=1 taskset -c "$QB_CLIENT_CPU" wrk -t"$WRK_THREADS" -c"$connections" -d"${seconds}s" \
        --timeout 2s --latency "${QB_WRK_HEADERS[@]}" -s "$QB_LIB/wrk-plaintext.lua" \
        "http://127.0.0.1:$port/plaintext" >"$out" 2>&1 &
    wrk_pid=$!
    qb_track "$wrk_pid"
    wait "$wrk_pid" || qb_log "warning: wrk exited with $? ($out)"
    line=$(grep -m1 '^QUARRY_WRK ' "$out" || true)
    [ -n "$key" ] || return 0
    if [ -z "$line" ]; then
        qb_load_end "$key" 0
        SKIP[$key]="wrk printed no result: $(head -n1 "$out")"
        return 0
    fi
    local requests duration_us p99_us errors=0 field
    requests=$(qb_wrk_field requests "$line")
    duration_us=$(qb_wrk_field duration_us "$line")
    p99_us=$(qb_wrk_field p99_us "$line")
    for field in connect read write status timeout; do
        errors=$((errors + $(qb_wrk_field "$field" "$line")))
    done
    qb_load_end "$key" "$requests"
    RPS[$key]=$(awk -v r="$requests" -v d="$duration_us" 'BEGIN { printf "%.0f", (d > 0 ? r * 1e6 / d : 0) }')
    ERR[$key]=$errors
    P99[$key]=$(awk -v p="$p99_us" 'BEGIN { printf "%.2f", p / 1000 }')
}

# qb_run_h2load PORT CLIENTS STREAMS SECONDS [KEY]: h2load, h2c by prior knowledge, against /plaintext.
qb_run_h2load() {
    local port=$1 clients=$2 streams=$3 seconds=$4 key=${5:-} name=${5:-warmup} out log h2_pid
    out="$QB_TMP/h2load-${name//\//-}.txt"
    log="$QB_TMP/h2load-${name//\//-}.log"
    qb_load_begin "$seconds" "$key"
    # Bounded: h2load (nghttp2 1.52) has been seen to keep a run going long after its -D (jetty-vt, 6400 streams, a loaded
    # machine); a run cut off by the timeout prints no result and its row is SKIPPED.
    timeout --kill-after=5 $((seconds + 60)) taskset -c "$QB_CLIENT_CPU" h2load -t1 -c"$clients" -m"$streams" -D "$seconds" \
        -H 'accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' \
        --log-file="$log" "http://127.0.0.1:$port/plaintext" >"$out" 2>&1 &
    h2_pid=$!
    qb_track "$h2_pid"
    wait "$h2_pid" || qb_log "warning: h2load exited with $? ($out)"
    if [ -z "$key" ]; then
        rm -f "$log"
        return 0
    fi
    local rps completed failed errored timeout non2xx
    rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$out")
    completed=$(sed -n 's/^requests: .* \([0-9]*\) done,.*/\1/p' "$out")
    qb_load_end "$key" "${completed:-0}"
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
    RPS[$key]=$(awk -v r="$rps" 'BEGIN { printf "%.0f", r }')
    ERR[$key]=$((${failed:-0} + ${errored:-0} + ${timeout:-0} + ${non2xx:-0}))
    P99[$key]=$(awk -F'\t' '$2 != -1 { print $3 }' "$log" | sort -n \
        | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } i = int(NR * 0.99); if (i < NR * 0.99) i++; printf "%.2f", v[i] / 1000 }')
    rm -f "$log"
}
