//! The last layer: a fresh Z3 solver per query, on this thread's Z3 context.
//!
//! Expressions become Z3 bit-vectors (width-1 expressions become Z3
//! booleans where that is their natural reading). The translation keeps the
//! exact semantics `expr::eval` has, including the conventions for the cases
//! LLVM leaves undefined, so that every model Z3 returns evaluates to true:
//! - division and remainder by a possibly-zero divisor are guarded to give
//!   0 (Z3's own results differ);
//! - reading a symbolic array past its end gives 0, asserted per read as a
//!   side condition on the root array;
//! - a byte of a symbolic array read at a constant index without writes is a
//!   plain 8-bit constant `name!i`; if the same array is also read in the
//!   general way in this query, both forms are linked.

mod smtlib;
mod table;
mod watch;
pub use smtlib::path_condition;
pub(crate) use watch::WatchedSolver;

use super::limit::{Limit, FRESH_UNITS_PER_MS};
use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::{
    arrays_in_all, unsigned_range, ArrayRef, Assignment, CmpOp, ExprKind, ExprRef, UpdateList,
};
use crate::ir::BinOp;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::sync::Arc;
use z3::ast::{Array as ZArray, Bool, BV};
use z3::{Model, Params, SatResult, Solver as ZSolver, Sort};

/// Reads of arrays with at most this many cases (writes, plus the root's
/// bytes: the non-zero ones of a constant root, every one of a symbolic
/// root; only those the index can reach) are translated as case splits
/// rather than with the theory of arrays (see `Translator::read_as_cases`).
/// A byte-indexed table of 256 entries with a few writes fits.
const CASE_SPLIT_LIMIT: usize = 512;

/// Decides queries with Z3, one fresh solver per query.
pub struct Z3Layer {
    timeout_ms: u64,
    watched: WatchedSolver,
}

impl Z3Layer {
    /// A layer giving each query at most `timeout_ms` milliseconds.
    pub fn new(timeout_ms: u64) -> Self {
        Z3Layer {
            timeout_ms,
            watched: WatchedSolver::default(),
        }
    }
}

impl Layer for Z3Layer {
    fn name(&self) -> &'static str {
        "z3"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        next.stats().z3_calls += 1;
        let limit = next.limit(self.timeout_ms)?;
        let wants_core = next.wants_core();
        let (answer, core) = next.timed(limit.is_probe(), limit, || {
            self.watched.solve(q, limit, wants_core)
        })?;
        if let Some(core) = core {
            next.set_core(core);
        }
        Ok(answer)
    }
}

/// A translated expression: width-1 expressions may be Z3 booleans.
#[derive(Clone)]
enum Term {
    Bv(BV),
    Bool(Bool),
}

/// What the translation knows about one array of the query.
struct ArrayInfo {
    array: ArrayRef,
    /// The Z3 name, unique within the query.
    name: String,
    /// The whole array as a Z3 array (BV64 -> BV8), once needed.
    whole: Option<ZArray>,
    /// Bytes read at constant indices without writes, as plain constants.
    bytes: BTreeMap<u32, BV>,
}

/// Expressions to Z3 terms, remembering what it translated (the stack
/// layer keeps one across queries).
#[derive(Default)]
pub(super) struct Translator {
    memo: FxHashMap<ExprRef, Term>,
    arrays: Vec<ArrayInfo>,
    array_index: FxHashMap<usize, usize>,
    names: FxHashSet<String>,
    /// Store chains per update node (its address; the query keeps it alive).
    stores: FxHashMap<usize, ZArray>,
    /// The write lists whose nodes key `stores`, kept alive so that no
    /// other node can take one of those addresses while the translation is
    /// kept (the stack layer keeps it across queries).
    kept_lists: Vec<UpdateList>,
    /// Side conditions to assert with the query. Each is valid in every
    /// query (it defines a name or states the semantics of reads), so the
    /// stack layer may assert it at any level.
    pub(super) side: Vec<Bool>,
    /// Bytes already linked to their array's whole form (array slot, index).
    linked: FxHashSet<(usize, u32)>,
    /// StackOpt: name each arithmetic subexpression once, by a fresh
    /// constant defined by a side condition.
    pub(super) name_shared: bool,
    named: u64,
    /// StackOpt: how many parents have used each arithmetic subexpression.
    uses: FxHashMap<ExprRef, u32>,
}

