//! The LLVM intrinsics clang -O0 emits for C.

use super::end::ErrorKind;
use super::executor::{Exec, Executor};
use super::float;
use super::state::{function_address, State, STACK_BASE};
use super::value::{Byte, Value};
use crate::expr::{self, ExprRef};
use crate::ir::semantics::{self, mask, mul_fits, to_signed};
use crate::ir::{BinOp, FloatTy, IntPredicate, Intrinsic, SiteId};

impl Executor {
    pub(crate) fn intrinsic(
        &mut self,
        state: &mut State,
        kind: Intrinsic,
        width: u32,
        args: &[Value],
        site: Option<SiteId>,
    ) -> Exec<Option<Value>> {
        let arg = |i: usize| {
            args.get(i)
                .cloned()
                .unwrap_or(Value::concrete(0, width.max(1)))
        };
        Ok(match kind {
            Intrinsic::Memcpy | Intrinsic::Memmove => {
                self.mem_copy(state, site, &arg(0), &arg(1), &arg(2))?;
                None
            }
            Intrinsic::Memset => {
                self.mem_set(state, site, &arg(0), &arg(1), &arg(2))?;
                None
            }
            Intrinsic::AddOverflow { signed } => {
                Some(self.overflow(BinOp::Add, signed, width, &arg(0), &arg(1)))
            }
            Intrinsic::SubOverflow { signed } => {
                Some(self.overflow(BinOp::Sub, signed, width, &arg(0), &arg(1)))
            }
            Intrinsic::MulOverflow { signed } => {
                Some(self.overflow(BinOp::Mul, signed, width, &arg(0), &arg(1)))
            }
            Intrinsic::Abs => {
                let x = arg(0);
                Some(match x {
                    Value::Concrete { bits, width: w } => {
                        Value::concrete(to_signed(bits.get(), w).unsigned_abs() & mask(w), w)
                    }
                    Value::Symbolic(e) => {
                        let zero = expr::constant(0, e.width());
                        Value::from_expr(expr::select(&expr::slt(&e, &zero), &expr::neg(&e), &e))
                    }
                })
            }
            Intrinsic::AddSat { signed } | Intrinsic::SubSat { signed } => {
                let (x, y) = (arg(0).to_expr(), arg(1).to_expr());
                let add = matches!(kind, Intrinsic::AddSat { .. });
                Some(Value::from_expr(saturated(add, signed, &x, &y)))
            }
            Intrinsic::SMin | Intrinsic::SMax | Intrinsic::UMin | Intrinsic::UMax => {
                let (a, b) = (arg(0), arg(1));
                let pred = match kind {
                    Intrinsic::SMin => IntPredicate::Slt,
                    Intrinsic::SMax => IntPredicate::Sgt,
                    Intrinsic::UMin => IntPredicate::Ult,
                    _ => IntPredicate::Ugt,
                };
                Some(match (&a, &b) {
                    (Value::Concrete { bits: x, width: w }, Value::Concrete { bits: y, .. }) => {
                        if semantics::icmp(pred, *w, x.get(), y.get()) {
                            a.clone()
                        } else {
                            b.clone()
                        }
                    }
                    _ => {
                        let (x, y) = (a.to_expr(), b.to_expr());
                        Value::from_expr(expr::select(&expr::icmp(pred, &x, &y), &x, &y))
                    }
                })
            }
            Intrinsic::Bswap => Some(match arg(0) {
                Value::Concrete { bits, width: w } => {
                    let bits = bits.get();
                    let mut out = 0u128;
                    for i in 0..w / 8 {
                        out |= ((bits >> (8 * i)) & 0xff) << (w - 8 - 8 * i);
                    }
                    Value::concrete(out, w)
                }
                Value::Symbolic(e) => {
                    let w = e.width();
                    let mut acc = expr::extract(&e, 0, 8);
                    for i in 1..w / 8 {
                        acc = expr::concat(&acc, &expr::extract(&e, 8 * i, 8));
                    }
                    Value::from_expr(acc)
                }
            }),
            Intrinsic::Ctpop => Some(match arg(0) {
                Value::Concrete { bits, width: w } => {
                    Value::concrete(bits.get().count_ones() as u128, w)
                }
                Value::Symbolic(e) => {
                    let w = e.width();
                    let mut acc = expr::constant(0, w);
                    for i in 0..w {
                        acc = expr::add(&acc, &expr::zext(&expr::extract(&e, i, 1), w));
                    }
                    Value::from_expr(acc)
                }
            }),
            Intrinsic::Ctlz | Intrinsic::Cttz => {
                let leading = kind == Intrinsic::Ctlz;
                Some(match arg(0) {
                    Value::Concrete { bits, width: w } => {
                        let bits = bits.get();
                        let n = if bits == 0 {
                            w
                        } else if leading {
                            bits.leading_zeros() - (128 - w)
                        } else {
                            bits.trailing_zeros()
                        };
                        Value::concrete(n as u128, w)
                    }
                    Value::Symbolic(e) => {
                        // The position of the first set bit, scanning from the far end.
                        let w = e.width();
                        let mut acc = expr::constant(w as u128, w);
                        for k in 0..w {
                            let (bit, count) = if leading {
                                (k, w - 1 - k)
                            } else {
                                (w - 1 - k, w - 1 - k)
                            };
                            let set = expr::eq(&expr::extract(&e, bit, 1), &expr::constant(1, 1));
                            acc = expr::select(&set, &expr::constant(count as u128, w), &acc);
                        }
                        Value::from_expr(acc)
                    }
                })
            }
            Intrinsic::Fshl | Intrinsic::Fshr => {
                let left = kind == Intrinsic::Fshl;
                let (a, b, s) = (arg(0), arg(1), arg(2));
                Some(match (&a, &b, &s) {
                    (
                        Value::Concrete { bits: x, width: w },
                        Value::Concrete { bits: y, .. },
                        Value::Concrete { bits: z, .. },
                    ) => {
                        let (w, x, y) = (*w, x.get(), y.get());
                        let s = (z.get() % w as u128) as u32;
                        let r = if s == 0 {
                            if left {
                                x
                            } else {
                                y
                            }
                        } else if left {
                            (x << s) | (y >> (w - s))
                        } else {
                            (x << (w - s)) | (y >> s)
                        };
                        Value::concrete(r & mask(w), w)
                    }
                    _ => {
                        // The concatenation a:b shifted, then the relevant half.
                        let w = a.width();
                        let cat = expr::concat(&a.to_expr(), &b.to_expr());
                        let s =
                            expr::binary(BinOp::URem, &s.to_expr(), &expr::constant(w as u128, w));
                        let s2 = expr::zext(&s, 2 * w);
                        let r = if left {
                            expr::extract(&expr::binary(BinOp::Shl, &cat, &s2), w, w)
                        } else {
                            expr::extract(&expr::binary(BinOp::LShr, &cat, &s2), 0, w)
                        };
                        Value::from_expr(r)
                    }
                })
            }
            Intrinsic::VaStart => {
                let Some(area) = state.frame().varargs else {
                    return Err(self.error(
                        state,
                        ErrorKind::BadCall,
                        "va_start in a function that takes no variadic arguments",
                    ));
                };
                let (base, off) = self.resolve_concrete(state, &arg(0), 24)?;
                let obj = state
                    .memory
                    .state_mut(base)
                    .expect("resolved objects are live");
                // x86-64's `va_list`: the next free register of each class
                // in the save area, the overflow area after it, the area.
                let overflow = area.area + super::varargs::SAVE_AREA;
                obj.write(off, 4, &Value::concrete(area.gp_offset.into(), 32));
                obj.write(off + 4, 4, &Value::concrete(area.fp_offset.into(), 32));
                obj.write(off + 8, 8, &Value::concrete(overflow.into(), 64));
                obj.write(off + 16, 8, &Value::concrete(area.area.into(), 64));
                None
            }
            Intrinsic::VaCopy => {
                self.copy_memory(state, &arg(0), &arg(1), 24)?;
                None
            }
            Intrinsic::VaEnd | Intrinsic::StackRestore => None,
            Intrinsic::StackSave => Some(Value::concrete(0, 64)),
            Intrinsic::ReturnAddress | Intrinsic::FrameAddress => {
                // The frame `level` calls up, and the one that called it.
                let level = self.concretize(state, &arg(0))?;
                let depth = state.stack.len();
                let frame = usize::try_from(level)
                    .ok()
                    .and_then(|l| l.checked_add(1))
                    .and_then(|up| depth.checked_sub(up));
                let addr = match (kind, frame) {
                    // In its caller's code: not a function's start (a call
                    // through it is an error) and no object (nor a read).
                    (Intrinsic::ReturnAddress, Some(i)) if i > 0 => {
                        function_address(state.stack[i - 1].func) + 1
                    }
                    // Below where the engine's stacks start, one slot a
                    // frame, deeper frames lower, as a native stack grows.
                    (Intrinsic::FrameAddress, Some(i)) => STACK_BASE - 16 * (i as u64 + 1),
                    _ => 0,
                };
                Some(Value::concrete(u128::from(addr), width))
            }
            Intrinsic::Trap => {
                return Err(self.error(state, ErrorKind::Abort, "llvm.trap reached"))
            }
            Intrinsic::UbsanTrap => {
                let (kind, check) = super::ubsan::trapped(self.concretize(state, &arg(0))?);
                return Err(self.error(
                    state,
                    kind,
                    format!("the {check} check failed (-fsanitize-trap)"),
                ));
            }
            Intrinsic::FAbs => {
                // Fixed to one value, as every float operand is.
                let bits = self.concretize(state, &arg(0))?;
                Some(Value::concrete(bits & (mask(width) >> 1), width))
            }
            Intrinsic::FRound(_)
            | Intrinsic::FSqrt
            | Intrinsic::CopySign
            | Intrinsic::FMinNum
            | Intrinsic::FMaxNum
            | Intrinsic::Fma => {
                // Fixed to one value each, as every float operand is.
                let mut v = [0u128; 3];
                for (i, slot) in v.iter_mut().enumerate().take(args.len()) {
                    *slot = self.concretize(state, &arg(i))?;
                }
                let [a, b, c] = v;
                // None: not a float's width.
                let result = FloatTy::of_width(width).map(|ty| match kind {
                    Intrinsic::FRound(to) => float::round_to_integral(ty, to, a),
                    Intrinsic::CopySign => float::copysign(ty, a, b),
                    Intrinsic::FMinNum => float::min_max(ty, false, a, b),
                    Intrinsic::FMaxNum => float::min_max(ty, true, a, b),
                    Intrinsic::Fma => float::fma(ty, a, b, c),
                    _ => float::sqrt(ty, a),
                });
                let Some(r) = result else {
                    return Err(self.error(
                        state,
                        ErrorKind::Unsupported,
                        format!("{kind:?} of a {width}-bit float"),
                    ));
                };
                Some(r)
            }
            Intrinsic::ObjectSize => {
                let min = arg(1).as_concrete().unwrap_or(0) != 0;
                Some(Value::concrete(if min { 0 } else { mask(width) }, width))
            }
        })
    }

