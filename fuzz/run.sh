#!/bin/sh
# `make fuzz`: builds the fuzz targets with cargo-afl (installing it when it
# is missing), runs each target under AFL++ for FUZZ_SECONDS, one after the
# other, and prints what each did: executions, executions per second, and
# the crashes and hangs it saved, with whose each one is (fuzz/triage.sh).
# Exits 1 when a target saved a crash or a hang that is not LLVM's own.
#
# Environment (the Makefile passes its variables of the same names):
#   FUZZ_SECONDS  seconds per target (default 600)
#   FUZZ_OUT      where AFL++ keeps each target's queue and findings
#   FUZZ_BUILD    cargo's target directory for the instrumented build
#   FUZZ_RESUME   1: go on from the queue an earlier run left in FUZZ_OUT
#                 (AFL++ carries its counts over) instead of starting anew
#   FUZZ_NICE     niceness of the fuzzer (default 19: it uses a whole core)
# Arguments: the targets to run (default: all of mnemo::fuzz::TARGETS).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SECONDS:-600}
out=${FUZZ_OUT:-$here/out}
build=${FUZZ_BUILD:-$here/target}
nice_level=${FUZZ_NICE:-19}
cargo=${CARGO:-cargo}
afl_version=0.18.2
targets=${*:-ktest trie store spec bitcode}

if ! "$cargo" afl --version 2>/dev/null | grep -q "cargo-afl $afl_version"; then
    echo "fuzz: installing cargo-afl $afl_version (it builds AFL++ from the source it ships)"
    "$cargo" install cargo-afl --version "$afl_version" --locked
fi
# Builds AFL++ and its runtime when they are not there yet; says so and
# does nothing when they are.
"$cargo" afl config --build >/dev/null 2>&1 || true

(cd "$here" && CARGO_TARGET_DIR="$build" "$cargo" afl build --release)
bin="$build/release/mnemo-fuzz"

# This machine is shared: no CPU frequency governor to check, no core to
# bind to, no terminal UI; crashes reach AFL++ as signals whatever the
# system's core pattern says.
export AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_NO_UI=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1

mkdir -p "$out"
for t in $targets; do
    [ -d "$here/seeds/$t" ] || { echo "fuzz: no seeds for target $t" >&2; exit 2; }
    input="$here/seeds/$t"
    if [ "${FUZZ_RESUME:-0}" = 1 ] && [ -d "$out/$t/default/queue" ]; then
        input=-
    else
        rm -rf "$out/$t"
    fi
    dict=
    [ -f "$here/dicts/$t.dict" ] && dict="-x $here/dicts/$t.dict"
    echo "fuzz: $t for ${seconds}s"
    # -t: an input that takes a second is a hang worth a look (AFL++ would
    # pick a few milliseconds, and call every input LLVM is slow on a hang).
    # shellcheck disable=SC2086 # $dict is empty or two words
    nice -n "$nice_level" "$cargo" afl fuzz -V "$seconds" -t 1000 -i "$input" -o "$out/$t" \
        $dict -- "$bin" "$t" >"$out/$t.log" 2>&1 ||
        { echo "fuzz: afl-fuzz failed on $t; the end of $out/$t.log:" >&2; tail -20 "$out/$t.log" >&2; exit 1; }
done

stat() { sed -n "s/^$2 *: *//p" "$out/$1/default/fuzzer_stats"; }
found=0
printf '%-8s %12s %8s %8s %6s\n' target executions exec/s crashes hangs
for t in $targets; do
    execs=$(stat "$t" execs_done)
    secs=$(stat "$t" run_time)
    crashes=$(stat "$t" saved_crashes)
    hangs=$(stat "$t" saved_hangs)
    printf '%-8s %12s %8s %8s %6s\n' "$t" "$execs" "$((execs / (secs > 0 ? secs : 1)))" "$crashes" "$hangs"
    if [ "$crashes" != 0 ] || [ "$hangs" != 0 ]; then
        found=1
    fi
done
[ "$found" = 0 ] && exit 0
# Whose each finding is: LLVM's own crashes on corrupt bitcode are expected
# in the bitcode target (the commands contain them, see triage.sh); any
# other finding fails the run.
status=0
for t in $targets; do
    [ -n "$(ls "$out/$t/default/crashes" "$out/$t/default/hangs" 2>/dev/null | grep '^id:')" ] || continue
    echo "fuzz: what $t found (fuzz/triage.sh):"
    FUZZ_OUT=$out FUZZ_BUILD=$build "$here/triage.sh" "$t" || status=1
done
echo "fuzz: findings are in $out/TARGET/default/crashes and hangs;" \
    "\`$bin TARGET < FILE\` runs one again"
exit "$status"
