//! Tests: the `.ktest` files a run writes, the `tests.json` index with the
//! outcome the engine predicted for each, the external toolchain (clang-14,
//! llvm-link-14, the runtime), and native replay, which checks each
//! prediction by running the natively compiled program on the test's
//! inputs under AddressSanitizer and UBSan.

pub mod ktest;
pub mod replay;
pub mod toolchain;
mod writer;

pub use ktest::{KTest, KTestError, KTestObject, TruncatedAt, KTEST_VERSION};
pub use replay::{
    classify_native, replay_dir, replay_dir_with, verdict, NativeOutcome, Outcome, ReplayError,
    ReplayOptions, ReplayReport, ReplayResult, Termination, TestRecord, TestsJson, Verdict,
    TESTS_JSON, TESTS_JSON_VERSION,
};
pub use toolchain::{Toolchain, ToolchainError, BITCODE_FLAGS, NATIVE_FLAGS};
pub use writer::TestWriter;
