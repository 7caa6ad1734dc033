//! Structural hashes of lowered functions, stable across runs, machines and
//! mnemo builds: every field is fed explicitly (no `derive(Hash)`, whose
//! encoding Rust does not promise to keep) into 64-bit FNV-1a, finished with
//! an avalanche step. Functions and globals are identified by name (private
//! constants such as string literals by their contents, since clang numbers
//! them module-wide), so a function keeps its hash when others change; the
//! number llvm-link gives a same-named internal symbol is left out
//! ([`base_name`]), since it changes with the files linked before, and a
//! callee is told from its namesakes by its signature (a global by its
//! size, and by the initial data it holds or points to: a path reads that
//! only through an address a block names).

mod codes;
#[cfg(test)]
mod tests;

use super::base_name;
use super::{AsmOp, Body, Callee, Const, Function, Global, Inst, Operand};
use codes::{cast_code, fbin_code, fcast_code, float_code, fpred_code, intrinsic_code, ipred_code};

/// A fixed-seed byte-stream hasher (64-bit FNV-1a plus a final mix).
#[derive(Clone, Debug)]
pub(super) struct StableHasher(u64);

impl StableHasher {
    pub fn new() -> StableHasher {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }

    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    pub fn u8(&mut self, x: u8) {
        self.bytes(&[x]);
    }

    pub fn u32(&mut self, x: u32) {
        self.bytes(&x.to_le_bytes());
    }

    pub fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }

    pub fn u128(&mut self, x: u128) {
        self.bytes(&x.to_le_bytes());
    }

    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }

    pub fn bool(&mut self, b: bool) {
        self.u8(u8::from(b));
    }

    pub fn finish(&self) -> u64 {
        // splitmix64's finalizer spreads FNV's weak high bits.
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Computes `Function::hash` for every function of a module under construction.
pub(super) struct Hashing<'a> {
    functions: &'a [Function],
    globals: &'a [Global],
    /// Whether a global is identified by its contents rather than its name.
    by_contents: &'a [bool],
    consts: &'a [Const],
    const_hashes: Vec<u64>,
    /// Per global, a hash of its initial data and of every global's its
    /// initializer reaches through the addresses it holds; empty while
    /// the constants are first hashed without it.
    reached_data: Vec<u64>,
}

impl<'a> Hashing<'a> {
    pub fn new(
        functions: &'a [Function],
        globals: &'a [Global],
        by_contents: &'a [bool],
        consts: &'a [Const],
    ) -> Self {
        let mut h = Hashing {
            functions,
            globals,
            by_contents,
            consts,
            const_hashes: Vec::with_capacity(consts.len()),
            reached_data: Vec::new(),
        };
        // A first round names each global without its data; the initial
        // data reached from each, which that round's hashes of the
        // initializers describe, then joins its name in the second.
        h.hash_consts();
        h.reached_data = (0..globals.len()).map(|g| h.reached(g)).collect();
        h.hash_consts();
        h
    }

    /// The pool interns operands before the constants using them, so each
    /// entry only refers to entries already hashed.
    fn hash_consts(&mut self) {
        self.const_hashes.clear();
        for c in self.consts {
            let x = self.const_hash(c);
            self.const_hashes.push(x);
        }
    }

    fn child(&self, id: super::ConstId) -> u64 {
        self.const_hashes.get(id.index()).copied().unwrap_or(0)
    }

    /// A global as a function's hash sees it: by its contents (a private
    /// constant, whose name a new version renumbers) or by its name, and,
    /// once known, by the initial data it reaches, so that a new initial
    /// value changes the blocks that take the address it is read through.
    fn global_identity(&self, s: &mut StableHasher, g: super::GlobalId) {
        let Some(global) = self.globals.get(g.index()) else {
            s.u8(0);
            return;
        };
        if let Some(data) = self.reached_data.get(g.index()) {
            s.u64(*data);
        }
        if self.by_contents.get(g.index()).copied().unwrap_or(false) {
            s.u8(1);
            self.contents(s, global, false);
        } else {
            s.u8(2);
            s.str(base_name(&global.name));
            s.u64(global.size);
        }
    }

    /// The initial data of global `g` and of every global it reaches
    /// through the addresses its initializer holds, in the order a
    /// breadth-first walk from it meets them.
    fn reached(&self, g: usize) -> u64 {
        let mut s = StableHasher::new();
        let mut order = vec![g];
        let mut seen = rustc_hash::FxHashSet::default();
        seen.insert(g);
        let mut targets = Vec::new();
        let mut next = 0;
        while let Some(&i) = order.get(next) {
            next += 1;
            let global = &self.globals[i];
            s.u64(self.initial(global));
            for (_, c) in global.init.iter().flat_map(|init| &init.relocs) {
                self.globals_in(*c, &mut targets);
            }
            for t in targets.drain(..) {
                if t < self.globals.len() && seen.insert(t) {
                    order.push(t);
                }
            }
        }
        s.finish()
    }

