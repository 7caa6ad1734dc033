#!/bin/sh
# `make csmith`: differential testing of the engine against native runs on
# random C programs. For each seed, Csmith writes a program (no input, one
# path, a checksum of every global printed at the end); mnemo runs it to
# the end and `mnemo replay` runs it natively, comparing the outcome and
# the printed checksum. A program that natively runs longer than the time
# given is counted aside (Csmith's loops can run for minutes), and so is
# one the optimizer (CSMITH_CC_ARGS) ended in `unreachable` whose build
# without optimization runs past that time: an endless loop. So is a
# seed whose replay, the native build included, takes ten times that.
#
# With CSMITH_SYMBOLIC=K, the program's first K integer globals become
# inputs once the CRC table is built, and each global is printed in full
# where it was hashed (every hex digit, so that printing a symbolic value
# forks nowhere). mnemo explores the paths the inputs open for the time
# given and every test is replayed natively: its outcome and what it
# printed (each global's value under the test's input) must be what the
# engine predicted. Paths cut by the time limit are not predicted; such a
# seed is counted aside only when no path ran to its end.
#
# Prints one line per seed that did not simply match (why, and where its
# files are), then the counts. Exits 1 when a path ended unsupported, with
# an error natively absent, or when a replay disagreed.
#
# Environment (the Makefile passes its variables of the same names):
#   CSMITH_SEEDS    first and last seed (default "1 100")
#   CSMITH_CC_ARGS  flags for clang after `mnemo cc`'s own (for instance -O2)
#   CSMITH_TIME     seconds mnemo may run one program (default 60)
#   CSMITH_SYMBOLIC how many globals to make symbolic (default 0)
#   CSMITH_OUT      where each seed's program and outputs are kept
#                   (default: a directory in /dev/shm when there is one)
#   MNEMO           the mnemo binary (default target/release/mnemo)
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
mnemo=${MNEMO:-$here/target/release/mnemo}
seeds=${CSMITH_SEEDS:-1 100}
limit=${CSMITH_TIME:-60}
cc_args=${CSMITH_CC_ARGS:-}
symbolic=${CSMITH_SYMBOLIC:-0}
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

# symbolize PROGRAM K: PROGRAM with its first K integer globals (neither
# const, arrays nor pointers) made symbolic and every global printed.
symbolize() {
    names=$(sed -n 's/^static \(volatile \)\{0,1\}u\{0,1\}int\(8\|16\|32\|64\)_t \(g_[0-9]*\) = .*/\3/p' "$1" |
        head -n "$2")
    calls=""
    for g in $names; do
        calls="$calls klee_make_symbolic((void *)\\&$g, sizeof $g, \"$g\");"
    done
    sed -e 's|^#include "csmith.h"$|&\
#include <klee/klee.h>\
static void mnemo_print(uint64_t v, char *name, int flag)\
{\
    int i;\
    (void)flag;\
    printf("%s = ", name);\
    for (i = 15; i >= 0; i--)\
        putchar("0123456789abcdef"[(v >> (4 * i)) \& 15]);\
    putchar(10);\
}|' -e "s|crc32_gentab();|&$calls|" -e 's|transparent_crc(|mnemo_print(|' "$1"
}

# endless DIR: whether DIR's program, built without optimization, runs
# past the time given natively. Csmith's loops can be endless; one that
# does nothing the optimizer must keep is undefined (C11 lets it assume
# such a loop ends), and the optimizer may replace the path into it with
# `unreachable`, which the engine rightly reports and the native program
# runs past into whatever code follows. A program with symbolic globals
# keeps their initial values (klee_make_symbolic does nothing): the path
# the optimizer cut is one every input takes.
endless() {
    printf 'void klee_make_symbolic(void *a, unsigned long n, const char *s) {}\n' > "$1/keep.c"
    clang-14 -w -I"$1" -I"$here/runtime/include" "$1/p.c" "$1/keep.c" -o "$1/p-O0" \
        > /dev/null 2>&1 || return 1
    status=0
    timeout "$limit" "$1/p-O0" > /dev/null 2>&1 || status=$?
    [ "$status" -eq 124 ]
}

