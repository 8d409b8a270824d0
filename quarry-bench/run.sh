#!/usr/bin/env bash
# Runs one benchmark suite and prints its table, ending with one "GOAL ... MET|MISSED" line per goal.
#   quarry-bench/run.sh pool|timer|strategy|threadpool|client-pool   (JMH suites, side by side with peers)
#   quarry-bench/run.sh <scenario>                        (load scenarios: see quarry-bench/scripts/)
# Builds what it needs. QUARRY_BENCH_QUICK=1 gives a short smoke run whose numbers are not meant to be recorded.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=../.ci/jdk.sh
source "$root/.ci/jdk.sh"

if [ $# -lt 1 ]; then
    echo "usage: $0 SUITE [args]   (JMH suites: pool timer strategy threadpool client-pool; scenarios: $(ls "$here/scripts" 2>/dev/null | sed -n 's/\.sh$//p' | tr '\n' ' '))" >&2
    exit 2
fi
suite=$1
shift

jar="$here/target/quarry-bench.jar"
build_bench() {
    echo "building quarry-bench (mvn -q -Pbench package -DskipTests) ..." >&2
    # The benchmarks are not in the default reactor: -Pbench adds them (see the root pom.xml).
    (cd "$root" && mvn -q -B -Pbench package -DskipTests -Dspotless.check.skip=true -Dmaven.javadoc.skip=true \
        -Dmaven.source.skip=true -pl quarry-bench -am) >&2
}

if [ -x "$here/scripts/$suite.sh" ]; then
    exec "$here/scripts/$suite.sh" "$@"
fi
build_bench
exec "$JAVA_HOME/bin/java" -jar "$jar" "$suite" "$@"
