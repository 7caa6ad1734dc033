//! Register and memory values: concrete bit patterns or interned expressions.

use crate::expr::{self, ExprRef};
use crate::ir::semantics::mask;

/// A value held in a register. Concrete values never allocate (DESIGN.md,
/// "Where the speed comes from"); only values that depend on symbolic input
/// carry an expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Concrete { bits: Bits, width: u32 },
    Symbolic(ExprRef),
}

// Registers hold most of a pending path's memory; a bare `u128` would make
// this 32 bytes.
const _: () = assert!(std::mem::size_of::<Value>() == 24);

/// A concrete value's bit pattern, kept 8-aligned rather than as a bare
/// `u128` (16-aligned) so that a [`Value`] is 24 bytes, not 32.
#[repr(C, packed(8))]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bits(u128);

impl Bits {
    #[inline]
    pub fn get(self) -> u128 {
        self.0
    }
}

impl std::fmt::Debug for Bits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bits = self.0;
        write!(f, "{bits:#x}")
    }
}

impl Value {
    #[inline]
    pub fn concrete(bits: u128, width: u32) -> Value {
        Value::Concrete {
            bits: Bits(bits & mask(width)),
            width,
        }
    }

    #[inline]
    pub fn bool(b: bool) -> Value {
        Value::Concrete {
            bits: Bits(b as u128),
            width: 1,
        }
    }

    /// Wraps an expression, unwrapping constants so they stay on the fast path.
    #[inline]
    pub fn from_expr(e: ExprRef) -> Value {
        match e.as_const() {
            Some(bits) => Value::Concrete {
                bits: Bits(bits),
                width: e.width(),
            },
            None => Value::Symbolic(e),
        }
    }

    #[inline]
    pub fn width(&self) -> u32 {
        match self {
            Value::Concrete { width, .. } => *width,
            Value::Symbolic(e) => e.width(),
        }
    }

    #[inline]
    pub fn as_concrete(&self) -> Option<u128> {
        match self {
            Value::Concrete { bits, .. } => Some(bits.get()),
            Value::Symbolic(_) => None,
        }
    }

    /// The value as an expression (interning a constant if needed).
    pub fn to_expr(&self) -> ExprRef {
        match self {
            Value::Concrete { bits, width } => expr::constant(bits.get(), *width),
            Value::Symbolic(e) => e.clone(),
        }
    }

    /// Byte `i` (little-endian) of the value, for storing into memory.
    pub fn byte(&self, i: u32) -> Byte {
        match self {
            Value::Concrete { bits, .. } => Byte::Concrete((bits.get() >> (8 * i)) as u8),
            Value::Symbolic(e) => {
                let w = e.width();
                if w < 8 * (i + 1) {
                    // A narrow value (an i1 stored in a byte) is zero-extended.
                    let ext = expr::zext(e, 8 * (i + 1));
                    Byte::from_expr(expr::extract(&ext, 8 * i, 8))
                } else {
                    Byte::from_expr(expr::extract(e, 8 * i, 8))
                }
            }
        }
    }

    /// Reassembles a little-endian value of `width` bits from bytes.
    pub fn from_bytes(bytes: &[Byte], width: u32) -> Value {
        if bytes.iter().all(|b| matches!(b, Byte::Concrete(_))) {
            let mut bits = 0u128;
            for (i, b) in bytes.iter().enumerate().take(16) {
                if let Byte::Concrete(v) = b {
                    bits |= (*v as u128) << (8 * i);
                }
            }
            return Value::concrete(bits, width);
        }
        let mut acc = bytes[0].to_expr();
        for b in &bytes[1..] {
            acc = expr::concat(&b.to_expr(), &acc);
        }
        let acc = if acc.width() > width {
            expr::extract(&acc, 0, width)
        } else {
            acc
        };
        Value::from_expr(acc)
    }
}

/// One byte of memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Byte {
    Concrete(u8),
    Symbolic(ExprRef),
}

impl Byte {
    #[inline]
    pub fn from_expr(e: ExprRef) -> Byte {
        match e.as_const() {
            Some(v) => Byte::Concrete(v as u8),
            None => Byte::Symbolic(e),
        }
    }

    pub fn to_expr(&self) -> ExprRef {
        match self {
            Byte::Concrete(v) => expr::constant(*v as u128, 8),
            Byte::Symbolic(e) => e.clone(),
        }
    }
}
