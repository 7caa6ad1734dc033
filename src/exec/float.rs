//! Concrete floating point: IEEE operations on the bit patterns registers hold.
//! A symbolic value reaching a float operation ends its path before this.
//!
//! `float` and `double` are computed with Rust's own types, which round as
//! the native program does; x87's 80-bit format (`long double`) with a
//! software implementation of it, as no Rust type holds one.

use std::cmp::Ordering;

use rustc_apfloat::ieee::{Double, Single, X87DoubleExtended as Extended};
use rustc_apfloat::{Float, FloatConvert, Round};

use super::value::Value;
use crate::ir::semantics::{mask, to_signed};
use crate::ir::{FBinOp, FCastOp, FloatPredicate, FloatTy, RoundTo};

/// A value as a `double`: exactly for a `float` or a `double`, rounded for
/// an 80-bit value (which the callers compute with in its own format).
fn get(ty: FloatTy, bits: u128) -> f64 {
    match ty {
        FloatTy::F32 => f32::from_bits(bits as u32) as f64,
        FloatTy::F64 => f64::from_bits(bits as u64),
        FloatTy::F80 => {
            let d: Double = extended(ty, bits).convert(&mut false).value;
            f64::from_bits(d.to_bits() as u64)
        }
    }
}

fn put(ty: FloatTy, v: f64) -> Value {
    match ty {
        FloatTy::F32 => Value::concrete((v as f32).to_bits() as u128, 32),
        FloatTy::F64 => Value::concrete(v.to_bits() as u128, 64),
        FloatTy::F80 => from_extended(ty, extended(FloatTy::F64, v.to_bits() as u128)),
    }
}

/// An integer of `width` bits as a value of format `ty`, rounded once, to
/// nearest, as Rust's casts do (going through `double` would round a
/// 64-bit integer twice on its way to a `float`).
fn from_int(ty: FloatTy, signed: bool, bits: u128, width: u32) -> Value {
    let bits = bits & mask(width);
    let w = ty.width();
    let v = match (ty, signed) {
        (FloatTy::F32, true) => (to_signed(bits, width) as f32).to_bits().into(),
        (FloatTy::F32, false) => (bits as f32).to_bits().into(),
        (FloatTy::F64, true) => (to_signed(bits, width) as f64).to_bits().into(),
        (FloatTy::F64, false) => (bits as f64).to_bits().into(),
        (FloatTy::F80, true) => Extended::from_i128(to_signed(bits, width)).value.to_bits(),
        (FloatTy::F80, false) => Extended::from_u128(bits).value.to_bits(),
    };
    Value::concrete(v, w)
}

/// The x87's "real indefinite", the NaN it gives for an invalid operation
/// (`0/0`, `inf - inf`, an operand it does not accept): negative, where
/// APFloat makes a positive one.
const INDEFINITE: u128 = 0xffff_c000_0000_0000_0000;

/// The 80-bit pattern's exponent and 64-bit mantissa (whose top bit is the
/// explicit integer bit).
fn parts(bits: u128) -> (u128, u64) {
    ((bits >> 64) & 0x7fff, bits as u64)
}

/// A pattern the x87 refuses as an operand (an unnormal, a pseudo-NaN or
/// pseudo-infinity: exponent non-zero, integer bit clear), which it reads
/// as an invalid operation.
fn refused(bits: u128) -> bool {
    let (exp, mantissa) = parts(bits);
    exp != 0 && mantissa >> 63 == 0
}

fn is_nan(bits: u128) -> bool {
    let (exp, mantissa) = parts(bits);
    exp == 0x7fff && mantissa << 1 != 0
}

/// The NaN the x87 gives for an arithmetic operation on `a` and `b` (valid
/// patterns) whose APFloat result is `r`, or `r` itself: of two NaN
/// operands the one with the larger mantissa, of one that one, quieted;
/// a NaN made of numbers is the indefinite.
fn x87_result(a: u128, b: u128, r: Extended) -> u128 {
    const QUIET: u128 = 1 << 62;
    match (is_nan(a), is_nan(b)) {
        (true, true) => (if parts(b).1 > parts(a).1 { b } else { a }) | QUIET,
        (true, false) => a | QUIET,
        (false, true) => b | QUIET,
        (false, false) if r.is_nan() => INDEFINITE,
        (false, false) => r.to_bits(),
    }
}

