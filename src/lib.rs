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
