//! Where a variadic callee finds its arguments: x86-64's System V
//! convention, which clang's inline `va_arg` code follows. The first six
//! integer arguments and the first eight of the SSE class (floats,
//! doubles, vectors up to 128 bits) travel in registers, which the callee
//! saves in an area `va_start` points it at; the rest, and every
//! `long double`, are on the stack, in the overflow area after it.

use crate::ir::ByVal;

/// The registers' save area: six 8-byte integer registers, then eight
/// 16-byte SSE registers.
pub const SAVE_AREA: u64 = 6 * 8 + 8 * 16;
const GP_REGS: u32 = 6;
const SSE_REGS: u32 = 8;
/// Overflow slots a callee can read whatever the caller passed: on x86-64
/// reading more variadic arguments than were passed reads registers or
/// the caller's stack, never a fault, and C libraries rely on it (musl's
/// `syscall()` reads six, gnulib's `renameatu` passes five).
const OVERFLOW_READABLE: u64 = 6 * 8;

/// What `va_start` hands a variadic frame: the object holding the save
/// area and the overflow area after it, and the offsets in the save area
/// of the first register the named parameters left free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Varargs {
    pub area: u64,
    pub gp_offset: u32,
    pub fp_offset: u32,
}

/// The bytes of a variadic call's area: the object's size, where each
/// argument after the named ones goes, and the offsets `va_start` gives.
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    pub size: u64,
    pub places: Vec<(u64, usize)>,
    pub gp_offset: u32,
    pub fp_offset: u32,
}

/// How an argument travels to a variadic callee: x86-64's classes, as far
/// as the arguments clang passes tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// An integer or pointer of this many bits: one register, two for 128.
    Integer(u32),
    /// A float, a double or a vector of this many bits (up to 128): one
    /// SSE register.
    Sse(u32),
    /// On the stack whatever registers are free: `size` bytes at a
    /// multiple of `align`. A `long double` (x87 class) and a struct
    /// passed by value (`byval`, of more than 16 bytes).
    Memory { size: u64, align: u64 },
}

impl Class {
    /// The class of an argument of `width` bits; `sse`: a float, a double
    /// or a vector; `byval`: the object it points at travels instead.
    pub fn of(width: u32, sse: bool, byval: Option<ByVal>) -> Class {
        match byval {
            Some(b) => Class::Memory {
                size: b.size,
                align: u64::from(b.align),
            },
            None if sse && width <= 128 => Class::Sse(width),
            None if width <= 64 || width == 128 => Class::Integer(width),
            None => Class::Memory {
                size: u64::from(width.div_ceil(128)) * 16,
                align: 16,
            },
        }
    }

    /// The bytes it takes in the overflow area and their alignment: 8-byte
    /// slots, a value wider than 64 bits at a multiple of 16.
    fn stack_slot(self) -> (u64, u64) {
        match self {
            Class::Integer(w) | Class::Sse(w) if w > 64 => (16, 16),
            Class::Integer(_) | Class::Sse(_) => (8, 8),
            Class::Memory { size, align } => (size.next_multiple_of(8), align.clamp(8, 16)),
        }
    }
}

