//! The search over combinations of byte values that decides a query
//! whose conjuncts relate several bytes.
//!
//! The bytes are given values one at a time, and each conjunct is checked
//! as soon as all of its bytes have one. What a check evaluates is kept
//! from one value of the byte to the next, but for the nodes that read
//! that byte: on grep's and bc's scanner queries most of a conjunct's
//! nodes read the bytes before it (the scanner's state so far), and
//! evaluating them again for each of a byte's 256 values, with a fresh
//! table of values each time, took most of the search's time.

use rustc_hash::FxHashMap;
use rustc_hash::FxHashSet;

use super::compiled::Compiled;
use super::interface::interfaces;
use super::{each, model, reachable_writes, Byte, Values};
use crate::expr::{Assignment, Evaluated, ExprKind, ExprNode, ExprRef};

/// A search for values of the bytes that conjuncts relate, under which
/// each of those conjuncts holds.
pub(super) struct Search<'a> {
    /// The bytes searched, as indices into `found`, in the order tried.
    order: &'a [usize],
    /// The values each byte of `found` may take.
    domains: &'a [Values],
    /// For each byte of `order`, the conjuncts whose last byte it is.
    checks: &'a [Vec<ExprRef>],
    /// Every byte of the query with a value: the searched ones' are
    /// replaced as the search goes.
    found: &'a mut [(Byte, u8)],
    /// `found` as an assignment, kept up to date byte by byte.
    assignment: Assignment,
    /// For each byte of `order`, its checks compiled for its values
    /// (worked out on the first run): first those of no filter, then each
    /// filter's.
    compiled: Vec<Vec<Compiled>>,
    /// For each byte of `order`, the values of its checks' nodes that do
    /// not read it, under the values the bytes before it have now.
    values: Vec<Evaluated>,
    /// Room for the values of a compiled level's steps.
    slots: Vec<u128>,
    /// For each byte of `order`, the conjuncts whose last byte it is that
    /// skip a byte before it.
    filters: &'a [Vec<Filter>],
    /// For each filter of each byte, the values under which its checks
    /// hold, by the values of the bytes of its key.
    allowed: Vec<Vec<FxHashMap<Vec<u8>, Values>>>,
    /// For each byte of `order`, the nodes through which the checks from
    /// it on read the bytes before it, where a key of their values can
    /// tell fewer combinations apart than the bytes (worked out on the
    /// first run).
    interfaces: Vec<Option<Vec<ExprRef>>>,
    /// For each byte of `order`, the keys of the combinations of the
    /// bytes before it that the search could not complete.
    failed: Vec<FxHashSet<Vec<u128>>>,
    /// The node evaluations the search may still make.
    budget: u64,
}

/// What a search checks, and where: the order it gives the bytes values
/// in, and for each byte of it the conjuncts whose last byte it is, each
/// checked as soon as that byte has a value.
pub(super) struct Plan {
    /// The bytes searched, as indices into the search's `found`.
    order: Vec<usize>,
    /// For each byte of `order`, the conjuncts whose last byte it is that
    /// skip none before it.
    checks: Vec<Vec<ExprRef>>,
    /// For each byte of `order`, the conjuncts whose last byte it is that
    /// skip a byte before it, grouped by the bytes before it they read.
    filters: Vec<Vec<Filter>>,
}

impl Plan {
    /// The plan for `conjuncts`, each with the places of the bytes it
    /// reads, given how many values each byte may take.
    pub(super) fn new(conjuncts: &[(&ExprRef, Vec<usize>)], values: impl Fn(usize) -> u64) -> Plan {
        let order = search_order(conjuncts, &values);
        let mut place: Vec<usize> = vec![0; order.iter().max().map_or(0, |&i| i + 1)];
        for (at, &i) in order.iter().enumerate() {
            place[i] = at;
        }
        let mut checks: Vec<Vec<ExprRef>> = vec![Vec::new(); order.len()];
        let mut filters: Vec<Vec<Filter>> = vec![Vec::new(); order.len()];
        for (expr, read) in conjuncts {
            let Some(last) = read.iter().map(|&i| place[i]).max() else {
                continue;
            };
            let mut key: Vec<usize> = read.iter().copied().filter(|&i| place[i] != last).collect();
            key.sort_by_key(|&i| place[i]);
            // A byte with one value skipped changes nothing.
            let skips = order[..last]
                .iter()
                .any(|&i| !key.contains(&i) && values(i) > 1);
            if !skips {
                checks[last].push((*expr).clone());
                continue;
            }
            match filters[last].iter_mut().find(|f| f.key == key) {
                Some(f) => f.checks.push((*expr).clone()),
                None => filters[last].push(Filter {
                    key,
                    checks: vec![(*expr).clone()],
                }),
            }
        }
        Plan {
            order,
            checks,
            filters,
        }
    }
}

