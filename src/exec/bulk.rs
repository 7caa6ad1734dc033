//! The bulk memory intrinsics, `llvm.memcpy`, `llvm.memmove` and
//! `llvm.memset`, which clang -O0 emits for the C functions and for every
//! struct assignment (`it = table[i]`). A symbolic pointer forks over the
//! objects it may reach, as a load's or a store's does, and the bytes go
//! at the symbolic offset it has within its object; a symbolic length forks
//! over its values (`value_fork`), with one error path for the lengths that
//! run past the end of an object, as KLEE's byte loops give.

use super::end::ErrorKind;
use super::executor::{Exec, Executor};
use super::state::State;
use super::value::Value;
use super::value_fork::Chosen;
use crate::expr::{self, ExprRef};
use crate::ir::SiteId;

/// Where a bulk access goes: an object's base and the offset within it.
type Place = (u64, Value);

impl Executor {
    /// `llvm.memcpy` and `llvm.memmove`: `len` bytes from `src` to `dst`,
    /// all read before any is written, so overlapping ones move as memmove
    /// moves them.
    pub(super) fn mem_copy(
        &mut self,
        state: &mut State,
        site: Option<SiteId>,
        dst: &Value,
        src: &Value,
        len: &Value,
    ) -> Exec<()> {
        let concrete = |v: &Value| v.as_concrete().is_some();
        if self.summarising || (concrete(len) && concrete(src) && concrete(dst)) {
            // A summary keeps its inputs' handling (`resolve_concrete`).
            let n = self.concretize(state, len)? as u64;
            return self.copy_memory(state, dst, src, n);
        }
        self.settling(state, |ex, st| {
            let (n, places) = ex.bulk_places(st, site, &[src, dst], len)?;
            let [(sbase, soff), (dbase, doff)] = &places[..] else {
                return Ok(());
            };
            ex.check_writable(st, *dbase, "memcpy")?;
            let bytes = st
                .memory
                .get(*sbase)
                .expect("resolved objects are live")
                .state
                .bytes_at(soff, n);
            st.memory
                .state_mut(*dbase)
                .expect("resolved objects are live")
                .set_bytes_at(doff, &bytes);
            Ok(())
        })
    }

    /// `llvm.memset`: `len` copies of the low byte of `byte` at `dst`.
    pub(super) fn mem_set(
        &mut self,
        state: &mut State,
        site: Option<SiteId>,
        dst: &Value,
        byte: &Value,
        len: &Value,
    ) -> Exec<()> {
        let byte = self.resize(byte, 8, false).byte(0);
        if self.summarising || (len.as_concrete().is_some() && dst.as_concrete().is_some()) {
            let n = self.concretize(state, len)? as u64;
            if n > 0 {
                let (base, off) = self.resolve_concrete(state, dst, n)?;
                self.check_writable(state, base, "memset")?;
                let obj = state
                    .memory
                    .state_mut(base)
                    .expect("resolved objects are live");
                for i in 0..n {
                    obj.set_byte(off + i, byte.clone());
                }
            }
            return Ok(());
        }
        self.settling(state, |ex, st| {
            let (n, places) = ex.bulk_places(st, site, &[dst], len)?;
            let [(base, off)] = &places[..] else {
                return Ok(());
            };
            ex.check_writable(st, *base, "memset")?;
            let obj = st
                .memory
                .state_mut(*base)
                .expect("resolved objects are live");
            match off {
                Value::Concrete { bits, .. } => {
                    for i in 0..n {
                        obj.set_byte(bits.get() as u64 + i, byte.clone());
                    }
                }
                Value::Symbolic(_) => obj.set_bytes_at(off, &vec![byte; n as usize]),
            }
            Ok(())
        })
    }

    /// The length of a bulk access and the place each of `ptrs` gives it,
    /// every byte in bounds; no places for a length of 0, which touches
    /// nothing. A symbolic length forks over the values that keep the
    /// access within every object; where a larger one is possible, its
    /// path ends in an out-of-bounds error. Runs within `settling`.
    fn bulk_places(
        &mut self,
        state: &mut State,
        site: Option<SiteId>,
        ptrs: &[&Value],
        len: &Value,
    ) -> Exec<(u64, Vec<Place>)> {
        let n = match len {
            Value::Concrete { bits, .. } => bits.get() as u64,
            Value::Symbolic(e) => return self.bulk_places_symbolic(state, site, ptrs, e),
        };
        if n == 0 {
            return Ok((0, Vec::new()));
        }
        let mut places = Vec::with_capacity(ptrs.len());
        for p in ptrs {
            places.push(self.settle(state, |ex, st| ex.resolve(st, p, n, site))?);
        }
        Ok((n, places))
    }

