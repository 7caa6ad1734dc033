//! Execution states: everything one path needs to continue on its own.
//!
//! States are cheap to fork and `Send` (DESIGN.md, invariant 3): memory is a
//! persistent map of copy-on-write objects, constraints are shared until a
//! fork appends to them, a frame's registers are shared until the path
//! writes one, and no solver object lives here.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::end::PathEnd;
use super::guide::GuideNode;
use super::memory::AddressSpace;
use super::output::Output;
use super::value::Value;
use crate::expr::{ArrayRef, Assignment, ExprRef};
use crate::ir::{BlockId, FuncId, InstId, Reg, SiteId};

/// Inputs made since the last constraint up to which
/// [`State::constraints_for`] looks for the ones a question reads.
const MAX_FRESH: usize = 8;

/// Where the engine's stack and heap objects are placed. Addresses are
/// handed out by a per-state bump allocator, so a path gets the same
/// addresses whatever else the run does.
pub const GLOBAL_BASE: u64 = 0x0000_1000_0000;
pub const FUNCTION_BASE: u64 = 0x0000_0800_0000;
pub const HEAP_BASE: u64 = 0x5000_0000_0000;
/// Block addresses (`&&label`) lie between the heap and the stacks, where
/// no object is: nothing can be read or written through one.
pub const BLOCK_BASE: u64 = 0x6000_0000_0000;
pub const STACK_BASE: u64 = 0x7000_0000_0000;
/// Gap left after every object so a small overrun lands nowhere.
pub const RED_ZONE: u64 = 16;
/// Addresses below this are null plus a small offset.
pub const NULL_PAGE: u64 = 4096;

/// The address of a function, for function pointers.
pub fn function_address(f: FuncId) -> u64 {
    FUNCTION_BASE + 16 * f.0 as u64
}

/// The address of block `b` of function `f`, for `indirectbr`: a block
/// in 2^20 of its function's, a function in 2^20, below the stacks.
pub fn block_address(f: FuncId, b: BlockId) -> u64 {
    BLOCK_BASE + ((f.0 as u64) << 20) + b.0 as u64
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
    pub regs: Registers,
    /// The next instruction to execute.
    pub pc: InstId,
    /// The branch that entered the current block (none in the entry
    /// block): where an error at an instruction without a source location
    /// (the one `indirectbr` clang shares between a function's computed
    /// gotos) is reported.
    pub entered_by: Option<InstId>,
    /// Stack objects to release when the frame returns.
    pub allocas: Vec<u64>,
    /// Where in the caller the return value goes.
    pub ret_dst: Option<Reg>,
    /// The caller's call instruction, for stack traces.
    pub call_site: Option<InstId>,
    /// Where the variadic arguments are, if any.
    pub varargs: Option<super::varargs::Varargs>,
}

/// A frame's registers. The innermost frame owns its registers and writes
/// them in place; a caller's, which nothing writes until the callee
/// returns, are shared between the paths a fork makes. At -O0 every
/// instruction's result is a register, about 1,900 of them on a typical
/// coreutils stack, and a path that forks deep in a call chain would
/// otherwise copy them all into each of tens of thousands of pending
/// paths.
#[derive(Clone, Debug)]
pub struct Registers(Held);

#[derive(Clone, Debug)]
enum Held {
    Own(Vec<Value>),
    Shared(Arc<Vec<Value>>),
}

impl Registers {
    pub fn new(values: Vec<Value>) -> Registers {
        Registers(Held::Own(values))
    }

    #[inline]
    pub fn get(&self, r: Reg) -> &Value {
        match &self.0 {
            Held::Own(v) => &v[r.index()],
            Held::Shared(v) => &v[r.index()],
        }
    }

    /// Sets one register. Registers another path may share (after a fork,
    /// or a caller's once its callee has returned) are first made this
    /// frame's own.
    #[inline]
    pub fn set(&mut self, r: Reg, v: Value) {
        if let Held::Shared(_) = self.0 {
            self.own();
        }
        if let Held::Own(regs) = &mut self.0 {
            regs[r.index()] = v;
        }
    }

    /// The frame now has a callee: its registers are shared from here on.
    fn share(&mut self) {
        if let Held::Own(v) = &mut self.0 {
            self.0 = Held::Shared(Arc::new(std::mem::take(v)));
        }
    }

