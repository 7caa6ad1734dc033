//! Concrete floating point: IEEE operations on the bit patterns registers hold.
//! A symbolic value reaching a float operation ends its path before this.

use super::value::Value;
use crate::ir::semantics::{mask, to_signed};
use crate::ir::{FBinOp, FCastOp, FloatPredicate, FloatTy};

fn get(ty: FloatTy, bits: u128) -> f64 {
    match ty {
        FloatTy::F32 => f32::from_bits(bits as u32) as f64,
        FloatTy::F64 => f64::from_bits(bits as u64),
    }
}

fn put(ty: FloatTy, v: f64) -> Value {
    match ty {
        FloatTy::F32 => Value::concrete((v as f32).to_bits() as u128, 32),
        FloatTy::F64 => Value::concrete(v.to_bits() as u128, 64),
    }
}

pub fn binary(op: FBinOp, ty: FloatTy, a: u128, b: u128) -> Value {
    // f32 arithmetic done in f32 so rounding matches the native program.
    if ty == FloatTy::F32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let r = match op {
            FBinOp::Add => x + y,
            FBinOp::Sub => x - y,
            FBinOp::Mul => x * y,
            FBinOp::Div => x / y,
            FBinOp::Rem => x % y,
        };
        return Value::concrete(r.to_bits() as u128, 32);
    }
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

pub fn neg(ty: FloatTy, a: u128) -> Value {
    match ty {
        FloatTy::F32 => Value::concrete((a as u32 ^ 0x8000_0000) as u128, 32),
        FloatTy::F64 => Value::concrete((a as u64 ^ (1 << 63)) as u128, 64),
    }
}

pub fn compare(pred: FloatPredicate, ty: FloatTy, a: u128, b: u128) -> bool {
    let (x, y) = (get(ty, a), get(ty, b));
    let uno = x.is_nan() || y.is_nan();
    use FloatPredicate::*;
    match pred {
        False => false,
        True => true,
        Ord => !uno,
        Uno => uno,
        Oeq => !uno && x == y,
        Ogt => !uno && x > y,
        Oge => !uno && x >= y,
        Olt => !uno && x < y,
        Ole => !uno && x <= y,
        One => !uno && x != y,
        Ueq => uno || x == y,
        Ugt => uno || x > y,
        Uge => uno || x >= y,
        Ult => uno || x < y,
        Ule => uno || x <= y,
        Une => uno || x != y,
    }
}

pub fn convert(
    op: FCastOp,
    float: FloatTy,
    to_float: FloatTy,
    int_width: u32,
    bits: u128,
) -> Value {
    match op {
        FCastOp::ToSigned => {
            let v = get(float, bits);
            Value::concrete((v as i128) as u128 & mask(int_width), int_width)
        }
        FCastOp::ToUnsigned => {
            let v = get(float, bits);
            Value::concrete((v as u128) & mask(int_width), int_width)
        }
        FCastOp::FromSigned => put(to_float, to_signed(bits, int_width) as f64),
        FCastOp::FromUnsigned => put(to_float, bits as f64),
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
}
