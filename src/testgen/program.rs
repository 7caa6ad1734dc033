//! The program a directory's tests replay on, and what its image says
//! about it.

use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use object::{Object, ObjectSymbol};

use super::inject::MainSymbol;
use super::replay::{io_err, ReplayError};

/// A program tests replay on. Its image is read at the first test that
/// needs something of it: an image is megabytes, and most replays need
/// nothing.
pub(crate) struct Program {
    pub(crate) binary: PathBuf,
    /// Whether it links the replay library (a source mnemo compiled), which
    /// reads the test and takes its own variables out of the environment.
    pub(crate) links_replay_library: bool,
    facts: OnceLock<Facts>,
}

/// What replays need of a program's image.
#[derive(Clone, Copy)]
struct Facts {
    main: Option<MainSymbol>,
    sanitized: bool,
}

impl Program {
    pub(crate) fn new(binary: PathBuf, links_replay_library: bool) -> Program {
        Program {
            binary,
            links_replay_library,
            facts: OnceLock::new(),
        }
    }

    fn facts(&self) -> Result<Facts, ReplayError> {
        if let Some(facts) = self.facts.get() {
            return Ok(*facts);
        }
        let image = fs::read(&self.binary).map_err(io_err(&self.binary))?;
        Ok(*self.facts.get_or_init(|| Facts {
            main: MainSymbol::of(&image),
            sanitized: is_sanitized(&image),
        }))
    }

    /// Its `main`, where a replay traces it; `None` for a program without
    /// the symbol (stripped).
    pub(crate) fn main(&self) -> Result<Option<MainSymbol>, ReplayError> {
        Ok(self.facts()?.main)
    }

    /// Whether it reads `ASAN_OPTIONS`: built with AddressSanitizer, or
    /// with the replay library, which takes the variable out again. Any
    /// other program is not given it, as the engine's program is not (it
    /// would be in what `env` prints).
    pub(crate) fn takes_asan_options(&self) -> Result<bool, ReplayError> {
        Ok(self.links_replay_library || self.facts()?.sanitized)
    }
}

/// Whether an image calls or defines ASan's initialiser, as every program
/// built with `-fsanitize=address` does.
fn is_sanitized(image: &[u8]) -> bool {
    object::File::parse(image).is_ok_and(|file| {
        file.symbols()
            .chain(file.dynamic_symbols())
            .any(|s| s.name() == Ok("__asan_init"))
    })
}