/// Lays out the arguments of a call whose first `named` arguments are the
/// callee's parameters, given their classes. Named arguments only take
/// registers; each later one goes to the next free register of its class,
/// else to the overflow area.
pub fn lay_out(args: &[Class], named: usize) -> Layout {
    let (mut gp, mut fp) = (0u32, 0u32);
    let mut overflow = 0u64;
    let mut places = Vec::new();
    let mut offsets = (0, 0);
    for (i, &class) in args.iter().enumerate() {
        if i == named {
            offsets = (gp * 8, 48 + fp * 16);
        }
        let place = match class {
            Class::Sse(_) if fp < SSE_REGS => {
                fp += 1;
                Some(u64::from(48 + (fp - 1) * 16))
            }
            Class::Integer(w) => {
                let needed = if w > 64 { 2 } else { 1 };
                (needed <= GP_REGS - gp).then(|| {
                    gp += needed;
                    u64::from((gp - needed) * 8)
                })
            }
            _ => None,
        };
        if i < named {
            continue;
        }
        let at = place.unwrap_or_else(|| {
            let (size, align) = class.stack_slot();
            let at = overflow.next_multiple_of(align);
            overflow = at + size;
            SAVE_AREA + at
        });
        places.push((at, i));
    }
    if args.len() <= named {
        offsets = (gp * 8, 48 + fp * 16);
    }
    Layout {
        size: SAVE_AREA + overflow.max(OVERFLOW_READABLE),
        places,
        gp_offset: offsets.0,
        fp_offset: offsets.1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Class::{Integer as Int, Sse};

    #[test]
    fn each_argument_takes_the_next_register_of_its_class_then_the_stack() {
        // printf(fmt, 1, 2.0, long double, 3): fmt takes the first integer
        // register, 1 the second, 2.0 the first SSE one, the long double
        // the stack, 3 the third integer register.
        let long_double = Class::of(80, false, None);
        let args = [Int(64), Int(32), Sse(64), long_double, Int(32)];
        let l = lay_out(&args, 1);
        assert_eq!((l.gp_offset, l.fp_offset), (8, 48));
        assert_eq!(l.places, vec![(8, 1), (48, 2), (SAVE_AREA, 3), (16, 4)]);
        assert_eq!(l.size, SAVE_AREA + 48);
        assert_eq!(Class::of(64, true, None), Sse(64));
        assert_eq!(Class::of(128, false, None), Int(128));
    }

    #[test]
    fn a_wide_integer_takes_two_registers_or_an_aligned_stack_slot() {
        // Four named integers, then an int, then a 128-bit integer: one
        // register is left for it, so it goes on the stack, at a multiple
        // of 16 after nothing.
        let mut args = vec![Int(64); 4];
        args.extend([Int(32), Int(128), Int(32)]);
        let l = lay_out(&args, 4);
        assert_eq!((l.gp_offset, l.fp_offset), (32, 48));
        assert_eq!(l.places, vec![(32, 4), (SAVE_AREA, 5), (40, 6)]);
        // With two registers free it takes both.
        let l = lay_out(&[Int(64), Int(128), Int(32)], 1);
        assert_eq!(l.places, vec![(8, 1), (24, 2)]);
    }

    #[test]
    fn past_the_registers_arguments_fill_the_stack_in_order() {
        let args = vec![Int(64); 9];
        let l = lay_out(&args, 0);
        assert_eq!(l.places.last(), Some(&(SAVE_AREA + 16, 8)));
        let doubles = vec![Sse(64); 10];
        let l = lay_out(&doubles, 1);
        assert_eq!((l.gp_offset, l.fp_offset), (0, 64));
        assert_eq!(l.places[6], (48 + 7 * 16, 7));
        assert_eq!(l.places[7], (SAVE_AREA, 8));
        assert_eq!(l.places[8], (SAVE_AREA + 8, 9));
        // No variadic argument: the offsets after the named ones.
        let l = lay_out(&[Int(64), Sse(64)], 2);
        assert_eq!((l.gp_offset, l.fp_offset, l.places.len()), (8, 64, 0));
    }

    #[test]
    fn a_struct_passed_by_value_takes_its_size_on_the_stack_and_no_register() {
        // f(n, struct of 20 bytes, struct of 32 aligned to 16, 7): the
        // structs fill the stack in order, each rounded up to 8 bytes and
        // the second at a multiple of 16; 7 still takes the second
        // integer register.
        let small = Class::of(64, false, Some(ByVal { size: 20, align: 4 }));
        let wide = Class::of(
            64,
            false,
            Some(ByVal {
                size: 32,
                align: 16,
            }),
        );
        let l = lay_out(&[Int(32), small, wide, Int(32)], 1);
        assert_eq!(l.places, vec![(SAVE_AREA, 1), (SAVE_AREA + 32, 2), (8, 3)]);
        assert_eq!(l.size, SAVE_AREA + 64);
        // Named, it takes no register either.
        let l = lay_out(&[small, Int(32)], 1);
        assert_eq!((l.gp_offset, l.places[0]), (0, (0, 1)));
    }
}
