//! Memory access: resolving an address to the object it falls into
//! (forking over the objects a symbolic pointer may reach), loads, stores,
//! and the objects the executor allocates. The program's accesses and the
//! natives' go through `resolve`, so an access is checked (bounds, null,
//! use after free) the same way wherever it comes from.

use super::choices::{by_target, recorded_conditions, MAX_POINTER_TARGETS};
use super::end::{EarlyReason, ErrorKind, PathEnd};
use super::executor::{Exec, Executor, Flow, FIXED_ADDRESS, NO_TARGET, UNLISTED};
use super::memory::{AllocKind, MemoryObject, ObjectState};
use super::questions::pinned_value;
use super::state::{State, NULL_PAGE};
use super::value::Value;
use crate::expr::{self, Assignment, ExprRef};
use crate::ir::SiteId;
use std::sync::{Arc, LazyLock};

/// The address of `p` if the path fixed it: `p` itself, or a constant
/// added to one (the next byte of a string) that it fixed.
fn known_address(state: &State, p: &ExprRef) -> Option<u64> {
    if state.addresses.is_empty() {
        return None;
    }
    if let Some(&a) = state.addresses.get(p) {
        return Some(a);
    }
    match p.kind() {
        expr::ExprKind::Binary {
            op: crate::ir::BinOp::Add,
            lhs,
            rhs,
        } => {
            let c = lhs.as_const()?;
            let a = state.addresses.get(rhs)?;
            Some(a.wrapping_add(c as u64))
        }
        _ => None,
    }
}

/// Models asked for while looking for a symbolic pointer's targets.
const MAX_POINTER_SEARCH: usize = 48;

/// What the forks of one access through a symbolic pointer that left
/// targets unlisted found, for the next one's search.
#[derive(Default)]
struct Searched {
    forks: u32,
    /// Where the next search by address order starts: the objects below
    /// it were asked about.
    after: u64,
    /// Whether the access may fall outside every object.
    error_possible: bool,
}

/// The targets one search lists.
struct Found {
    conds: Vec<ExprRef>,
    payloads: Vec<u64>,
    /// Outside every target listed.
    outside: ExprRef,
    error_possible: bool,
    /// Whether objects may be left that the search did not list.
    unlisted: bool,
}

impl Default for Found {
    fn default() -> Self {
        Found {
            conds: Vec::new(),
            payloads: Vec::new(),
            outside: expr::bool_const(true),
            error_possible: false,
            unlisted: false,
        }
    }
}

impl Found {
    fn list(&mut self, inside: ExprRef, base: u64, fixed: bool) {
        self.outside = expr::and(&self.outside, &expr::not(&inside));
        self.conds.push(inside);
        self.payloads
            .push(if fixed { base | FIXED_ADDRESS } else { base });
    }
}

/// Forks one access or call through a symbolic pointer makes at most, each
/// over up to `MAX_POINTER_TARGETS` targets: a pointer read whole from
/// input may reach every object of the C library, each search finding a
/// few. The path past the last ends early (`max-targets`), and says so.
pub(super) const MAX_TARGET_FORKS: u32 = 64;

impl Executor {
    /// Resolves an access of `bytes` bytes at `addr` to an object's base and
    /// the offset within it, forking when a symbolic pointer may reach
    /// several objects or none.
    pub(crate) fn resolve(
        &mut self,
        state: &mut State,
        addr: &Value,
        bytes: u64,
        site: Option<SiteId>,
    ) -> Exec<(u64, Value)> {
        self.resolve_past(state, addr, bytes, site, &mut Searched::default())
    }