/// Conjuncts whose last byte in a search's order is the same, that read
/// the same bytes before it, and not all of them. The values of the last
/// byte under which they hold are the same whatever the bytes they skip
/// are: found once for each value of the bytes they read, and kept. grep's
/// query where `buf[3 + (byte 1 == '-')] == 0` fixes byte 3 by byte 1
/// checked it for each of byte 2's values in between, 2^24 times, and ran
/// out of its budget.
#[derive(Clone)]
struct Filter {
    /// The bytes before the last that the conjuncts read, as indices into
    /// the search's `found`, in the search's order.
    key: Vec<usize>,
    checks: Vec<ExprRef>,
}

/// Values kept for each filter before they are forgotten (memory bound).
const ALLOWED_LIMIT: usize = 1 << 16;

/// Keys of failed combinations kept for each byte before they are
/// forgotten (memory bound).
const FAILED_LIMIT: usize = 1 << 16;

/// A search ran past its budget of node evaluations.
pub(super) struct OverBudget;

impl<'a> Search<'a> {
    /// A search over the bytes of `found` that `plan` orders, each taking
    /// the values `domains` allow it, for values under which the plan's
    /// checks hold.
    pub(super) fn new(plan: &'a Plan, domains: &'a [Values], found: &'a mut [(Byte, u8)]) -> Self {
        let Plan {
            order,
            checks,
            filters,
        } = plan;
        let assignment = model(&[], found);
        Search {
            order,
            domains,
            checks,
            found,
            assignment,
            compiled: Vec::new(),
            values: order.iter().map(|_| Evaluated::default()).collect(),
            slots: Vec::new(),
            filters,
            allowed: filters
                .iter()
                .map(|f| vec![FxHashMap::default(); f.len()])
                .collect(),
            interfaces: Vec::new(),
            failed: order.iter().map(|_| FxHashSet::default()).collect(),
            budget: 0,
        }
    }

    /// Whether the bytes have values under which every check holds,
    /// found in at most `budget` node evaluations. Tries the least values
    /// first, so the first combination found is the same on every run;
    /// `found` then holds it.
    pub(super) fn run(&mut self, budget: u64) -> Result<bool, OverBudget> {
        if self.compiled.len() != self.order.len() {
            // Every conjunct checked at each byte, filtered or not.
            let checks: Vec<Vec<&ExprRef>> = self
                .checks
                .iter()
                .zip(self.filters)
                .map(|(checks, filters)| {
                    filters
                        .iter()
                        .flat_map(|f| &f.checks)
                        .chain(checks)
                        .collect()
                })
                .collect();
            self.compiled = self
                .order
                .iter()
                .enumerate()
                .map(|(i, &slot)| {
                    let byte = &self.found[slot].0;
                    std::iter::once(Compiled::new(byte, &self.checks[i]))
                        .chain(
                            self.filters[i]
                                .iter()
                                .map(|f| Compiled::new(byte, &f.checks)),
                        )
                        .collect()
                })
                .collect();
            self.interfaces = interfaces(self.order, self.found, self.domains, &checks);
        }
        self.budget = budget;
        self.from(0)
    }

