//! Execution states: everything one path needs to continue on its own.
//!
//! States are cheap to fork and `Send` (DESIGN.md, invariant 3): memory is a
//! persistent map of copy-on-write objects, constraints are shared until a
//! fork appends to them, and no solver object lives here.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::guide::GuideNode;
use super::memory::AddressSpace;
use super::value::{Byte, Value};
use crate::expr::{ArrayRef, Assignment, ExprRef};
use crate::ir::{FuncId, InstId, Reg, SiteId};

/// Where the engine's stack and heap objects are placed. Addresses are
/// handed out by a per-state bump allocator, so a path gets the same
/// addresses whatever else the run does.
pub const GLOBAL_BASE: u64 = 0x0000_1000_0000;
pub const FUNCTION_BASE: u64 = 0x0000_0800_0000;
pub const HEAP_BASE: u64 = 0x5000_0000_0000;
pub const STACK_BASE: u64 = 0x7000_0000_0000;
/// Gap left after every object so a small overrun lands nowhere.
pub const RED_ZONE: u64 = 16;
/// Addresses below this are null plus a small offset.
pub const NULL_PAGE: u64 = 4096;

/// The address of a function, for function pointers.
pub fn function_address(f: FuncId) -> u64 {
    FUNCTION_BASE + 16 * f.0 as u64
}

/// The function at an address, if it is one.
pub fn function_at(addr: u64, num_functions: usize) -> Option<FuncId> {
    if addr < FUNCTION_BASE || !(addr - FUNCTION_BASE).is_multiple_of(16) {
        return None;
    }
    let i = (addr - FUNCTION_BASE) / 16;
    (i < num_functions as u64).then_some(FuncId(i as u32))
}

/// One activation of a function.
#[derive(Clone, Debug)]
pub struct Frame {
    pub func: FuncId,
    pub regs: Vec<Value>,
    /// The next instruction to execute.
    pub pc: InstId,
    /// Stack objects to release when the frame returns.
    pub allocas: Vec<u64>,
    /// Where in the caller the return value goes.
    pub ret_dst: Option<Reg>,
    /// The caller's call instruction, for stack traces.
    pub call_site: Option<InstId>,
    /// The object holding the variadic arguments, if any.
    pub varargs: Option<u64>,
}

/// A symbolic input of the path, in creation order (the ktest's objects).
#[derive(Clone, Debug)]
pub struct Symbolic {
    pub name: String,
    pub array: ArrayRef,
}

/// One alternative of a choice point: what it stands for and whether the
/// path could take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Alt {
    /// What the alternative stands for: its index at a branch or switch, an
    /// object's base address or a function's address at a memory or call
    /// fork, or `NO_TARGET` for the error side of one.
    pub payload: u64,
    pub feasible: bool,
}

/// A choice point a path reached (DESIGN.md, invariant 2): named by its
/// function and choice-site index, with the alternatives it had there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub func: FuncId,
    pub site: SiteId,
    /// Source line of the instruction, for reports (0 when unknown).
    pub line: u32,
    /// The alternatives, in order; shared by every path forked here.
    pub alts: Arc<[Alt]>,
}

impl Point {
    /// Alternatives the path could take here.
    pub fn feasible(&self) -> usize {
        self.alts.iter().filter(|a| a.feasible).count()
    }
}

/// One decision of a path: the point and the alternative it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub point: Point,
    pub taken: u32,
    /// The blocks the path executed since its previous decision, shared by
    /// every state forked here.
    pub stretch: Arc<Stretch>,
}

/// The blocks a path executed from its previous decision to this one
/// (module-wide block numbers, see `Executor::block_at`): what regression
/// analysis compares with the changes of a new version. Every state forked
/// at the decision shares it, and with it a note of where the decision
/// sits in the run's trie once one of them has been recorded there, so
/// that recording the others need not find it from the root again.
#[derive(Debug)]
pub struct Stretch {
    blocks: Box<[u32]>,
    /// Written by the trie the paths are recorded in (see
    /// `memo::Trie::insert_path`); 0 until then.
    noted: AtomicU64,
}

impl Stretch {
    pub fn new(blocks: Vec<u32>) -> Stretch {
        Stretch {
            blocks: blocks.into_boxed_slice(),
            noted: AtomicU64::new(0),
        }
    }

    /// What the trie noted here (0: nothing).
    pub fn noted(&self) -> u64 {
        // Written and read by whoever holds the trie: the lock around it
        // orders them, not this atomic.
        self.noted.load(Ordering::Relaxed)
    }

    pub fn note(&self, value: u64) {
        self.noted.store(value, Ordering::Relaxed);
    }
}

impl std::ops::Deref for Stretch {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.blocks
    }
}

/// Stretches are the same when their blocks are: the note is the trie's.
impl PartialEq for Stretch {
    fn eq(&self, other: &Stretch) -> bool {
        self.blocks == other.blocks
    }
}

impl Eq for Stretch {}

