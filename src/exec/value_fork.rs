//! Value forks: a symbolic size (a memcpy's or memset's length, a malloc's
//! size, a VLA's count) forks the path once per value it can take, as
//! KLEE's byte loops and its per-size allocations do, where fixing it to
//! one value would lose the paths and errors of every other one.
//!
//! An instruction may fork more than once (a memcpy's length, then its
//! source, then its destination); `settle` keeps the fork rule of
//! `choices` (a child re-executes the instruction with its alternative
//! forced) true for such an instruction.

use super::access::{MAX_OBJECT, MAX_TARGET_FORKS};
use super::choices::by_target;
use super::end::{EarlyReason, PathEnd};
use super::executor::{Exec, Executor, Flow, NO_TARGET, UNLISTED};
use super::state::State;
use super::value::Value;
use crate::expr::{self, ExprRef};
use crate::ir::SiteId;

/// Values one value fork lists before the rest become one alternative
/// (`UNLISTED`), whose path forks again over them.
const MAX_FORK_VALUES: usize = 16;

/// The largest value a fork lists as its own alternative: the payload must
/// stay clear of `FIXED_ADDRESS` (2^62) and the marks just below 2^64.
const MAX_VALUE_PAYLOAD: u128 = (1 << 62) - 1;

/// What a value fork gave the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Chosen {
    /// The value, now fixed on the path.
    Value(u64),
    /// A value outside the range the fork was asked for (the path's
    /// condition says so): an error or a failed allocation, as the caller
    /// decides.
    Beyond,
}

impl Executor {
    /// Runs `run`, an instruction that may pass several choice points
    /// through [`Self::settle`]; once it has completed, the next
    /// instruction starts with nothing settled.
    pub(super) fn settling<T>(
        &mut self,
        state: &mut State,
        run: impl FnOnce(&mut Self, &mut State) -> Exec<T>,
    ) -> Exec<T> {
        // A child of this instruction's forks runs it again from the start.
        state.settled_taken = 0;
        let out = run(self, state)?;
        state.settled.clear();
        state.settled_taken = 0;
        Ok(out)
    }

    /// Runs `choose`, the next choice point of the current instruction, or,
    /// when this run of the instruction is a forked child's re-execution
    /// and the point was passed before the fork, gives back what it gave
    /// then: the child's forced alternative belongs to a later point.
    pub(super) fn settle(
        &mut self,
        state: &mut State,
        choose: impl FnOnce(&mut Self, &mut State) -> Exec<(u64, Value)>,
    ) -> Exec<(u64, Value)> {
        if let Some(done) = state.settled.get(state.settled_taken).cloned() {
            state.settled_taken += 1;
            return Ok(done);
        }
        let out = choose(self, state)?;
        state.settled.push(out.clone());
        state.settled_taken += 1;
        Ok(out)
    }

    /// Forks the path over the values of `e` for which `range` holds, one
    /// alternative each (the value, within `range`, joins the path
    /// condition), with one
    /// more for the values outside `range` where there may be some. Must
    /// run within [`Self::settling`].
    ///
    /// The values are found one solver model at a time, up to
    /// `MAX_FORK_VALUES`; when more remain, the path of the last
    /// alternative, `UNLISTED`, forks again at the same site over the
    /// next ones, up to `MAX_TARGET_FORKS` forks (1,024 values); a path
    /// with values still unlisted after them ends early (`max-values`), as
    /// a fully symbolic `malloc` size would otherwise fork for ever.
    /// Alternatives are recorded in the trie as a symbolic pointer's are,
    /// with the value as the payload (`e == payload` within `range`
    /// rebuilds the condition).
    pub(super) fn fork_value(
        &mut self,
        state: &mut State,
        site: SiteId,
        e: &ExprRef,
        range: &ExprRef,
    ) -> Exec<Chosen> {
        // Payloads are u64s below the marks.
        let range = if e.width() > 62 {
            expr::and(
                range,
                &expr::ule(e, &expr::constant(MAX_VALUE_PAYLOAD, e.width())),
            )
        } else {
            range.clone()
        };
        if self.summarising {
            // A summary's path keeps one value, as before value forks: its
            // replay at a call site checks that the value is feasible there.
            let v = self.concretize(state, &Value::Symbolic(e.clone()))?;
            if !self.may_be_true(state, &range)? {
                return Ok(Chosen::Beyond);
            }
            state.add_constraint(range);
            return Ok(Chosen::Value(v as u64));
        }
        let mut forks = 0;
        loop {
            let (payload, _) = self.settle(state, |ex, st| {
                let payload = ex.choose_target(
                    st,
                    site,
                    |ex, st| ex.value_alternatives(st, e, &range),
                    |_, payloads| Ok(value_conditions(e, &range, payloads)),
                )?;
                Ok((payload, Value::bool(false)))
            })?;
            match payload {
                UNLISTED => {
                    forks += 1;
                    if forks == MAX_TARGET_FORKS {
                        return Err(Flow::End(PathEnd::Early(EarlyReason::MaxValues)));
                    }
                }
                NO_TARGET => return Ok(Chosen::Beyond),
                v => return Ok(Chosen::Value(v)),
            }
        }
    }