fn bv_const(v: u128, w: u32) -> BV {
    if w <= 64 {
        BV::from_u64(v as u64, w)
    } else {
        BV::from_u64((v >> 64) as u64, w - 64).concat(BV::from_u64(v as u64, 64))
    }
}

fn bit(b: bool) -> BV {
    BV::from_u64(b as u64, 1)
}

fn as_bv(t: &Term) -> BV {
    match t {
        Term::Bv(b) => b.clone(),
        Term::Bool(b) => b.ite(&bit(true), &bit(false)),
    }
}

fn as_bool(t: &Term) -> Bool {
    match t {
        Term::Bool(b) => b.clone(),
        Term::Bv(b) => b.eq(bit(true)),
    }
}

fn internal(what: &str) -> SolverError {
    SolverError::Unknown(format!("internal error translating for Z3: {what}"))
}

impl Translator {
    /// The number of expressions translated so far.
    pub(super) fn len(&self) -> usize {
        self.memo.len()
    }

    fn term(&self, e: &ExprRef) -> Result<&Term, SolverError> {
        self.memo
            .get(e)
            .ok_or_else(|| internal("subexpression translated out of order"))
    }

    fn bv(&self, e: &ExprRef) -> Result<BV, SolverError> {
        self.term(e).map(as_bv)
    }

    pub(super) fn boolean(&self, e: &ExprRef) -> Result<Bool, SolverError> {
        self.term(e).map(as_bool)
    }

    fn info(&mut self, array: &ArrayRef) -> usize {
        let key = Arc::as_ptr(array) as usize;
        if let Some(&i) = self.array_index.get(&key) {
            return i;
        }
        let mut name = array.name.clone();
        let mut k = 1;
        while !self.names.insert(name.clone()) {
            name = format!("{}#{k}", array.name);
            k += 1;
        }
        self.arrays.push(ArrayInfo {
            array: array.clone(),
            name,
            whole: None,
            bytes: BTreeMap::new(),
        });
        self.array_index.insert(key, self.arrays.len() - 1);
        self.arrays.len() - 1
    }

    fn byte_var(&mut self, array: &ArrayRef, i: u32) -> BV {
        let slot = self.info(array);
        let info = &mut self.arrays[slot];
        let name = &info.name;
        info.bytes
            .entry(i)
            .or_insert_with(|| BV::new_const(format!("{name}!{i}"), 8))
            .clone()
    }

    /// The Z3 array for the root of an update list: a free array for a
    /// symbolic one, the known bytes over zeros for a constant one.
    fn root(&mut self, array: &ArrayRef) -> ZArray {
        let slot = self.info(array);
        if let Some(a) = &self.arrays[slot].whole {
            return a.clone();
        }
        let (d, r) = (Sort::bitvector(64), Sort::bitvector(8));
        let a = match &array.init {
            None => ZArray::new_const(self.arrays[slot].name.as_str(), &d, &r),
            Some(init) => {
                let mut a = ZArray::const_array(&d, &BV::from_u64(0, 8));
                for (i, &b) in init.iter().enumerate() {
                    if b != 0 {
                        a = a.store(&BV::from_u64(i as u64, 64), &BV::from_u64(b as u64, 8));
                    }
                }
                a
            }
        };
        self.arrays[slot].whole = Some(a.clone());
        a
    }

