//! Readable s-expressions for `Debug`.
//!
//! Expressions are DAGs and may be deep, so printing stops descending past a
//! fixed depth and after a fixed number of nodes, writing `…` instead.

use super::{CmpOp, ExprKind, ExprRef, UpdateList};
use crate::ir::BinOp;
use std::fmt::{self, Write};

const MAX_DEPTH: usize = 64;
const MAX_NODES: usize = 2000;

struct Printer<'a, 'b> {
    f: &'a mut fmt::Formatter<'b>,
    nodes: usize,
}

fn binop_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::UDiv => "udiv",
        BinOp::SDiv => "sdiv",
        BinOp::URem => "urem",
        BinOp::SRem => "srem",
        BinOp::And => "and",
        BinOp::Or => "or",
        BinOp::Xor => "xor",
        BinOp::Shl => "shl",
        BinOp::LShr => "lshr",
        BinOp::AShr => "ashr",
    }
}

fn cmp_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "eq",
        CmpOp::Ult => "ult",
        CmpOp::Ule => "ule",
        CmpOp::Slt => "slt",
        CmpOp::Sle => "sle",
    }
}

impl Printer<'_, '_> {
    fn expr(&mut self, e: &ExprRef, depth: usize) -> fmt::Result {
        if depth > MAX_DEPTH || self.nodes >= MAX_NODES {
            return self.f.write_char('…');
        }
        self.nodes += 1;
        let w = e.width();
        match e.kind() {
            ExprKind::Const(v) => {
                if w == 1 {
                    self.f.write_str(if *v == 1 { "true" } else { "false" })
                } else {
                    write!(self.f, "{v}:w{w}")
                }
            }
            ExprKind::Read { updates, index } => {
                self.f.write_str("(read ")?;
                self.updates(updates, depth)?;
                self.f.write_char(' ')?;
                self.expr(index, depth + 1)?;
                self.f.write_char(')')
            }
            ExprKind::Select {
                cond,
                then_e,
                else_e,
            } => self.node("select", &[cond, then_e, else_e], depth),
            ExprKind::Concat { hi, lo } => self.node("concat", &[hi, lo], depth),
            ExprKind::Extract { expr, offset } => {
                write!(self.f, "(extract {offset} {w} ")?;
                self.expr(expr, depth + 1)?;
                self.f.write_char(')')
            }
            ExprKind::ZExt(x) => {
                write!(self.f, "(zext {w} ")?;
                self.expr(x, depth + 1)?;
                self.f.write_char(')')
            }
            ExprKind::SExt(x) => {
                write!(self.f, "(sext {w} ")?;
                self.expr(x, depth + 1)?;
                self.f.write_char(')')
            }
            ExprKind::Not(x) => self.node("not", &[x], depth),
            ExprKind::Binary { op, lhs, rhs } => self.node(binop_name(*op), &[lhs, rhs], depth),
            ExprKind::Cmp { op, lhs, rhs } => self.node(cmp_name(*op), &[lhs, rhs], depth),
        }
    }

    fn node(&mut self, name: &str, args: &[&ExprRef], depth: usize) -> fmt::Result {
        write!(self.f, "({name}")?;
        for a in args {
            self.f.write_char(' ')?;
            self.expr(a, depth + 1)?;
        }
        self.f.write_char(')')
    }

    fn updates(&mut self, u: &UpdateList, depth: usize) -> fmt::Result {
        self.f.write_str(&u.root.name)?;
        if u.is_empty() {
            return Ok(());
        }
        self.f.write_char('[')?;
        for (i, node) in u.iter().enumerate() {
            if i > 0 {
                self.f.write_char(' ')?;
            }
            if self.nodes >= MAX_NODES {
                return self.f.write_str("…]");
            }
            self.expr(&node.index, depth + 1)?;
            self.f.write_char('=')?;
            self.expr(&node.value, depth + 1)?;
        }
        self.f.write_char(']')
    }
}

impl fmt::Debug for ExprRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Printer { f, nodes: 0 }.expr(self, 0)
    }
}

pub(super) fn fmt_updates(u: &UpdateList, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    Printer { f, nodes: 0 }.updates(u, 0)
}