    /// `{ result, overflowed }` flattened: the result in bits `0..w`, the flag at bit `w`.
    fn overflow(&self, op: BinOp, signed: bool, agg_width: u32, a: &Value, b: &Value) -> Value {
        let w = a.width();
        if let (Value::Concrete { bits: x, .. }, Value::Concrete { bits: y, .. }) = (a, b) {
            let (x, y) = (x.get(), y.get());
            let r = semantics::binary(op, w, x, y);
            let over = if signed {
                let (sx, sy) = (to_signed(x, w), to_signed(y, w));
                let exact = match op {
                    BinOp::Add => sx.checked_add(sy),
                    BinOp::Sub => sx.checked_sub(sy),
                    _ => sx.checked_mul(sy),
                };
                exact != Some(to_signed(r, w))
            } else {
                let exact = match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    _ => x.checked_mul(y),
                };
                exact != Some(r)
            };
            return Value::concrete(r | ((over as u128) << w), agg_width);
        }
        let (x, y) = (a.to_expr(), b.to_expr());
        let r = expr::binary(op, &x, &y);
        let over: ExprRef = match op {
            BinOp::Add | BinOp::Sub => add_sub_overflows(op == BinOp::Add, signed, &x, &y, &r),
            _ => match mul_overflows_by_constant(&x, &y, signed) {
                Some(over) => over,
                None if signed => {
                    let wide = expr::mul(&expr::sext(&x, 2 * w), &expr::sext(&y, 2 * w));
                    expr::ne(&wide, &expr::sext(&r, 2 * w))
                }
                None => {
                    let wide = expr::mul(&expr::zext(&x, 2 * w), &expr::zext(&y, 2 * w));
                    expr::ne(&expr::extract(&wide, w, w), &expr::constant(0, w))
                }
            },
        };
        let v = expr::concat(&over, &r);
        Value::from_expr(if agg_width > w + 1 {
            expr::zext(&v, agg_width)
        } else {
            v
        })
    }

    /// Resolves a pointer (concretized if symbolic) to an object and offset,
    /// checking `n` bytes are in bounds.
    pub(crate) fn resolve_concrete(
        &mut self,
        state: &mut State,
        p: &Value,
        n: u64,
    ) -> Exec<(u64, u64)> {
        if self.summarising && p.as_concrete().is_none() {
            // An input pointer: its object, counted as written (callers
            // may write through it).
            let (base, off) = self.resolve(state, p, n, None)?;
            Self::note_input_write(state, base);
            return match off.as_concrete() {
                Some(off) => Ok((base, off as u64)),
                None => Err(self.refuse_inputs(state, super::lazy::InputRefusal::SymbolicPointer)),
            };
        }
        let a = self.concretize(state, p)?;
        let (base, off) = self.resolve(state, &Value::concrete(a, 64), n, None)?;
        Ok((base, off.as_concrete().unwrap_or(0) as u64))
    }

    pub(super) fn copy_memory(
        &mut self,
        state: &mut State,
        dst: &Value,
        src: &Value,
        n: u64,
    ) -> Exec<()> {
        if n == 0 {
            return Ok(());
        }
        let (sbase, soff) = self.resolve_concrete(state, src, n)?;
        let (dbase, doff) = self.resolve_concrete(state, dst, n)?;
        let src_state = state
            .memory
            .get(sbase)
            .expect("resolved objects are live")
            .state
            .clone();
        if state.memory.get(dbase).is_some_and(|e| e.object.read_only) {
            return Err(self.error(state, ErrorKind::ReadOnly, "memcpy into a read-only object"));
        }
        let bytes: Vec<Byte> = (0..n).map(|i| src_state.byte(soff + i)).collect();
        let obj = state
            .memory
            .state_mut(dbase)
            .expect("resolved objects are live");
        for (i, b) in bytes.into_iter().enumerate() {
            obj.set_byte(doff + i as u64, b);
        }
        Ok(())
    }
}