    /// [`Self::resolve`] on the side of the earlier forks of this access
    /// that left targets unlisted (`UNLISTED`), after what they `searched`.
    fn resolve_past(
        &mut self,
        state: &mut State,
        addr: &Value,
        bytes: u64,
        site: Option<SiteId>,
        searched: &mut Searched,
    ) -> Exec<(u64, Value)> {
        // A pointer computed only from pinned inputs (a printed hash's
        // digits moved an output buffer's end) has one value: looking for
        // the objects it may reach would ask the solver about the hard
        // condition the inputs were pinned to avoid.
        if let (Value::Symbolic(p), false) = (addr, self.summarising) {
            if let Some(a) = pinned_value(state, p) {
                return self.resolve_past(state, &Value::concrete(a, 64), bytes, site, searched);
            }
        }
        match addr {
            Value::Concrete { bits, .. } => {
                let a = bits.get() as u64;
                // A global a summarised function reaches becomes an input.
                if self.summarising && self.input_global(state, a) {
                    return self.resolve_past(state, addr, bytes, site, searched);
                }
                match state.memory.find(a) {
                    // A length the program gives (`klee_check_memory_access`)
                    // may be as large as it likes.
                    Some(e) if e.object.holds(a, bytes) => Ok((
                        e.object.address,
                        Value::concrete((a - e.object.address) as u128, 64),
                    )),
                    Some(e) => {
                        let msg = format!(
                            "out-of-bounds access: {} bytes at offset {} of `{}` ({} bytes)",
                            bytes,
                            a - e.object.address,
                            e.object.name,
                            e.object.size
                        );
                        Err(self.error(state, ErrorKind::Ptr, msg))
                    }
                    None => Err(self.bad_address(state, a, bytes)),
                }
            }
            Value::Symbolic(p) if self.summarising => self.resolve_input(state, p, bytes),
            Value::Symbolic(p) => {
                let p = p.clone();
                let site = site.unwrap_or(SiteId(u32::MAX));
                // An address the path fixed, in bounds of its object: the
                // one target the search would find, fixed again.
                let known = known_address(state, &p).and_then(|a| {
                    let e = state.memory.find(a)?;
                    let (base, size) = (e.object.address, e.object.size);
                    e.object.holds(a, bytes).then_some((base, size, a))
                });
                let payload = self.choose_target(
                    state,
                    site,
                    |ex, st| match known {
                        Some((base, size, _)) => Ok((
                            vec![in_bounds(&p, base, size, bytes)],
                            vec![base | FIXED_ADDRESS],
                        )),
                        None => ex.pointer_targets(st, &p, bytes, searched),
                    },
                    |st, payloads| {
                        recorded_conditions(payloads, |payload| {
                            let base = payload & !FIXED_ADDRESS;
                            st.memory
                                .get(base)
                                .map(|e| in_bounds(&p, base, e.object.size, bytes))
                        })
                    },
                )?;
                if payload == UNLISTED || payload == NO_TARGET {
                    searched.forks += 1;
                    let more = searched.forks < MAX_TARGET_FORKS;
                    // The unlisted side holds more targets: the next fork.
                    if payload == UNLISTED && more {
                        return self.resolve_past(state, addr, bytes, Some(site), searched);
                    }
                    // Outside every target found. A model there in bounds
                    // of an object is no error: that object (and maybe
                    // others) was left unlisted, and the next fork lists it.
                    let v = self.example(state, &Value::Symbolic(p.clone()))? as u64;
                    let valid = state
                        .memory
                        .find(v)
                        .is_some_and(|e| e.object.holds(v, bytes));
                    if !valid {
                        return Err(self.bad_address(state, v, bytes));
                    }
                    if more {
                        return self.resolve_past(state, addr, bytes, Some(site), searched);
                    }
                    return Err(Flow::End(PathEnd::Early(EarlyReason::MaxTargets)));
                }
                let base = payload & !FIXED_ADDRESS;
                if payload & FIXED_ADDRESS == 0 {
                    let offset = expr::sub(&p, &expr::constant(base as u128, 64));
                    return Ok((base, Value::from_expr(offset)));
                }
                // The path allows `p` one value: any model's (on a guided
                // prefix the recorded inputs') is it.
                let a = match known {
                    Some((_, _, a)) => a,
                    None => {
                        let a = self.example(state, &Value::Symbolic(p.clone()))? as u64;
                        state.addresses.insert(p, a);
                        self.solver.fixed_address();
                        a
                    }
                };
                Ok((base, Value::concrete((a - base).into(), 64)))
            }
        }
    }