# What a seed's replay prints when every test that could be checked agreed:
# the one path of a program without input; every predicted path of one with.
agree='^1 tests: 1 match,'
[ "$symbolic" -gt 0 ] && agree='^[0-9]* tests: [0-9]* match, 0 mismatch, [0-9]* not predicted, 0 replay failed'

# How long a seed's replay may take, its native build included: clang's
# AddressSanitizer at -O1 ran past ten minutes on one Csmith program (seed
# 9077) that builds in a second without it.
replay_limit=$((limit * 10))

matched=0 long=0 slow=0 bad=0 replayed=0
set -- $seeds
for seed in $(seq "$1" "$2"); do
    dir=$out/$seed
    mkdir -p "$dir"
    # The program includes "csmith.h", found beside it first.
    cp "$headers"/*.h "$dir"/
    # Csmith writes platform.info where it runs.
    (cd "$dir" && csmith --seed "$seed" > p.c)
    if [ "$symbolic" -gt 0 ]; then
        symbolize "$dir/p.c" "$symbolic" > "$dir/s.c"
        mv "$dir/s.c" "$dir/p.c"
    fi
    # shellcheck disable=SC2086 # the flags are words
    if ! "$mnemo" cc "$dir/p.c" -o "$dir/p.bc" -- $cc_args > "$dir/cc.log" 2>&1; then
        echo "$seed: mnemo cc failed ($dir/cc.log)"
        bad=$((bad + 1))
        continue
    fi
    "$mnemo" run -q --max-time "$limit" --output-dir "$dir/out" "$dir/p.bc" \
        > "$dir/run.log" 2>&1 || true
    stats=$dir/out/stats.json
    if grep -q '"max-time"' "$stats" 2>/dev/null &&
        { [ "$symbolic" -eq 0 ] || grep -q '"completed": *0\b' "$stats"; }; then
        long=$((long + 1))
        continue
    fi
    if [ -n "$cc_args" ] && ls "$dir"/out/*.unreachable.err > /dev/null 2>&1 &&
        endless "$dir"; then
        long=$((long + 1))
        continue
    fi
    if ls "$dir"/out/*.err > /dev/null 2>&1; then
        echo "$seed: $(head -1 "$dir"/out/*.err) ($dir)"
        bad=$((bad + 1))
        continue
    fi
    status=0
    # shellcheck disable=SC2086 # the flags are words
    timeout "$replay_limit" "$mnemo" replay "$dir/p.c" "$dir/out" -- $cc_args \
        > "$dir/replay.log" 2>&1 || status=$?
    if [ "$status" -eq 0 ] && grep -q "$agree" "$dir/replay.log"; then
        matched=$((matched + 1))
        replayed=$((replayed + $(sed -n 's/^[0-9]* tests: \([0-9]*\) match,.*/\1/p' "$dir/replay.log")))
        rm -rf "$dir"
    elif [ "$status" -eq 124 ]; then
        echo "$seed: the native build and replay ran past ${replay_limit}s ($dir)"
        slow=$((slow + 1))
    else
        echo "$seed: $(tail -1 "$dir/replay.log") ($dir)"
        bad=$((bad + 1))
    fi
done
# Only what did not match or ran too long is kept.
rmdir "$out" 2>/dev/null && out="nothing kept"
if [ "$symbolic" -gt 0 ]; then
    echo "csmith: $matched matched natively ($replayed tests), $long ran past ${limit}s with no path ended, $slow replayed past ${replay_limit}s, $bad did not match (seeds $1..$2, $symbolic globals symbolic${cc_args:+, $cc_args}; $out)"
else
    echo "csmith: $matched matched natively, $long ran past ${limit}s, $slow replayed past ${replay_limit}s, $bad did not match (seeds $1..$2${cc_args:+, $cc_args}; $out)"
fi
[ "$bad" -eq 0 ]