    /// A global's size, constness and initializer, the addresses in it by
    /// what they point to.
    fn initial(&self, g: &Global) -> u64 {
        let mut s = StableHasher::new();
        self.contents(&mut s, g, true);
        s.finish()
    }

    /// A global's size, constness and initializer: its bytes and where
    /// addresses go in them, and with `targets` what they point to.
    fn contents(&self, s: &mut StableHasher, g: &Global, targets: bool) {
        s.u64(g.size);
        s.bool(g.is_constant);
        let Some(init) = &g.init else {
            s.u8(0);
            return;
        };
        s.u8(1);
        s.bytes(&init.bytes);
        s.u64(init.relocs.len() as u64);
        for (off, c) in &init.relocs {
            s.u64(*off);
            if targets {
                s.u64(self.child(*c));
            }
        }
    }

    /// The globals whose addresses constant `id` is made of.
    fn globals_in(&self, id: super::ConstId, out: &mut Vec<usize>) {
        let mut stack = vec![id];
        while let Some(id) = stack.pop() {
            match self.consts.get(id.index()) {
                Some(Const::GlobalAddr { global, .. }) => out.push(global.index()),
                Some(Const::Cast { value, .. }) => stack.push(*value),
                Some(Const::Binary { lhs, rhs, .. } | Const::ICmp { lhs, rhs, .. }) => {
                    stack.extend([*lhs, *rhs]);
                }
                Some(Const::Select {
                    cond,
                    then_val,
                    else_val,
                }) => stack.extend([*cond, *then_val, *else_val]),
                Some(Const::Aggregate { parts, .. }) => stack.extend(parts.iter().map(|(_, c)| *c)),
                _ => {}
            }
        }
    }

    fn func_name(&self, s: &mut StableHasher, f: super::FuncId) {
        let Some(f) = self.functions.get(f.index()) else {
            s.str("");
            return;
        };
        s.str(base_name(&f.name));
        s.u64(f.params.len() as u64);
        for p in &f.params {
            s.u32(*p);
        }
        s.u32(f.ret_width.unwrap_or(u32::MAX));
        s.bool(f.is_vararg);
    }

    fn const_hash(&self, c: &Const) -> u64 {
        let mut s = StableHasher::new();
        match c {
            Const::Int { width, bits } => {
                s.u8(0);
                s.u32(*width);
                s.u128(*bits);
            }
            Const::Undef { width } => {
                s.u8(1);
                s.u32(*width);
            }
            Const::Null => s.u8(2),
            Const::GlobalAddr { global, offset } => {
                s.u8(3);
                self.global_identity(&mut s, *global);
                s.u64(*offset as u64);
            }
            Const::FuncAddr(f) => {
                s.u8(4);
                self.func_name(&mut s, *f);
            }
            Const::Cast { op, to, value } => {
                s.u8(5);
                s.u8(cast_code(*op));
                s.u32(*to);
                s.u64(self.child(*value));
            }
            Const::Binary {
                op,
                width,
                lhs,
                rhs,
            } => {
                s.u8(6);
                s.u8(op.code());
                s.u32(*width);
                s.u64(self.child(*lhs));
                s.u64(self.child(*rhs));
            }
            Const::ICmp { pred, lhs, rhs } => {
                s.u8(7);
                s.u8(ipred_code(*pred));
                s.u64(self.child(*lhs));
                s.u64(self.child(*rhs));
            }
            Const::Select {
                cond,
                then_val,
                else_val,
            } => {
                s.u8(8);
                s.u64(self.child(*cond));
                s.u64(self.child(*then_val));
                s.u64(self.child(*else_val));
            }
            Const::Aggregate { width, parts } => {
                s.u8(9);
                s.u32(*width);
                s.u64(parts.len() as u64);
                for (off, id) in parts {
                    s.u32(*off);
                    s.u64(self.child(*id));
                }
            }
            Const::BlockAddr { func, block } => {
                s.u8(10);
                self.func_name(&mut s, *func);
                s.u32(block.0);
            }
        }
        s.finish()
    }

    fn operand(&self, s: &mut StableHasher, o: &Operand) {
        match o {
            Operand::Reg(r) => {
                s.u8(0);
                s.u32(r.0);
            }
            Operand::Const(c) => {
                s.u8(1);
                s.u64(self.child(*c));
            }
        }
    }

