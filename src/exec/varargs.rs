//! Where a variadic callee finds its arguments: x86-64's System V
//! convention, which clang's inline `va_arg` code follows. The first six
//! integer arguments and the first eight of the SSE class (floats,
//! doubles, vectors up to 128 bits) travel in registers, which the callee
//! saves in an area `va_start` points it at; the rest, and every
//! `long double`, are on the stack, in the overflow area after it.

use super::value::Value;

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

/// Lays out the arguments `args` of a call whose first `named` arguments
/// are the callee's parameters; `sse[i]` says whether argument `i` is of
/// the SSE class (missing: not). Named arguments only take registers;
/// each later one goes to the next free register of its class, else to
/// the overflow area, in 8-byte slots, one wider than 64 bits at a
/// multiple of 16.
pub fn lay_out(args: &[Value], sse: &[bool], named: usize) -> Layout {
    let (mut gp, mut fp) = (0u32, 0u32);
    let mut overflow = 0u64;
    let mut places = Vec::new();
    let mut offsets = (0, 0);
    for (i, a) in args.iter().enumerate() {
        if i == named {
            offsets = (gp * 8, 48 + fp * 16);
        }
        let width = a.width();
        let is_sse = sse.get(i).copied().unwrap_or(false) && width <= 128;
        // An integer of 128 bits takes two registers; anything else wider
        // than 64 bits that is not a vector (a long double) goes on the
        // stack.
        let gp_needed = match width {
            0..=64 => 1,
            128 => 2,
            _ => u32::MAX,
        };
        let place = if is_sse && fp < SSE_REGS {
            fp += 1;
            Some(u64::from(48 + (fp - 1) * 16))
        } else if !is_sse && gp_needed <= GP_REGS - gp {
            gp += gp_needed;
            Some(u64::from((gp - gp_needed) * 8))
        } else {
            None
        };
        if i < named {
            continue;
        }
        let at = place.unwrap_or_else(|| {
            let at = if width > 64 {
                overflow.next_multiple_of(16)
            } else {
                overflow
            };
            overflow = at + if width > 64 { 16 } else { 8 };
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

    fn int(w: u32) -> Value {
        Value::concrete(1, w)
    }

    #[test]
    fn each_argument_takes_the_next_register_of_its_class_then_the_stack() {
        // printf(fmt, 1, 2.0, long double, 3): fmt takes the first integer
        // register, 1 the second, 2.0 the first SSE one, the long double
        // the stack, 3 the third integer register.
        let args = [int(64), int(32), int(64), int(80), int(32)];
        let sse = [false, false, true, false, false];
        let l = lay_out(&args, &sse, 1);
        assert_eq!((l.gp_offset, l.fp_offset), (8, 48));
        assert_eq!(l.places, vec![(8, 1), (48, 2), (SAVE_AREA, 3), (16, 4)]);
        assert_eq!(l.size, SAVE_AREA + 48);
    }

    #[test]
    fn a_wide_integer_takes_two_registers_or_an_aligned_stack_slot() {
        // Four named integers, then an int, then a 128-bit integer: one
        // register is left for it, so it goes on the stack, at a multiple
        // of 16 after nothing.
        let mut args = vec![int(64); 4];
        args.extend([int(32), int(128), int(32)]);
        let l = lay_out(&args, &[], 4);
        assert_eq!((l.gp_offset, l.fp_offset), (32, 48));
        assert_eq!(l.places, vec![(32, 4), (SAVE_AREA, 5), (40, 6)]);
        // With two registers free it takes both.
        let l = lay_out(&[int(64), int(128), int(32)], &[], 1);
        assert_eq!(l.places, vec![(8, 1), (24, 2)]);
    }

    #[test]
    fn past_the_registers_arguments_fill_the_stack_in_order() {
        let args = vec![int(64); 9];
        let l = lay_out(&args, &[], 0);
        assert_eq!(l.places.last(), Some(&(SAVE_AREA + 16, 8)));
        let doubles = vec![int(64); 10];
        let l = lay_out(&doubles, &[true; 10], 1);
        assert_eq!((l.gp_offset, l.fp_offset), (0, 64));
        assert_eq!(l.places[6], (48 + 7 * 16, 7));
        assert_eq!(l.places[7], (SAVE_AREA, 8));
        assert_eq!(l.places[8], (SAVE_AREA + 8, 9));
        // No variadic argument: the offsets after the named ones.
        let l = lay_out(&[int(64), int(64)], &[false, true], 2);
        assert_eq!((l.gp_offset, l.fp_offset, l.places.len()), (8, 64, 0));
    }
}