    /// The values of `e` within `range` the path allows, up to
    /// `MAX_FORK_VALUES` of them, then `UNLISTED` if the search stopped
    /// there and `NO_TARGET` for the values outside `range` (the fork asks
    /// whether those two can hold), in payload order (see `by_target`).
    fn value_alternatives(
        &mut self,
        state: &State,
        e: &ExprRef,
        range: &ExprRef,
    ) -> Exec<(Vec<ExprRef>, Vec<u64>)> {
        let (mut payloads, all) = self.distinct_values(state, e, range, MAX_FORK_VALUES)?;
        if !all {
            payloads.push(UNLISTED);
        }
        if !range.is_true() {
            payloads.push(NO_TARGET);
        }
        Ok(by_target(value_conditions(e, range, &payloads), payloads))
    }

    /// Distinct values of `e` where `within` holds on the path, as the
    /// solver finds them, at most `max`; and whether they are all of them
    /// (`false`: the search stopped at `max`).
    pub(super) fn distinct_values(
        &mut self,
        state: &State,
        e: &ExprRef,
        within: &ExprRef,
        max: usize,
    ) -> Exec<(Vec<u64>, bool)> {
        let mut values = Vec::new();
        let mut rest = within.clone();
        while values.len() < max {
            match self.solver.may_be_true(&state.constraints, &rest) {
                Ok(true) => {}
                Ok(false) => return Ok((values, true)),
                Err(err) => return Err(self.solver_error(state, err)),
            }
            let mut cs = (*state.constraints).clone();
            cs.push(rest.clone());
            let v = match self.solver.get_value(&cs, e) {
                Ok(v) => v as u64,
                Err(err) => return Err(self.solver_error(state, err)),
            };
            rest = expr::and(&rest, &expr::not(&is_value(e, v)));
            values.push(v);
        }
        Ok((values, false))
    }

    /// The number of bytes an allocation of `e` bytes gets, forking over
    /// the values of a symbolic `e` up to `MAX_OBJECT`. Where `e` may be
    /// larger, one more path goes on with such a value, one the caller
    /// treats as it treats the same concrete size (a null malloc, an error
    /// for an alloca).
    pub(super) fn allocation_size(
        &mut self,
        state: &mut State,
        site: SiteId,
        e: &ExprRef,
    ) -> Exec<u64> {
        if let Some(c) = e.as_const() {
            return Ok(u64::try_from(c).unwrap_or(u64::MAX));
        }
        let fits = expr::ule(e, &expr::constant(u128::from(MAX_OBJECT), e.width()));
        let chosen = self.settling(state, |ex, st| ex.fork_value(st, site, e, &fits))?;
        match chosen {
            Chosen::Value(v) => Ok(v),
            Chosen::Beyond => {
                let v = self.example(state, &Value::Symbolic(e.clone()))?;
                Ok(u64::try_from(v).unwrap_or(u64::MAX).max(MAX_OBJECT + 1))
            }
        }
    }
}

