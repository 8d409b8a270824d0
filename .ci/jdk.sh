# Sourced by .ci/run, ./quarry and quarry-bench/run.sh: exports JAVA_HOME pointing at a JDK >= 21 and puts it first
# on PATH. Honours JAVA_HOME when it is >= 21; otherwise picks the newest JDK >= 21 under /usr/lib/jvm (or
# QUARRY_JVM_DIRS, space-separated); fails with a clear message when there is none.

quarry_jdk_major() {
    # Prints the major version of the JDK at $1, or nothing if it is not a JDK.
    local home=$1 version=""
    [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || return 0
    if [ -f "$home/release" ]; then
        version=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$home/release")
    fi
    if [ -z "$version" ]; then
        version=$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | sed -n 1p)
    fi
    version=${version#1.}
    echo "${version%%[.+-]*}"
}

quarry_find_jdk() {
    local major best="" best_major=0 dir
    if [ -n "${JAVA_HOME:-}" ]; then
        major=$(quarry_jdk_major "$JAVA_HOME")
        if [ -n "$major" ] && [ "$major" -ge 21 ]; then
            echo "$JAVA_HOME"
            return 0
        fi
        echo "note: JAVA_HOME=$JAVA_HOME is not a JDK >= 21 (found '${major:-none}'); looking elsewhere" >&2
    fi
    for dir in ${QUARRY_JVM_DIRS:-/usr/lib/jvm}; do
        for home in "$dir"/*/; do
            home=${home%/}
            [ -L "$home" ] && continue
            major=$(quarry_jdk_major "$home")
            if [ -n "$major" ] && [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
                best=$home
                best_major=$major
            fi
        done
    done
    if [ -z "$best" ]; then
        return 1
    fi
    echo "$best"
}

if ! QUARRY_JAVA_HOME=$(quarry_find_jdk); then
    echo "error: Quarry needs a JDK 21 or newer. None found in JAVA_HOME or under ${QUARRY_JVM_DIRS:-/usr/lib/jvm}." >&2
    echo "       Install one (e.g. Temurin 21+) and set JAVA_HOME to it." >&2
    exit 1
fi
export JAVA_HOME=$QUARRY_JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
