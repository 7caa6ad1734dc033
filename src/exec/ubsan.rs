//! Checks a program compiled with clang's `-fsanitize=` (UndefinedBehavior-
//! Sanitizer) reports through `__ubsan_handle_*` calls: each ends its path
//! with the error the check found, as KLEE's `--ubsan-runtime` does, and as
//! the native replay (built with the same flags, never recovering) stops.
//! A handler's first argument points at clang's static description of the
//! check (its source location and the types involved), which names the
//! type in the message and gives the widths the values were checked at.

use super::end::ErrorKind;
use super::executor::{Exec, Executor};
use super::instructions::cast_value;
use super::state::State;
use super::value::Value;
use crate::expr::{self, ExprRef};
use crate::ir::{semantics, CastOp};

/// A check whose `__ubsan_handle_*` function the engine implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UbsanCheck {
    /// `add_overflow`, `sub_overflow`, `mul_overflow` (signed, or unsigned
    /// with `-fsanitize=unsigned-integer-overflow`).
    Arithmetic(&'static str),
    /// `negate_overflow`: the least value of a signed type negated.
    Negate,
    /// `divrem_overflow`: a divisor of 0, or the least value divided by -1.
    DivRem,
    /// `shift_out_of_bounds`: an exponent past the width, or a left shift
    /// of a negative value or one whose bits leave the type.
    Shift,
    /// `out_of_bounds`: an array indexed past its bound (`-fsanitize=bounds`).
    OutOfBounds,
    /// `pointer_overflow`: pointer arithmetic that wraps, or moves null.
    PointerOverflow,
    /// `type_mismatch`: an access through a null, misaligned or too small
    /// pointer (`null`, `alignment`, `object-size`).
    TypeMismatch,
    /// `alignment_assumption`: `__builtin_assume_aligned` broken.
    AlignmentAssumption,
    /// `builtin_unreachable`: `__builtin_unreachable()` reached.
    Unreachable,
    /// `missing_return`: the end of a value-returning function.
    MissingReturn,
    /// `vla_bound_not_positive`: a variable-length array of no elements.
    VlaBound,
    /// `load_invalid_value`: a `bool` or enum holding another value.
    InvalidValue,
    /// `float_cast_overflow`: a floating value out of its integer's range.
    FloatCast,
    /// `implicit_conversion`: an implicit conversion that changed the value.
    ImplicitConversion,
    /// `invalid_builtin`: `__builtin_ctz` or `clz` of zero.
    InvalidBuiltin,
    /// `nonnull_arg`, `nullability_arg`: null passed where it may not be.
    NullArgument,
    /// `nonnull_return`, `nullability_return`: null returned where it may
    /// not be.
    NullReturn,
}

impl UbsanCheck {
    /// The check a handler's name reports, recovering (`-fsanitize-recover`)
    /// or not (`_abort`); `None` for a name that is no handler, or that of
    /// a check the engine does not model (C++'s vptr and CFI checks,
    /// `-fsanitize-minimal-runtime`'s handlers, which get no description).
    pub fn by_name(name: &str) -> Option<UbsanCheck> {
        let check = name.strip_prefix("__ubsan_handle_")?;
        let check = check.strip_suffix("_abort").unwrap_or(check);
        let check = check.strip_suffix("_v1").unwrap_or(check);
        Some(match check {
            "add_overflow" => UbsanCheck::Arithmetic("addition"),
            "sub_overflow" => UbsanCheck::Arithmetic("subtraction"),
            "mul_overflow" => UbsanCheck::Arithmetic("multiplication"),
            "negate_overflow" => UbsanCheck::Negate,
            "divrem_overflow" => UbsanCheck::DivRem,
            "shift_out_of_bounds" => UbsanCheck::Shift,
            "out_of_bounds" => UbsanCheck::OutOfBounds,
            "pointer_overflow" => UbsanCheck::PointerOverflow,
            "type_mismatch" => UbsanCheck::TypeMismatch,
            "alignment_assumption" => UbsanCheck::AlignmentAssumption,
            "builtin_unreachable" => UbsanCheck::Unreachable,
            "missing_return" => UbsanCheck::MissingReturn,
            "vla_bound_not_positive" => UbsanCheck::VlaBound,
            "load_invalid_value" => UbsanCheck::InvalidValue,
            "float_cast_overflow" => UbsanCheck::FloatCast,
            "implicit_conversion" => UbsanCheck::ImplicitConversion,
            "invalid_builtin" => UbsanCheck::InvalidBuiltin,
            "nonnull_arg" | "nullability_arg" => UbsanCheck::NullArgument,
            "nonnull_return" | "nullability_return" => UbsanCheck::NullReturn,
            _ => return None,
        })
    }
}