/// Any format's value, exactly, in the 80-bit format (which holds them all);
/// an 80-bit pattern the x87 refuses reads as the indefinite, as it does.
fn extended(ty: FloatTy, bits: u128) -> Extended {
    let mut inexact = false;
    match ty {
        FloatTy::F32 => {
            Single::from_bits(bits & mask(32))
                .convert(&mut inexact)
                .value
        }
        FloatTy::F64 => {
            Double::from_bits(bits & mask(64))
                .convert(&mut inexact)
                .value
        }
        FloatTy::F80 if refused(bits & mask(80)) => Extended::from_bits(INDEFINITE),
        FloatTy::F80 => Extended::from_bits(bits & mask(80)),
    }
}

/// An 80-bit value rounded to the format `ty`, to nearest as the x87 does
/// by default.
fn from_extended(ty: FloatTy, v: Extended) -> Value {
    let mut inexact = false;
    match ty {
        FloatTy::F32 => {
            let r: Single = v.convert(&mut inexact).value;
            Value::concrete(r.to_bits(), 32)
        }
        FloatTy::F64 => {
            let r: Double = v.convert(&mut inexact).value;
            Value::concrete(r.to_bits(), 64)
        }
        FloatTy::F80 => Value::concrete(v.to_bits(), 80),
    }
}

pub fn binary(op: FBinOp, ty: FloatTy, a: u128, b: u128) -> Value {
    match ty {
        // f32 arithmetic done in f32 so rounding matches the native program.
        FloatTy::F32 => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            let r = match op {
                FBinOp::Add => x + y,
                FBinOp::Sub => x - y,
                FBinOp::Mul => x * y,
                FBinOp::Div => x / y,
                FBinOp::Rem => x % y,
            };
            Value::concrete(r.to_bits() as u128, 32)
        }
        FloatTy::F64 => {
            let (x, y) = (get(ty, a), get(ty, b));
            put(
                ty,
                match op {
                    FBinOp::Add => x + y,
                    FBinOp::Sub => x - y,
                    FBinOp::Mul => x * y,
                    FBinOp::Div => x / y,
                    FBinOp::Rem => x % y,
                },
            )
        }
        FloatTy::F80 => {
            let (x, y) = (extended(ty, a), extended(ty, b));
            let r = match op {
                FBinOp::Add => x + y,
                FBinOp::Sub => x - y,
                FBinOp::Mul => x * y,
                FBinOp::Div => x / y,
                // LLVM's `frem` is C's `fmod`, not IEEE's remainder.
                FBinOp::Rem => x.c_fmod(y),
            };
            Value::concrete(x87_result(x.to_bits(), y.to_bits(), r.value), 80)
        }
    }
}

pub fn neg(ty: FloatTy, a: u128) -> Value {
    let w = ty.width();
    Value::concrete((a ^ (1 << (w - 1))) & mask(w), w)
}

/// `llvm.floor` and its kin: `bits` rounded to an integral value of its
/// own format.
pub fn round_to_integral(ty: FloatTy, to: RoundTo, bits: u128) -> Value {
    match ty {
        // A float's integral neighbours are floats too: rounding it as a
        // double is exact.
        FloatTy::F32 | FloatTy::F64 => {
            let x = get(ty, bits);
            put(
                ty,
                match to {
                    RoundTo::Down => x.floor(),
                    RoundTo::Up => x.ceil(),
                    RoundTo::Zero => x.trunc(),
                    RoundTo::NearestTiesAway => x.round(),
                    RoundTo::NearestTiesEven => x.round_ties_even(),
                },
            )
        }
        FloatTy::F80 => {
            let mode = match to {
                RoundTo::Down => Round::TowardNegative,
                RoundTo::Up => Round::TowardPositive,
                RoundTo::Zero => Round::TowardZero,
                RoundTo::NearestTiesAway => Round::NearestTiesToAway,
                RoundTo::NearestTiesEven => Round::NearestTiesToEven,
            };
            let x = extended(ty, bits);
            let r = x.round_to_integral(mode).value;
            Value::concrete(x87_result(x.to_bits(), 0, r), 80)
        }
    }
}