    /// Whether the bytes of `order` from the `i`th on have values under
    /// which every check holds.
    fn from(&mut self, i: usize) -> Result<bool, OverBudget> {
        let Some(&slot) = self.order.get(i) else {
            return Ok(true);
        };
        // The bytes before the `i`th have new values.
        self.values[i].clear();
        let key = match &self.interfaces[i] {
            Some(nodes) => {
                let values = &mut self.values[i];
                let key: Vec<u128> = nodes
                    .iter()
                    .map(|n| values.eval(&self.assignment, n))
                    .collect();
                self.spend(self.values[i].len())?;
                if self.failed[i].contains(&key) {
                    return Ok(false);
                }
                Some(key)
            }
            None => None,
        };
        let mut domain = self.domains[slot];
        for f in 0..self.filters[i].len() {
            let allowed = self.allowed(i, slot, f)?;
            for (d, a) in domain.iter_mut().zip(allowed) {
                *d &= a;
            }
        }
        for v in each(&domain) {
            self.set(slot, v);
            if self.holds(i, None)? && self.from(i + 1)? {
                return Ok(true);
            }
        }
        if let Some(key) = key {
            let failed = &mut self.failed[i];
            if failed.len() >= FAILED_LIMIT {
                failed.clear();
            }
            failed.insert(key);
        }
        Ok(false)
    }

    /// The values of the `i`th byte of `order` under which the checks of
    /// its filter `f` hold, with the values the bytes of its key have now.
    fn allowed(&mut self, i: usize, slot: usize, f: usize) -> Result<Values, OverBudget> {
        let key: Vec<u8> = self.filters[i][f]
            .key
            .iter()
            .map(|&s| self.found[s].1)
            .collect();
        if let Some(allowed) = self.allowed[i][f].get(&key) {
            return Ok(*allowed);
        }
        // The values kept at the `i`th byte read none of its own: they
        // hold for each of its values.
        let mut allowed = [0u64; 4];
        for v in each(&self.domains[slot]) {
            self.set(slot, v);
            if self.holds(i, Some(f))? {
                allowed[usize::from(v / 64)] |= 1 << (v % 64);
            }
        }
        let kept = &mut self.allowed[i][f];
        if kept.len() >= ALLOWED_LIMIT {
            kept.clear();
        }
        kept.insert(key, allowed);
        Ok(allowed)
    }

    /// Gives byte `slot` of `found` the value `v`.
    fn set(&mut self, slot: usize, v: u8) {
        let ((array, at), value) = &mut self.found[slot];
        *value = v;
        self.assignment.set_byte(array, *at as usize, v);
    }

    /// Whether the checks of the `i`th byte of `order` (those of its
    /// filter `f`, if given) hold under the values the bytes have now, the
    /// bytes before it unchanged since its values were last cleared.
    fn holds(&mut self, i: usize, f: Option<usize>) -> Result<bool, OverBudget> {
        let compiled = &self.compiled[i][f.map_or(0, |f| f + 1)];
        let values = &mut self.values[i];
        let before = values.len();
        let (holds, steps) = compiled.holds(&self.assignment, values, &mut self.slots);
        let evaluated = steps + values.len().saturating_sub(before);
        self.spend(evaluated)?;
        Ok(holds)
    }

    /// Takes `evaluated` node evaluations from the budget.
    fn spend(&mut self, evaluated: usize) -> Result<(), OverBudget> {
        self.budget = self
            .budget
            .checked_sub(evaluated as u64)
            .ok_or(OverBudget)?;
        Ok(())
    }
}

/// The nodes of `roots` that are not constants, each after every node it
/// reads ([`inputs`]).
pub(super) fn post_order<'a>(roots: impl IntoIterator<Item = &'a ExprRef>) -> Vec<&'a ExprRef> {
    let mut post = Vec::new();
    let mut seen: FxHashSet<*const ExprNode> = FxHashSet::default();
    let mut stack: Vec<(&ExprRef, bool)> = roots.into_iter().map(|e| (e, false)).collect();
    while let Some((node, expanded)) = stack.pop() {
        if expanded {
            post.push(node);
        } else if !node.is_const() && seen.insert(node.as_ptr()) {
            stack.push((node, true));
            inputs(node, |c| stack.push((c, false)));
        }
    }
    post
}