/// A path being explored.
#[derive(Clone, Debug)]
pub struct State {
    pub id: u64,
    pub stack: Vec<Frame>,
    pub memory: AddressSpace,
    pub constraints: Arc<Vec<ExprRef>>,
    pub symbolics: Vec<Symbolic>,
    /// Every decision taken so far at a choice point whose answer was not
    /// constant, feasible alternatives recorded: the path in the run's trie.
    pub path: imbl::Vector<Decision>,
    /// Decisions taken at points with more than one feasible alternative:
    /// the depth `--max-depth` bounds.
    pub depth: u32,
    /// The point the path ended at without taking an alternative: the depth
    /// bound (a boundary node of the trie) or an assumption that cannot hold.
    pub stopped_at: Option<Point>,
    /// Where the state is in a recorded run it follows (trie-guided
    /// replay); `None` once it explores on its own.
    pub guide: Option<GuideNode>,
    /// Inputs known to satisfy the path condition (kept so: dropped as soon
    /// as a constraint they violate is added). Below a candidate node they
    /// are a recorded test's, and answer feasibility without the solver.
    pub hint: Option<Arc<Assignment>>,
    /// Inputs whose every byte the path's constraints fix to one value (set
    /// after a timeout, see `Executor::give_up_hard`): a condition reading
    /// only these has the value it has under `hint`, without a query.
    pub pinned: Vec<crate::expr::ArrayRef>,
    /// Symbolic pointers the path's constraints allow one address only,
    /// found when one was dereferenced: `args += matched` makes `*args` a
    /// pointer loaded at a symbolic place, and once a dereference has forked
    /// on which string it points to, each later access through it is at a
    /// known place instead of a query over the loaded bytes.
    pub addresses: imbl::HashMap<ExprRef, u64>,
    /// The blocks executed since the last decision, as a bit set over
    /// module-wide block numbers.
    pub stretch: Vec<u64>,
    pub next_heap: u64,
    pub next_stack: u64,
    /// Instructions this path executed.
    pub instructions: u64,
    /// Counter for naming `__VERIFIER_nondet_*` inputs uniquely.
    pub nondet_count: u32,
    /// What the path wrote to stdout (fd 1 of the engine's output), symbolic
    /// bytes as they are: a test's `.stdout` is these under its inputs.
    pub stdout: imbl::Vector<Byte>,
    /// What the path wrote to stderr.
    pub stderr: imbl::Vector<Byte>,
    /// Instructions executed since the path last covered a new one (covnew).
    pub since_new_cover: u64,
    /// Whether the path executed an instruction no path of the run had
    /// before. A fork leaves the credit with the state that goes on, not
    /// its children, so that one path answers for each new instruction
    /// (`--only-new-coverage` writes tests for those).
    pub covered_new: bool,
    /// The alternative this state must take at its next choice point: set on
    /// the children of a fork, and by trie-guided replay.
    pub forced: Option<Forced>,
    /// A choice point cut under `--max-site-fork-share` that this copy of
    /// its path is to fork at after all (see `fork_share`).
    pub reopen: Option<Reopen>,
    /// The recorded paths of a callee the state replays (`--compose`).
    pub composing: Option<super::composing::Composing>,
    /// The memory inputs of a path summarising a function (`None` on
    /// every other path): what it assumed of them, and where they are.
    pub inputs: Option<Arc<super::lazy::InputHeap>>,
}

/// A cut choice point a state is to fork at when it runs again: the site,
/// and the alternative its path took there before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reopen {
    pub site: crate::ir::SiteId,
    pub explored: u32,
}

/// A recorded alternative a state must take at its next choice point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forced {
    pub alternative: u32,
    /// What the alternative stands for at a memory or call fork (an object's
    /// base address, a function address, or `NO_TARGET` for the error side).
    pub payload: u64,
}

impl State {
    /// The path's symbolic inputs set to these bytes, one entry each in
    /// creation order (a recorded test's inputs, say).
    pub fn assignment<'a>(&self, inputs: impl IntoIterator<Item = &'a Vec<u8>>) -> Assignment {
        let mut a = Assignment::new();
        for (s, bytes) in self.symbolics.iter().zip(inputs) {
            a.set(&s.array, bytes.clone());
        }
        a
    }

    /// A copy of this state to take another alternative of a fork, as state
    /// `id`: the new coverage so far stays to this state's credit.
    pub fn fork_child(&self, id: u64) -> State {
        let mut child = self.clone();
        child.id = id;
        child.covered_new = false;
        child
    }

    pub fn frame(&self) -> &Frame {
        self.stack.last().expect("a running state has a frame")
    }

    pub fn frame_mut(&mut self) -> &mut Frame {
        self.stack.last_mut().expect("a running state has a frame")
    }

    pub fn add_constraint(&mut self, c: ExprRef) {
        if c.is_true() {
            return;
        }
        if self
            .hint
            .as_ref()
            .is_some_and(|h| crate::expr::eval(&c, h) == 0)
        {
            self.hint = None;
        }
        self.narrow_replay(&c);
        Arc::make_mut(&mut self.constraints).push(c);
    }

    /// Puts the conjuncts of the last constraint in its place, when it is a
    /// conjunction (as KLEE's constraint manager does with every one). A
    /// composed callee's recorded path is one, over all of the callee's
    /// inputs: kept whole, it would tie them into one factor for slicing,
    /// and no query about one of them would match a cached one. (Done for
    /// every constraint, it cost 5% of a loop-heavy run, whose conjunctions
    /// are ranges of one input.)
    pub fn split_last_constraint(&mut self) {
        if !self.constraints.last().is_some_and(|c| c.is_conjunction()) {
            return;
        }
        let constraints = Arc::make_mut(&mut self.constraints);
        if let Some(c) = constraints.pop() {
            crate::expr::conjuncts(std::slice::from_ref(&c), constraints);
        }
    }

    /// Reserves `size` bytes of addresses on the heap or the stack.
    pub fn reserve(&mut self, size: u64, stack: bool) -> u64 {
        let next = if stack {
            &mut self.next_stack
        } else {
            &mut self.next_heap
        };
        let addr = *next;
        *next += (size.max(1) + RED_ZONE + 15) & !15;
        addr
    }
}
