//! The instruction loop: what one instruction does to a state. Arithmetic,
//! comparisons, casts, address arithmetic and control flow are done here;
//! loads, stores and calls are handed to `access` and `calls`, so that the
//! hot loop stays one flat `match` that reads whole.

use super::end::ErrorKind;
use super::executor::{Exec, Executor, Flow};
use super::memory::AllocKind;
use super::state::{block_address, Frame, State, NULL_PAGE};
use super::value::Value;
use crate::expr::{self, ExprRef};
use crate::ir::semantics::{self, mask};
use crate::ir::{
    switch_alternatives, AsmOp, BinOp, BlockId, CastOp, Inst, InstId, Module, Operand, Reg, SiteId,
    X87_DEFAULT_CONTROL,
};

impl Executor {
    #[inline]
    pub(super) fn operand(&self, frame: &Frame, op: Operand) -> Value {
        match op {
            Operand::Reg(r) => frame.regs.get(r).clone(),
            Operand::Const(c) => self.consts[c.index()].clone(),
        }
    }

    /// Truncates or extends a value to `width` bits.
    pub(crate) fn resize(&self, v: &Value, width: u32, signed: bool) -> Value {
        let from = v.width();
        if from == width {
            return v.clone();
        }
        let op = if width < from {
            CastOp::Trunc
        } else if signed {
            CastOp::SExt
        } else {
            CastOp::ZExt
        };
        cast_value(op, width, v)
    }