    /// The hash of one function: signature plus lowered body (locations excluded,
    /// so moving a function within its file keeps its hash).
    pub fn function(&self, f: &Function) -> u64 {
        let mut s = StableHasher::new();
        s.u64(f.params.len() as u64);
        for &p in &f.params {
            s.u32(p);
        }
        match f.ret_width {
            Some(w) => {
                s.u8(1);
                s.u32(w);
            }
            None => s.u8(0),
        }
        s.bool(f.is_vararg);
        match &f.body {
            Some(body) => {
                s.u8(1);
                self.body(&mut s, body);
            }
            None => s.u8(0),
        }
        s.finish()
    }

    /// The hash of each block's instructions (phis included).
    pub fn blocks(&self, b: &Body) -> Vec<u64> {
        b.blocks
            .iter()
            .map(|blk| {
                let mut s = StableHasher::new();
                for i in &b.insts[blk.first.index()..blk.end.index()] {
                    self.inst(&mut s, i);
                }
                s.finish()
            })
            .collect()
    }

    fn body(&self, s: &mut StableHasher, b: &Body) {
        s.u32(b.num_regs);
        s.u32(b.num_sites);
        s.u64(b.blocks.len() as u64);
        for blk in &b.blocks {
            s.u32(blk.first.0);
            s.u32(blk.body_start.0);
            s.u32(blk.end.0);
        }
        s.u64(b.insts.len() as u64);
        for i in &b.insts {
            self.inst(s, i);
        }
    }