/// Whether `x * y` overflows, when one of them is a constant `c`, as a
/// range check on the other, `e`: the product overflows exactly when `e`
/// lies outside the values whose product with `c` fits. `None` for two
/// unknowns, or past 64 bits (where the bounds do not fit an `i128`).
///
/// Parsing a size with a suffix (`truncate -s 5E`, `head -c 3k`) checks
/// each `* 1000` for overflow; as a double-width product compared with its
/// sign extension, such a check cost Z3 half a second, as a range check it
/// costs nothing.
fn mul_overflows_by_constant(x: &ExprRef, y: &ExprRef, signed: bool) -> Option<ExprRef> {
    let (e, c) = match (x.as_const(), y.as_const()) {
        (Some(c), _) => (y, c),
        (None, Some(c)) => (x, c),
        (None, None) => return None,
    };
    let w = e.width();
    let at = |v: u128| expr::constant(v, w);
    Some(match mul_fits(c, w, signed) {
        None => expr::bool_const(false),
        Some((_, hi)) if !signed => expr::ult(&at(hi), e),
        Some((lo, hi)) => expr::or(&expr::slt(e, &at(lo)), &expr::slt(&at(hi), e)),
    })
}

/// Whether `r`, the wrapped `x + y` (`add`) or `x - y`, overflowed.
fn add_sub_overflows(add: bool, signed: bool, x: &ExprRef, y: &ExprRef, r: &ExprRef) -> ExprRef {
    match (add, signed) {
        // The sum wrapped exactly when it is below an operand.
        (true, false) => expr::ult(r, x),
        (false, false) => expr::ult(x, y),
        _ => {
            // Overflow iff the operands' signs make it possible and the
            // result's sign differs.
            let sign = |e: &ExprRef| expr::extract(e, e.width() - 1, 1);
            let same = if add {
                expr::eq(&sign(x), &sign(y))
            } else {
                expr::ne(&sign(x), &sign(y))
            };
            expr::and(&same, &expr::ne(&sign(r), &sign(x)))
        }
    }
}