    pub(super) fn execute(&mut self, module: &Module, state: &mut State) -> Exec<()> {
        let frame = state.stack.last().expect("a running state has a frame");
        let func = frame.func;
        let pc = frame.pc;
        let body = module
            .func(func)
            .body
            .as_ref()
            .expect("frames run defined functions");
        let inst = &body.insts[pc.index()];
        if state.threads.is_some() && inst.is_branch() && self.preempted(state)? {
            return Ok(());
        }
        self.instructions += 1;
        state.instructions += 1;
        state.since_new_cover += 1;
        if let Some(lines) = &mut state.lines {
            // A call runs its function's opening line too, as gcov counts
            // it, though no instruction of the body is placed there.
            let opening = (pc.index() == 0).then(|| module.func(func).loc).flatten();
            // The runtime's lines are in no test's `.cov`: noting them
            // would only grow every pending path's set.
            for loc in opening.into_iter().chain(body.locs[pc.index()]) {
                if !self.is_runtime(Some(loc)) {
                    lines.note(loc);
                }
            }
        }
        let cov = &mut self.covered[func.index()][pc.index()];
        if !*cov {
            *cov = true;
            self.covered_count += 1;
            state.since_new_cover = 0;
            state.covered_new = true;
            if self.target_hit_queries.is_none() && self.targets.contains(&(func, pc)) {
                self.target_hit_queries = Some(self.solver.stats().queries);
            }
        }
        match inst {
            Inst::Binary {
                op,
                width,
                lhs,
                rhs,
                dst,
                site,
            } => {
                let a = self.operand(state.frame(), *lhs);
                let b = self.operand(state.frame(), *rhs);
                let v = self.binary(state, *op, *width, a, b, *site)?;
                self.set_and_advance(state, *dst, v);
            }
            Inst::ICmp {
                pred,
                width,
                lhs,
                rhs,
                dst,
            } => {
                let a = self.operand(state.frame(), *lhs);
                let b = self.operand(state.frame(), *rhs);
                let v = match (&a, &b) {
                    (Value::Concrete { bits: x, .. }, Value::Concrete { bits: y, .. }) => {
                        Value::bool(semantics::icmp(*pred, *width, x.get(), y.get()))
                    }
                    _ => Value::from_expr(expr::icmp(*pred, &a.to_expr(), &b.to_expr())),
                };
                self.set_and_advance(state, *dst, v);
            }
            Inst::FBinary {
                op,
                ty,
                lhs,
                rhs,
                dst,
            } => {
                let [x, y] = self.float_operands(state, [*lhs, *rhs])?;
                let v = super::float::binary(*op, *ty, x, y);
                self.set_and_advance(state, *dst, v);
            }
            Inst::FNeg { ty, src, dst } => {
                let [x] = self.float_operands(state, [*src])?;
                let v = super::float::neg(*ty, x);
                self.set_and_advance(state, *dst, v);
            }
            Inst::FCmp {
                pred,
                ty,
                lhs,
                rhs,
                dst,
            } => {
                let [x, y] = self.float_operands(state, [*lhs, *rhs])?;
                let v = Value::bool(super::float::compare(*pred, *ty, x, y));
                self.set_and_advance(state, *dst, v);
            }
            Inst::Cast {
                op, to, src, dst, ..
            } => {
                let v = self.operand(state.frame(), *src);
                let v = cast_value(*op, *to, &v);
                self.set_and_advance(state, *dst, v);
            }
            Inst::FCast {
                op,
                float,
                to_float,
                int_width,
                src,
                dst,
            } => {
                let [x] = self.float_operands(state, [*src])?;
                let v = super::float::convert(*op, *float, *to_float, *int_width, x);
                self.set_and_advance(state, *dst, v);
            }
            Inst::Select {
                cond,
                then_val,
                else_val,
                dst,
                ..
            } => {
                let c = self.operand(state.frame(), *cond);
                let t = self.operand(state.frame(), *then_val);
                let e = self.operand(state.frame(), *else_val);
                let v = match c.as_concrete() {
                    Some(1) => t,
                    Some(_) => e,
                    None => {
                        Value::from_expr(expr::select(&c.to_expr(), &t.to_expr(), &e.to_expr()))
                    }
                };
                self.set_and_advance(state, *dst, v);
            }
            Inst::Phi { .. } => {
                // Phis are evaluated on entry to their block; reaching one means
                // the block was entered at its first instruction.
                state.frame_mut().pc = InstId(pc.0 + 1);
            }
            Inst::Alloca {
                dst,
                elem_size,
                count,
                count_width: _,
                align: _,
                site,
            } => {
                let n = self.operand(state.frame(), *count);
                let size = match n {
                    Value::Concrete { bits, .. } => elem_size.saturating_mul(bits.get() as u64),
                    // A VLA's length: one path per size (`value_fork`).
                    Value::Symbolic(n) => {
                        let total = expr::mul(
                            &expr::zext(&n, 128),
                            &expr::constant(u128::from(*elem_size), 128),
                        );
                        let site = site.unwrap_or(SiteId(u32::MAX));
                        self.allocation_size(state, site, &total)?
                    }
                };
                let name = self.alloca_names[func.0 as usize].clone();
                let addr = self.allocate(state, size, AllocKind::Stack, name)?;
                state.frame_mut().allocas.push(addr);
                self.set_and_advance(state, *dst, Value::concrete(addr as u128, 64));
            }
            Inst::Load {
                dst,
                addr,
                width,
                bytes,
                site,
            } => {
                let a = self.operand(state.frame(), *addr);
                let v = self.load(state, &a, *bytes, *width, Some(*site))?;
                self.set_and_advance(state, *dst, v);
            }
            Inst::Store {
                value,
                addr,
                bytes,
                site,
                ..
            } => {
                let a = self.operand(state.frame(), *addr);
                let v = self.operand(state.frame(), *value);
                self.store(state, &a, *bytes, &v, Some(*site))?;
                state.frame_mut().pc = InstId(pc.0 + 1);
            }
            Inst::Gep {
                dst,
                base,
                offset,
                indices,
            } => {
                let b = self.operand(state.frame(), *base);
                let mut acc = match b {
                    Value::Concrete { bits, .. } => Value::concrete(
                        (bits.get() as u64).wrapping_add(*offset as u64) as u128,
                        64,
                    ),
                    v => add_values(&v, &Value::concrete(*offset as u64 as u128, 64)),
                };
                for ix in indices {
                    let i = self.operand(state.frame(), ix.value);
                    let i = self.resize(&i, 64, true);
                    let scaled = mul_values(&i, &Value::concrete(ix.scale as u128, 64));
                    acc = add_values(&acc, &scaled);
                }
                self.set_and_advance(state, *dst, acc);
            }
            Inst::ExtractValue {
                dst,
                agg,
                offset,
                width,
            } => {
                let a = self.operand(state.frame(), *agg);
                let v = match a {
                    Value::Concrete { bits, .. } => Value::concrete(bits.get() >> offset, *width),
                    Value::Symbolic(e) => Value::from_expr(expr::extract(&e, *offset, *width)),
                };
                self.set_and_advance(state, *dst, v);
            }
            Inst::InsertValue {
                dst,
                agg,
                agg_width,
                elem,
                offset,
                width,
            } => {
                let a = self.operand(state.frame(), *agg);
                let e = self.operand(state.frame(), *elem);
                let v = insert_bits(&a, *agg_width, &e, *offset, *width);
                self.set_and_advance(state, *dst, v);
            }
            Inst::Br { target } => {
                self.jump(module, state, *target);
            }
            Inst::CondBr {
                cond,
                then_bb,
                else_bb,
                site,
            } => {
                let c = self.operand(state.frame(), *cond);
                let target = match c {
                    Value::Concrete { bits, .. } => {
                        if bits.get() != 0 {
                            *then_bb
                        } else {
                            *else_bb
                        }
                    }
                    Value::Symbolic(e) => {
                        let (alt, _) = self.fork(
                            state,
                            *site,
                            &[e.clone(), expr::not(&e)],
                            &[0, 0],
                            &[*then_bb, *else_bb],
                        )?;
                        if alt == 0 {
                            *then_bb
                        } else {
                            *else_bb
                        }
                    }
                };
                self.jump(module, state, target);
            }
            Inst::Switch {
                cond,
                width,
                cases,
                default,
                site,
            } => {
                let c = self.operand(state.frame(), *cond);
                let target = match c {
                    Value::Concrete { bits, .. } => cases
                        .iter()
                        .find(|(v, _)| *v == bits.get())
                        .map(|(_, b)| *b)
                        .unwrap_or(*default),
                    Value::Symbolic(e) => {
                        let targets = switch_alternatives(cases, *default);
                        // A case target's condition: any of its values.
                        let mut of_target: Vec<Option<ExprRef>> = vec![None; targets.len() - 1];
                        let mut none = expr::bool_const(true);
                        for (v, b) in cases {
                            let is = expr::eq(&e, &expr::constant(*v, *width));
                            none = expr::and(&none, &expr::not(&is));
                            let k = targets
                                .iter()
                                .position(|t| t == b)
                                .expect("every case target is an alternative");
                            of_target[k] = Some(match of_target[k].take() {
                                Some(c) => expr::or(&c, &is),
                                None => is,
                            });
                        }
                        let mut conds: Vec<ExprRef> = of_target.into_iter().flatten().collect();
                        conds.push(none);
                        let payloads: Vec<u64> = (0..targets.len() as u64).collect();
                        let (alt, _) = self.fork(state, *site, &conds, &payloads, &targets)?;
                        targets[alt]
                    }
                };
                self.jump(module, state, target);
            }
            Inst::IndirectBr {
                addr,
                targets,
                site,
            } => {
                let a = self.operand(state.frame(), *addr);
                let target = self.indirect_target(state, a, targets, *site)?;
                self.jump(module, state, target);
            }
            Inst::Ret { value } => {
                let v = value.map(|op| self.operand(state.frame(), op));
                self.return_from(state, v)?;
            }
            Inst::Unreachable => {
                return Err(self.error(
                    state,
                    ErrorKind::Unreachable,
                    "reached an `unreachable` instruction",
                ));
            }
            Inst::Call {
                dst,
                ret_width,
                callee,
                args,
                site,
            } => {
                self.call(module, state, *dst, *ret_width, *callee, args, *site)?;
            }
            Inst::Intrinsic {
                kind,
                dst,
                width,
                args,
                site,
            } => {
                let args: Vec<Value> = args
                    .iter()
                    .map(|a| self.operand(state.frame(), *a))
                    .collect();
                let v = self.intrinsic(state, *kind, *width, &args, *site)?;
                let fr = state.frame_mut();
                if let (Some(d), Some(v)) = (dst, v) {
                    fr.regs.set(*d, v);
                }
                fr.pc = InstId(pc.0 + 1);
            }
            Inst::Unsupported { what } => {
                return Err(self.error(state, ErrorKind::Unsupported, what.clone()));
            }
            Inst::Asm { op, addr } => {
                self.asm(state, *op, *addr)?;
                state.frame_mut().pc = InstId(pc.0 + 1);
            }
        }
        Ok(())
    }

