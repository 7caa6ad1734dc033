//! mnemo: a symbolic executor for LLVM bitcode that remembers what it learned.
//!
//! The modules follow the architecture of DESIGN.md; each depends only on
//! those listed before it: `ir`, `expr` -> `solver` -> `exec` -> `search`,
//! `memo` -> `parallel` -> `testgen`, `stats` -> `checkpoint` -> `run`, `certify`, `regress` -> `batch`; `project` (whole projects to bitcode) uses `testgen`'s toolchain. `files` (atomic writes)
//! serves them all; `stop` (signals asking a run to end) serves `search` and
//! what is above it. `fuzz` holds the fuzz targets, one per reader of
//! outside input.

pub mod batch;
pub mod certify;
pub mod checkpoint;
pub mod cluster;
pub mod compose;
pub mod exec;
pub mod expr;
pub mod files;
pub mod fuzz;
pub mod ir;
pub mod memo;
pub mod parallel;
pub mod project;
pub mod regress;
pub mod run;
pub mod search;
pub mod solver;
pub mod stats;
pub mod stop;
pub mod testgen;

// The engine makes and drops small objects all the time (expression nodes,
// states' memory, solver caches' entries), and workers free in one thread
// what another made (a state moved, a shared expression dropped): glibc's
// arenas take a lock there, mimalloc's per-thread heaps do not, and its
// small allocations are quicker with one worker too. It is built without
// transparent huge pages (`no_thp`): with them, a program's large buffer
// that it never touches (a model object is zeroed memory) became resident
// a huge page at a time, and `--max-memory`, which watches resident
// memory, stopped runs that glibc's lazily mapped blocks let go on.
//
// Declared here rather than in the binary so that the benchmarks and tests,
// which run the engine in their own processes, measure and check the
// allocator users run: built without it, the parallel benchmark's run of
// svcomp_nested_loops with one worker took 23.0 s, with it 19.7 s.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
