#!/usr/bin/env bash
# Fuzzes Quarry's parsers with Jazzer, one target after the other (see docs/fuzzing.md):
#   scripts/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]      e.g. scripts/fuzz.sh 300 http1-chunked hpack
# SECONDS defaults to 60; no TARGET means all of them; `scripts/fuzz.sh --list` lists them.
# Each target runs as its @FuzzTest in fuzzing mode (JAZZER_FUZZ=1) for SECONDS, then stops by itself. Its output goes
# to target/fuzz/TARGET.log (under the module); a summary line per target gives executions, executions per second,
# duration, the process's resident memory at the end and the result. A finding fails the target; Jazzer then writes the input into the test's resource directory
# (src/test/resources/<package>/<TestClass>Inputs/<method>/), where `mvn verify` replays it from then on: fix the bug and
# keep the input. New coverage goes to the module's .cifuzz-corpus/ directory (not committed).
# QUARRY_FUZZ_MAVEN_ARGS adds Maven arguments (e.g. -o). One Maven at a time: the targets run sequentially. Exit status: 0 if no target found anything.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# A JDK >= 21 as .ci/run and ./quarry pick it (JAVA_HOME if it is one), whatever the default java is.
# shellcheck source=../.ci/jdk.sh
source "$root/.ci/jdk.sh"
cd "$root"

# name module test-class#method
targets=(
    "http1-request quarry-http dev.quarry.http.h1.HttpParserJazzerTest#requestsParseTheSameWholeAndSplit"
    "http1-chunked quarry-http dev.quarry.http.h1.HttpParserJazzerTest#chunkedContentMatchesAStrictDecoder"
    "http1-response quarry-http dev.quarry.http.h1.HttpResponseParserJazzerTest#responsesParseTheSameWholeAndSplit"
    "hpack quarry-http dev.quarry.http.hpack.HpackDecoderJazzerTest#blocksDecodeAlikeAndRoundTrip"
    "h2-frames quarry-http dev.quarry.http.h2.FrameParserJazzerTest#framesParseTheSameWholeAndSplit"
    "uri quarry-http dev.quarry.http.UriJazzerTest#targetsParseOrFailCleanly"
    "files quarry-server dev.quarry.server.handlers.FileResolverJazzerTest#resolvedFilesStayUnderTheRoot"
)

if [ "${1:-}" = "--list" ]; then
    for t in "${targets[@]}"; do
        read -r name module test <<<"$t"
        printf '%-15s %-14s %s\n' "$name" "$module" "$test"
    done
    exit 0
fi

seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || {
    echo "fuzz: SECONDS must be a positive number, not '$seconds'" >&2
    exit 2
}
shift || true
wanted=("$@")

selected=()
for t in "${targets[@]}"; do
    read -r name _ _ <<<"$t"
    if [ ${#wanted[@]} -eq 0 ] || [[ " ${wanted[*]} " == *" $name "* ]]; then
        selected+=("$t")
    fi
done
for w in "${wanted[@]}"; do
    printf '%s\n' "${targets[@]}" | grep -q "^$w " || {
        echo "fuzz: unknown target '$w' (see scripts/fuzz.sh --list)" >&2
        exit 2
    }
done

failed=0
summary=()
for t in "${selected[@]}"; do
    read -r name module test <<<"$t"
    log="$root/$module/target/fuzz/$name.log"
    mkdir -p "$(dirname "$log")"
    echo "fuzz: $name ($test) for ${seconds}s, log in ${log#"$root"/}"
    start=$(date +%s)
    # jazzer.internal.arg.N are libFuzzer arguments (0 is argv[0]); they come after Jazzer's own, so they win:
    # the time bound, a 10 s per-input hang limit. The JUnit timeout must outlast the run.
    # The heap is capped (QUARRY_FUZZ_HEAP, 1g by default) and so is the process (-rss_limit_mb): state that a target
    # keeps from one input to the next (a leak) ends the run with an OutOfMemoryError or an rss-limit finding.
    status=0
    # shellcheck disable=SC2086 # extra Maven arguments are meant to split
    JAVA_TOOL_OPTIONS="-Xmx${QUARRY_FUZZ_HEAP:-1g}" JAZZER_FUZZ=1 mvn -B ${QUARRY_FUZZ_MAVEN_ARGS:-} test -pl "$module" -am \
        -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
        -Dspotless.check.skip=true \
        -Djazzer.hooks=true \
        -Djunit.timeout="$((seconds + 300)) s" \
        -Djazzer.internal.arg.0=fuzz \
        -Djazzer.internal.arg.1=-max_total_time="$seconds" \
        -Djazzer.internal.arg.2=-timeout=10 \
        -Djazzer.internal.arg.3=-rss_limit_mb=3072 \
        >"$log" 2>&1 || status=$?
    elapsed=$(($(date +%s) - start))
    # libFuzzer's last status line: "#EXECS DONE cov: ... exec/s: RATE rss: ..."; else its last progress line.
    last=$(grep -aE '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true)
    execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$last")
    rate=$(sed -nE 's/.*exec\/s: ([0-9]+).*/\1/p' <<<"$last")
    rss=$(sed -nE 's/.*rss: ([0-9]+Mb).*/\1/p' <<<"$last")
    done_line=$(grep -aE '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)
    fuzz_seconds=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' <<<"$done_line")
    if [ "$status" -eq 0 ] && [ -n "$done_line" ]; then
        result=ok
    elif [ "$status" -eq 0 ]; then
        result="no libFuzzer summary (did the fuzzer run?)"
        failed=1
    else
        result="FAILED (exit $status): see the log"
        failed=1
    fi
    line=$(printf '%-15s execs=%-10s exec/s=%-6s fuzzing=%ss wall=%ss rss=%s %s' \
        "$name" "${execs:-?}" "${rate:-?}" "${fuzz_seconds:-?}" "$elapsed" "${rss:-?}" "$result")
    echo "fuzz: $line"
    summary+=("$line")
done

echo
echo "fuzz: summary (${seconds}s per target)"
printf '  %s\n' "${summary[@]}"
exit $failed
