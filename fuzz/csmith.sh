#!/bin/sh
# `make csmith`: differential testing of the engine against native runs on
# random C programs. For each seed, Csmith writes a program (no input, one
# path, a checksum of every global printed at the end); mnemo runs it to
# the end and `mnemo replay` runs it natively, comparing the outcome and
# the printed checksum. A program that natively runs longer than the time
# given is counted aside (Csmith's loops can run for minutes).
#
# Prints one line per seed that did not simply match (why, and where its
# files are), then the counts. Exits 1 when a path ended unsupported, with
# an error natively absent, or when a replay disagreed.
#
# Environment (the Makefile passes its variables of the same names):
#   CSMITH_SEEDS    first and last seed (default "1 100")
#   CSMITH_CC_ARGS  flags for clang after `mnemo cc`'s own (for instance -O2)
#   CSMITH_TIME     seconds mnemo may run one program (default 60)
#   CSMITH_OUT      where each seed's program and outputs are kept
#                   (default: a directory in /dev/shm when there is one)
#   MNEMO           the mnemo binary (default target/release/mnemo)
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
mnemo=${MNEMO:-$here/target/release/mnemo}
seeds=${CSMITH_SEEDS:-1 100}
limit=${CSMITH_TIME:-60}
cc_args=${CSMITH_CC_ARGS:-}
if [ -z "${CSMITH_OUT:-}" ]; then
    parent=/tmp
    [ -d /dev/shm ] && parent=/dev/shm
    CSMITH_OUT=$(mktemp -d "$parent/mnemo-csmith.XXXXXX")
fi
out=$CSMITH_OUT
headers=/usr/include/csmith
[ -f "$headers/csmith.h" ] || {
    echo "csmith: $headers/csmith.h is missing (apt-get install csmith libcsmith-dev)" >&2
    exit 2
}

matched=0 long=0 bad=0
set -- $seeds
for seed in $(seq "$1" "$2"); do
    dir=$out/$seed
    mkdir -p "$dir"
    # The program includes "csmith.h", found beside it first.
    cp "$headers"/*.h "$dir"/
    # Csmith writes platform.info where it runs.
    (cd "$dir" && csmith --seed "$seed" > p.c)
    # shellcheck disable=SC2086 # the flags are words
    if ! "$mnemo" cc "$dir/p.c" -o "$dir/p.bc" -- $cc_args > "$dir/cc.log" 2>&1; then
        echo "$seed: mnemo cc failed ($dir/cc.log)"
        bad=$((bad + 1))
        continue
    fi
    "$mnemo" run -q --max-time "$limit" --output-dir "$dir/out" "$dir/p.bc" \
        > "$dir/run.log" 2>&1 || true
    stats=$dir/out/stats.json
    if grep -q '"max-time"' "$stats" 2>/dev/null; then
        long=$((long + 1))
        continue
    fi
    if ls "$dir"/out/*.err > /dev/null 2>&1; then
        echo "$seed: $(head -1 "$dir"/out/*.err) ($dir)"
        bad=$((bad + 1))
        continue
    fi
    # shellcheck disable=SC2086 # the flags are words
    if "$mnemo" replay "$dir/p.c" "$dir/out" -- $cc_args > "$dir/replay.log" 2>&1 \
        && grep -q '^1 tests: 1 match,' "$dir/replay.log"; then
        matched=$((matched + 1))
        rm -rf "$dir"
    else
        echo "$seed: $(tail -1 "$dir/replay.log") ($dir)"
        bad=$((bad + 1))
    fi
done
# Only what did not match or ran too long is kept.
rmdir "$out" 2>/dev/null && out="nothing kept"
echo "csmith: $matched matched natively, $long ran past ${limit}s, $bad did not match (seeds $1..$2${cc_args:+, $cc_args}; $out)"
[ "$bad" -eq 0 ]