    /// Inline assembly the engine knows. Its floating point rounds to
    /// nearest at full precision, which is the x87 control word after
    /// `finit`: that is the word `fnstcw` stores, and `fldcw` of another
    /// (another rounding or precision) ends the path as unsupported.
    fn asm(&mut self, state: &mut State, op: AsmOp, addr: Option<Operand>) -> Exec<()> {
        let Some(addr) = addr.map(|a| self.operand(state.frame(), a)) else {
            return Ok(());
        };
        let default = Value::concrete(u128::from(X87_DEFAULT_CONTROL), 16);
        match op {
            AsmOp::Barrier => Ok(()),
            AsmOp::StoreFpuControl => self.store(state, &addr, 2, &default, None),
            AsmOp::LoadFpuControl => {
                let word = self.load(state, &addr, 2, 16, None)?;
                if word.as_concrete() == Some(u128::from(X87_DEFAULT_CONTROL)) {
                    return Ok(());
                }
                Err(self.error(
                    state,
                    ErrorKind::Unsupported,
                    "fldcw of an x87 control word other than the default: \
                     only rounding to nearest at full precision is modelled",
                ))
            }
        }
    }

    /// The operands of a float operation, which mnemo computes concretely
    /// only: a symbolic one is fixed to one value the path allows, as KLEE
    /// does, so that the path goes on (with that value only) rather than
    /// end where a program parses a number into a `double`.
    fn float_operands<const N: usize>(
        &mut self,
        state: &mut State,
        ops: [Operand; N],
    ) -> Exec<[u128; N]> {
        let mut out = [0u128; N];
        for (slot, op) in out.iter_mut().zip(ops) {
            let v = self.operand(state.frame(), op);
            *slot = self.concretize(state, &v)?;
        }
        Ok(out)
    }