    /// Makes the registers this frame's own: taken back if no other path
    /// shares them, copied if one does.
    fn own(&mut self) {
        if let Held::Shared(_) = self.0 {
            if let Held::Shared(v) = std::mem::replace(&mut self.0, Held::Own(Vec::new())) {
                self.0 = Held::Own(Arc::try_unwrap(v).unwrap_or_else(|v| (*v).clone()));
            }
        }
    }
}

/// A symbolic input of the path, in creation order (the ktest's objects).
#[derive(Clone, Debug)]
pub struct Symbolic {
    pub name: Arc<str>,
    pub array: ArrayRef,
}

/// What is known of whether a path could take an alternative.
///
/// The variants are in this order so that a trie written when this was a
/// `bool` (format 3: `false`, `true`) reads as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Answer {
    Infeasible,
    Feasible,
    /// Not known: the solver ran out of time on it, or the path had fixed
    /// the inputs it reads to get past such a query (see
    /// `Executor::give_up_hard`). Not taken, and kept so in the trie, where
    /// a later run with `--retry-undecided` asks about it again.
    Undecided,
}

/// One alternative of a choice point: what it stands for and whether the
/// path could take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Alt {
    /// What the alternative stands for: its index at a branch or switch, an
    /// object's base address or a function's address at a memory or call
    /// fork, or `NO_TARGET` for the error side of one.
    pub payload: u64,
    pub answer: Answer,
}

impl Answer {
    /// The answer to a question that was decided.
    pub fn of(feasible: bool) -> Answer {
        if feasible {
            Answer::Feasible
        } else {
            Answer::Infeasible
        }
    }
}

impl Alt {
    /// An alternative the solver decided.
    pub fn decided(payload: u64, feasible: bool) -> Alt {
        Alt {
            payload,
            answer: Answer::of(feasible),
        }
    }

    /// Whether a path may take it (an undecided one is not taken).
    pub fn feasible(&self) -> bool {
        self.answer == Answer::Feasible
    }

    pub fn undecided(&self) -> bool {
        self.answer == Answer::Undecided
    }
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
        self.alts.iter().filter(|a| a.feasible()).count()
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
    /// Conditions the path's test should meet where the path allows
    /// (`klee_prefer_cex`), in the order made: never constraints, so they
    /// change no path, only the inputs its test gets (`test_model`).
    pub preferences: Arc<Vec<ExprRef>>,
    /// Shared by the paths a fork makes, and persistent: a loop reading
    /// fresh input makes one at every fork, and with a vector copied whole
    /// by each new one, every pending path of a deep one held a copy of all
    /// its inputs (4 GB at 7,700 decisions).
    pub symbolics: super::Trail<Symbolic>,
    /// The inputs from this place in `symbolics` on were made after the
    /// last constraint was added, so that no constraint reads them
    /// (`usize::MAX` once a constraint reads no input at all: such a fact
    /// belongs with every question). See [`State::constraints_for`].
    pub fresh_from: usize,
    /// Every decision taken so far at a choice point whose answer was not
    /// constant, feasible alternatives recorded: the path in the run's trie.
    pub path: super::Trail<Decision>,
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
    /// Inputs read by an undecided alternative that this guided path asked
    /// about again and that timed out again (`Executor::ask_again`).
    pub unanswered: Vec<crate::expr::ArrayRef>,
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
    /// The source lines this path executed, where the run writes them
    /// (`--write-cov`).
    pub lines: Option<super::lines::PathLines>,
    /// Counter for naming `__VERIFIER_nondet_*` inputs uniquely.
    pub nondet_count: u32,
    /// What the path wrote to stdout (fd 1 of the engine's output), symbolic
    /// bytes as they are: a test's `.stdout` is these under its inputs.
    pub stdout: Output,
    /// What the path wrote to stderr.
    pub stderr: Output,
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
    /// The program asked it not to fork (`klee_set_forking(0)`): at a
    /// branch it takes the first way its condition allows.
    pub forking_off: bool,
    /// How the path ended, where the instruction that ended it had forked
    /// first: the path stays to hand its children over, then ends.
    pub ended: Option<PathEnd>,
    /// A choice point cut under `--max-site-fork-share` that this copy of
    /// its path is to fork at after all (see `fork_share`).
    pub reopen: Option<Reopen>,
    /// The recorded paths of a callee the state replays (`--compose`).
    pub composing: Option<super::composing::Composing>,
    /// The seeds whose inputs the path follows (`--seed-file`); `None`
    /// when it follows none.
    pub seeds: Option<super::seeds::Seeds>,
    /// The memory inputs of a path summarising a function (`None` on
    /// every other path): what it assumed of them, and where they are.
    pub inputs: Option<Arc<super::lazy::InputHeap>>,
    /// What the choice points the current instruction passed so far gave
    /// (see `Executor::settle`): an instruction that forks more than once
    /// (a memcpy with a symbolic length and symbolic pointers) is run again
    /// by each child of a later fork, which must take the earlier forks'
    /// outcomes from here, its forced alternative being the later one's.
    pub settled: Vec<(u64, Value)>,
    /// How many of `settled` this run of the instruction took back so far.
    pub settled_taken: usize,
    /// The process's other threads, once it made one (`threads`); the
    /// running thread's frames are `stack`.
    pub threads: Option<Box<super::threads::Threads>>,
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
    /// The arrays of the path's symbolic inputs, in creation order: what a
    /// model of the path gives bytes to.
    pub fn input_arrays(&self) -> Vec<ArrayRef> {
        // Gathered from the newest back, so that the trail's links are
        // walked once and nothing but the result is allocated.
        let mut arrays: Vec<ArrayRef> =
            self.symbolics.iter_rev().map(|s| s.array.clone()).collect();
        arrays.reverse();
        arrays
    }