/// The check a `-fsanitize-trap` trap stands for, by its number (the
/// order of clang 14's handlers), with the error kind it ends its path
/// with. A trap gets no operands, so the checks one handler serves cannot
/// be told apart: a division's trap is an overflow, a pointer's `null`.
pub(super) fn trapped(check: u128) -> (ErrorKind, &'static str) {
    use ErrorKind::{Null, Overflow, Ptr, Undefined, Unreachable};
    const CHECKS: [(ErrorKind, &str); 25] = [
        (Overflow, "add-overflow"),
        (Unreachable, "builtin-unreachable"),
        (Undefined, "cfi"),
        (Overflow, "divrem-overflow"),
        (Undefined, "dynamic-type"),
        (Overflow, "float-cast-overflow"),
        (Undefined, "function-type"),
        (Overflow, "implicit-conversion"),
        (Undefined, "invalid-builtin"),
        (Undefined, "objc-cast"),
        (Undefined, "load-invalid-value"),
        (Unreachable, "missing-return"),
        (Overflow, "mul-overflow"),
        (Overflow, "negate-overflow"),
        (Null, "nullability-arg"),
        (Null, "nullability-return"),
        (Null, "nonnull-arg"),
        (Null, "nonnull-return"),
        (Ptr, "out-of-bounds"),
        (Ptr, "pointer-overflow"),
        (Overflow, "shift-out-of-bounds"),
        (Overflow, "sub-overflow"),
        (Null, "type-mismatch"),
        (Undefined, "alignment-assumption"),
        (Undefined, "vla-bound-not-positive"),
    ];
    usize::try_from(check)
        .ok()
        .and_then(|i| CHECKS.get(i))
        .copied()
        .unwrap_or((Undefined, "unknown sanitizer"))
}

/// A type as clang describes it to the sanitizer runtime.
struct CheckedType {
    name: String,
    /// The width of an integer type; `None` for any other.
    int_width: Option<u32>,
    signed: bool,
}

/// Where clang's descriptions keep the checked types: after the source
/// location (a file name pointer and two 32-bit numbers).
const FIRST_TYPE: u64 = 16;
const SECOND_TYPE: u64 = 24;

/// What `type_mismatch`'s description says was being done, by its number.
const ACCESS_KINDS: [&str; 12] = [
    "load of",
    "store to",
    "reference binding to",
    "member access within",
    "member call on",
    "constructor call on",
    "downcast of",
    "downcast of",
    "upcast of",
    "cast to virtual base of",
    "_Nonnull binding to",
    "dynamic operation on",
];

