#!/bin/sh
# `make projects`: differential testing on real programs beyond coreutils.
# Each project is Debian's source package (bookworm), configured and built
# once with `mnemo cc-project` as the compiler, so that each program is a
# native program that carries its bitcode (linked with the runtime's model
# of the clock and the machine); `mnemo extract` links that bitcode, mnemo
# explores it under KLEE's coreutils arguments for the time given, and
# `mnemo replay` runs every test on the same build's native program (as
# the model's user in a root laid out as the engine's file system, where
# run as root): its outcome and what it printed must be what the engine
# predicted.
#
# Prints a line per program (paths ended, the engine's line coverage,
# the replay's counts, any path that ended in an error of the engine) and
# exits 1 when a test disagreed with its native run, a replay failed, or a
# path ended on an unsupported call or system call.
#
# Environment (the Makefile passes its variables of the same names):
#   PROJECTS       which projects (default: every one below)
#   PROJECT_TIME   seconds mnemo explores each program (default 60)
#   PROJECT_ARGS   mnemo's arguments after the bitcode (default KLEE's
#                  coreutils arguments)
#   PROJECT_OUT    where sources, builds and outputs are kept (default
#                  build/projects)
#   MNEMO          the mnemo binary (default target/release/mnemo)
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
mnemo=${MNEMO:-$here/target/release/mnemo}
projects=${PROJECTS:-sed grep gzip diffutils bc m4 patch gawk findutils ed indent cpio tar xz-utils}
limit=${PROJECT_TIME:-60}
args=${PROJECT_ARGS:---sym-args 0 1 10 --sym-args 0 2 2 --sym-files 1 8 --sym-stdin 8}
out=${PROJECT_OUT:-$here/build/projects}
rawmemchr=$here/runtime/include/mnemo/rawmemchr.h
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The programs of a project, as paths in its built tree.
programs() {
    case $1 in
    sed) echo sed/sed ;;
    grep) echo src/grep ;;
    gzip) echo gzip ;;
    diffutils) echo src/cmp src/diff ;;
    bc) echo bc/bc dc/dc ;;
    m4) echo src/m4 ;;
    patch) echo src/patch ;;
    gawk) echo gawk ;;
    findutils) echo find/find ;;
    ed) echo ed ;;
    indent) echo src/indent ;;
    sharutils) echo src/uuencode src/uudecode ;;
    cpio) echo src/cpio ;;
    tar) echo src/tar ;;
    xz-utils) echo src/xz/xz ;;
    *) return 1 ;;
    esac
}

# configure's options for a project: ed's own configure takes no -q and
# has no NLS to disable; xz would link liblzma as a shared library, from
# which no bitcode is extracted.
configure_options() {
    case $1 in
    ed) ;;
    xz-utils) echo -q --disable-nls --disable-shared ;;
    *) echo -q --disable-nls ;;
    esac
}

# The compiler's options a project needs besides the common ones: indent
# includes <locale.h> only with NLS yet calls setlocale, and sharutils
# and cpio define a global in two files, an error since -fno-common became the
# default.
cflags() {
    case $1 in
    indent) echo -include locale.h -Wno-error ;;
    sharutils | cpio) echo -fcommon ;;
    esac
}

# What a project's programs are given besides PROJECT_ARGS: sharutils'
# option library, asked to save its options (-R) with HOME unset, prints
# a warning through a format that reads an argument it was not passed,
# which crashes natively and which the engine reads as zero. It does so
# for other failures to save too (libopts/save.c), whatever HOME is; and
# an option file that loads itself is truncated while libopts has it
# mapped, SIGBUS natively where the model's mapping is a copy. Its replay
# disagrees on those paths, and it is not among the projects run by
# default.
run_options() {
    case $1 in
    sharutils) echo --env HOME=/tmp ;;
    esac
}

# Faults of a project's own code that the engine finds and its native
# run does not show, as FILE:LINE of the predicted error: a read past
# the end of a string that lands on the allocator's spare bytes. A test
# the replay finds disagreeing there is counted as the fault's, not as
# the engine's. indent's eqin and prefix matching (args.c) compare an
# option's name with an argument byte after byte past the argument's
# terminator.
known_faults() {
    case $1 in
    indent) echo src/args.c:691 src/args.c:769 ;;
    esac
}

# apt-get with the project's own list of sources and its own state, so
# that the system's lists are not touched.
apt_own() {
    dl=$out/download
    mkdir -p "$dl/lists/partial" "$dl/cache/archives/partial"
    apt-get -qq -o Dir::Etc::SourceList="$here/fuzz/sources.list" \
        -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$dl/lists" \
        -o Dir::Cache="$dl/cache" -o APT::Sandbox::User=root "$@"
}

