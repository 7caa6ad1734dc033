//! Whole projects to bitcode: `mnemo cc-project` is a C compiler for a
//! project's own build (`./configure && make`), and `mnemo extract` links
//! the bitcode of one of the programs it built.
//!
//! Each object the compiler writes is a native object (so configure's
//! checks run and the build links real programs) that carries, in the
//! section [`SECTION`], the bitcode it was generated from. The linker
//! concatenates that section over the objects it links, archive members
//! included, so a program holds exactly the bitcode of what it is made of.
//! Everything is compiled against the runtime's C library (musl) and
//! linked natively against Debian's musl, so the native and the bitcode
//! views of the program see the same headers.

mod args;
mod cc;
mod section;

pub use args::{Invocation, Mode};
pub use cc::ProjectCc;
pub use section::{parse_section, section_entry, SectionError, SECTION};

use std::path::PathBuf;
use std::process::ExitStatus;

use thiserror::Error;

use crate::testgen::ToolchainError;

/// Why a compilation or an extraction failed.
#[derive(Debug, Error)]
pub enum ProjectError {
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    #[error("{what} {path}: {error}")]
    Io {
        what: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot run {tool}: {error}")]
    Spawn {
        tool: PathBuf,
        error: std::io::Error,
    },
    #[error("{tool} failed ({status}) on {target}{detail}")]
    ToolFailed {
        tool: PathBuf,
        status: ExitStatus,
        target: PathBuf,
        detail: String,
    },
    #[error("compiler argument {0} needs a value after it")]
    MissingValue(String),
    #[error("argument {0:?} is not valid UTF-8")]
    NotUtf8(std::ffi::OsString),
    #[error(
        "{0} holds no bitcode (no {SECTION} section): was it built with `mnemo cc-project` as CC?"
    )]
    NoBitcode(PathBuf),
    #[error("the {SECTION} section of {path} is damaged: {error}")]
    Section { path: PathBuf, error: SectionError },
}

/// `map_err` for an I/O error on `path`.
pub(crate) fn io_err(
    what: &'static str,
    path: impl Into<PathBuf>,
) -> impl FnOnce(std::io::Error) -> ProjectError {
    let path = path.into();
    move |error| ProjectError::Io { what, path, error }
}
