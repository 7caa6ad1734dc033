//! Inline assembly the engine understands: a call of inline assembly is
//! lowered to [`super::Inst::Asm`] when its template is one of these, and
//! to an unsupported instruction naming the template otherwise.

/// The inline assembly the engine runs: compiler barriers and the x87
/// control word, as gnulib's `vasnprintf` saves and restores it around
/// `long double` formatting. Anything else stays unsupported.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AsmOp {
    /// An empty template without outputs (`asm volatile("" ::: "memory")`,
    /// or with inputs, as gnulib's explicit_bzero keeps its buffer alive):
    /// it orders the compiler's accesses and does nothing at run time.
    Barrier,
    /// `fnstcw m16`: stores the x87 control word.
    StoreFpuControl,
    /// `fldcw m16`: loads the x87 control word.
    LoadFpuControl,
}

impl AsmOp {
    /// The operation of an inline assembly template with its constraint
    /// string, if the engine knows it.
    pub fn recognise(template: &str, constraints: &str) -> Option<AsmOp> {
        let operands = operand_constraints(constraints);
        match (template.trim(), operands.as_slice()) {
            ("", ops) if ops.iter().all(|o| !o.starts_with('=')) => Some(AsmOp::Barrier),
            ("fnstcw $0", ["=*m"]) => Some(AsmOp::StoreFpuControl),
            ("fldcw $0", ["*m"]) => Some(AsmOp::LoadFpuControl),
            _ => None,
        }
    }
}

/// Inline assembly that computes on registers only, which the lowering
/// rewrites into ordinary instructions: the double-word arithmetic and the
/// bit scans of GMP's `longlong.h`, as gnulib copies it for `factor` and
/// the multi-precision code of other programs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AsmArith {
    /// `addq $5,$1; adcq $3,$0`: the two-word sum `{hi, lo}` of
    /// `{ah, al} + {bh, bl}`, operands in the order `ah, bh, al, bl`.
    AddPair,
    /// `subq $5,$1; sbbq $3,$0`: the two-word difference, operands as for
    /// [`AsmArith::AddPair`].
    SubPair,
    /// `mulq $3`: the full product of two words as `{lo, hi}` (`rax`, `rdx`).
    MulWide,
    /// `bsf`: the index of the lowest set bit.
    ScanForward,
    /// `bsr`: the index of the highest set bit.
    ScanReverse,
}

impl AsmArith {
    /// The computation of an inline assembly template with its constraint
    /// string, if it is one the lowering rewrites.
    pub fn recognise(template: &str, constraints: &str) -> Option<AsmArith> {
        let operands = operand_constraints(constraints);
        // Operand modifiers (`${0:q}`) only choose a register's name, and
        // spacing means nothing.
        let template = template
            .replace("${0:q}", "$0")
            .replace("${1:q}", "$1")
            .replace(", ", ",")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        match (template.as_str(), operands.as_slice()) {
            ("addq $5,$1 adcq $3,$0", ["=r", "=&r", "0", "rme", "%1", "rme"]) => {
                Some(AsmArith::AddPair)
            }
            ("subq $5,$1 sbbq $3,$0", ["=r", "=&r", "0", "rme", "1", "rme"]) => {
                Some(AsmArith::SubPair)
            }
            ("mulq $3", ["={ax}", "={dx}", "%0", "rm"]) => Some(AsmArith::MulWide),
            ("bsf $1,$0", ["=r", "rm"]) => Some(AsmArith::ScanForward),
            ("bsr $1,$0", ["=r", "rm"]) => Some(AsmArith::ScanReverse),
            _ => None,
        }
    }
}

/// The operand constraints of a constraint string; clobbers (`~{...}`)
/// change nothing the engine models.
fn operand_constraints(constraints: &str) -> Vec<&str> {
    constraints
        .split(',')
        .filter(|c| !c.is_empty() && !c.starts_with('~'))
        .collect()
}

/// The x87 control word after `finit`, which the engine's floating point
/// follows: all exceptions masked, 64-bit precision, rounding to nearest.
pub const X87_DEFAULT_CONTROL: u16 = 0x037f;