# fetch PROJECT: the path of its source package's tarball, fetched once.
fetch() {
    dl=$out/download
    if ! ls "$dl/$1"_*.orig.tar.* > /dev/null 2>&1; then
        apt_own update
        (cd "$dl" && apt_own source --download-only "$1/bookworm") > /dev/null
    fi
    ls "$dl/$1"_*.orig.tar.* | grep -v '[.]asc$' | head -n 1
}

# build PROJECT: configured and built once; a program the tree's own make
# did not build (bc's manual needs makeinfo) is reported by the caller.
build() {
    tree=$out/$1/src
    [ -f "$tree/.built" ] && return 0
    tarball=$(fetch "$1")
    rm -rf "$tree" && mkdir -p "$tree"
    tar xf "$tarball" -C "$tree" --strip-components=1
    (
        cd "$tree"
        extra=$(cflags "$1")
        # shellcheck disable=SC2046 # the options are words
        # CC and CFLAGS as arguments, which ed's own configure reads too.
        ac_cv_func_rawmemchr=yes FORCE_UNSAFE_CONFIGURE=1 ./configure \
            $(configure_options "$1") CC="$mnemo cc-project" CFLAGS="-g -O0 $extra" \
            > ../configure.log 2>&1
        make -k -j"$(nproc)" CFLAGS="-g -O0 $extra -include $rawmemchr" > ../make.log 2>&1 || true
    )
    touch "$tree/.built"
}

model_root=""
[ "$(id -u)" = 0 ] && model_root=--model-root
bad=0
for project in $projects; do
    if ! list=$(programs "$project"); then
        echo "$project: no such project (known: sed grep gzip diffutils bc m4 patch gawk findutils ed indent sharutils cpio tar xz-utils)" >&2
        exit 2
    fi
    if ! build "$project"; then
        echo "$project: the build failed (see $out/$project)"
        bad=$((bad + 1))
        continue
    fi
    for p in $list; do
        name=$(basename "$p")
        native=$out/$project/src/$p
        dir=$out/$project/$name
        if [ ! -x "$native" ]; then
            echo "$project/$name: not built (see $out/$project/make.log)"
            bad=$((bad + 1))
            continue
        fi
        rm -rf "$dir" && mkdir -p "$dir"
        if ! "$mnemo" extract "$native" -o "$dir/$name.bc" > "$dir/extract.log" 2>&1; then
            echo "$project/$name: no bitcode extracted (see $dir/extract.log)"
            bad=$((bad + 1))
            continue
        fi
        # shellcheck disable=SC2086,SC2046 # the arguments are words
        "$mnemo" run -q --max-time "$limit" --max-site-fork-share 0.1 \
            --output-dir "$dir/out" "$dir/$name.bc" $args $(run_options "$project") \
            > "$dir/run.log" 2>&1 || true
        "$mnemo" replay $model_root "$native" "$dir/out" > "$dir/replay.log" 2>&1 || true
        ended=$(sed -n 's/^mnemo: done: \([0-9]*\) paths completed, \([0-9]*\) with errors.*/\1 completed, \2 with errors/p' "$dir/run.log")
        lines=$(sed -n 's/.*coverage: .*, \([0-9.]*%\) lines/\1/p' "$dir/run.log")
        replay=$(tail -n 1 "$dir/replay.log")
        errors=$(cat "$dir"/out/*.err 2> /dev/null | sed -n 's/^Kind: //p' | sort | uniq -c |
            awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
        faulted=0
        for site in $(known_faults "$project"); do
            n=$(grep -c "predicted ptr at .*/$site, .*: MISMATCH" "$dir/replay.log" || true)
            faulted=$((faulted + n))
        done
        at_faults=""
        if [ "$faulted" -gt 0 ]; then
            at_faults="; $faulted of the mismatches at the program's known faults"
        fi
        echo "$project/$name: ${ended:-no summary}; ${lines:-?} of lines; $replay${errors:+; errors: $errors}$at_faults"
        mismatched=$(echo "$replay" | sed -n 's/^[0-9]* tests: [0-9]* match, \([0-9]*\) mismatch, [0-9]* not predicted, 0 replay failed$/\1/p')
        if [ -z "$mismatched" ] || [ "$mismatched" -ne "$faulted" ]; then
            bad=$((bad + 1))
        elif echo "$errors" | grep -q 'unsupported\|external'; then
            bad=$((bad + 1))
        fi
    done
done
echo "projects: $bad program(s) with a disagreement, a failed replay or an unsupported call (outputs in $out)"
[ "$bad" -eq 0 ]