    #[inline]
    fn set_and_advance(&self, state: &mut State, dst: Reg, v: Value) {
        let fr = state.frame_mut();
        fr.regs.set(dst, v);
        fr.pc = InstId(fr.pc.0 + 1);
    }

    /// The block an `indirectbr` to `addr` goes to: the one of `targets`
    /// at that address. A symbolic address forks once per target it may
    /// be, and once more where it may be none: an error, as a call through
    /// a pointer to no function is.
    fn indirect_target(
        &mut self,
        state: &mut State,
        addr: Value,
        targets: &[BlockId],
        site: SiteId,
    ) -> Exec<BlockId> {
        let func = state.frame().func;
        let at = |b: BlockId| block_address(func, b);
        let e = match addr {
            Value::Concrete { bits, .. } => {
                let a = bits.get() as u64;
                return match targets.iter().find(|&&b| at(b) == a) {
                    Some(&b) => Ok(b),
                    None => Err(self.bad_jump(state, a)),
                };
            }
            Value::Symbolic(e) => e,
        };
        let mut conds = Vec::with_capacity(targets.len() + 1);
        let mut none = expr::bool_const(true);
        for &b in targets {
            let is = expr::eq(&e, &expr::constant(u128::from(at(b)), 64));
            none = expr::and(&none, &expr::not(&is));
            conds.push(is);
        }
        conds.push(none);
        let payloads: Vec<u64> = (0..conds.len() as u64).collect();
        let (alt, _) = self.fork(state, site, &conds, &payloads, targets)?;
        match targets.get(alt) {
            Some(&b) => Ok(b),
            None => {
                let a = self.example(state, &Value::Symbolic(e))? as u64;
                Err(self.bad_jump(state, a))
            }
        }
    }

