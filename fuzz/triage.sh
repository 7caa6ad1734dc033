#!/bin/sh
# Says where each crash or hang a target saved comes from: one line per
# input, `mnemo` (a panic, or a signal or a slow loop in mnemo's own code:
# a bug to fix), `llvm` (LLVM 14's bitcode reader or verifier ended the
# process or took seconds before mnemo got an answer back: a fatal error,
# an allocation or a C++ exception sized by the input, a crash inside
# libLLVM), `slow` (a hang that runs in well under a second alone: the
# machine was busy) or `unclear` (a crash that does not happen alone:
# fixed since, or it needed the inputs before it in the same process).
# `mnemo run` and the other commands read a program first in a child
# process, so LLVM's own crashes reach their user as an error message; only
# the library's loader sees them.
#
# Usage: fuzz/triage.sh TARGET [INPUT...] (default: every crash and hang
# saved in FUZZ_OUT/TARGET). Needs gdb for the frames. Exits 1 when some
# input is mnemo's or unclear.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${FUZZ_OUT:-$here/out}
build=${FUZZ_BUILD:-$here/target}
bin="$build/release/mnemo-fuzz"
t=$1
shift
if [ $# = 0 ]; then
    # shellcheck disable=SC2046 # AFL++'s names hold no blanks
    set -- $(find "$out/$t/default/crashes" "$out/$t/default/hangs" -name 'id:*' 2>/dev/null | sort)
fi

# The innermost frame outside the C library: whose code was running.
top_frame() {
    grep '^#' | grep -v -m1 'libc\.so\|/libc-\|sysdeps\|nptl\|__GI_\|memset\|memcpy\|memmove' |
        sed 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}//' | cut -c1-150
}

ours=0
for f in "$@"; do
    name=$(basename "$f" | cut -d, -f1-2)
    case $f in
    */hangs/*)
        "$bin" "$t" <"$f" >/dev/null 2>&1 &
        pid=$!
        waited=0
        while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 10 ]; do
            sleep 0.1
            waited=$((waited + 1))
        done
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid" || true
            printf '%-7s %s: %s\n' slow "$name" "runs in under a second alone"
            continue
        fi
        frame=$(gdb -q -batch -p "$pid" -ex bt 2>/dev/null | top_frame || true)
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        case $frame in
        *libLLVM*) kind=llvm ;;
        *) kind=mnemo ;;
        esac
        detail="still running after a second, in $frame"
        ;;
    *)
        # 300 frames name the code; a recursion that overflowed the stack
        # fills all of them (gdb stops at the fault, before Rust's message).
        log=$(timeout 120 gdb -q -batch -ex run -ex 'bt 300' --args "$bin" "$t" <"$f" 2>&1 || true)
        frame=$(printf '%s\n' "$log" | top_frame || true)
        if printf '%s\n' "$log" | grep -q 'panicked at'; then
            kind=mnemo
            detail=$(printf '%s\n' "$log" | grep -m1 -A1 'panicked at' | tr '\n' ' ')
        elif printf '%s\n' "$log" | grep -q 'LLVM failed fatally'; then
            kind=llvm
            detail="fatal error: $(printf '%s\n' "$log" | sed -n 's/.*LLVM failed fatally while loading [^:]*: //p' | head -1)"
        elif printf '%s\n' "$log" | grep -q 'LLVM ERROR: out of memory'; then
            kind=llvm
            detail="out of memory (an allocation sized by the input)"
        elif printf '%s\n' "$log" | grep -q 'cannot catch foreign exceptions' &&
            [ "$t" = bitcode ]; then
            kind=llvm
            detail="a C++ exception out of LLVM (a container sized by the input)"
        elif printf '%s\n' "$frame" | grep -q 'libLLVM'; then
            kind=llvm
            detail="signal in $frame"
            if [ "$(printf '%s\n' "$log" | grep -c '^#')" -ge 300 ]; then
                detail="stack overflow in LLVM (a nesting depth the input gives)"
            fi
        elif ! printf '%s\n' "$log" | grep -q 'received signal'; then
            kind=unclear
            detail="does not fail when run alone (fixed since, or it needed the inputs before it)"
        else
            kind=mnemo
            detail="signal in $frame"
        fi
        ;;
    esac
    [ "$kind" = llvm ] || ours=1
    printf '%-7s %s: %s\n' "$kind" "$name" "$detail"
done
exit "$ours"