/// `llvm.sqrt`, correctly rounded.
pub fn sqrt(ty: FloatTy, bits: u128) -> Value {
    match ty {
        // A float's root taken as a double rounds to the float's own: a
        // double has more than twice a float's 24 bits and two more.
        FloatTy::F32 | FloatTy::F64 => put(ty, get(ty, bits).sqrt()),
        FloatTy::F80 => Value::concrete(sqrt_x87(bits & mask(80)), 80),
    }
}

/// The x87's `fsqrt` (APFloat has no square root): the root's 64 bits of
/// mantissa are the integer square root of the operand's mantissa scaled
/// to 127 or 128 bits (so that the exponent left halves exactly), rounded
/// up where the remainder passes the root. A root is never halfway
/// between two 64-bit mantissas: that would make the scaled mantissa the
/// square of an odd number over four.
fn sqrt_x87(bits: u128) -> u128 {
    let bits = extended(FloatTy::F80, bits).to_bits();
    let (exp, mantissa) = parts(bits);
    let negative = bits >> 79 == 1;
    if is_nan(bits) {
        return x87_result(bits, 0, Extended::ZERO);
    }
    if mantissa == 0 || (exp == 0x7fff && !negative) {
        // Zeros keep their sign; the root of infinity is itself.
        return bits;
    }
    if negative {
        return INDEFINITE;
    }
    // The value is m * 2^e with m's top bit set (a denormal normalised).
    let shift = mantissa.leading_zeros();
    let m = mantissa << shift;
    let e = exp.max(1) as i32 - 16383 - 63 - shift as i32;
    let scale = if (e - 64).rem_euclid(2) == 0 { 64 } else { 63 };
    let scaled = u128::from(m) << scale;
    let mut root = scaled.isqrt();
    if scaled - root * root > root {
        root += 1;
    }
    let mut half = (e - scale) / 2;
    if root >> 64 != 0 {
        root >>= 1;
        half += 1;
    }
    // A root's exponent is about half its operand's: always a normal.
    let biased = (half + 63 + 16383) as u128;
    biased << 64 | root
}

/// `llvm.copysign`: the magnitude of `a` with the sign of `b`.
pub fn copysign(ty: FloatTy, a: u128, b: u128) -> Value {
    let w = ty.width();
    let sign = 1 << (w - 1);
    Value::concrete((a & !sign | b & sign) & mask(w), w)
}

/// `llvm.minnum` (`max`: `llvm.maxnum`): the smaller (larger) of `a` and
/// `b`; a NaN gives way to the other operand, and of two equal ones
/// (`+0` and `-0`) the first is kept, as the code LLVM makes for x86-64
/// gives it.
pub fn min_max(ty: FloatTy, max: bool, a: u128, b: u128) -> Value {
    let w = ty.width();
    let pick = |v: u128| Value::concrete(v & mask(w), w);
    match order(ty, a, b) {
        None if compare(FloatPredicate::Uno, ty, a, a) => pick(b),
        None => pick(a),
        Some(Ordering::Less) => pick(if max { b } else { a }),
        Some(Ordering::Greater) => pick(if max { a } else { b }),
        Some(Ordering::Equal) => pick(a),
    }
}

/// `llvm.fma`: `a * b + c` with one rounding.
pub fn fma(ty: FloatTy, a: u128, b: u128, c: u128) -> Value {
    match ty {
        FloatTy::F32 => {
            let [x, y, z] = [a, b, c].map(|v| f32::from_bits(v as u32));
            Value::concrete(x.mul_add(y, z).to_bits().into(), 32)
        }
        FloatTy::F64 => put(ty, get(ty, a).mul_add(get(ty, b), get(ty, c))),
        FloatTy::F80 => {
            let [x, y, z] = [a, b, c].map(|v| extended(ty, v));
            let r = x.mul_add(y, z).value;
            // Of NaN operands, the x87 keeps the product's first.
            let nan_in = if is_nan(x.to_bits()) || is_nan(y.to_bits()) {
                x87_result(x.to_bits(), y.to_bits(), r)
            } else {
                x87_result(z.to_bits(), 0, r)
            };
            Value::concrete(nan_in, 80)
        }
    }
}

