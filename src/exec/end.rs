//! How a path ends: completed, an error of some kind, or stopped early.

use std::fmt;

use super::value::Value;
use crate::ir::SourceLoc;

/// The kinds of error a path can end with. The names are the `<kind>` of
/// `testNNNNNN.<kind>.err`, of `stats.json` and of `tests.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    Null,
    Ptr,
    UseAfterFree,
    DoubleFree,
    InvalidFree,
    ReadOnly,
    Assert,
    Abort,
    DivByZero,
    Overshift,
    /// Arithmetic a `-fsanitize=` check found overflowing (`ubsan`).
    Overflow,
    /// Undefined behaviour a `-fsanitize=` check found that no other kind
    /// names (a misaligned pointer, an invalid `bool`).
    Undefined,
    User,
    Reach,
    Unreachable,
    BadCall,
    Unsupported,
    External,
    Solver,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Null => "null",
            ErrorKind::Ptr => "ptr",
            ErrorKind::UseAfterFree => "use-after-free",
            ErrorKind::DoubleFree => "double-free",
            ErrorKind::InvalidFree => "invalid-free",
            ErrorKind::ReadOnly => "readonly",
            ErrorKind::Assert => "assert",
            ErrorKind::Abort => "abort",
            ErrorKind::DivByZero => "div-by-zero",
            ErrorKind::Overshift => "overshift",
            ErrorKind::Overflow => "overflow",
            ErrorKind::Undefined => "undefined",
            ErrorKind::User => "user",
            ErrorKind::Reach => "reach",
            ErrorKind::Unreachable => "unreachable",
            ErrorKind::BadCall => "bad-call",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::External => "external",
            ErrorKind::Solver => "solver",
        }
    }

    /// Every kind, in the order of the enum.
    pub const ALL: [ErrorKind; 19] = {
        use ErrorKind::*;
        [
            Null,
            Ptr,
            UseAfterFree,
            DoubleFree,
            InvalidFree,
            ReadOnly,
            Assert,
            Abort,
            DivByZero,
            Overshift,
            Overflow,
            Undefined,
            User,
            Reach,
            Unreachable,
            BadCall,
            Unsupported,
            External,
            Solver,
        ]
    };

    /// The kind `as_str` names `s`, if any.
    pub fn parse(s: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Whether the error is the program's, rather than where the engine
    /// stops short of it (an instruction or a function it does not model,
    /// a query it could not decide).
    pub fn is_program_error(self) -> bool {
        !matches!(
            self,
            ErrorKind::Unsupported | ErrorKind::External | ErrorKind::Solver
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a path stopped before finishing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EarlyReason {
    MaxDepth,
    MaxInstructions,
    MaxTime,
    MaxMemory,
    /// The path called deeper than `--max-stack-frames` frames.
    MaxStack,
    /// The user pressed Ctrl-C (SIGINT).
    Interrupted,
    /// The run was asked to end by SIGTERM or SIGHUP (a scheduler,
    /// `timeout`, a closed terminal).
    Terminated,
    /// Every thread of the path's process waits for ever (`pause` or
    /// `sigsuspend` for a signal no one sends, a deadlock): natively the
    /// program would wait until killed.
    Blocked,
    /// The path sent its own process a signal (`raise(SIGTERM)`) whose
    /// action is the default one, which ends the process: natively it is
    /// killed by that signal, whose number this is.
    Signalled(u8),
    /// A symbolic pointer may reach more objects or functions than the
    /// forks of one access list (`MAX_TARGET_FORKS`).
    MaxTargets,
    /// A symbolic size may take more values than the forks of one
    /// instruction list (`MAX_TARGET_FORKS`).
    MaxValues,
    /// A test's files could not be written (a full disk, a quota): the run
    /// stops, and this path and those pending are kept for `--resume`.
    WriteFailed,
    /// A path ended in an error of a kind `--exit-on-error` names: the run
    /// stops there, as at a limit.
    ExitOnError,
    /// Under `--only-seed`, the path took an alternative none of the
    /// run's seeds takes: it ends there.
    OnlySeed,
    /// The run had written the tests `--max-tests` asks for: it stops, as
    /// at a limit.
    MaxTests,
}

impl EarlyReason {
    pub fn as_str(self) -> &'static str {
        match self {
            EarlyReason::MaxDepth => "max-depth",
            EarlyReason::MaxInstructions => "max-instructions",
            EarlyReason::MaxTime => "max-time",
            EarlyReason::MaxMemory => "max-memory",
            EarlyReason::MaxStack => "max-stack",
            EarlyReason::Interrupted => "interrupted",
            EarlyReason::Terminated => "terminated",
            EarlyReason::Blocked => "blocked",
            EarlyReason::Signalled(_) => "signalled",
            EarlyReason::MaxTargets => "max-targets",
            EarlyReason::MaxValues => "max-values",
            EarlyReason::WriteFailed => "write-failed",
            EarlyReason::ExitOnError => "exit-on-error",
            EarlyReason::OnlySeed => "only-seed",
            EarlyReason::MaxTests => "max-tests",
        }
    }
}

/// A frame of an error's call stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackEntry {
    pub function: String,
    pub loc: Option<SourceLoc>,
}

/// An error found on a path, with where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathError {
    pub kind: ErrorKind,
    pub message: String,
    /// Location of the faulting instruction.
    pub loc: Option<SourceLoc>,
    /// Innermost frame first.
    pub stack: Vec<StackEntry>,
}

/// The end of a path.
#[derive(Clone, Debug)]
pub enum PathEnd {
    /// `main` returned or `exit` was called with this status.
    Completed {
        status: Value,
    },
    Error(PathError),
    Early(EarlyReason),
    /// Ended without a test: `klee_silent_exit`, an infeasible assumption.
    Silent,
    /// A trie-guided path with nothing left to explore: every path below
    /// was explored before and is kept in the trie. No test, no trie leaf.
    Pruned,
}