    /// [`Self::bulk_places`] for a symbolic length `len`: the pointers are
    /// resolved first (a symbolic one forks over its objects), which bounds
    /// the lengths to fork over by the room left in each object.
    fn bulk_places_symbolic(
        &mut self,
        state: &mut State,
        site: Option<SiteId>,
        ptrs: &[&Value],
        len: &ExprRef,
    ) -> Exec<(u64, Vec<Place>)> {
        let n = if len.width() < 64 {
            expr::zext(len, 64)
        } else {
            expr::extract(len, 0, 64)
        };
        let at = |v: u64| expr::constant(u128::from(v), 64);
        // `None`: a concrete pointer into no object, which only a length of
        // 0 leaves untouched.
        let mut places: Vec<Option<Place>> = Vec::with_capacity(ptrs.len());
        let mut range = expr::bool_const(true);
        for p in ptrs {
            let place = match p {
                Value::Concrete { bits, .. } => state.memory.find(bits.get() as u64).map(|e| {
                    let off = bits.get() as u64 - e.object.address;
                    (e.object.address, Value::concrete(u128::from(off), 64))
                }),
                Value::Symbolic(_) => {
                    Some(self.settle(state, |ex, st| ex.resolve(st, p, 0, site))?)
                }
            };
            let room = match &place {
                Some((base, off)) => {
                    let size = state.memory.get(*base).map_or(0, |e| e.object.size);
                    expr::ule(&n, &expr::sub(&at(size), &off.to_expr()))
                }
                None => expr::eq(&n, &at(0)),
            };
            range = expr::and(&range, &room);
            places.push(place);
        }
        let site = site.unwrap_or(SiteId(u32::MAX));
        match self.fork_value(state, site, &n, &range)? {
            Chosen::Value(0) => Ok((0, Vec::new())),
            // Within `range`, every pointer is in an object.
            Chosen::Value(v) => Ok((v, places.into_iter().flatten().collect())),
            Chosen::Beyond => Err(self.bulk_out_of_bounds(state, ptrs, &places, &n)),
        }
    }

    /// The error of a path whose bulk access of `n` bytes runs past the
    /// end of an object (or starts in none), named as a load's would be.
    fn bulk_out_of_bounds(
        &mut self,
        state: &mut State,
        ptrs: &[&Value],
        places: &[Option<Place>],
        n: &ExprRef,
    ) -> super::executor::Flow {
        let n = match self.example(state, &Value::Symbolic(n.clone())) {
            Ok(v) => v as u64,
            Err(flow) => return flow,
        };
        for (p, place) in ptrs.iter().zip(places) {
            let Some((base, off)) = place else {
                let a = p.as_concrete().unwrap_or(0) as u64;
                return self.bad_address(state, a, n);
            };
            let off = match self.example(state, off) {
                Ok(v) => v as u64,
                Err(flow) => return flow,
            };
            if let Some(e) = state.memory.get(*base) {
                if off.saturating_add(n) > e.object.size {
                    let msg = format!(
                        "out-of-bounds access: {n} bytes at offset {off} of `{}` ({} bytes)",
                        e.object.name, e.object.size
                    );
                    return self.error(state, ErrorKind::Ptr, msg);
                }
            }
        }
        self.error(
            state,
            ErrorKind::Ptr,
            format!("out-of-bounds access of {n} bytes"),
        )
    }

    /// An error unless the object at `base` may be written.
    fn check_writable(&self, state: &State, base: u64, what: &str) -> Exec<()> {
        match state.memory.get(base) {
            Some(e) if e.object.read_only => Err(self.error(
                state,
                ErrorKind::ReadOnly,
                format!("{what} into read-only `{}`", e.object.name),
            )),
            _ => Ok(()),
        }
    }
}