/// `x + y` or `x - y`, held at the bounds of the type where it would
/// overflow: LLVM's saturating arithmetic (`llvm.uadd.sat` and the rest).
fn saturated(add: bool, signed: bool, x: &ExprRef, y: &ExprRef) -> ExprRef {
    let w = x.width();
    let r = if add {
        expr::add(x, y)
    } else {
        expr::sub(x, y)
    };
    let bound = match (add, signed) {
        (true, false) => expr::constant(mask(w), w),
        (false, false) => expr::constant(0, w),
        // The bound on the side of the first operand's sign.
        _ => expr::select(
            &expr::extract(x, w - 1, 1),
            &expr::constant(1 << (w - 1), w),
            &expr::constant(mask(w - 1), w),
        ),
    };
    expr::select(&add_sub_overflows(add, signed, x, y, &r), &bound, &r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{Array, Assignment, UpdateList};

    #[test]
    fn a_product_by_a_constant_overflows_outside_its_range_only() {
        let a = Array::symbolic("ovf_x", 1);
        let x = expr::read(&UpdateList::new(a.clone()), &expr::constant(0, 64));
        for signed in [false, true] {
            for c in 0..=255u128 {
                let check = mul_overflows_by_constant(&x, &expr::constant(c, 8), signed)
                    .expect("a factor is constant");
                for v in 0..=255u8 {
                    let mut m = Assignment::new();
                    m.set(&a, vec![v]);
                    let exact = if signed {
                        (v as i8).checked_mul(c as u8 as i8).is_none()
                    } else {
                        v.checked_mul(c as u8).is_none()
                    };
                    assert_eq!(
                        expr::eval(&check, &m) == 1,
                        exact,
                        "{v} * {c}, signed {signed}"
                    );
                }
            }
        }
    }

    /// Every pair of 8-bit operands, against the arithmetic done wide and
    /// clamped.
    #[test]
    fn saturating_arithmetic_holds_at_the_bounds() {
        for x in 0..=255u8 {
            for y in 0..=255u8 {
                let (ex, ey) = (expr::constant(x.into(), 8), expr::constant(y.into(), 8));
                let got = |add, signed| saturated(add, signed, &ex, &ey).as_const();
                let (sx, sy) = (i16::from(x as i8), i16::from(y as i8));
                let signed = |v: i16| Some(u128::from(v.clamp(-128, 127) as i8 as u8));
                let unsigned = |v: i16| Some(v.clamp(0, 255) as u128);
                let (ux, uy) = (i16::from(x), i16::from(y));
                assert_eq!(got(true, false), unsigned(ux + uy), "uadd {x} {y}");
                assert_eq!(got(false, false), unsigned(ux - uy), "usub {x} {y}");
                assert_eq!(got(true, true), signed(sx + sy), "sadd {x} {y}");
                assert_eq!(got(false, true), signed(sx - sy), "ssub {x} {y}");
            }
        }
    }
}