    /// The path's symbolic inputs set to these bytes, one entry each in
    /// creation order (a recorded test's inputs, say).
    pub fn assignment<'a>(&self, inputs: impl IntoIterator<Item = &'a [u8]>) -> Assignment {
        let mut a = Assignment::new();
        for (s, bytes) in self.symbolics.iter().zip(inputs) {
            a.set(&s.array, bytes);
        }
        a
    }

    /// A copy of this state to take another alternative of a fork, as state
    /// `id`: the new coverage so far stays to this state's credit.
    pub fn fork_child(&mut self, id: u64) -> State {
        // The innermost frame's registers too are shared, until the first
        // of the two paths to write one copies them: a child pending in the
        // searcher holds no copy of its own.
        if let Some(frame) = self.stack.last_mut() {
            frame.regs.share();
        }
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

    /// Calls into `frame`: the caller's registers are shared from here on
    /// (nothing writes them until the callee returns).
    pub fn push_frame(&mut self, frame: Frame) {
        if let Some(caller) = self.stack.last_mut() {
            caller.regs.share();
        }
        self.stack.push(frame);
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
        self.narrow_seeds(&c);
        self.hint_from_seed();
        self.fresh_from = if crate::expr::reads_input(&c) {
            self.symbolics.len()
        } else {
            usize::MAX
        };
        Arc::make_mut(&mut self.constraints).push(c);
    }

    /// The constraints a question about `e` alone (may it hold; a model of
    /// it that keeps the path's model elsewhere) needs: at least the
    /// factor `e` shares inputs with, which the solver slices out. That
    /// factor is empty when every input `e` reads was made after the last
    /// constraint, as a loop reading fresh input asks about each new one:
    /// then none are given, and a path thousands of constraints deep asks
    /// about its next input without the solver looking at each of them.
    pub fn constraints_for(&self, e: &ExprRef) -> &[ExprRef] {
        let fresh = self.symbolics.len().saturating_sub(self.fresh_from);
        // Many fresh inputs and no constraint yet: a program that marks its
        // inputs first and then branches; the solver slices as well.
        if fresh == 0 || fresh > MAX_FRESH {
            return &self.constraints;
        }
        let recent: smallvec::SmallVec<[*const crate::expr::Array; MAX_FRESH]> = self
            .symbolics
            .iter_rev()
            .take(fresh)
            .map(|s| Arc::as_ptr(&s.array))
            .collect();
        if crate::expr::reads_input_where(e, |a| !recent.contains(&Arc::as_ptr(a))) {
            &self.constraints
        } else {
            &[]
        }
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
            let from = constraints.len();
            crate::expr::conjuncts(std::slice::from_ref(&c), constraints);
            if !constraints[from..].iter().all(crate::expr::reads_input) {
                self.fresh_from = usize::MAX;
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn regs(values: &[u128]) -> Registers {
        Registers::new(values.iter().map(|&v| Value::concrete(v, 32)).collect())
    }

    fn read(r: &Registers) -> Vec<u128> {
        let n = match &r.0 {
            Held::Own(v) => v.len(),
            Held::Shared(v) => v.len(),
        };
        (0..n as u32)
            .map(|i| r.get(Reg(i)).as_concrete().expect("concrete"))
            .collect()
    }

    fn shares_with(a: &Registers, b: &Registers) -> bool {
        match (&a.0, &b.0) {
            (Held::Shared(x), Held::Shared(y)) => Arc::ptr_eq(x, y),
            _ => false,
        }
    }

    #[test]
    fn a_question_about_inputs_made_since_the_last_constraint_needs_none() {
        use crate::expr::{constant, read, ult, Array, UpdateList};
        let module = crate::ir::testutil::load_ll("define i32 @main() {\nentry:\n  ret i32 0\n}\n");
        let mut executor =
            super::super::Executor::new(Arc::new(module), super::super::ExecConfig::default());
        let mut state = executor.initial_state().expect("initial state");
        let input = |state: &mut State, name: &str| {
            let array = Array::symbolic(name, 1);
            state.symbolics.push_back(Symbolic {
                name: name.into(),
                array: array.clone(),
            });
            read(&UpdateList::new(array), &constant(0, 64))
        };
        let x = input(&mut state, "x");
        assert!(state.constraints_for(&ult(&x, &constant(10, 8))).is_empty());
        state.add_constraint(ult(&x, &constant(10, 8)));
        assert_eq!(state.constraints_for(&ult(&x, &constant(3, 8))).len(), 1);
        let y = input(&mut state, "y");
        let mut child = state.fork_child(99);
        for s in [&state, &child] {
            assert!(s.constraints_for(&ult(&y, &constant(5, 8))).is_empty());
            assert_eq!(s.constraints_for(&ult(&y, &x)).len(), 1, "x is constrained");
        }
        // Once a constraint reads it, an input is no longer fresh.
        child.add_constraint(ult(&y, &constant(5, 8)));
        assert_eq!(child.constraints_for(&ult(&y, &constant(2, 8))).len(), 2);
        assert!(state.constraints_for(&ult(&y, &constant(2, 8))).is_empty());
    }

    #[test]
    fn a_fork_shares_registers_until_each_path_writes_its_own() {
        let mut parent = regs(&[1, 2, 3]);
        parent.share();
        let mut child = parent.clone();
        assert!(shares_with(&parent, &child), "the fork copies nothing");

        parent.set(Reg(0), Value::concrete(10, 32));
        assert_eq!(read(&parent), [10, 2, 3]);
        assert_eq!(
            read(&child),
            [1, 2, 3],
            "the pending path sees its own values"
        );

        // The parent made a copy, so the child's registers are its alone
        // and are taken back rather than copied.
        let Held::Shared(before) = &child.0 else {
            panic!("still shared")
        };
        let buffer = before.as_ptr();
        child.set(Reg(2), Value::concrete(30, 32));
        let Held::Own(after) = &child.0 else {
            panic!("owned after a write")
        };
        assert_eq!(after.as_ptr(), buffer);
        assert_eq!(read(&child), [1, 2, 30]);
        assert_eq!(read(&parent), [10, 2, 3]);
    }

    #[test]
    fn a_caller_frame_stays_shared_across_its_callees_forks() {
        // Two paths forked inside a callee share the caller's registers;
        // the return value each writes into the caller stays its own.
        let mut caller = regs(&[7, 0]);
        caller.share();
        let mut a = caller.clone();
        let mut b = caller;
        a.set(Reg(1), Value::concrete(1, 32));
        b.set(Reg(1), Value::concrete(2, 32));
        assert_eq!(read(&a), [7, 1]);
        assert_eq!(read(&b), [7, 2]);
    }
}
