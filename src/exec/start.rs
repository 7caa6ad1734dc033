//! The program's first state: the values of the module's constants, the
//! globals' first contents and addresses, and the entry function's frame
//! with its arguments (a `main`'s argv, or the POSIX runtime's start with
//! the `--sym-*` options).

use super::executor::{Executor, POSIX_START};
use super::memory::{AllocKind, MemoryObject, ObjectState};
use super::state::{block_address, function_address, State};
use super::value::Value;
use crate::ir::semantics;
use crate::ir::{Const, ConstId};

/// Bytes set aside for `argv[0]` (Linux's `PATH_MAX`), however long the
/// program's name.
const PROGRAM_NAME_SLOT: u64 = 4096;

impl Executor {
    /// The value of constant `id`, globals' addresses known.
    pub(super) fn eval_const(&self, id: ConstId) -> Value {
        self.eval_const_in(id, None)
    }

    /// The value of constant `id` in a thread whose copies of the
    /// thread-local globals are at `tls` (in `tls_globals`' order); `None`
    /// in the main thread, whose copies are the globals themselves.
    pub(super) fn eval_const_in(&self, id: ConstId, tls: Option<&[u64]>) -> Value {
        match self.module.constant(id) {
            Const::Int { width, bits } => Value::concrete(*bits, *width),
            Const::Undef { width } => Value::concrete(0, *width),
            Const::Null => Value::concrete(0, 64),
            Const::GlobalAddr { global, offset } => {
                let i = global.index();
                let own = tls.and_then(|t| Some(t[self.tls_globals.binary_search(&i).ok()?]));
                let base = own.unwrap_or(self.global_addrs[i]);
                Value::concrete(base.wrapping_add(*offset as u64) as u128, 64)
            }
            Const::FuncAddr(f) => Value::concrete(function_address(*f) as u128, 64),
            Const::BlockAddr { func, block } => {
                Value::concrete(block_address(*func, *block) as u128, 64)
            }
            Const::Cast { op, to, value } => {
                let v = self.eval_const_in(*value, tls);
                let from = v.width();
                Value::concrete(
                    semantics::cast(*op, from, *to, v.as_concrete().unwrap_or(0)),
                    *to,
                )
            }
            Const::Binary {
                op,
                width,
                lhs,
                rhs,
            } => {
                let a = self.eval_const_in(*lhs, tls).as_concrete().unwrap_or(0);
                let b = self.eval_const_in(*rhs, tls).as_concrete().unwrap_or(0);
                Value::concrete(semantics::binary(*op, *width, a, b), *width)
            }
            Const::ICmp { pred, lhs, rhs } => {
                let a = self.eval_const_in(*lhs, tls);
                let b = self.eval_const_in(*rhs, tls).as_concrete().unwrap_or(0);
                Value::bool(semantics::icmp(
                    *pred,
                    a.width(),
                    a.as_concrete().unwrap_or(0),
                    b,
                ))
            }
            Const::Select {
                cond,
                then_val,
                else_val,
            } => {
                if self.eval_const_in(*cond, tls).as_concrete().unwrap_or(0) != 0 {
                    self.eval_const_in(*then_val, tls)
                } else {
                    self.eval_const_in(*else_val, tls)
                }
            }
            Const::Aggregate { width, parts } => {
                let mut bits = 0u128;
                for (offset, part) in parts {
                    let v = self.eval_const_in(*part, tls);
                    if *offset < 128 {
                        bits |= v.as_concrete().unwrap_or(0) << offset;
                    }
                }
                Value::concrete(bits, *width)
            }
        }
    }

    /// Global `i`'s first contents.
    pub(crate) fn global_contents(&self, i: usize) -> ObjectState {
        let g = &self.module.globals[i];
        let Some(init) = &g.init else {
            return ObjectState::zeroed(g.size);
        };
        let mut bytes = init.bytes.clone();
        bytes.resize(g.size as usize, 0);
        let mut contents = ObjectState::from_bytes(bytes);
        for (offset, c) in &init.relocs {
            let v = self.consts[c.index()].clone();
            let n = (v.width() / 8).max(1);
            if offset + n as u64 <= g.size {
                contents.write(*offset, n, &v);
            }
        }
        contents
    }

    /// Global `i`'s address.
    pub(crate) fn global_address(&self, i: usize) -> u64 {
        self.global_addrs[i]
    }

    /// The global whose bytes hold `addr`, if any.
    pub(crate) fn global_at(&self, addr: u64) -> Option<usize> {
        let i = self
            .global_addrs
            .partition_point(|a| *a <= addr)
            .checked_sub(1)?;
        let size = self.module.globals[i].size.max(1);
        (addr - self.global_addrs[i] < size).then_some(i)
    }

