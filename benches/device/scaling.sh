#!/bin/bash
# Many-core scaling of `--jobs N` against `--jobs 1`, for a machine that has
# more cores than this one and no network (no registry, no compiler): the
# `parallel` section of `make bench` measures two workers; this measures up
# to as many as the other machine has.
#
#   benches/device/scaling.sh bundle DIR   # here: DIR/bundle.tar.xz
#   benches/device/scaling.sh run DIR OUT  # there: OUT/results.jsonl, a table
#
# `bundle` packs the release binary (stripped), the shared libraries it
# loads apart from the C library's own (the other machine's glibc must be
# as new as this one's), the runtime's bitcode library and the subjects,
# compiled here. `run` explores each subject with every worker count of
# JOBS_LIST (default "1 2 4 8 16"), outputs on a memory file system, solver
# stores off, and prints the speedup of each over `--jobs 1`: of the whole
# call, and of the exploration alone (stats.json's `wall_s`, which leaves
# out loading the program and saving the trie). Beside it, the ceiling: how
# much faster N threads of pure arithmetic get through work than one,
# the most any speedup can be on that machine.
#
# Subjects are the `parallel` section's, deepened until one worker takes
# about 30 s on a 16-core Xeon; `--only-new-coverage` keeps the file system
# out of the exploration's time, and one subject is also run writing a test
# for every path (label `all`).
#
# EXE=PATH at `bundle` time packs that build as the one under test (by
# default the release build of this checkout). OTHERS="LABEL=EXE ..." at
# `bundle` time also packs other builds of mnemo
# (the commit before a change, say); `run` then runs each at the largest
# worker count (under its label), with speedups over `--jobs 1` of the
# build under test, so the builds compare on the same machine. A label
# named in OTHERS_ONE="LABEL ..." is also run with one worker, and its
# speedups are over that. TOP_RUNS=K repeats every run at the largest
# count K times. PROCESS_CEILING=1 also runs, for each subject, as many
# separate `--jobs 1` processes at once as the largest count: the
# subject's own ceiling on that machine.
set -u
set -o pipefail

# SOURCE:DEPTH, from the repository's root: what the bundle compiles, and
# at run time the subjects and their order (SUBJECTS, of those compiled)
# and their depths (DEPTHS: NAME:DEPTH ...).
SUBJECTS=${SUBJECTS:-"testsuite/svcomp_nested_loops:25 benches/programs/parallel/wbs_run:23
benches/programs/parallel/bintree_run:20 benches/programs/parallel/sum_run:20"}
ALL_TESTS_SUBJECT=${ALL_TESTS_SUBJECT:-wbs_run:21}

bundle() {
    local dir=$1 root
    root=$(cd "$(dirname "$0")/../.." && pwd)
    local stage
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' RETURN
    local b=$stage/bundle
    mkdir -p "$b/lib" "$b/runtime/include/klee" "$b/runtime/build/musl"
    local exe=${EXE:-$root/target/release/mnemo}
    [ -x "$exe" ] || { echo "build it first: cargo build --release" >&2; return 1; }
    cp "$exe" "$b/mnemo" && strip "$b/mnemo"
    local other
    for other in ${OTHERS:-}; do
        case $other in
            *=*) ;;
            *) echo "OTHERS takes LABEL=EXE, not $other" >&2; return 1 ;;
        esac
        cp "${other#*=}" "$b/mnemo-${other%%=*}" && strip "$b/mnemo-${other%%=*}" || return 1
    done
    ldd "$exe" | awk '/=>/ {print $3}' | while read -r lib; do
        case $(basename "$lib") in
            libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*) ;;
            *) cp -L "$lib" "$b/lib/" ;;
        esac
    done
    cp "$root/runtime/include/klee/klee.h" "$b/runtime/include/klee/"
    cp -a "$root/runtime/build/musl/obj" "$root/runtime/build/musl/symbols.txt" \
        "$b/runtime/build/musl/" || { echo "build the runtime first: make runtime" >&2; return 1; }
    for s in $SUBJECTS; do
        local src=${s%%:*}
        "$exe" cc "$root/$src.c" -o "$b/$(basename "$src").bc" || return 1
    done
    mkdir -p "$dir"
    tar -C "$stage" -cf - bundle | xz -T0 -6 > "$dir/bundle.tar.xz"
    ls -l "$dir/bundle.tar.xz"
}

# N processes of arithmetic against one, in a pool started beforehand so
# that starting processes is not timed: the ratio of the work they get
# through in the same time, the most any speedup can be there (virtual
# cores that are a physical core's siblings, or a busy host, give less
# than N).
ceiling() {
    python3 - "$1" <<'PY'
import multiprocessing as mp, sys, time
def spin(_):
    x = 0
    for i in range(40_000_000):
        x += i * i
    return x
if __name__ == "__main__":
    n = int(sys.argv[1])
    with mp.Pool(n) as p:
        p.map(spin, [0] * n, chunksize=1)
        t = time.time(); p.map(spin, [0]); one = time.time() - t
        t = time.time(); p.map(spin, [0] * n, chunksize=1); many = time.time() - t
    print(f"{n * one / many:.2f}")
PY
}

