//! Execution: states, memory, the interpreter, path ends, and the functions
//! the engine implements natively.

mod access;
mod budget;
mod bulk;
mod calls;
mod choices;
mod composing;
mod config;
mod contents;
mod end;
mod executor;
mod float;
mod fork_share;
mod guide;
mod instructions;
mod intrinsics;
mod jumps;
mod klee_api;
pub mod lazy;
mod memory;
mod natives;
pub mod posix;
mod preferences;
mod state;
mod syscalls;
mod tally;
mod trail;
mod value;
mod value_fork;

pub use access::MAX_OBJECT;
pub use budget::{default_guard_mb, give_back_freed, object_bytes};
pub(crate) use composing::CallComposer;
pub use composing::{Composing, ReplayCounters};
pub use config::{ExecConfig, RunShared, DEFAULT_MAX_STACK_FRAMES};
pub use end::{EarlyReason, ErrorKind, PathEnd, PathError, StackEntry};
pub(crate) use executor::Exec;
pub use executor::{Executor, Step, FIXED_ADDRESS, NO_TARGET, UNLISTED};
pub use guide::{Guidance, Guide, GuideCounters, GuideNode, Next};
pub use klee_api::KleeCall;
pub use memory::{AddressSpace, AllocKind, MemoryObject, ObjectState};
pub use natives::Native;
pub use state::{Alt, Answer, Decision, Forced, Frame, Point, Registers, State, Stretch, Symbolic};
pub use syscalls::{NOBODY, STDOUT_LIMIT};
pub use tally::Tally;
pub use trail::Trail;
pub use value::{Byte, Value};