    /// The error of an indirect jump to `addr`, no label it may go to.
    fn bad_jump(&self, state: &State, addr: u64) -> Flow {
        if addr < NULL_PAGE {
            return self.error(
                state,
                ErrorKind::Null,
                "indirect jump through a null address",
            );
        }
        self.error(
            state,
            ErrorKind::BadCall,
            format!("indirect jump to {addr:#x}, which is not a label it may go to"),
        )
    }

    /// Enters `target`, evaluating its phis together from the incoming block.
    fn jump(&self, module: &Module, state: &mut State, target: BlockId) {
        let func = state.frame().func;
        self.enter_block(state, func, target);
        let fr = state.stack.last_mut().expect("a running state has a frame");
        let body = module
            .func(fr.func)
            .body
            .as_ref()
            .expect("frames run defined functions");
        let from = body.block_of[fr.pc.index()];
        fr.entered_by = Some(fr.pc);
        let block = body.block(target);
        if block.first != block.body_start {
            let mut values = Vec::with_capacity((block.body_start.0 - block.first.0) as usize);
            for i in block.first.0..block.body_start.0 {
                if let Inst::Phi {
                    dst,
                    incoming,
                    width,
                } = &body.insts[i as usize]
                {
                    let v = incoming
                        .iter()
                        .find(|(b, _)| *b == from)
                        .map(|(_, op)| self.operand(fr, *op))
                        .unwrap_or(Value::concrete(0, *width));
                    values.push((*dst, v));
                }
            }
            for (dst, v) in values {
                fr.regs.set(dst, v);
            }
        }
        fr.pc = block.body_start;
    }