    /// The update nodes of `updates` whose store chain is not built yet,
    /// newest first.
    fn missing_updates<'u>(&self, updates: &'u UpdateList) -> Vec<&'u crate::expr::UpdateNode> {
        updates
            .iter()
            .take_while(|n| !self.stores.contains_key(&(*n as *const _ as usize)))
            .collect()
    }

    fn array_term(&mut self, updates: &UpdateList) -> Result<ZArray, SolverError> {
        let missing = self.missing_updates(updates);
        let mut arr = match missing
            .last()
            .map_or(updates.head.as_deref(), |n| n.next.as_deref())
        {
            Some(built) => self
                .stores
                .get(&(built as *const _ as usize))
                .cloned()
                .ok_or_else(|| internal("store chain missing"))?,
            None => self.root(&updates.root),
        };
        if !missing.is_empty() {
            self.kept_lists.push(updates.clone());
        }
        for node in missing.iter().rev() {
            arr = arr.store(&self.bv(&node.index)?, &self.bv(&node.value)?);
            self.stores.insert(*node as *const _ as usize, arr.clone());
        }
        Ok(arr)
    }

    /// Translates `root` and everything below it, children first, without
    /// recursion (expressions can be very deep).
    pub(super) fn translate(&mut self, root: &ExprRef) -> Result<(), SolverError> {
        let mut stack = vec![(root.clone(), false)];
        while let Some((e, expanded)) = stack.pop() {
            if self.memo.contains_key(&e) {
                continue;
            }
            if expanded {
                if self.name_shared {
                    self.name_shared_children(&e);
                }
                let t = self.compute(&e)?;
                self.memo.insert(e, t);
                continue;
            }
            stack.push((e.clone(), true));
            let mut push = |c: &ExprRef| {
                if !self.memo.contains_key(c) {
                    stack.push((c.clone(), false));
                }
            };
            match e.kind() {
                // Only the writes whose store chain is missing need their
                // operands; the rest of the list was translated before.
                ExprKind::Read { updates, index } => {
                    push(index);
                    for node in self.missing_updates(updates) {
                        push(&node.index);
                        push(&node.value);
                    }
                }
                _ => e.for_each_child(push),
            }
        }
        Ok(())
    }

    /// StackOpt: an arithmetic subexpression gets a name of its own, defined
    /// once, when a second parent uses it (in this constraint or a later
    /// one); from then on every use refers to the name.
    fn name_shared_children(&mut self, e: &ExprRef) {
        let mut children = Vec::new();
        e.for_each_child(|c| {
            if c.width() > 1 && matches!(c.kind(), ExprKind::Binary { .. }) {
                children.push(c.clone());
            }
        });
        for c in children {
            let uses = self.uses.entry(c.clone()).or_insert(0);
            *uses += 1;
            if *uses != 2 {
                continue;
            }
            if let Some(Term::Bv(value)) = self.memo.get(&c).cloned() {
                self.named += 1;
                let name = BV::new_const(format!("s!{}", self.named), c.width());
                self.side.push(name.eq(&value));
                self.memo.insert(c, Term::Bv(name));
            }
        }
    }

    fn compute(&mut self, e: &ExprRef) -> Result<Term, SolverError> {
        let w = e.width();
        Ok(match e.kind() {
            ExprKind::Const(c) => {
                if w == 1 {
                    Term::Bool(Bool::from_bool(*c == 1))
                } else {
                    Term::Bv(bv_const(*c, w))
                }
            }
            ExprKind::Read { updates, index } => Term::Bv(self.read(updates, index)?),
            ExprKind::Select {
                cond,
                then_e,
                else_e,
            } => {
                let c = self.boolean(cond)?;
                match (self.term(then_e)?, self.term(else_e)?) {
                    (Term::Bool(t), Term::Bool(f)) => Term::Bool(c.ite(t, f)),
                    (t, f) => Term::Bv(c.ite(&as_bv(t), &as_bv(f))),
                }
            }
            ExprKind::Concat { hi, lo } => Term::Bv(self.bv(hi)?.concat(self.bv(lo)?)),
            ExprKind::Extract { expr, offset } => {
                Term::Bv(self.bv(expr)?.extract(offset + w - 1, *offset))
            }
            ExprKind::ZExt(x) => Term::Bv(self.bv(x)?.zero_ext(w - x.width())),
            ExprKind::SExt(x) => Term::Bv(self.bv(x)?.sign_ext(w - x.width())),
            ExprKind::Not(x) => match self.term(x)? {
                Term::Bool(b) => Term::Bool(b.not()),
                Term::Bv(b) => Term::Bv(b.bvnot()),
            },
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, w)?,
            ExprKind::Cmp { op, lhs, rhs } => {
                if lhs.width() == 1 && *op == CmpOp::Eq {
                    Term::Bool(self.boolean(lhs)?.eq(self.boolean(rhs)?))
                } else {
                    let (a, b) = (self.bv(lhs)?, self.bv(rhs)?);
                    Term::Bool(match op {
                        CmpOp::Eq => a.eq(&b),
                        CmpOp::Ult => a.bvult(&b),
                        CmpOp::Ule => a.bvule(&b),
                        CmpOp::Slt => a.bvslt(&b),
                        CmpOp::Sle => a.bvsle(&b),
                    })
                }
            }
        })
    }

    fn binary(&self, op: BinOp, lhs: &ExprRef, rhs: &ExprRef, w: u32) -> Result<Term, SolverError> {
        if w == 1 && matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) {
            let (a, b) = (self.boolean(lhs)?, self.boolean(rhs)?);
            return Ok(Term::Bool(match op {
                BinOp::And => Bool::and(&[&a, &b]),
                BinOp::Or => Bool::or(&[&a, &b]),
                _ => a.xor(&b),
            }));
        }
        let (a, b) = (self.bv(lhs)?, self.bv(rhs)?);
        let r = match op {
            BinOp::Add => a.bvadd(&b),
            BinOp::Sub => a.bvsub(&b),
            BinOp::Mul => a.bvmul(&b),
            BinOp::And => a.bvand(&b),
            BinOp::Or => a.bvor(&b),
            BinOp::Xor => a.bvxor(&b),
            BinOp::Shl => a.bvshl(&b),
            BinOp::LShr => a.bvlshr(&b),
            BinOp::AShr => a.bvashr(&b),
            BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem => {
                let q = match op {
                    BinOp::UDiv => a.bvudiv(&b),
                    BinOp::SDiv => a.bvsdiv(&b),
                    BinOp::URem => a.bvurem(&b),
                    _ => a.bvsrem(&b),
                };
                // Z3 defines division by zero differently from the engine.
                if rhs.as_const().is_some_and(|c| c != 0) {
                    q
                } else {
                    b.eq(bv_const(0, w)).ite(&bv_const(0, w), &q)
                }
            }
        };
        Ok(Term::Bv(r))
    }

    fn read(&mut self, updates: &UpdateList, index: &ExprRef) -> Result<BV, SolverError> {
        let root = &updates.root;
        let size = root.size as u128;
        let const_index = index.as_const();
        if updates.is_empty() {
            if let Some(i) = const_index {
                if i >= size {
                    return Ok(BV::from_u64(0, 8));
                }
                if let Some(b) = root.init_byte(i) {
                    return Ok(BV::from_u64(b as u64, 8));
                }
                return Ok(self.byte_var(root, i as u32));
            }
        }
        // The index's range bounds both readings' entries: worked out once.
        let range = unsigned_range(index);
        if let Some(value) = self.read_as_cases(updates, index, range)? {
            return Ok(value);
        }
        if let Some(value) = self.read_as_tree(updates, index, range)? {
            return Ok(value);
        }
        let idx = self.bv(index)?;
        let arr = self.array_term(updates)?;
        let value = arr
            .select(&idx)
            .as_bv()
            .ok_or_else(|| internal("array read is not a bit-vector"))?;
        if !root.is_constant() && const_index.is_none_or(|i| i >= size) {
            // Past the end of a symbolic array reads 0, as in `expr::eval`.
            let root_term = self.root(root);
            let beyond = idx.bvuge(BV::from_u64(root.size as u64, 64));
            let at_root = root_term
                .select(&idx)
                .as_bv()
                .ok_or_else(|| internal("array read is not a bit-vector"))?;
            self.side
                .push(beyond.implies(at_root.eq(BV::from_u64(0, 8))));
        }
        Ok(value)
    }

    /// A read of a small array as a case split on the index, newest write
    /// first, down to the root's bytes: `ite(idx = i_n, v_n, ite(..., root))`,
    /// or `None` when there are too many cases for that.
    ///
    /// The theory of arrays forces Z3's general solver, which on reads at
    /// symbolic indices through a few writes (a histogram, a struct written
    /// through an alias) took more than the whole time limit; as cases, the
    /// query stays plain bit-vectors, which the bit-blasting solver decides
    /// at once. Only the cases the index can reach are counted and split
    /// on: `tr` reads its 256-byte translation table (bytes 1 to 255
    /// non-zero, a few written at symbolic places) at a zero-extended
    /// byte, and as arrays each such query took a second or timed out.
    /// Reading past the end gives 0, as in `expr::eval`. `(lo, hi)` is the
    /// index's unsigned range.
    fn read_as_cases(
        &mut self,
        updates: &UpdateList,
        index: &ExprRef,
        (lo, hi): (u128, u128),
    ) -> Result<Option<BV>, SolverError> {
        let root = &updates.root;
        // The root's cases: its non-zero bytes (a constant root) or all its
        // bytes (a symbolic one), at the indices in range; then the writes
        // the index can reach. Counting stops past the limit, so that a
        // large root or a long list of writes is not scanned whole.
        let span = (lo..hi.saturating_add(1).min(u128::from(root.size))).map(|k| k as u32);
        let root_cases: Vec<u32> = match &root.init {
            Some(init) => span
                .filter(|&k| init.get(k as usize).is_some_and(|&b| b != 0))
                .take(CASE_SPLIT_LIMIT + 1)
                .collect(),
            None => span.take(CASE_SPLIT_LIMIT + 1).collect(),
        };
        if root_cases.len() > CASE_SPLIT_LIMIT {
            return Ok(None);
        }
        let room = CASE_SPLIT_LIMIT - root_cases.len();
        let writes: Vec<&crate::expr::UpdateNode> = updates
            .iter()
            .filter(|n| n.index.as_const().is_none_or(|k| lo <= k && k <= hi))
            .take(room + 1)
            .collect();
        if writes.len() > room {
            return Ok(None);
        }
        let idx = self.bv(index)?;
        let const_index = index.as_const();
        let zero = BV::from_u64(0, 8);
        let mut value = match (&root.init, const_index) {
            (Some(_), Some(i)) => BV::from_u64(root.init_byte(i).unwrap_or(0) as u64, 8),
            (None, Some(i)) if i >= root.size as u128 => zero,
            (None, Some(i)) => self.byte_var(root, i as u32),
            (Some(init), None) => {
                // Equal bytes share one case, a union of index ranges: a
                // table of digit values is 0xff but for ten entries, and
                // as one case per entry Z3 took 200 ms to see that a
                // non-digit has no digit value.
                let mut ranges: BTreeMap<u8, Vec<(u32, u32)>> = BTreeMap::new();
                for &k in &root_cases {
                    let spans = ranges.entry(init[k as usize]).or_default();
                    match spans.last_mut() {
                        Some((_, hi)) if *hi + 1 == k => *hi = k,
                        _ => spans.push((k, k)),
                    }
                }
                let at = |k: u32| BV::from_u64(u64::from(k), 64);
                let mut v = zero;
                for (byte, spans) in ranges {
                    let inside: Vec<Bool> = spans
                        .iter()
                        .map(|&(lo, hi)| match lo == hi {
                            true => idx.eq(at(lo)),
                            false => Bool::and(&[&idx.bvuge(at(lo)), &idx.bvule(at(hi))]),
                        })
                        .collect();
                    let inside: Vec<&Bool> = inside.iter().collect();
                    v = Bool::or(&inside).ite(&BV::from_u64(u64::from(byte), 8), &v);
                }
                v
            }
            (None, None) => {
                let mut v = zero;
                for &k in root_cases.iter().rev() {
                    let at = idx.eq(BV::from_u64(u64::from(k), 64));
                    v = at.ite(&self.byte_var(root, k), &v);
                }
                v
            }
        };
        for node in writes.into_iter().rev() {
            match (node.index.as_const(), const_index) {
                (Some(a), Some(b)) if a != b => continue,
                (Some(_), Some(_)) => value = self.bv(&node.value)?,
                _ => {
                    let at = idx.eq(self.bv(&node.index)?);
                    value = at.ite(&self.bv(&node.value)?, &value);
                }
            }
        }
        Ok(Some(value))
    }

    /// Links plain byte constants with the whole-array form of the same
    /// array, when a query uses both.
    pub(super) fn link_arrays(&mut self) {
        for (slot, info) in self.arrays.iter().enumerate() {
            if let (Some(whole), false) = (&info.whole, info.array.is_constant()) {
                for (&i, var) in &info.bytes {
                    if !self.linked.insert((slot, i)) {
                        continue;
                    }
                    if let Some(sel) = whole.select(&BV::from_u64(i as u64, 64)).as_bv() {
                        self.side.push(sel.eq(var));
                    }
                }
            }
        }
    }

    /// Whether the query needed the theory of arrays (a read at a symbolic
    /// index or through writes), or is plain bit-vectors.
    pub(super) fn uses_arrays(&self) -> bool {
        self.arrays.iter().any(|info| info.whole.is_some()) || !self.stores.is_empty()
    }

    pub(super) fn model_bytes(
        &self,
        model: &Model,
        array: &ArrayRef,
    ) -> Result<Vec<u8>, SolverError> {
        if let Some(init) = &array.init {
            return Ok(init.to_vec());
        }
        let Some(&slot) = self.array_index.get(&(Arc::as_ptr(array) as usize)) else {
            // The query does not constrain this array.
            return Ok(vec![0; array.size as usize]);
        };
        let info = &self.arrays[slot];
        let mut out = Vec::with_capacity(array.size as usize);
        for i in 0..array.size {
            let term = match (info.bytes.get(&i), &info.whole) {
                (Some(var), _) => Some(var.clone()),
                (None, Some(whole)) => whole.select(&BV::from_u64(i as u64, 64)).as_bv(),
                (None, None) => None,
            };
            let value = match term {
                Some(t) => model
                    .eval(&t, true)
                    .and_then(|v| v.as_u64())
                    .ok_or_else(|| internal("Z3 model has no value for an array byte"))?,
                None => 0,
            };
            out.push(value as u8);
        }
        Ok(out)
    }
}