    /// The objects an access of `bytes` bytes at `p` may fall into, one
    /// alternative each; then, if the access may also fall outside all of
    /// them, the error alternative (`NO_TARGET`). Where a fork cannot list
    /// them all (more than `MAX_POINTER_TARGETS`, or a search that ran out
    /// before it knew), its last alternative is `UNLISTED` instead: outside
    /// the objects listed, where the access is resolved again. Calling that
    /// side an error made valid accesses through a table of 20 pointers "in
    /// no object".
    ///
    /// The first fork finds its targets one model at a time, which finds
    /// the one object of a pointer into an array at once among thousands.
    /// Each model excludes a region from the next search: the object it hit
    /// or the gap between objects it fell into, so every object the pointer
    /// can reach is found even when wild values come first. The forks after
    /// it (a table of pointers, a pointer read whole from input) go through
    /// the objects in address order from where the one before stopped,
    /// asking of each whether the access may fall into it: the searches by
    /// model came upon the same gaps again and found a target a fork.
    fn pointer_targets(
        &mut self,
        state: &State,
        p: &ExprRef,
        bytes: u64,
        searched: &mut Searched,
    ) -> Exec<(Vec<ExprRef>, Vec<u64>)> {
        let mut found = Found::default();
        if searched.forks == 0 {
            self.targets_by_model(state, p, bytes, &mut found)?;
        } else {
            self.targets_in_order(state, p, bytes, searched, &mut found)?;
        }
        let Found {
            mut conds,
            mut payloads,
            outside,
            error_possible,
            unlisted,
        } = found;
        searched.error_possible |= error_possible;
        if unlisted {
            conds.push(outside);
            payloads.push(UNLISTED);
        } else if searched.error_possible || conds.is_empty() {
            conds.push(outside);
            payloads.push(NO_TARGET);
        }
        Ok(by_target(conds, payloads))
    }

    /// Lists the objects an access at `p` may fall into, found one model at
    /// a time (see [`Self::pointer_targets`]).
    fn targets_by_model(
        &mut self,
        state: &State,
        p: &ExprRef,
        bytes: u64,
        found: &mut Found,
    ) -> Exec<()> {
        let mut unexplored = expr::bool_const(true);
        for _ in 0..MAX_POINTER_SEARCH {
            // The path's model, where it lies in the region left, says the
            // region can be reached and gives a value in it at once: the
            // first search always, where the solver walked a hashed index's
            // whole chain for a model it had.
            let hinted = known_inputs(state)
                .filter(|h| unexplored.is_true() || self.solver.value_under(h, &unexplored) == 1);
            let v = match hinted {
                Some(h) => {
                    self.solver.answered_by_path_model();
                    self.solver.value_under(h, p) as u64
                }
                None => {
                    match self.solver.may_be_true(&state.constraints, &unexplored) {
                        Ok(true) => {}
                        Ok(false) => return Ok(()),
                        Err(e) => return Err(self.solver_error(state, e)),
                    }
                    let mut cs = (*state.constraints).clone();
                    cs.push(unexplored.clone());
                    match self.solver.get_value(&cs, p) {
                        Ok(v) => v as u64,
                        Err(e) => return Err(self.solver_error(state, e)),
                    }
                }
            };
            let region = match state.memory.find(v) {
                Some(e) => {
                    let (base, size) = (e.object.address, e.object.size);
                    let inside = in_bounds(p, base, size, bytes);
                    if inside.is_false() {
                        found.error_possible = true;
                    } else if found.payloads.len() < MAX_POINTER_TARGETS {
                        let fixed = self.fixed_inside(state, p, &inside, v);
                        found.list(inside.clone(), base, fixed);
                    } else {
                        found.unlisted = true;
                    }
                    let starts_in = in_bounds(p, base, size, 1);
                    if starts_in != inside {
                        // It may also start inside and run past the end.
                        found.error_possible = true;
                    }
                    starts_in
                }
                None => {
                    found.error_possible = true;
                    let (lo, hi) = state.memory.gap_around(v);
                    let off = expr::sub(p, &expr::constant(lo as u128, 64));
                    match hi {
                        // The gap past the last object takes in the top
                        // address too: a model there, left out, came back
                        // at every search, which then found no object.
                        u64::MAX => expr::ule(&off, &expr::constant((hi - lo) as u128, 64)),
                        _ => expr::ult(&off, &expr::constant((hi - lo) as u128, 64)),
                    }
                }
            };
            unexplored = expr::and(&unexplored, &expr::not(&region));
        }
        // Regions left unexplored may hold more objects.
        found.unlisted = true;
        Ok(())
    }