# The same ceiling for mnemo's own work: N processes of `--jobs 1`, which
# share nothing but the machine, against one alone (program depth N). What
# N workers lose beyond it is lost to what they share in the process.
workload_ceiling() {
    local name=$1 depth=$2 n=$3 t0 t1 t2 i
    one_run() {
        rm -rf "$WORK/w$1"
        "$B/mnemo" run -q "$B/$name.bc" --max-depth "$depth" --jobs 1 --store none \
            --output-dir "$WORK/w$1/o" --memo "$WORK/w$1/m" --only-new-coverage > /dev/null 2>&1
    }
    t0=$(date +%s.%N)
    one_run 0
    t1=$(date +%s.%N)
    for i in $(seq "$n"); do one_run "$i" & done
    wait
    t2=$(date +%s.%N)
    rm -rf "$WORK"/w*
    python3 -c "print(f'{$n * ($t1 - $t0) / ($t2 - $t1):.2f}')"
}

# The same ceiling at a subject's own depth, reusing its `--jobs 1` run as
# the one alone: N processes of `--jobs 1` at once (PROCESS_CEILING=1).
# Appends the time they took, for `table` to set against that one.
processes_at_once() {
    local name=$1 depth=$2 n=$3 start end i
    start=$(date +%s.%N)
    for i in $(seq "$n"); do
        "$B/mnemo" run -q "$B/$name.bc" --max-depth "$depth" --jobs 1 --store none \
            --output-dir "$WORK/w$i/o" --memo "$WORK/w$i/m" --only-new-coverage > /dev/null 2>&1 &
    done
    wait
    end=$(date +%s.%N)
    rm -rf "$WORK"/w*
    python3 -c "import json; print(json.dumps({'program': '$name', 'depth': $depth, \
'processes': $n, 'call_s': $end - $start}))" >> "$PROCESSES"
}

# One run: program depth jobs label [options...]; appends a JSON line. A
# label that names another build (mnemo-LABEL) runs that build.
measure() {
    local name=$1 depth=$2 jobs=$3 label=$4 exe=$B/mnemo
    shift 4
    [ -x "$B/mnemo-$label" ] && exe=$B/mnemo-$label
    rm -rf "$WORK/o" "$WORK/m"
    local start end rc
    start=$(date +%s.%N)
    "$exe" run -q "$B/$name.bc" --max-depth "$depth" --jobs "$jobs" --store none \
        --output-dir "$WORK/o" --memo "$WORK/m" "$@" > "$WORK/err" 2>&1
    rc=$?
    end=$(date +%s.%N)
    python3 - "$name" "$depth" "$jobs" "$label" "$rc" "$start" "$end" "$WORK/o" \
        >> "$RESULTS" <<'PY'
import json, os, sys
name, depth, jobs, label, rc, start, end, out = sys.argv[1:]
r = {"program": name, "depth": int(depth), "jobs": int(jobs), "label": label,
     "rc": int(rc), "call_s": float(end) - float(start)}
try:
    st = json.load(open(os.path.join(out, "stats.json")))
    p = st["paths"]
    r.update(paths=p["completed"] + sum(p["errors"].values()) + sum(p["early"].values()),
             tests=st["tests"], instructions=st["instructions"], nodes=st["memo"]["nodes"],
             explore_s=st["wall_s"], save_s=st["memo"]["save_s"],
             busy_s=st["parallel"]["busy_s"], imbalance=st["parallel"]["imbalance"],
             moved=st["parallel"]["moved"], z3_calls=st["solver"]["z3_calls"],
             report_s=st["parallel"].get("report_s"),
             report_wait_s=st["parallel"].get("report_wait_s"))
except (OSError, KeyError, ValueError) as e:
    r["error"] = str(e)
print(json.dumps(r))
PY
    [ "$rc" = 0 ] || tail -5 "$WORK/err"
}

