//! Tests: the `.ktest` files a run writes, the `tests.json` index with the
//! outcome the engine predicted for each, the external toolchain (clang-14,
//! llvm-link-14, the runtime), the POSIX environment a test describes, and
//! native replay, which checks each prediction by running the natively
//! compiled program on the test's inputs under AddressSanitizer and UBSan,
//! failing the system calls the engine's model failed (`--max-fail`), or
//! writes each test as a shell script a person can run.

pub mod classify;
pub mod commands;
pub mod index;
pub mod inject;
pub mod klee_layout;
pub mod ktest;
pub mod model_root;
mod native;
pub mod posix;
mod program;
mod pty;
mod renumber;
pub mod replay;
mod report;
mod stage;
pub mod toolchain;
mod writer;

pub use classify::{classify_native, verdict, NativeOutcome, Termination, Verdict};
pub use commands::{write_commands, CommandsReport};
pub use index::{Outcome, TestRecord, TestsJson, TESTS_JSON, TESTS_JSON_VERSION};
pub use ktest::{KTest, KTestError, KTestObject, TruncatedAt, KTEST_VERSION};
pub use model_root::ModelRoot;
pub use posix::{PosixEnv, PosixError, StreamType, SymFile};
pub use replay::{
    replay_dir, replay_dir_with, ReplayError, ReplayOptions, ReplayReport, ReplayResult,
    POSIX_OBJECTS_ENV,
};
pub use stage::{PathFiles, StagedTest, Stager};
pub use toolchain::{Toolchain, ToolchainError, BITCODE_FLAGS, NATIVE_FLAGS};
pub use writer::TestWriter;