/// The template and the constraints of inline assembly as LLVM prints it
/// (`TYPE asm [sideeffect] "TEMPLATE", "CONSTRAINTS"`), escapes (`\0A`)
/// decoded.
pub(super) fn strings(printed: &str) -> Option<(String, String)> {
    let rest = &printed[printed.find(" asm ")? + 5..];
    let open = rest.find('"')?;
    let (template, rest) = quoted(&rest[open + 1..])?;
    let open = rest.find('"')?;
    let (constraints, _) = quoted(&rest[open + 1..])?;
    Some((template, constraints))
}

/// The string up to the next unescaped quote and what follows it, with
/// LLVM's `\XX` hexadecimal escapes decoded.
fn quoted(s: &str) -> Option<(String, &str)> {
    let end = s.find('"')?;
    let raw = &s.as_bytes()[..end];
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let hex = raw
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (raw[i], hex) {
            (b'\\', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some((String::from_utf8_lossy(&out).into_owned(), &s[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_read_as_llvm_prints_them() {
        let fnstcw =
            r#"void (i16*)* asm sideeffect "fnstcw $0", "=*m,~{dirflag},~{fpsr},~{flags}""#;
        let (t, c) = strings(fnstcw).unwrap();
        assert_eq!(AsmOp::recognise(&t, &c), Some(AsmOp::StoreFpuControl));
        let fldcw = r#"void (i16*)* asm sideeffect "fldcw $0", "*m,~{dirflag},~{fpsr},~{flags}""#;
        let (t, c) = strings(fldcw).unwrap();
        assert_eq!(AsmOp::recognise(&t, &c), Some(AsmOp::LoadFpuControl));
        let barrier = r#"void ()* asm sideeffect "", "~{memory},~{dirflag},~{fpsr},~{flags}""#;
        let (t, c) = strings(barrier).unwrap();
        assert_eq!(AsmOp::recognise(&t, &c), Some(AsmOp::Barrier));
        // Two instructions, escapes decoded; not one the engine runs.
        let add = r#"{ i64, i64 } (i64, i64, i64, i64)* asm "addq $5,${1:q}\0A\09adcq $3,${0:q}", "=r,=&r,0,rme,%1,rme,~{flags}""#;
        let (t, c) = strings(add).unwrap();
        assert_eq!(t, "addq $5,${1:q}\n\tadcq $3,${0:q}");
        assert_eq!(AsmOp::recognise(&t, &c), None);
        assert_eq!(AsmArith::recognise(&t, &c), Some(AsmArith::AddPair));
        // gnulib's explicit_bzero: an empty template whose input only
        // keeps the buffer alive.
        let keep = r#"void (i8*)* asm sideeffect "", "imr,~{memory},~{dirflag},~{fpsr},~{flags}""#;
        let (t, c) = strings(keep).unwrap();
        assert_eq!(AsmOp::recognise(&t, &c), Some(AsmOp::Barrier));
        // An empty template with an output is not a barrier.
        assert_eq!(AsmOp::recognise("", "=r"), None);
        assert_eq!(AsmOp::recognise("", "=r,0"), None);
        assert_eq!(strings("no assembly here"), None);
    }

    #[test]
    fn longlong_arithmetic_is_recognised_by_template_and_constraints() {
        let cases = [
            (
                r#"{ i64, i64 } (i64, i64, i64, i64)* asm "subq $5,${1:q}\0A\09sbbq $3,${0:q}", "=r,=&r,0,rme,1,rme,~{dirflag},~{fpsr},~{flags}""#,
                Some(AsmArith::SubPair),
            ),
            (
                r#"{ i64, i64 } (i64, i64)* asm "mulq\09$3", "={ax},={dx},%0,rm,~{dirflag},~{fpsr},~{flags}""#,
                Some(AsmArith::MulWide),
            ),
            (
                r#"i32 (i64)* asm "bsf\09$1, ${0:q}", "=r,rm,~{dirflag},~{fpsr},~{flags}""#,
                Some(AsmArith::ScanForward),
            ),
            (
                r#"i64 (i64)* asm "bsr\09$1,$0", "=r,rm,~{dirflag},~{fpsr},~{flags}""#,
                Some(AsmArith::ScanReverse),
            ),
            // The same template with other constraints is another computation.
            (r#"i64 (i64)* asm "bsr\09$1,$0", "=r,m,~{flags}""#, None),
            (r#"i64 (i64)* asm "popcnt $1,$0", "=r,rm""#, None),
        ];
        for (printed, want) in cases {
            let (t, c) = strings(printed).unwrap();
            assert_eq!(AsmArith::recognise(&t, &c), want, "{printed}");
        }
    }
}
