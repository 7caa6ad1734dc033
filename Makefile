# mnemo: the two commands of the quick start are `make demo` and `make test`.

CARGO      ?= cargo
MNEMO      := target/release/mnemo
DEMO       ?= testsuite/paper_memoise_compute.c
DEMO_OUT   := mnemo-out-demo
APT_PKGS   := clang-14 llvm-14-dev libz3-dev libclang-rt-14-dev redis-server musl-tools
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all setup build runtime test demo bench bench-klee bench-coreutils coreutils coreutils-old corpus fuzz csmith projects clean

all: build runtime

# Installs what is missing; a no-op when everything is there.
setup:
	@missing=""; \
	for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "setup: installing$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@command -v cargo-nextest >/dev/null 2>&1 || command -v cargo >/dev/null 2>&1 || \
	  { echo "setup: cargo is missing (install Rust from rustup)"; exit 1; }

build: setup
	$(CARGO) build --release

runtime: setup
	$(MAKE) -C runtime

# The tests create and delete some hundred thousand small files in their
# scratch directories. On an ext4 disk without a journal, creating a file
# steps over each inode freed in the last seconds, and that cost more than
# the runs themselves (three runs of 13,122 tests: 41 s, 6 s in memory),
# so the scratch directories go to /dev/shm where it can be written and
# has 2 GiB free (the suite held 300 MiB there at most; a container's
# default /dev/shm is 64 MiB). `make test TEST_TMPDIR=` keeps the
# system's temporary directory.
TEST_TMPDIR ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && \
  [ "$$(df -Pk /dev/shm | awk 'NR == 2 { print $$4 }')" -ge 2097152 ] 2>/dev/null && echo /dev/shm)

test: setup runtime
	@if [ -n "$(TEST_TMPDIR)" ]; then export TMPDIR="$(TEST_TMPDIR)"; fi; \
	if $(CARGO) nextest --version >/dev/null 2>&1; then \
	  $(CARGO) nextest run --workspace --no-fail-fast; \
	else \
	  $(CARGO) test --workspace --no-fail-fast; \
	fi

# Builds everything, runs mnemo on an example and shows the tests it wrote.
demo: build runtime
	@echo "== mnemo cc $(DEMO)"
	$(MNEMO) cc $(DEMO) -o $(DEMO_OUT).bc
	@echo "== mnemo run"
	rm -rf $(DEMO_OUT)
	$(MNEMO) run --output-dir $(DEMO_OUT) $$(sed -n 's/.*mnemo-args: *//p' $(DEMO)) $(DEMO_OUT).bc
	@echo "== the tests it wrote"
	@for t in $(DEMO_OUT)/*.ktest; do $(MNEMO) ktest $$t; echo; done
	@for e in $(DEMO_OUT)/*.err; do [ -e "$$e" ] && { echo "== $$e"; cat $$e; }; done; true
	@echo "== native replay of every test"
	$(MNEMO) replay $(DEMO) $(DEMO_OUT)
	@echo "== the run's trie (mnemo-memo/), then twice as deep, following it: only the boundary paths run again"
	$(MNEMO) trie show mnemo-memo/$(DEMO_OUT).trie
	rm -rf $(DEMO_OUT)-deeper
	$(MNEMO) run -q --memo mnemo-memo --max-depth 12 --output-dir $(DEMO_OUT)-deeper $(DEMO_OUT).bc

# The posix section measures line coverage with gcovr (PyPI).
bench: build runtime
	@command -v gcovr >/dev/null 2>&1 || python3 -m pip install --quiet gcovr
	$(CARGO) bench --bench engine
	$(CARGO) bench --bench solver
	$(CARGO) bench --bench memo

# mnemo beside KLEE on the same bitcode (benches/klee.rs): KLEE=path to a
# klee binary built against LLVM 14 and Z3 (docs/benchmarks.md, "Beside KLEE");
# KLEE_TIME seconds per run (default 60).
KLEE ?=
KLEE_TIME ?= 60
bench-klee: build runtime
	KLEE="$(KLEE)" KLEE_TIME=$(KLEE_TIME) $(CARGO) bench --bench klee

# GNU coreutils 9.1 (Debian's source package) built with `mnemo cc-project`:
# every program's bitcode in coreutils-bc/, and a gcov build and an ASan
# build beside it (coreutils/Makefile). Not part of `make test`: it
# downloads.
coreutils: build runtime
	$(MAKE) -C coreutils MNEMO=$(abspath $(MNEMO))

# The release before (8.32) to bitcode in coreutils-bc-8.32/, for the
# bench's regress mode.
coreutils-old: build runtime
	$(MAKE) -C coreutils old MNEMO=$(abspath $(MNEMO))

# Explores TOOLS (default: all of coreutils-bc/) for MINUTES each, JOBS
# tools at a time, with KLEE's arguments; replays every test on the gcov
# build and the ASan build and reports paths, tests, unsupported features,
# line coverage and crashes (benches/coreutils.rs). MODES adds the same
# runs with --jobs, --deepen and regress from 8.32: MODES="plain jobs".
# Runs write tests only for paths covering new code (as KLEE's did);
# ALL_TESTS=1 writes one for every path. MAX_FAIL=N lets up to N system
# calls of a path fail (KLEE's --max-fail).
TOOLS ?=
MINUTES ?= 5
JOBS ?= 1
MODES ?= plain
ASAN ?= 1
ALL_TESTS ?= 0
MAX_FAIL ?= 0
bench-coreutils: coreutils $(if $(findstring regress,$(MODES)),coreutils-old)
	@command -v gcovr >/dev/null 2>&1 || python3 -m pip install --quiet gcovr
	TOOLS="$(TOOLS)" MINUTES=$(MINUTES) JOBS=$(JOBS) MODES="$(MODES)" ASAN=$(ASAN) ALL_TESTS=$(ALL_TESTS) MAX_FAIL=$(MAX_FAIL) $(CARGO) bench --bench coreutils

# The recorded queries tests/solver_chains.rs runs through every solver chain:
# those of a few testsuite programs (small enough to keep in the repository).
CORPUS_PROGRAMS := paper_green_m paper_tritype paper_incremental_step \
  paper_compose_pq ptr_symbolic_index arith_div_rem arith_signedness mem_oob_heap \
  libc_strcmp ctrl_switch
corpus: build runtime
	rm -f tests/data/queries.corpus
	mkdir -p tests/data
	@set -e; tmp=$$(mktemp -d); for p in $(CORPUS_PROGRAMS); do \
	  $(MNEMO) cc testsuite/$$p.c -o $$tmp/$$p.bc; \
	  $(MNEMO) run -q --solver-chain z3 --record-queries tests/data/queries.corpus \
	    --output-dir $$tmp/$$p $$(sed -n 's/.*mnemo-args: *//p' testsuite/$$p.c) $$tmp/$$p.bc; \
	done; rm -rf $$tmp
	@ls -l tests/data/queries.corpus

