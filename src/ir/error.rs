//! Errors from loading bitcode.

use std::path::PathBuf;

/// Why a module could not be loaded. Problems inside a single function that
/// the engine can survive (an unsupported instruction) are not errors here:
/// they become `Inst::Unsupported` and end only the paths that reach them.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("{path} is not valid LLVM bitcode or IR: {message}")]
    Parse { path: PathBuf, message: String },
    /// Neither bitcode nor text: what its first bytes are.
    #[error("{path} is not LLVM bitcode or IR: {start}")]
    NotBitcode { path: PathBuf, start: String },
    /// Bitcode (its magic number is intact) that LLVM cannot read.
    #[error("{path} is {what}")]
    BadBitcode { path: PathBuf, what: String },
    #[error("cannot link {path} into the program: {message}")]
    Link { path: PathBuf, message: String },
    /// `--optimize`: LLVM's pipeline could not be set up or run.
    #[error("cannot optimize {path}: {message}")]
    Optimize { path: PathBuf, message: String },
    #[error("in function {function}, {location}: {message}")]
    Function {
        function: String,
        location: String,
        message: String,
    },
    #[error("in global {global}: {message}")]
    Global { global: String, message: String },
}