/// The error for Z3's unknown answer with `reason` under `limit`: a
/// timeout when the query ran out of its time or, when `limit` counts
/// work (a probe's, or a query's backstop), of its work (the incremental
/// solver then gives no reason but "unknown", the general one "max.
/// resource limit exceeded"; bit-vector queries are otherwise decided).
fn unknown(reason: Option<String>, limit: Limit) -> SolverError {
    let reason = reason.unwrap_or_else(|| "no reason given".to_string());
    let r = reason.to_ascii_lowercase();
    if limit.counts_work()
        || r.contains("timeout")
        || r.contains("canceled")
        || r.contains("cancelled")
    {
        SolverError::Timeout
    } else {
        SolverError::Unknown(reason)
    }
}

/// Decides `q` with a fresh Z3 solver. With `assume`, each constraint and
/// the condition are asserted under an assumed literal, and an unsat answer
/// comes with those of them Z3 used to show it (an unsat core:
/// unsatisfiable by themselves).
pub(super) fn solve(
    q: &Query<'_>,
    limit: Limit,
    assume: bool,
) -> Result<(Answer, Option<Vec<ExprRef>>), SolverError> {
    let mut t = Translator::default();
    let parts: Vec<&ExprRef> = q
        .constraints
        .iter()
        .chain(std::iter::once(&q.expr))
        .collect();
    let mut assertions = Vec::with_capacity(parts.len());
    for c in &parts {
        t.translate(c)?;
        assertions.push(t.boolean(c)?);
    }
    t.link_arrays();
    // Most queries are plain bit-vectors: the QF_BV solver skips Z3's general
    // front end and is about 3x faster on them. It is incomplete on constant
    // arrays, so queries with array reads go to the general solver.
    let solver = if t.uses_arrays() {
        ZSolver::new()
    } else {
        ZSolver::new_for_logic("QF_BV").unwrap_or_default()
    };
    configure(&solver, limit, FRESH_UNITS_PER_MS);
    if !assume {
        for a in assertions.iter().chain(t.side.iter()) {
            solver.assert(a);
        }
        return Ok((answer(&solver, solver.check(), q, &t, limit)?, None));
    }
    // Each part is asserted under a fresh literal assumed true; the
    // literals in Z3's core name the parts its proof used. (The side
    // conditions hold in every query and stay unconditional.)
    let literals: Vec<Bool> = (0..assertions.len())
        .map(|i| Bool::new_const(format!("mnemo!core!{i}")))
        .collect();
    for (l, a) in literals.iter().zip(&assertions) {
        solver.assert(l.implies(a));
    }
    for a in &t.side {
        solver.assert(a);
    }
    let result = solver.check_assumptions(&literals);
    let core = (result == SatResult::Unsat).then(|| {
        let used = solver.get_unsat_core();
        parts
            .iter()
            .zip(&literals)
            .filter(|(_, l)| used.iter().any(|u| u == *l))
            .map(|(p, _)| (*p).clone())
            .collect()
    });
    Ok((answer(&solver, result, q, &t, limit)?, core))
}