    /// Sets what musl's startup, which a run does not execute, sets from
    /// `argv[0]` (at `name`): `__progname_full` to it and `__progname` to
    /// its last component, which `err`, `warn` and gnulib's `getprogname`
    /// print (`(null)` before, where a native run prints the name).
    fn name_the_program(&self, state: &mut State, argv: &[String], ptrs: &[u64]) {
        let (Some(arg0), Some(&name)) = (argv.first(), ptrs.first()) else {
            return;
        };
        let base = arg0.rfind('/').map_or(0, |i| i + 1) as u64;
        for (global, addr) in [("__progname_full", name), ("__progname", name + base)] {
            let Some(&id) = self.module.global_index.get(global) else {
                continue;
            };
            let g = self.module.global(id);
            if g.size != 8 || g.is_constant {
                continue;
            }
            if let Some(object) = state.memory.state_mut(self.global_addrs[id.index()]) {
                object.write(0, 8, &Value::concrete(u128::from(addr), 64));
            }
        }
    }

    /// The state at the entry function with globals and argv in memory.
    pub fn initial_state(&mut self) -> anyhow::Result<State> {
        let module = self.module.clone();
        let entry = module
            .func_by_name(&self.config.entry)
            .filter(|f| module.func(*f).body.is_some())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "the program has no function `{}` to start in",
                    self.config.entry
                )
            })?;
        let mut state = self.empty_state(Vec::new());
        for (i, g) in module.globals.iter().enumerate() {
            // Globals are allocations too: one past the memory limit is
            // refused before its bytes are.
            if !self.budget.allows(g.size) {
                anyhow::bail!(
                    "the global `{}` takes {} bytes, more than --max-memory leaves ({} MiB in all)",
                    g.name,
                    g.size,
                    self.budget.limit_mb().unwrap_or(0)
                );
            }
            let contents = self.global_contents(i);
            state.memory.insert(
                MemoryObject {
                    address: self.global_addrs[i],
                    size: g.size,
                    kind: AllocKind::Global,
                    name: g.name.as_str().into(),
                    site: None,
                    read_only: g.is_constant,
                },
                contents,
            );
        }
        // argv: each string its own object, then the pointer array.
        let argv = self.config.argv.clone();
        let mut ptrs = Vec::with_capacity(argv.len() + 1);
        for (i, arg) in argv.iter().enumerate() {
            let mut bytes = arg.as_bytes().to_vec();
            bytes.push(0);
            // argv[0] names the program file, which moves and is renamed
            // between runs (a new version, a copy elsewhere); a fixed slot
            // keeps the addresses of everything after it, which tries
            // record as the targets of symbolic pointers, the same.
            let slot = if i == 0 {
                (bytes.len() as u64).max(PROGRAM_NAME_SLOT)
            } else {
                bytes.len() as u64
            };
            let addr = state.reserve(slot, false);
            state.memory.insert(
                MemoryObject {
                    address: addr,
                    size: bytes.len() as u64,
                    kind: AllocKind::Runtime,
                    name: format!("argv[{i}]").into(),
                    site: None,
                    read_only: false,
                },
                ObjectState::from_bytes(bytes),
            );
            ptrs.push(addr);
        }
        self.name_the_program(&mut state, &argv, &ptrs);
        ptrs.push(0);
        let argv_addr = state.reserve(8 * ptrs.len() as u64, false);
        let mut table = ObjectState::zeroed(8 * ptrs.len() as u64);
        for (i, p) in ptrs.iter().enumerate() {
            table.write(8 * i as u64, 8, &Value::concrete(*p as u128, 64));
        }
        state.memory.insert(
            MemoryObject {
                address: argv_addr,
                size: 8 * ptrs.len() as u64,
                kind: AllocKind::Runtime,
                name: "argv".into(),
                site: None,
                read_only: false,
            },
            table,
        );
        let f = module.func(entry);
        let mut args = Vec::new();
        for (i, w) in f.params.iter().enumerate() {
            args.push(match i {
                0 => Value::concrete(argv.len() as u128, *w),
                1 => Value::concrete(argv_addr as u128, *w),
                _ => Value::concrete(0, *w),
            });
        }
        // KLEE's POSIX options are expanded by the runtime before main,
        // which it calls with as many parameters as main has.
        let entry = if self.config.posix {
            if self.config.entry != "main" {
                anyhow::bail!(
                    "--sym-* program arguments need the run to start in `main`, not `{}`",
                    self.config.entry
                );
            }
            let start = module
                .func_by_name(POSIX_START)
                .filter(|f| module.func(*f).body.is_some())
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "--sym-* program arguments need the runtime's C library (`{POSIX_START}` is not linked)"
                    )
                })?;
            args = vec![
                Value::concrete(argv.len() as u128, 32),
                Value::concrete(argv_addr as u128, 64),
                Value::concrete(f.params.len() as u128, 32),
            ];
            start
        } else {
            entry
        };
        if self
            .push_frame(&mut state, entry, args, &[], None, None)
            .is_err()
        {
            anyhow::bail!("cannot start in `{}`", self.config.entry);
        }
        if let Some(g) = &self.guide {
            state.guide = g.start().node();
        }
        state.seeds = super::seeds::starting(&self.config.seeds);
        Ok(state)
    }
}