    fn binary(
        &mut self,
        state: &mut State,
        op: BinOp,
        width: u32,
        a: Value,
        b: Value,
        site: Option<SiteId>,
    ) -> Exec<Value> {
        let checked = site.is_some() && semantics::is_checked(op);
        if let (Value::Concrete { bits: x, .. }, Value::Concrete { bits: y, .. }) = (&a, &b) {
            let (x, y) = (&x.get(), &y.get());
            if checked {
                if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) && *y == 0 {
                    return Err(self.error(state, ErrorKind::DivByZero, "division by zero"));
                }
                if matches!(op, BinOp::SDiv | BinOp::SRem)
                    && *x == least_signed(width)
                    && *y == semantics::mask(width)
                {
                    return Err(self.error(state, ErrorKind::Overflow, quotient_overflow(width)));
                }
                if matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr) && *y >= width as u128 {
                    return Err(self.error(
                        state,
                        ErrorKind::Overshift,
                        format!("shift by {y} of a {width}-bit value"),
                    ));
                }
            }
            return Ok(Value::concrete(semantics::binary(op, width, *x, *y), width));
        }
        let (ea, eb) = (a.to_expr(), b.to_expr());
        if let Some(site) = site.filter(|_| checked) {
            let (bad, kind, msg) = match op {
                BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem => (
                    expr::eq(&eb, &expr::constant(0, width)),
                    ErrorKind::DivByZero,
                    "division by zero".to_string(),
                ),
                _ => (
                    expr::uge(&eb, &expr::constant(width as u128, width)),
                    ErrorKind::Overshift,
                    format!("shift amount may be {width} or more"),
                ),
            };
            // The least signed value divided by -1 has no quotient: the
            // processor traps on it as on a zero divisor (SIGFPE). Where it
            // may, one fork over the three.
            let overflow = match op {
                BinOp::SDiv | BinOp::SRem => expr::and(
                    &expr::eq(&ea, &expr::constant(least_signed(width), width)),
                    &expr::eq(&eb, &expr::constant(semantics::mask(width), width)),
                ),
                _ => expr::bool_const(false),
            };
            if !bad.is_false() || !overflow.is_false() {
                // Two alternatives where the quotient cannot overflow, as
                // every division had before that was checked.
                let alternatives = if overflow.is_false() { 2 } else { 3 };
                let fine = expr::and(&expr::not(&bad), &expr::not(&overflow));
                let conds = [fine, bad, overflow];
                let (alt, _) = self.fork(
                    state,
                    site,
                    &conds[..alternatives],
                    &[0; 3][..alternatives],
                    &[],
                )?;
                match alt {
                    0 => {}
                    1 => return Err(self.error(state, kind, msg)),
                    _ => {
                        return Err(self.error(
                            state,
                            ErrorKind::Overflow,
                            quotient_overflow(width),
                        ))
                    }
                }
            }
        }
        Ok(Value::from_expr(expr::binary(op, &ea, &eb)))
    }
}

/// The least signed value of `width` bits, as its bits.
fn least_signed(width: u32) -> u128 {
    1 << (width - 1)
}

/// What a path dividing the least signed value by -1 is told.
fn quotient_overflow(width: u32) -> String {
    format!("division of the least {width}-bit signed value by -1 overflows")
}

pub(crate) fn cast_value(op: CastOp, to: u32, v: &Value) -> Value {
    match v {
        Value::Concrete { bits, width } => {
            Value::concrete(semantics::cast(op, *width, to, bits.get()), to)
        }
        Value::Symbolic(e) => {
            let from = e.width();
            Value::from_expr(match op {
                _ if from == to => e.clone(),
                CastOp::SExt if to > from => expr::sext(e, to),
                _ if to > from => expr::zext(e, to),
                _ => expr::extract(e, 0, to),
            })
        }
    }
}

pub(crate) fn add_values(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Concrete { bits: x, width }, Value::Concrete { bits: y, .. }) => Value::concrete(
            semantics::binary(BinOp::Add, *width, x.get(), y.get()),
            *width,
        ),
        _ => Value::from_expr(expr::add(&a.to_expr(), &b.to_expr())),
    }
}

pub(crate) fn mul_values(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Concrete { bits: x, width }, Value::Concrete { bits: y, .. }) => Value::concrete(
            semantics::binary(BinOp::Mul, *width, x.get(), y.get()),
            *width,
        ),
        _ => Value::from_expr(expr::mul(&a.to_expr(), &b.to_expr())),
    }
}

/// Writes `elem` at bit `offset` of an aggregate of `agg_width` bits.
fn insert_bits(agg: &Value, agg_width: u32, elem: &Value, offset: u32, width: u32) -> Value {
    if let (Value::Concrete { bits: a, .. }, Value::Concrete { bits: e, .. }) = (agg, elem) {
        let (a, e) = (a.get(), e.get());
        let m = mask(width) << offset;
        return Value::concrete((a & !m) | ((e << offset) & m), agg_width);
    }
    let a = agg.to_expr();
    let mut acc = elem.to_expr();
    if offset > 0 {
        acc = expr::concat(&acc, &expr::extract(&a, 0, offset));
    }
    if offset + width < agg_width {
        acc = expr::concat(
            &expr::extract(&a, offset + width, agg_width - offset - width),
            &acc,
        );
    }
    Value::from_expr(acc)
}