/// How `a` compares with `b`; `None` when either is a NaN.
fn order(ty: FloatTy, a: u128, b: u128) -> Option<Ordering> {
    match ty {
        FloatTy::F32 | FloatTy::F64 => get(ty, a).partial_cmp(&get(ty, b)),
        FloatTy::F80 => extended(ty, a).partial_cmp(&extended(ty, b)),
    }
}

pub fn compare(pred: FloatPredicate, ty: FloatTy, a: u128, b: u128) -> bool {
    let ord = order(ty, a, b);
    let uno = ord.is_none();
    let is = |o: Ordering| ord == Some(o);
    use FloatPredicate::*;
    match pred {
        False => false,
        True => true,
        Ord => !uno,
        Uno => uno,
        Oeq => is(Ordering::Equal),
        Ogt => is(Ordering::Greater),
        Oge => !uno && !is(Ordering::Less),
        Olt => is(Ordering::Less),
        Ole => !uno && !is(Ordering::Greater),
        One => !uno && !is(Ordering::Equal),
        Ueq => uno || is(Ordering::Equal),
        Ugt => uno || is(Ordering::Greater),
        Uge => !is(Ordering::Less),
        Ult => uno || is(Ordering::Less),
        Ule => !is(Ordering::Greater),
        Une => !is(Ordering::Equal),
    }
}

/// What x86-64 code gives converting a float to an integer of up to 64
/// bits. Out of range LLVM's result is poison, but a program printing it
/// prints what the instructions give, the same at -O0 and -O2: a signed
/// conversion truncates at the smallest width the hardware converts to
/// (32 or 64 bits for SSE's `cvttss2si`/`cvttsd2si`, also 16 for the
/// x87's `fistp`) and keeps the low bits, NaN and anything out of that
/// width's range giving its "integer indefinite" (the sign bit alone); an
/// unsigned one converts signed at the next width up, and to 64 bits
/// converts twice, the second time less 2^63, combining the results as
/// LLVM's lowering does.
fn to_int_as_x86(float: FloatTy, bits: u128, signed: bool, width: u32) -> u128 {
    let x87 = float == FloatTy::F80;
    let at = |w: u32| match x87 {
        true => [16, 32, 64].into_iter().find(|&h| h >= w).unwrap_or(64),
        false => {
            if w <= 32 {
                32
            } else {
                64
            }
        }
    };
    let convert = |bits: u128, w: u32| -> u128 {
        let exact = if x87 {
            let r = extended(float, bits).to_i128(w as usize);
            (!r.status.contains(rustc_apfloat::Status::INVALID_OP)).then_some(r.value)
        } else {
            let t = get(float, bits).trunc();
            let bound = 2f64.powi(w as i32 - 1);
            (t >= -bound && t < bound).then_some(t as i128)
        };
        exact.map_or(1 << (w - 1), |v| v as u128 & mask(w))
    };
    if signed {
        return convert(bits, at(width));
    }
    if width < 64 {
        return convert(bits, at(width + 1));
    }
    // 2^63 in the float's own format: exact in each.
    let two63 = from_int(float, false, 1 << 63, 64)
        .as_concrete()
        .unwrap_or_default();
    let less = binary(FBinOp::Sub, float, bits, two63)
        .as_concrete()
        .unwrap_or_default();
    let (whole, rest) = (convert(bits, 64), convert(less, 64));
    if x87 {
        // Below 2^63 (NaN is not) one conversion, else the other's with
        // the top bit flipped.
        match compare(FloatPredicate::Olt, float, bits, two63) {
            true => whole,
            false => rest ^ 1 << 63,
        }
    } else {
        // SSE's sequence: the second conversion counts where the first
        // overflowed (its sign bit set).
        let overflowed = if whole >> 63 == 1 { mask(64) } else { 0 };
        whole | (rest & overflowed)
    }
}