/// Seeds the random choices of Z3's heuristics for every solver this
/// process creates from now on (`--z3-seed`).
///
/// On hard queries (a multiplicative hash inverted, say) the time Z3 takes
/// depends on these choices as much as on the query: the same query can
/// take 8 ms or 80 ms. A different seed is another draw; the benchmarks
/// average over several to compare solver chains on what they do rather
/// than on one draw.
pub fn set_z3_seed(seed: u32) {
    for param in ["smt.random_seed", "sat.random_seed"] {
        z3::set_global_param(param, &seed.to_string());
    }
}

/// Gives `solver` `limit`, its work counted at `units_per_ms`.
pub(super) fn configure(solver: &ZSolver, limit: Limit, units_per_ms: u64) {
    let mut params = Params::new();
    params.set_u32("timeout", u32::try_from(limit.ms).unwrap_or(u32::MAX));
    params.set_u32("rlimit", limit.units(units_per_ms));
    // Z3 would otherwise catch Ctrl-C during a check, cancel the query and
    // swallow the signal: mnemo's own handler must see it to stop the run.
    params.set_bool("ctrl_c", false);
    solver.set_params(&params);
}

/// The answer to `q` after `solver`, given `limit`, said `result`, with the
/// model `q` asks for.
pub(super) fn answer(
    solver: &ZSolver,
    result: SatResult,
    q: &Query<'_>,
    t: &Translator,
    limit: Limit,
) -> Result<Answer, SolverError> {
    match result {
        SatResult::Unsat => Ok(Answer::Unsat),
        SatResult::Unknown => Err(unknown(solver.get_reason_unknown(), limit)),
        SatResult::Sat => {
            let Some(wanted) = q.model else {
                return Ok(Answer::Sat(None));
            };
            let model = solver
                .get_model()
                .ok_or_else(|| SolverError::Unknown("Z3 said sat but gave no model".into()))?;
            // The requested arrays, then every other array the query reads,
            // so that the model can be checked by evaluation.
            let mut arrays: Vec<ArrayRef> = wanted.to_vec();
            let mut seen: FxHashSet<usize> =
                arrays.iter().map(|a| Arc::as_ptr(a) as usize).collect();
            let mut read = Vec::new();
            arrays_in_all(q.constraints, &mut read);
            crate::expr::arrays_in(&q.expr, &mut read);
            for a in read {
                if seen.insert(Arc::as_ptr(&a) as usize) {
                    arrays.push(a);
                }
            }
            let mut assignment = Assignment::new();
            for a in &arrays {
                let bytes = t.model_bytes(&model, a)?;
                assignment.set(a, bytes);
            }
            Ok(Answer::Sat(Some(assignment)))
        }
    }
}

#[cfg(test)]
pub(super) mod tests;