impl Executor {
    /// Ends the path with the error a sanitizer check found, forking first
    /// where one handler stands for checks of different kinds (a divisor
    /// of zero or an overflowing quotient; a null, misaligned or too small
    /// pointer; a shift's exponent or its base).
    pub(super) fn ubsan_check(
        &mut self,
        state: &mut State,
        check: UbsanCheck,
        args: &[Value],
    ) -> Exec<Option<Value>> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::concrete(0, 64));
        // The description is a constant global. Not every one holds two
        // types; what is read where one does not goes unused.
        let data = self.concretize(state, &arg(0))? as u64;
        let first = self.checked_type(state, data, FIRST_TYPE);
        let second = self.checked_type(state, data, SECOND_TYPE);
        let t = &first.name;
        use ErrorKind::{DivByZero, Null, Overflow, Overshift, Ptr, Undefined, Unreachable};
        let (kind, message) = match check {
            UbsanCheck::Arithmetic(op) => {
                let sign = if first.signed { "signed" } else { "unsigned" };
                (
                    Overflow,
                    format!("{sign} integer overflow in {op} of type {t}"),
                )
            }
            UbsanCheck::Negate => (Overflow, format!("negation overflows type {t}")),
            UbsanCheck::DivRem => {
                // A divisor that cannot be read is taken for zero.
                let zero = match first.int_width {
                    Some(w) => handled_value(state, &arg(2), w)
                        .map_or(expr::bool_const(true), |d| {
                            expr::eq(&d, &expr::constant(0, w))
                        }),
                    None => expr::bool_const(true),
                };
                match self.ubsan_fork(state, &[zero.clone(), expr::not(&zero)])? {
                    0 => (DivByZero, format!("division by zero of type {t}")),
                    _ => (
                        Overflow,
                        format!("division of the least {t} by -1 overflows"),
                    ),
                }
            }
            UbsanCheck::Shift => {
                // Unsigned, a negative exponent is past every width; one
                // that cannot be read is taken to be past.
                let past = match (first.int_width, second.int_width) {
                    (Some(w), Some(aw)) if u128::from(w) <= semantics::mask(aw) => {
                        handled_value(state, &arg(2), aw).map_or(expr::bool_const(true), |e| {
                            expr::uge(&e, &expr::constant(w.into(), aw))
                        })
                    }
                    (Some(_), Some(_)) => expr::bool_const(false),
                    _ => expr::bool_const(true),
                };
                match self.ubsan_fork(state, &[past.clone(), expr::not(&past)])? {
                    0 => (
                        Overshift,
                        format!("shift exponent out of range for type {t}"),
                    ),
                    _ => (
                        Overflow,
                        format!("left shift of a negative value, or past the bits of type {t}"),
                    ),
                }
            }
            UbsanCheck::OutOfBounds => (Ptr, format!("index out of bounds for type {t}")),
            UbsanCheck::PointerOverflow => (
                Ptr,
                "pointer arithmetic overflows, or offsets a null pointer".to_string(),
            ),
            UbsanCheck::TypeMismatch => self.type_mismatch(state, data, &first, &arg(1))?,
            UbsanCheck::AlignmentAssumption => {
                (Undefined, "alignment assumption broken".to_string())
            }
            UbsanCheck::Unreachable => (Unreachable, "__builtin_unreachable() reached".to_string()),
            UbsanCheck::MissingReturn => (
                Unreachable,
                "the end of a value-returning function reached".to_string(),
            ),
            UbsanCheck::VlaBound => (
                Undefined,
                "variable-length array bound not positive".to_string(),
            ),
            UbsanCheck::InvalidValue => {
                (Undefined, format!("load of a value not valid for type {t}"))
            }
            UbsanCheck::FloatCast => (
                Overflow,
                format!("floating value out of the range of type {}", second.name),
            ),
            UbsanCheck::ImplicitConversion => (
                Overflow,
                format!(
                    "implicit conversion from type {t} to {} changed the value",
                    second.name
                ),
            ),
            UbsanCheck::InvalidBuiltin => (
                Undefined,
                "zero passed to a builtin (ctz, clz) that does not take it".to_string(),
            ),
            UbsanCheck::NullArgument => (
                Null,
                "null passed as an argument declared never to be null".to_string(),
            ),
            UbsanCheck::NullReturn => (
                Null,
                "null returned from a function declared never to return it".to_string(),
            ),
        };
        Err(self.error(state, kind, message))
    }

    /// `type_mismatch`: a null pointer, else a misaligned one, else one
    /// into too small an object.
    fn type_mismatch(
        &mut self,
        state: &mut State,
        data: u64,
        ty: &CheckedType,
        pointer: &Value,
    ) -> Exec<(ErrorKind, String)> {
        let log_align = described(state, data.wrapping_add(SECOND_TYPE), 1);
        let access = described(state, data.wrapping_add(SECOND_TYPE + 1), 1)
            .and_then(|a| ACCESS_KINDS.get(a as usize))
            .copied()
            .unwrap_or("access through");
        let p = cast_value(CastOp::Bits, 64, pointer).to_expr();
        let null = expr::eq(&p, &expr::constant(0, 64));
        let align = 1u128 << log_align.unwrap_or(0).min(63);
        let misaligned = expr::ne(
            &expr::and(&p, &expr::constant(align - 1, 64)),
            &expr::constant(0, 64),
        );
        let not_null = expr::not(&null);
        let conds = [
            null,
            expr::and(&not_null, &misaligned),
            expr::and(&not_null, &expr::not(&misaligned)),
        ];
        Ok(match self.ubsan_fork(state, &conds)? {
            0 => (
                ErrorKind::Null,
                format!("{access} a null pointer of type {}", ty.name),
            ),
            1 => (
                ErrorKind::Undefined,
                format!(
                    "{access} a misaligned address for type {}, which needs {align}-byte alignment",
                    ty.name
                ),
            ),
            _ => (
                ErrorKind::Ptr,
                format!(
                    "{access} an address with too little room for type {}",
                    ty.name
                ),
            ),
        })
    }

    /// Forks over disjoint conditions that cover every case (constant ones
    /// do not fork) and says which the path took.
    fn ubsan_fork(&mut self, state: &mut State, conds: &[ExprRef]) -> Exec<usize> {
        let live: Vec<usize> = (0..conds.len()).filter(|&i| !conds[i].is_false()).collect();
        if let [only] = live[..] {
            return Ok(only);
        }
        let site = self.call_site(state);
        let payloads: Vec<u64> = (0..conds.len() as u64).collect();
        let (taken, _) = self.fork(state, site, conds, &payloads, &[])?;
        Ok(taken)
    }

    /// The type a check's description points to at `offset`; unnamed and
    /// of no known width where the description cannot be read.
    fn checked_type(&mut self, state: &mut State, data: u64, offset: u64) -> CheckedType {
        let at = described(state, data.wrapping_add(offset), 8).unwrap_or(0) as u64;
        let kind = described(state, at, 2);
        let info = described(state, at.wrapping_add(2), 2).unwrap_or(0);
        // The name is a C string; `read_c_string` reads past the memory
        // checks too, and a description that cannot be read names nothing.
        let name = self
            .read_c_string(state, &Value::concrete(u128::from(at) + 4, 64))
            .unwrap_or_default();
        // Kind 0 is an integer type: its width's logarithm and its sign.
        CheckedType {
            name,
            int_width: (kind == Some(0)).then(|| 1u32 << (info >> 1).min(7)),
            signed: info & 1 == 1,
        }
    }
}