/// `e == v`, at `e`'s width.
pub(super) fn is_value(e: &ExprRef, v: u64) -> ExprRef {
    expr::eq(e, &expr::constant(u128::from(v), e.width()))
}

/// The conditions of a value fork's recorded alternatives, as
/// `value_alternatives` built them: `e == v` within `range` for a value,
/// the values of `range` none of the listed ones for `UNLISTED`, and
/// outside `range` for `NO_TARGET`.
///
/// A value keeps `range` because `range` may read other inputs than `e`:
/// a length of 5 fits in a 6-byte row at offset `j` only where `j <= 1`,
/// and `e == 5` alone would let a later fork take `j == 3`, a path no
/// input runs (its test overran the row natively).
fn value_conditions(e: &ExprRef, range: &ExprRef, payloads: &[u64]) -> Vec<ExprRef> {
    let mut rest = range.clone();
    for &v in payloads
        .iter()
        .filter(|&&v| v != UNLISTED && v != NO_TARGET)
    {
        rest = expr::and(&rest, &expr::not(&is_value(e, v)));
    }
    payloads
        .iter()
        .map(|&v| match v {
            UNLISTED => rest.clone(),
            NO_TARGET => expr::not(range),
            v => expr::and(&is_value(e, v), range),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{Array, Assignment, UpdateList};

    /// The payloads of the alternatives whose conditions hold under `m`.
    fn holding(payloads: &[u64], conds: &[ExprRef], m: &Assignment) -> Vec<u64> {
        payloads
            .iter()
            .zip(conds)
            .filter(|(_, c)| expr::eval(c, m) != 0)
            .map(|(p, _)| *p)
            .collect()
    }

    /// A recorded value fork's conditions, rebuilt from its payloads, hold
    /// for exactly one alternative whatever the value: the listed values,
    /// the rest of the range, and what lies outside it.
    #[test]
    fn rebuilt_value_conditions_cover_each_value_once() {
        let a = Array::symbolic("vf_n", 1);
        let e = expr::read(&UpdateList::new(a.clone()), &expr::constant(0, 64));
        let range = expr::ule(&e, &expr::constant(9, 8));
        let payloads = [1, 5, UNLISTED, NO_TARGET];
        let conds = value_conditions(&e, &range, &payloads);
        for v in 0..=255u8 {
            let mut m = Assignment::new();
            m.set(&a, vec![v]);
            let holds = holding(&payloads, &conds, &m);
            let want = match v {
                1 | 5 => u64::from(v),
                0..=9 => UNLISTED,
                _ => NO_TARGET,
            };
            assert_eq!(holds, vec![want], "value {v}");
        }
    }

    /// The same where the range reads another input: a length `n` at an
    /// offset `j` in 6 bytes. A listed length holds only with the offsets
    /// it fits at, so no inputs meet two alternatives.
    #[test]
    fn a_value_keeps_a_range_that_reads_other_inputs() {
        let (na, ja) = (Array::symbolic("vf_len", 1), Array::symbolic("vf_at", 1));
        let byte = |a: &crate::expr::ArrayRef| {
            expr::read(&UpdateList::new(a.clone()), &expr::constant(0, 64))
        };
        let (n, j) = (byte(&na), byte(&ja));
        let range = expr::and(
            &expr::ule(&j, &expr::constant(6, 8)),
            &expr::ule(&n, &expr::sub(&expr::constant(6, 8), &j)),
        );
        let payloads = [5, UNLISTED, NO_TARGET];
        let conds = value_conditions(&n, &range, &payloads);
        for (nv, jv) in (0..=8u8).flat_map(|n| (0..=8u8).map(move |j| (n, j))) {
            let mut m = Assignment::new();
            m.set(&na, vec![nv]);
            m.set(&ja, vec![jv]);
            let holds = holding(&payloads, &conds, &m);
            let want = match jv <= 6 && nv <= 6 - jv {
                true if nv == 5 => 5,
                true => UNLISTED,
                false => NO_TARGET,
            };
            assert_eq!(holds, vec![want], "length {nv} at {jv}");
        }
    }
}
