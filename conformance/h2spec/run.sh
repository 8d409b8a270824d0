#!/usr/bin/env bash
# Runs the h2spec conformance suite (RFC 9113 and RFC 7541) against Quarry, in clear text and over TLS.
#   conformance/h2spec/run.sh            # installs h2spec with Go if it is missing
# Three runs: an HTTP/2-only listener (prior knowledge; every case must pass), the HTTPS port (h2 by ALPN,
# `h2spec -t -k`, the development certificate; every case must pass) and the default shared HTTP/1.1 + h2c port
# (for information: a garbage preface there is answered as HTTP/1.1, by design).
# Exit status: 0 if every case passed on the HTTP/2-only listener and over TLS; 1 if not; 3 if h2spec is unavailable.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/.ci/jdk.sh"

h2spec=$(command -v h2spec || true)
[ -z "$h2spec" ] && [ -x "$HOME/go/bin/h2spec" ] && h2spec="$HOME/go/bin/h2spec"
if [ -z "$h2spec" ]; then
    go=$(command -v go || echo /usr/local/go/bin/go)
    if [ -x "$go" ]; then
        echo "h2spec: installing with 'go install' (bounded to 120 s) ..." >&2
        if timeout 120 "$go" install github.com/summerwind/h2spec/cmd/h2spec@latest >/dev/null 2>&1; then
            h2spec="$("$go" env GOPATH)/bin/h2spec"
        fi
    fi
fi
if [ -z "$h2spec" ] || [ ! -x "$h2spec" ]; then
    echo "h2spec: not available (no h2spec and no Go to install it); skipped" >&2
    exit 3
fi

# The launcher rebuilds the CLI when a source is newer than its jar: never test a stale build.
"$root/quarry" --help >/dev/null

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

start() { # start <port> <h2c mode> [<started line> <more options>...] -> waits until it logs that line
    local port=$1 mode=$2 started=${3:-Started} log
    shift 2
    shift $(($# > 0 ? 1 : 0))
    log=$(mktemp /tmp/quarry-h2spec.XXXXXX)
    "$root/quarry" plaintext --host 127.0.0.1 --port "$port" --h2c "$mode" "$@" >"$log" 2>&1 &
    pids+=($!)
    # Up to 30 s: the first HTTPS run makes the development certificate with keytool.
    for _ in $(seq 300); do
        if grep -q "$started" "$log"; then return 0; fi
        sleep 0.1
    done
    echo "Quarry did not start: $(cat "$log")" >&2
    return 1
}

status=0
only_port=$(free_port)
start "$only_port" only
echo "== h2spec against an HTTP/2-only listener (prior knowledge)"
if ! timeout 300 "$h2spec" -h 127.0.0.1 -p "$only_port" -P /plaintext -o 3 > /tmp/h2spec-only.txt 2>&1; then
    status=1
fi
sed -n '/^Failures:/,$p' /tmp/h2spec-only.txt
tail -n 1 /tmp/h2spec-only.txt

# Over TLS: h2 chosen by ALPN on the HTTPS port (the plain port beside it is not tested here).
plain_port=$(free_port)
tls_port=$(free_port)
start "$plain_port" on "Started https" --https-port "$tls_port"
echo "== h2spec over TLS (h2 by ALPN, -t -k)"
if ! timeout 300 "$h2spec" -t -k -h 127.0.0.1 -p "$tls_port" -P /plaintext -o 3 > /tmp/h2spec-tls.txt 2>&1; then
    status=1
fi
sed -n '/^Failures:/,$p' /tmp/h2spec-tls.txt
tail -n 1 /tmp/h2spec-tls.txt

mixed_port=$(free_port)
start "$mixed_port" on
echo "== h2spec against the shared HTTP/1.1 + h2c port (information only)"
timeout 300 "$h2spec" -h 127.0.0.1 -p "$mixed_port" -P /plaintext -o 3 > /tmp/h2spec-mixed.txt 2>&1 || true
grep -E "^\s+× " /tmp/h2spec-mixed.txt | sort -u || true
tail -n 1 /tmp/h2spec-mixed.txt
exit $status