    fn inst(&self, s: &mut StableHasher, i: &Inst) {
        match i {
            Inst::Binary {
                op,
                width,
                lhs,
                rhs,
                dst,
                site,
            } => {
                s.u8(0);
                s.u8(op.code());
                s.u32(*width);
                self.operand(s, lhs);
                self.operand(s, rhs);
                s.u32(dst.0);
                s.u32(site.map_or(u32::MAX, |x| x.0));
            }
            Inst::ICmp {
                pred,
                width,
                lhs,
                rhs,
                dst,
            } => {
                s.u8(1);
                s.u8(ipred_code(*pred));
                s.u32(*width);
                self.operand(s, lhs);
                self.operand(s, rhs);
                s.u32(dst.0);
            }
            Inst::FBinary {
                op,
                ty,
                lhs,
                rhs,
                dst,
            } => {
                s.u8(2);
                s.u8(fbin_code(*op));
                s.u8(float_code(*ty));
                self.operand(s, lhs);
                self.operand(s, rhs);
                s.u32(dst.0);
            }
            Inst::FNeg { ty, src, dst } => {
                s.u8(3);
                s.u8(float_code(*ty));
                self.operand(s, src);
                s.u32(dst.0);
            }
            Inst::FCmp {
                pred,
                ty,
                lhs,
                rhs,
                dst,
            } => {
                s.u8(4);
                s.u8(fpred_code(*pred));
                s.u8(float_code(*ty));
                self.operand(s, lhs);
                self.operand(s, rhs);
                s.u32(dst.0);
            }
            Inst::Cast {
                op,
                from,
                to,
                src,
                dst,
            } => {
                s.u8(5);
                s.u8(cast_code(*op));
                s.u32(*from);
                s.u32(*to);
                self.operand(s, src);
                s.u32(dst.0);
            }
            Inst::FCast {
                op,
                float,
                to_float,
                int_width,
                src,
                dst,
            } => {
                s.u8(6);
                s.u8(fcast_code(*op));
                s.u8(float_code(*float));
                s.u8(float_code(*to_float));
                s.u32(*int_width);
                self.operand(s, src);
                s.u32(dst.0);
            }
            Inst::Select {
                width,
                cond,
                then_val,
                else_val,
                dst,
            } => {
                s.u8(7);
                s.u32(*width);
                self.operand(s, cond);
                self.operand(s, then_val);
                self.operand(s, else_val);
                s.u32(dst.0);
            }
            Inst::Phi {
                width,
                dst,
                incoming,
            } => {
                s.u8(8);
                s.u32(*width);
                s.u32(dst.0);
                s.u64(incoming.len() as u64);
                for (b, o) in incoming {
                    s.u32(b.0);
                    self.operand(s, o);
                }
            }
            Inst::Alloca {
                dst,
                elem_size,
                count,
                count_width,
                align,
                site,
            } => {
                s.u8(9);
                s.u32(dst.0);
                s.u64(*elem_size);
                self.operand(s, count);
                s.u32(*count_width);
                s.u32(*align);
                s.u32(site.map_or(u32::MAX, |x| x.0));
            }
            Inst::Load {
                dst,
                addr,
                width,
                bytes,
                site,
            } => {
                s.u8(10);
                s.u32(dst.0);
                self.operand(s, addr);
                s.u32(*width);
                s.u32(*bytes);
                s.u32(site.0);
            }
            Inst::Store {
                value,
                addr,
                width,
                bytes,
                site,
            } => {
                s.u8(11);
                self.operand(s, value);
                self.operand(s, addr);
                s.u32(*width);
                s.u32(*bytes);
                s.u32(site.0);
            }
            Inst::Gep {
                dst,
                base,
                offset,
                indices,
            } => {
                s.u8(12);
                s.u32(dst.0);
                self.operand(s, base);
                s.u64(*offset as u64);
                s.u64(indices.len() as u64);
                for ix in indices {
                    self.operand(s, &ix.value);
                    s.u32(ix.width);
                    s.u64(ix.scale);
                }
            }
            Inst::ExtractValue {
                dst,
                agg,
                offset,
                width,
            } => {
                s.u8(13);
                s.u32(dst.0);
                self.operand(s, agg);
                s.u32(*offset);
                s.u32(*width);
            }
            Inst::InsertValue {
                dst,
                agg,
                agg_width,
                elem,
                offset,
                width,
            } => {
                s.u8(14);
                s.u32(dst.0);
                self.operand(s, agg);
                s.u32(*agg_width);
                self.operand(s, elem);
                s.u32(*offset);
                s.u32(*width);
            }
            Inst::Br { target } => {
                s.u8(15);
                s.u32(target.0);
            }
            Inst::CondBr {
                cond,
                then_bb,
                else_bb,
                site,
            } => {
                s.u8(16);
                self.operand(s, cond);
                s.u32(then_bb.0);
                s.u32(else_bb.0);
                s.u32(site.0);
            }
            Inst::Switch {
                cond,
                width,
                cases,
                default,
                site,
            } => {
                s.u8(17);
                self.operand(s, cond);
                s.u32(*width);
                s.u64(cases.len() as u64);
                for (v, b) in cases {
                    s.u128(*v);
                    s.u32(b.0);
                }
                s.u32(default.0);
                s.u32(site.0);
            }
            Inst::Ret { value } => {
                s.u8(18);
                match value {
                    Some(v) => {
                        s.u8(1);
                        self.operand(s, v);
                    }
                    None => s.u8(0),
                }
            }
            Inst::Unreachable => s.u8(19),
            Inst::Call {
                dst,
                ret_width,
                callee,
                args,
                site,
            } => {
                s.u8(20);
                s.u32(dst.map_or(u32::MAX, |r| r.0));
                s.u32(ret_width.unwrap_or(u32::MAX));
                match callee {
                    Callee::Direct(f) => {
                        s.u8(0);
                        self.func_name(s, *f);
                    }
                    Callee::Indirect(o) => {
                        s.u8(1);
                        self.operand(s, o);
                    }
                }
                s.u64(args.len() as u64);
                for a in args {
                    self.operand(s, &a.value);
                    s.u32(a.width);
                    // One byte for both, so that a call without a byval
                    // argument hashes as before they were told apart.
                    s.u8(u8::from(a.sse) | u8::from(a.byval.is_some()) << 1);
                    if let Some(b) = a.byval {
                        s.u64(b.size);
                        s.u32(b.align);
                    }
                }
                s.u32(site.0);
            }
            Inst::Intrinsic {
                kind,
                dst,
                width,
                args,
                site,
            } => {
                s.u8(21);
                s.str(intrinsic_code(*kind));
                s.u32(dst.map_or(u32::MAX, |r| r.0));
                s.u32(*width);
                s.u64(args.len() as u64);
                for a in args {
                    self.operand(s, a);
                }
                s.u32(site.map_or(u32::MAX, |x| x.0));
            }
            Inst::Unsupported { what } => {
                s.u8(22);
                s.str(what);
            }
            Inst::IndirectBr {
                addr,
                targets,
                site,
            } => {
                s.u8(24);
                self.operand(s, addr);
                s.u64(targets.len() as u64);
                for b in targets {
                    s.u32(b.0);
                }
                s.u32(site.0);
            }
            Inst::Asm { op, addr } => {
                s.u8(23);
                s.u8(match op {
                    AsmOp::Barrier => 0,
                    AsmOp::StoreFpuControl => 1,
                    AsmOp::LoadFpuControl => 2,
                });
                if let Some(a) = addr {
                    self.operand(s, a);
                }
            }
        }
    }
}