table() {
    python3 - "$RESULTS" "$CEILINGS" "$PROCESSES" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ceil = dict(json.loads(l).popitem() for l in open(sys.argv[2]))
procs = [json.loads(l) for l in open(sys.argv[3])]
print(f"{'subject':<22} {'label':<7} {'jobs':>4} {'paths':>7} {'call s':>7} {'x call':>7} "
      f"{'expl s':>7} {'x expl':>7} {'imbal':>6} {'report':>7} {'wait':>6} {'ceiling':>15}")
for r in rows:
    if "error" in r:
        print(r["program"], r["label"], r["jobs"], "failed:", r["error"])
        continue
    # Another build's rows compare with its own one worker where it was
    # measured (OTHERS_ONE), else with the tested build's.
    one = lambda label: next((b for b in rows if b["program"] == r["program"]
                              and b["depth"] == r["depth"] and b["label"] == label
                              and b["jobs"] == 1 and "error" not in b), None)
    base = one(r["label"]) or one("new")
    x = lambda k: f"{base[k] / r[k]:.2f}x" if base else "-"
    print(f"{r['program']:<22} {r['label']:<7} {r['jobs']:>4} {r['paths']:>7} {r['call_s']:>7.2f} "
          f"{x('call_s'):>7} {r['explore_s']:>7.2f} {x('explore_s'):>7} {r['imbalance']:>6.2f} "
          f"{r.get('report_s') or 0:>7.2f} {r.get('report_wait_s') or 0:>6.2f} "
          f"{ceil.get(str(r['jobs']), '-'):>15}")
# N processes of one worker each against one alone: what N threads would
# reach on this subject if they shared nothing but the machine.
for p in procs:
    one = next((b for b in rows if b["program"] == p["program"] and b["depth"] == p["depth"]
                and b["label"] == "new" and b["jobs"] == 1 and "error" not in b), None)
    if one:
        print(f"{p['program']} depth {p['depth']}: {p['processes']} processes at once "
              f"{p['call_s']:.2f} s against one alone {one['call_s']:.2f} s: "
              f"ceiling {p['processes'] * one['call_s'] / p['call_s']:.2f}x")
PY
}

run() {
    local dir=$1 out=$2
    mkdir -p "$out"
    # Python's tarfile where the machine has no xz.
    tar -C "$dir" -xJf "$dir/bundle.tar.xz" 2>/dev/null ||
        python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" \
            "$dir/bundle.tar.xz" "$dir" || return 1
    B=$(cd "$dir/bundle" && pwd)
    # clang and llvm-link are not needed to run bitcode that is compiled.
    export LD_LIBRARY_PATH=$B/lib MNEMO_RUNTIME=$B/runtime MNEMO_CLANG=/bin/true MNEMO_LLVM_LINK=/bin/true
    "$B/mnemo" --version || return 1
    echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
    lscpu 2>/dev/null | grep -E '^(Thread|Core|Socket|NUMA node\(s\)|Model name|CPU MHz|Hypervisor)' || true
    WORK=/dev/shm/mnemo-scaling
    [ -d /dev/shm ] || WORK=${TMPDIR:-/tmp}/mnemo-scaling
    mkdir -p "$WORK"
    RESULTS=$out/results.jsonl
    CEILINGS=$out/ceilings.jsonl
    PROCESSES=$out/processes.jsonl
    : > "$RESULTS"
    : > "$CEILINGS"
    : > "$PROCESSES"
    local jobs_list=${JOBS_LIST:-1 2 4 8 16}
    for j in $jobs_list; do
        [ "$j" = 1 ] && continue
        # A few readings: a shared host's ceiling moves from one to the next.
        local reads=()
        for _ in $(seq "${CEILING_READS:-3}"); do reads+=("$(ceiling "$j")"); done
        echo "{\"$j\": \"$(IFS=/; echo "${reads[*]}")\"}" >> "$CEILINGS"
    done
    local top=${jobs_list##* } w=${WORKLOAD_CEILING:-wbs_run:19}
    if [ "$top" != 1 ] && [ -n "$w" ]; then
        echo "workload ceiling at $top: $(workload_ceiling "${w%%:*}" "${w##*:}" "$top")" \
            | tee "$out/workload_ceiling.txt"
    fi
    # The other builds packed beside the one under test, by label.
    local others=() other
    for other in "$B"/mnemo-*; do
        [ -x "$other" ] && others+=("${other##*/mnemo-}")
    done
    for s in $SUBJECTS; do
        local name depth j label r
        name=$(basename "${s%%:*}")
        depth=${s##*:}
        for d in ${DEPTHS:-}; do
            [ "${d%%:*}" = "$name" ] && depth=${d##*:}
        done
        for j in $jobs_list; do
            measure "$name" "$depth" "$j" new --only-new-coverage
        done
        [ "${PROCESS_CEILING:-0}" = 1 ] && [ "$top" != 1 ] && processes_at_once "$name" "$depth" "$top"
        for label in "${others[@]}"; do
            case " ${OTHERS_ONE:-} " in
                *" $label "*) measure "$name" "$depth" 1 "$label" --only-new-coverage ;;
            esac
            measure "$name" "$depth" "$top" "$label" --only-new-coverage
        done
        # More readings at the top count, alternating the builds, so that
        # a busy moment of a shared host falls on all of them alike.
        for r in $(seq 2 "${TOP_RUNS:-1}"); do
            for label in new "${others[@]}"; do
                measure "$name" "$depth" "$top" "$label" --only-new-coverage
            done
        done
    done
    for j in 1 "$top"; do
        measure "${ALL_TESTS_SUBJECT%%:*}" "${ALL_TESTS_SUBJECT##*:}" "$j" all
    done
    rm -rf "$WORK"
    table | tee "$out/table.txt"
}

case ${1:-} in
    bundle) bundle "${2:?a directory for the bundle}" ;;
    run) run "${2:?the directory holding bundle.tar.xz}" "${3:?a directory for the results}" ;;
    *) echo "usage: $0 bundle DIR | run DIR OUT" >&2; exit 2 ;;
esac