pub fn convert(
    op: FCastOp,
    float: FloatTy,
    to_float: FloatTy,
    int_width: u32,
    bits: u128,
) -> Value {
    let wide = float == FloatTy::F80 || to_float == FloatTy::F80;
    let int = |v: u128| Value::concrete(v & mask(int_width), int_width);
    match op {
        FCastOp::ToSigned | FCastOp::ToUnsigned if int_width <= 64 => int(to_int_as_x86(
            float,
            bits,
            op == FCastOp::ToSigned,
            int_width,
        )),
        // Wider, compiler-rt's routine saturates; so do these.
        FCastOp::ToSigned if float == FloatTy::F80 => {
            int(extended(float, bits).to_i128(int_width as usize).value as u128)
        }
        FCastOp::ToUnsigned if float == FloatTy::F80 => {
            int(extended(float, bits).to_u128(int_width as usize).value)
        }
        FCastOp::ToSigned => int((get(float, bits) as i128) as u128),
        FCastOp::ToUnsigned => int(get(float, bits) as u128),
        FCastOp::FromSigned => from_int(to_float, true, bits, int_width),
        FCastOp::FromUnsigned => from_int(to_float, false, bits, int_width),
        FCastOp::Resize if wide => from_extended(to_float, extended(float, bits)),
        FCastOp::Resize => put(to_float, get(float, bits)),
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_conversions() {
        let two = 2.0f64.to_bits() as u128;
        let three = 3.0f64.to_bits() as u128;
        assert_eq!(
            binary(FBinOp::Mul, FloatTy::F64, two, three).as_concrete(),
            Some(6.0f64.to_bits() as u128)
        );
        assert!(compare(FloatPredicate::Olt, FloatTy::F64, two, three));
        let nan = f64::NAN.to_bits() as u128;
        assert!(!compare(FloatPredicate::Oeq, FloatTy::F64, nan, nan));
        assert!(compare(FloatPredicate::Une, FloatTy::F64, nan, nan));
        let m = convert(
            FCastOp::ToSigned,
            FloatTy::F64,
            FloatTy::F64,
            32,
            (-7.9f64).to_bits() as u128,
        );
        assert_eq!(m.as_concrete(), Some((-7i32) as u32 as u128));
        let f = convert(FCastOp::FromSigned, FloatTy::F64, FloatTy::F32, 8, 0xff);
        assert_eq!(f.as_concrete(), Some((-1.0f32).to_bits() as u128));
    }

    /// Conversions out of range, as a native x86-64 program printed them
    /// (the same built with clang -O0 and -O2).
    #[test]
    fn out_of_range_conversions_give_what_x86_gives() {
        let d = |x: f64| x.to_bits() as u128;
        let f = |x: f32| u128::from(x.to_bits());
        let cv = |ty, bits, signed, w| {
            let op = if signed {
                FCastOp::ToSigned
            } else {
                FCastOp::ToUnsigned
            };
            convert(op, ty, FloatTy::F64, w, bits)
                .as_concrete()
                .unwrap()
        };
        let sd = |x, w| cv(FloatTy::F64, d(x), true, w);
        let ud = |x, w| cv(FloatTy::F64, d(x), false, w);
        let nan = f64::NAN;
        assert_eq!(sd(nan, 32), 0x8000_0000);
        assert_eq!(sd(-1e20, 64), 1 << 63);
        assert_eq!((sd(300.0, 8), sd(-300.0, 8), sd(1e20, 8)), (44, 212, 0));
        assert_eq!(
            (sd(70000.0, 16), ud(-300.0, 8), ud(40000.0, 8)),
            (4464, 212, 64)
        );
        assert_eq!(
            (ud(5e9, 32), ud(-5e9, 32), ud(nan, 32)),
            (705_032_704, 3_589_934_592, 0)
        );
        assert_eq!(ud(-1.0, 64), u128::from(u64::MAX));
        assert_eq!(
            (ud(nan, 64), ud(f64::INFINITY, 64), ud(2f64.powi(64), 64)),
            (1 << 63, 1 << 63, 1 << 63)
        );
        assert_eq!(ud(9.3e18, 64), 9_300_000_000_000_000_000);
        assert_eq!(
            cv(FloatTy::F32, f(9.3e18), false, 64),
            9_300_000_300_729_368_576
        );
        assert_eq!(cv(FloatTy::F32, f(f32::NAN), true, 16), 0);
        // The x87 converts to 16 bits too, and its unsigned 64-bit
        // conversion takes NaN and infinity the other way.
        let l = |x: f64| {
            let r = convert(FCastOp::Resize, FloatTy::F64, FloatTy::F80, 80, d(x));
            r.as_concrete().unwrap()
        };
        let sl = |x, w| cv(FloatTy::F80, l(x), true, w);
        let ul = |x, w| cv(FloatTy::F80, l(x), false, w);
        assert_eq!((sl(nan, 16), sl(40000.0, 8), sl(300.0, 8)), (0x8000, 0, 44));
        assert_eq!(
            (ul(40000.0, 8), ul(40000.0, 16), ul(70000.0, 16)),
            (0, 40000, 4464)
        );
        assert_eq!((ul(-3e9, 32), sl(3e9, 32)), (1_294_967_296, 0x8000_0000));
        assert_eq!(
            (
                ul(nan, 64),
                ul(f64::INFINITY, 64),
                ul(f64::NEG_INFINITY, 64)
            ),
            (0, 0, 1 << 63)
        );
        assert_eq!(
            (ul(1e20, 64), ul(-1e20, 64), ul(1.9e19, 64)),
            (0, 1 << 63, 0)
        );
        assert_eq!(ul(9.3e18, 64), 9_300_000_000_000_000_000);
        assert_eq!(ul(-1.0, 64), u128::from(u64::MAX));
    }

    #[test]
    fn rounding_min_max_copysign_and_fused_multiply_add() {
        let d = |x: f64| x.to_bits() as u128;
        let back = |v: Value| f64::from_bits(v.as_concrete().unwrap() as u64);
        let r = |to, x| back(round_to_integral(FloatTy::F64, to, d(x)));
        assert_eq!(
            [
                r(RoundTo::Down, -2.5),
                r(RoundTo::Up, -2.5),
                r(RoundTo::Zero, -2.5)
            ],
            [-3.0, -2.0, -2.0]
        );
        assert_eq!(
            [
                r(RoundTo::NearestTiesAway, 2.5),
                r(RoundTo::NearestTiesEven, 2.5)
            ],
            [3.0, 2.0]
        );
        assert_eq!(r(RoundTo::NearestTiesEven, -3.5), -4.0);
        // 0.5 - 2^-54 is below a half: it rounds to 0 (adding 0.5 and
        // truncating would give 1).
        assert_eq!(r(RoundTo::NearestTiesAway, 0.49999999999999994), 0.0);
        let x87 = |x: f64| {
            convert(FCastOp::Resize, FloatTy::F64, FloatTy::F80, 80, d(x))
                .as_concrete()
                .unwrap()
        };
        let r80 = |to, x| {
            let v = round_to_integral(FloatTy::F80, to, x87(x))
                .as_concrete()
                .unwrap();
            back(convert(FCastOp::Resize, FloatTy::F80, FloatTy::F64, 64, v))
        };
        assert_eq!(
            [
                r80(RoundTo::NearestTiesAway, -2.5),
                r80(RoundTo::NearestTiesEven, -2.5)
            ],
            [-3.0, -2.0]
        );
        assert_eq!(
            round_to_integral(FloatTy::F80, RoundTo::Down, INDEFINITE).as_concrete(),
            Some(INDEFINITE)
        );
        let m = |max, a, b| {
            min_max(FloatTy::F64, max, d(a), d(b))
                .as_concrete()
                .unwrap()
        };
        assert_eq!(
            [m(false, f64::NAN, 1.0), m(true, 1.0, f64::NAN)],
            [d(1.0), d(1.0)]
        );
        assert_eq!(
            [m(false, 0.0, -0.0), m(false, -0.0, 0.0), m(true, 0.0, -0.0)],
            [d(0.0), d(-0.0), d(0.0)]
        );
        assert_eq!([m(false, 2.0, 3.0), m(true, 2.0, 3.0)], [d(2.0), d(3.0)]);
        assert_eq!(back(copysign(FloatTy::F64, d(3.0), d(-0.0))), -3.0);
        assert_eq!(
            copysign(FloatTy::F80, ONE, 1 << 79).as_concrete(),
            Some(ONE | 1 << 79)
        );
        // (1 + 2^-52)(1 - 2^-52) - 1 is -2^-104 exactly; rounding the
        // product first leaves 0.
        let (a, b) = (1.0 + f64::EPSILON, 1.0 - f64::EPSILON);
        assert_eq!(
            back(fma(FloatTy::F64, d(a), d(b), d(-1.0))),
            -(2f64.powi(-104))
        );
        let f = |x: f32| u128::from(x.to_bits());
        let r32 = |to, x| round_to_integral(FloatTy::F32, to, f(x)).as_concrete();
        assert_eq!(r32(RoundTo::NearestTiesEven, 2.5), Some(f(2.0)));
        assert_eq!(r32(RoundTo::Down, -0.25), Some(f(-1.0)));
        assert_eq!(r32(RoundTo::Up, 1e10), Some(f(1e10)));
        let got = fma(
            FloatTy::F32,
            f(1.0 + f32::EPSILON),
            f(1.0 - f32::EPSILON),
            f(-1.0),
        );
        assert_eq!(got.as_concrete(), Some(f(-(2f32.powi(-46)))));
        let got = fma(FloatTy::F80, x87(a), x87(b), x87(-1.0))
            .as_concrete()
            .unwrap();
        assert_eq!(
            back(convert(
                FCastOp::Resize,
                FloatTy::F80,
                FloatTy::F64,
                64,
                got
            )),
            -(2f64.powi(-104))
        );
        assert_eq!(back(sqrt(FloatTy::F64, d(2.0))), 2f64.sqrt());
    }

    #[test]
    fn x87_square_roots_are_the_native_fsqrt_s() {
        // Operands and the roots glibc's `sqrtl` (`fsqrt`) gave natively:
        // normals, denormals, the largest, a root rounded down and one
        // rounded up to the next exponent, zeros, a negative, the
        // infinity and a NaN.
        for (x, root) in [
            (0x4000_8000_0000_0000_0000, 0x3fff_b504_f333_f9de_6484),
            (0x4000_c000_0000_0000_0000, 0x3fff_ddb3_d742_c265_539e),
            (0x3ffe_8000_0000_0000_0000, 0x3ffe_b504_f333_f9de_6484),
            (0x4002_a000_0000_0000_0000, 0x4000_ca62_c1d6_d2da_9490),
            (0x0000_0000_0006_6327_8e62, 0x1ff1_e4bf_1839_e031_b768),
            (0x0000_0000_0000_0000_0001, 0x1fe0_b504_f333_f9de_6484),
            (0x7ffe_fde7_f18a_6806_7525, 0x5ffe_fef3_6be1_f9bb_4d45),
            (0x3fff_8000_0000_0000_0001, 0x3fff_8000_0000_0000_0000),
            (0x4000_ffff_ffff_ffff_fffe, 0x3fff_ffff_ffff_ffff_ffff),
            (0x4019_eb79_a2a0_0000_0000, 0x400c_ad9c_71b9_dbb7_f1e1),
            (0x8000_0000_0000_0000_0000, 0x8000_0000_0000_0000_0000),
            (0xbfff_8000_0000_0000_0000, INDEFINITE),
            (0x7fff_8000_0000_0000_0000, 0x7fff_8000_0000_0000_0000),
            (0x7fff_c000_0000_0000_0000, 0x7fff_c000_0000_0000_0000),
        ] {
            assert_eq!(f80(sqrt(FloatTy::F80, x)), root, "sqrt of {x:#x}");
        }
    }

    /// x87 bit patterns: sign, 15-bit exponent biased by 16383, then a
    /// 64-bit mantissa whose top bit is the explicit integer bit.
    const ONE: u128 = 0x3fff_8000_0000_0000_0000;
    const THREE: u128 = 0x4000_c000_0000_0000_0000;
    const THIRD: u128 = 0x3ffd_aaaa_aaaa_aaaa_aaab;

    fn f80(v: Value) -> u128 {
        assert_eq!(v.width(), 80);
        v.as_concrete().unwrap()
    }

    #[test]
    fn extended_arithmetic_rounds_to_64_bits_of_mantissa() {
        let third = f80(binary(FBinOp::Div, FloatTy::F80, ONE, THREE));
        assert_eq!(third, THIRD);
        // Three thirds make one again in this format, not in a double.
        assert_eq!(f80(binary(FBinOp::Mul, FloatTy::F80, third, THREE)), ONE);
        let ten_and_a_half = 0x4002_a800_0000_0000_0000;
        let one_and_a_half = 0x3fff_c000_0000_0000_0000;
        assert_eq!(
            f80(binary(FBinOp::Rem, FloatTy::F80, ten_and_a_half, THREE)),
            one_and_a_half
        );
        assert_eq!(f80(neg(FloatTy::F80, ONE)), ONE | 1 << 79);
        assert!(compare(FloatPredicate::Olt, FloatTy::F80, third, ONE));
        let nan = 0x7fff_c000_0000_0000_0000;
        assert!(!compare(FloatPredicate::Oeq, FloatTy::F80, nan, nan));
        // NaNs as the x87 makes and passes them on: 0/0 is the negative
        // indefinite; of two NaNs the larger mantissa; an unnormal is refused.
        assert_eq!(f80(binary(FBinOp::Div, FloatTy::F80, 0, 0)), INDEFINITE);
        let payload = 0x7fff_c000_0000_0000_0005;
        assert_eq!(
            f80(binary(FBinOp::Add, FloatTy::F80, INDEFINITE, payload)),
            payload
        );
        assert_eq!(
            f80(binary(FBinOp::Mul, FloatTy::F80, INDEFINITE, ONE | 1 << 79)),
            INDEFINITE
        );
        let signalling = 0x7fff_8000_0000_0000_0001;
        assert_eq!(
            f80(binary(FBinOp::Sub, FloatTy::F80, ONE, signalling)),
            signalling | 1 << 62
        );
        let unnormal = 0x4000_4000_0000_0000_0000;
        assert_eq!(
            f80(binary(FBinOp::Add, FloatTy::F80, unnormal, ONE)),
            INDEFINITE
        );
        assert!(compare(FloatPredicate::Uge, FloatTy::F80, nan, ONE));
        assert!(!compare(FloatPredicate::Oge, FloatTy::F80, nan, ONE));
    }

    #[test]
    fn extended_conversions_keep_what_a_double_loses() {
        // 2^64 - 1 converts exactly, and back.
        let max = u64::MAX as u128;
        let big = f80(convert(
            FCastOp::FromUnsigned,
            FloatTy::F64,
            FloatTy::F80,
            64,
            max,
        ));
        assert_eq!(big, 0x403e_ffff_ffff_ffff_ffff);
        let back = convert(FCastOp::ToUnsigned, FloatTy::F80, FloatTy::F80, 64, big);
        assert_eq!(back.as_concrete(), Some(max));
        let minus_three = convert(FCastOp::FromSigned, FloatTy::F64, FloatTy::F80, 8, 0xfd);
        assert_eq!(f80(minus_three), THREE | 1 << 79);
        let to_int = convert(
            FCastOp::ToSigned,
            FloatTy::F80,
            FloatTy::F80,
            32,
            THIRD | 1 << 79,
        );
        assert_eq!(to_int.as_concrete(), Some(0));
        // Widening is exact; narrowing rounds to nearest.
        let half = 0.5f64.to_bits() as u128;
        let wide = f80(convert(
            FCastOp::Resize,
            FloatTy::F64,
            FloatTy::F80,
            0,
            half,
        ));
        assert_eq!(wide, 0x3ffe_8000_0000_0000_0000);
        let d = convert(FCastOp::Resize, FloatTy::F80, FloatTy::F64, 0, THIRD);
        assert_eq!(d.as_concrete(), Some((1.0f64 / 3.0).to_bits() as u128));
        let f = convert(FCastOp::Resize, FloatTy::F80, FloatTy::F32, 0, THIRD);
        assert_eq!(f.as_concrete(), Some((1.0f32 / 3.0).to_bits() as u128));
    }

    #[test]
    fn an_integer_becomes_a_float_rounded_once() {
        // 2^60 + 2^36 + 1 is just above halfway between two floats: rounded
        // once it goes up; by way of a double, which drops the 1, it is a
        // tie, which goes to the even float below.
        let n = 0x1000_0010_0000_0001u128;
        let f = convert(FCastOp::FromUnsigned, FloatTy::F64, FloatTy::F32, 64, n);
        assert_eq!(f.as_concrete(), Some((n as u64 as f32).to_bits() as u128));
        let twice = (n as u64 as f64) as f32;
        assert_ne!(f.as_concrete(), Some(twice.to_bits() as u128));
    }
}
