//! mnemo: a symbolic executor for LLVM bitcode that remembers what it learned.
//!
//! The modules follow the architecture of DESIGN.md; each depends only on
//! those listed before it: `ir`, `expr` -> `solver` -> `exec` -> `search` ->
//! `testgen`, `stats`.

pub mod expr;
pub mod ir;
pub mod solver;