    /// Lists the objects from `searched.after` on, in address order, that
    /// an access at `p` may fall into, as many as a fork lists (see
    /// [`Self::pointer_targets`]).
    fn targets_in_order(
        &mut self,
        state: &State,
        p: &ExprRef,
        bytes: u64,
        searched: &mut Searched,
        found: &mut Found,
    ) -> Exec<()> {
        let objects: Vec<(u64, u64)> = state
            .memory
            .objects_from(searched.after)
            .map(|e| (e.object.address, e.object.size))
            .collect();
        for (base, size) in objects {
            if found.payloads.len() == MAX_POINTER_TARGETS {
                searched.after = base;
                found.unlisted = true;
                return Ok(());
            }
            let inside = in_bounds(p, base, size, bytes);
            let starts_in = in_bounds(p, base, size, 1);
            let may = |ex: &mut Self, c: &ExprRef| {
                ex.solver
                    .may_be_true(&state.constraints, c)
                    .map_err(|e| ex.solver_error(state, e))
            };
            if !inside.is_false() && may(self, &inside)? {
                let v = match self.solver.get_value(
                    &[state.constraints.as_slice(), std::slice::from_ref(&inside)].concat(),
                    p,
                ) {
                    Ok(v) => v as u64,
                    Err(e) => return Err(self.solver_error(state, e)),
                };
                let fixed = self.fixed_inside(state, p, &inside, v);
                found.list(inside.clone(), base, fixed);
            }
            if starts_in != inside && may(self, &expr::and(&starts_in, &expr::not(&inside)))? {
                found.error_possible = true;
            }
        }
        searched.after = u64::MAX;
        // Every object is listed by now: outside them lies the error.
        found.error_possible = true;
        Ok(())
    }

    /// Whether `p` can only be `v` where it falls `inside` a target. A
    /// solver failure says no: the accesses then stay symbolic, as correct.
    /// Being only a shortcut, it gets a probe's time: a pointer into a
    /// table at an index a checksum computed (cksum's CRC) made it a 10 s
    /// timeout at each access. Such a pointer can almost always take other
    /// values, which the path's model with one input byte changed shows
    /// before any solver call, or else has one because the path fixed the
    /// bytes it reads: each access of a Csmith program's CRC over its
    /// symbolic globals timed out otherwise.
    fn fixed_inside(&mut self, state: &State, p: &ExprRef, inside: &ExprRef, v: u64) -> bool {
        let other = expr::and(inside, &expr::ne(p, &expr::constant(v.into(), 64)));
        if let Some(known) = known_inputs(state) {
            if let Some(other_may) = self.solver.nearby(&state.constraints, &other, known) {
                return !other_may;
            }
        }
        let answer = self
            .solver
            .probing(|s| s.may_be_true(&state.constraints, &other));
        matches!(answer, Ok(false))
    }

    pub(super) fn bad_address(&self, state: &State, a: u64, bytes: u64) -> Flow {
        if a < NULL_PAGE {
            return self.error(
                state,
                ErrorKind::Null,
                format!("null pointer access ({bytes} bytes at {a:#x})"),
            );
        }
        if let Some(o) = state.memory.find_freed(a) {
            return self.error(
                state,
                ErrorKind::UseAfterFree,
                format!("use after free of `{}` at {a:#x}", o.name),
            );
        }
        // An access a little past an object's end names the object.
        let past = state.memory.below(a).and_then(|o| {
            let end = o.address.saturating_add(o.size);
            let beyond = a.checked_sub(end)?;
            (beyond < 4096).then(|| {
                format!(
                    " ({beyond} bytes past the end of `{}`, {} bytes at {:#x})",
                    o.name, o.size, o.address
                )
            })
        });
        self.error(
            state,
            ErrorKind::Ptr,
            format!(
                "access to {bytes} bytes at {a:#x}, which is in no object{}",
                past.unwrap_or_default()
            ),
        )
    }

    pub(crate) fn load(
        &mut self,
        state: &mut State,
        addr: &Value,
        bytes: u32,
        width: u32,
        site: Option<SiteId>,
    ) -> Exec<Value> {
        let (base, offset) = self.resolve(state, addr, bytes as u64, site)?;
        let entry = state.memory.get(base).expect("resolved objects are live");
        Ok(match offset {
            Value::Concrete { bits, .. } => entry.state.read(bits.get() as u64, bytes, width),
            Value::Symbolic(off) => entry.state.read_symbolic(&off, bytes, width),
        })
    }