# Every reader of outside input under AFL++ (fuzz/run.sh): FUZZ_SECONDS per
# target, one target after the other; prints executions, exec/s, crashes
# and hangs per target. FUZZ_TARGETS picks some; FUZZ_RESUME=1 goes on from
# the last run's queues.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= ktest trie store spec bitcode
fuzz: setup
	@dpkg -s gdb >/dev/null 2>&1 || { echo "fuzz: installing gdb (fuzz/triage.sh reads the frames of a crash)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gdb; }
	FUZZ_SECONDS=$(FUZZ_SECONDS) CARGO=$(CARGO) fuzz/run.sh $(FUZZ_TARGETS)

# Differential testing on Csmith's random programs (fuzz/csmith.sh): each
# runs in mnemo and natively, and their outcomes and checksums must agree.
CSMITH_SEEDS ?= 1 100
CSMITH_CC_ARGS ?=
CSMITH_SYMBOLIC ?= 0
csmith: build runtime
	@dpkg -s csmith libcsmith-dev >/dev/null 2>&1 || { echo "csmith: installing csmith"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq csmith libcsmith-dev; }
	CSMITH_SEEDS="$(CSMITH_SEEDS)" CSMITH_CC_ARGS="$(CSMITH_CC_ARGS)" CSMITH_SYMBOLIC=$(CSMITH_SYMBOLIC) fuzz/csmith.sh

# Differential testing on real programs beyond coreutils (fuzz/projects.sh):
# sed, grep, gzip, cmp, diff, bc, dc, m4, patch, gawk and find from
# Debian's source packages, each explored for PROJECT_TIME seconds and
# every test replayed natively.
PROJECTS ?= sed grep gzip diffutils bc m4 patch gawk findutils ed indent cpio tar xz-utils
PROJECT_TIME ?= 60
projects: build runtime
	PROJECTS="$(PROJECTS)" PROJECT_TIME=$(PROJECT_TIME) fuzz/projects.sh

clean:
	$(CARGO) clean
	$(MAKE) -C runtime clean
	rm -rf mnemo-out* mnemo-memo $(DEMO_OUT).bc fuzz/out fuzz/target
	$(MAKE) -C coreutils clean