/// `bytes` bytes at `at` as a `bytes * 8`-bit value, read past the memory
/// checks (a description is the compiler's, not the program's, and
/// reading it must not fork); `None` where no object holds them all.
fn read_unchecked(state: &State, at: u64, bytes: u32) -> Option<Value> {
    let entry = state.memory.find(at)?;
    let offset = at - entry.object.address;
    (offset + u64::from(bytes) <= entry.object.size)
        .then(|| entry.state.read(offset, bytes, bytes * 8))
}

/// Concrete bytes of a check's description (constant globals clang emits).
fn described(state: &State, at: u64, bytes: u32) -> Option<u128> {
    read_unchecked(state, at, bytes)?.as_concrete()
}

/// A checked value as the handler got it: in the argument itself when it
/// fits in a pointer, else behind a pointer to it (a temporary clang
/// made), read as a description is. `None` where that temporary cannot be
/// found.
fn handled_value(state: &State, handle: &Value, width: u32) -> Option<ExprRef> {
    if width <= 64 {
        return Some(cast_value(CastOp::Trunc, width, handle).to_expr());
    }
    let at = handle.as_concrete()? as u64;
    Some(read_unchecked(state, at, width / 8)?.to_expr())
}

#[cfg(test)]
mod tests {
    use super::UbsanCheck;

    #[test]
    fn handlers_are_known_by_their_check_recovering_or_not() {
        assert_eq!(
            UbsanCheck::by_name("__ubsan_handle_add_overflow"),
            Some(UbsanCheck::Arithmetic("addition"))
        );
        assert_eq!(
            UbsanCheck::by_name("__ubsan_handle_divrem_overflow_abort"),
            Some(UbsanCheck::DivRem)
        );
        assert_eq!(
            UbsanCheck::by_name("__ubsan_handle_type_mismatch_v1_abort"),
            Some(UbsanCheck::TypeMismatch)
        );
        assert_eq!(
            UbsanCheck::by_name("__ubsan_handle_nonnull_return_v1"),
            Some(UbsanCheck::NullReturn)
        );
        // C++'s checks, and the minimal runtime's handlers, which get no
        // description, stay external calls.
        assert_eq!(
            UbsanCheck::by_name("__ubsan_handle_dynamic_type_cache_miss"),
            None
        );
        assert_eq!(
            UbsanCheck::by_name("__ubsan_handle_add_overflow_minimal"),
            None
        );
        assert_eq!(UbsanCheck::by_name("malloc"), None);
    }

    #[test]
    fn a_trap_is_known_by_clangs_number_for_its_check() {
        use crate::exec::ErrorKind;
        // The numbers clang 14 gives `llvm.ubsantrap` for these checks.
        assert_eq!(super::trapped(0), (ErrorKind::Overflow, "add-overflow"));
        assert_eq!(super::trapped(3).0, ErrorKind::Overflow);
        assert_eq!(super::trapped(18), (ErrorKind::Ptr, "out-of-bounds"));
        assert_eq!(super::trapped(20).1, "shift-out-of-bounds");
        assert_eq!(super::trapped(22), (ErrorKind::Null, "type-mismatch"));
        assert_eq!(super::trapped(255).0, ErrorKind::Undefined);
    }
}