/// The children of `e` its value may depend on: a read's index and the
/// writes it may see, any other node's children.
pub(super) fn inputs<'a>(e: &'a ExprRef, mut f: impl FnMut(&'a ExprRef)) {
    match e.kind() {
        ExprKind::Read { updates, index } => {
            f(index);
            for node in reachable_writes(updates, index) {
                f(&node.index);
                f(&node.value);
            }
        }
        _ => e.for_each_child(f),
    }
}

/// Puts the bytes that `e` reads (`read`, places in `bytes`) the most
/// deeply read first (by the longest path from `e` down to a read of the
/// byte), ties in the order given. A chain reads its first byte deepest:
/// Euclid's remainders, a scanner's state after each byte, which reads the
/// bytes before it only through the state before. Given values in that
/// order, the bytes before each are read by the rest of the chain only
/// through its value there, the key the search remembers failures by (see
/// `interface`). With the outermost byte first, as a walk from the top
/// meets them, the key held every byte, and a remainder chain over five
/// bytes ran out of its budget.
pub(super) fn deepest_first(e: &ExprRef, read: &mut [usize], bytes: &[(Byte, Values)]) {
    let mut depth: FxHashMap<*const ExprNode, usize> = FxHashMap::default();
    let mut deepest = vec![0usize; read.len()];
    // Reversed, each node comes before what it reads.
    for node in post_order([e]).into_iter().rev() {
        let d = depth.get(&node.as_ptr()).copied().unwrap_or(0);
        if let ExprKind::Read { updates, index } = node.kind() {
            let at = index.as_const();
            let byte = read.iter().position(|&i| {
                let (array, offset) = &bytes[i].0;
                std::sync::Arc::ptr_eq(array, &updates.root) && at == Some(u128::from(*offset))
            });
            if let Some(k) = byte {
                deepest[k] = deepest[k].max(d);
            }
        }
        inputs(node, |c| {
            let below = depth.entry(c.as_ptr()).or_insert(0);
            *below = (*below).max(d + 1);
        });
    }
    let mut by_depth: Vec<(usize, usize)> = deepest.into_iter().zip(read.iter().copied()).collect();
    by_depth.sort_by_key(|&(d, _)| std::cmp::Reverse(d));
    for (slot, (_, i)) in read.iter_mut().zip(by_depth) {
        *slot = i;
    }
}

/// The order in which a search tries the values of the bytes that
/// `conjuncts` read (each conjunct with its bytes' places), given how many
/// values each byte may take: bytes with one value first, then, over and
/// over, the missing bytes of the conjunct they leave the fewest
/// combinations to complete. On a tie the last such conjunct goes first:
/// the query's own condition comes last, and the path's conditions before
/// it hold together, so it is the one that can fail. A conjunct is
/// checked as soon as its bytes have values, so one that few bytes decide
/// prunes the search near its root: grep's query on a pattern's bytes 1
/// to 3 checks a hash of bytes 0 to 2 that no value satisfies, and with
/// byte 0 (which had one value) tried last, the search exhausted 2^24
/// combinations where 2^16 decide it.
pub(super) fn search_order(
    conjuncts: &[(&ExprRef, Vec<usize>)],
    values: impl Fn(usize) -> u64,
) -> Vec<usize> {
    let mut order: Vec<usize> = Vec::new();
    let mut placed: FxHashSet<usize> = FxHashSet::default();
    for (_, read) in conjuncts {
        for &i in read {
            if values(i) <= 1 && placed.insert(i) {
                order.push(i);
            }
        }
    }
    loop {
        let mut best: Option<(u64, &[usize])> = None;
        for (_, read) in conjuncts {
            let mut missing = read.iter().filter(|i| !placed.contains(i)).peekable();
            if missing.peek().is_none() {
                continue;
            }
            let cost = missing.fold(1u64, |c, &i| c.saturating_mul(values(i)));
            if best.is_none_or(|(least, _)| cost <= least) {
                best = Some((cost, read));
            }
        }
        let Some((_, read)) = best else {
            return order;
        };
        for &i in read {
            if placed.insert(i) {
                order.push(i);
            }
        }
    }
}