    pub(crate) fn store(
        &mut self,
        state: &mut State,
        addr: &Value,
        bytes: u32,
        value: &Value,
        site: Option<SiteId>,
    ) -> Exec<()> {
        let (base, offset) = self.resolve(state, addr, bytes as u64, site)?;
        if self.summarising {
            Self::note_input_write(state, base);
        }
        let entry = state.memory.get(base).expect("resolved objects are live");
        if entry.object.read_only {
            let name = entry.object.name.clone();
            return Err(self.error(
                state,
                ErrorKind::ReadOnly,
                format!("write into read-only `{name}`"),
            ));
        }
        let value = if value.width() < bytes * 8 {
            self.resize(value, bytes * 8, false)
        } else {
            value.clone()
        };
        let obj = state
            .memory
            .state_mut(base)
            .expect("resolved objects are live");
        match offset {
            Value::Concrete { bits, .. } => obj.write(bits.get() as u64, bytes, &value),
            Value::Symbolic(off) => obj.write_symbolic(&off, bytes, &value),
        }
        Ok(())
    }

    /// Reads a NUL-terminated string at a concrete address (symbolic bytes as '?').
    pub(crate) fn read_c_string(&mut self, state: &mut State, addr: &Value) -> Exec<String> {
        let a = self.concretize(state, addr)? as u64;
        let mut out = Vec::new();
        loop {
            let Some(e) = state.memory.find(a + out.len() as u64) else {
                return Err(self.bad_address(state, a + out.len() as u64, 1));
            };
            let off = a + out.len() as u64 - e.object.address;
            match e.state.byte(off) {
                super::value::Byte::Concrete(0) => break,
                super::value::Byte::Concrete(b) => out.push(b),
                super::value::Byte::Symbolic(_) => out.push(b'?'),
            }
            if out.len() > 1 << 16 {
                break;
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// A fresh zeroed object of `size` bytes, allocated by the current
    /// instruction; returns its address. An object larger than mnemo
    /// models is an error of the path; one the memory limit has no room
    /// for ends the path early (`max-memory`) before anything is allocated.
    pub(crate) fn allocate(
        &mut self,
        state: &mut State,
        size: u64,
        kind: AllocKind,
        name: Arc<str>,
    ) -> Exec<u64> {
        self.check_allocation(state, size, &name)?;
        let addr = state.reserve(size, kind == AllocKind::Stack);
        Self::place(state, addr, size, kind, name);
        Ok(addr)
    }

    /// A fresh zeroed object of `size` bytes at `addr`, allocated by the
    /// current instruction (the caller has checked that it may be).
    pub(crate) fn place(state: &mut State, addr: u64, size: u64, kind: AllocKind, name: Arc<str>) {
        let (func, pc) = (state.frame().func, state.frame().pc);
        state.memory.insert(
            MemoryObject {
                address: addr,
                size,
                kind,
                name,
                site: Some((func, pc)),
                read_only: false,
            },
            ObjectState::zeroed(size),
        );
    }

    /// Whether an object of `size` bytes may be allocated (see
    /// [`Self::allocate`]).
    pub(crate) fn check_allocation(&self, state: &State, size: u64, what: &str) -> Exec<()> {
        if size > MAX_OBJECT {
            return Err(self.error(
                state,
                ErrorKind::User,
                format!("{what} of {size} bytes is too large"),
            ));
        }
        if !self.budget.allows(size) {
            return Err(Flow::End(PathEnd::Early(EarlyReason::MaxMemory)));
        }
        Ok(())
    }
}

/// The largest object mnemo models: 4 GiB.
pub const MAX_OBJECT: u64 = 1 << 32;

/// `base <= p && p + bytes <= base + size`, as one unsigned range check.
fn in_bounds(p: &ExprRef, base: u64, size: u64, bytes: u64) -> ExprRef {
    if bytes > size {
        return expr::bool_const(false);
    }
    let off = expr::sub(p, &expr::constant(base as u128, 64));
    expr::ule(&off, &expr::constant((size - bytes) as u128, 64))
}

/// Inputs known to satisfy the path's condition without a query: the
/// path's model, or, before the path has a condition, any inputs at all
/// (every byte 0); a path hashing its input before its first fork has no
/// model yet.
fn known_inputs(state: &State) -> Option<&Arc<Assignment>> {
    static UNCONSTRAINED: LazyLock<Arc<Assignment>> = LazyLock::new(Default::default);
    match &state.hint {
        Some(hint) => Some(hint),
        None => state.constraints.is_empty().then(|| &*UNCONSTRAINED),
    }
}
