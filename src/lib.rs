//! mnemo: a symbolic executor for LLVM bitcode that remembers what it learned.
//!
//! The modules follow the architecture of DESIGN.md; each depends only on
//! those listed before it: `ir`, `expr` -> `solver` -> `exec` -> `search` ->
//! `testgen`, `stats` -> `run`. `files` (atomic writes) serves them all.

pub mod exec;
pub mod expr;
pub mod files;
pub mod ir;
pub mod run;
pub mod search;
pub mod solver;
pub mod stats;
pub mod testgen;
