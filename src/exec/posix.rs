//! KLEE's POSIX options in a program's arguments (`--sym-arg N`,
//! `--sym-args MIN MAX N`, `--sym-files NUM N`, `--sym-stdin N`,
//! `--sym-stdout`) and the symbolic objects they make, and mnemo's `--env
//! NAME=VALUE`, a variable of the program's environment (which is empty
//! otherwise; KLEE gives the program its own). A test's command line keeps
//! them all, so that its replay recreates the same environment.
//!
//! The options are expanded inside the run, before `main`, by the runtime's
//! C code (`runtime/musl/src/mnemo_posix.c`), in the order KLEE's
//! `klee_init_env` and `klee_init_fds` make them, so that a test lists its
//! objects as KLEE's tools expect: for each `--sym-arg`, `argNN` (N+1
//! bytes); for each `--sym-args`, `n_args` (4 bytes, only when MIN < MAX)
//! then one `argNN` per argument; then `A-data` (N bytes) and `A-data-stat`
//! (a 144-byte `struct stat64`) for each file, `stdin` and `stdin-stat`,
//! `stdout` (1024 bytes) and `stdout-stat`, and `model_version` (4 bytes,
//! always 1). This module checks the options before the run, so that a bad
//! one is a clear error rather than a path, and reads a test's objects back
//! into the argv, files and stdin they stand for (as `klee-replay` does).

use std::path::Path;
use std::sync::Arc;

use thiserror::Error;

/// At most this many symbolic arguments in all (KLEE's limit: `arg00` to `arg99`).
pub const MAX_SYM_ARGS: u32 = 100;
/// The largest symbolic argument, file or stdin mnemo accepts, in bytes.
pub const MAX_SYM_SIZE: u32 = 1 << 20;
/// Symbolic files are named `A` to `Z`.
pub const MAX_SYM_FILES: u32 = 26;
/// The size of `struct stat64` on x86-64: the `-stat` objects.
pub const STAT_SIZE: usize = 144;
/// The size of the symbolic stdout `--sym-stdout` makes (KLEE's).
pub const SYM_STDOUT_SIZE: usize = 1024;

/// A `--sym-*` option that cannot be expanded.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PosixArgsError {
    #[error("{option} expects {expects} (program argument {position})")]
    Missing {
        option: String,
        expects: &'static str,
        position: usize,
    },
    #[error("{option}: `{value}` is not a number (program argument {position})")]
    NotANumber {
        option: String,
        value: String,
        position: usize,
    },
    #[error("{option}: {message} (program argument {position})")]
    OutOfRange {
        option: String,
        message: String,
        position: usize,
    },
    #[error("{option} is a KLEE option mnemo does not support (program argument {position})")]
    Unsupported { option: String, position: usize },
}

/// The symbolic environment a program's arguments ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PosixArgs {
    /// The names `--env` gives a value, in order.
    pub vars: Vec<String>,
    /// Symbolic arguments at most (all `--sym-arg` and `--sym-args` MAX).
    pub max_sym_args: u32,
    pub files: u32,
    pub file_len: u32,
    /// 0: stdin is empty.
    pub stdin_len: u32,
    pub sym_stdout: bool,
    /// How many system calls may fail (`--max-fail N`, `--fd-fail` for 1):
    /// 0, none.
    pub max_fail: u32,
}

/// The option a program argument is, without its one or two dashes.
fn option_of(arg: &str) -> Option<&str> {
    let bare = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'))?;
    const KNOWN: &[&str] = &[
        "sym-arg",
        "sym-args",
        "sym-files",
        "sym-stdin",
        "sym-stdout",
        "env",
        "save-all-writes",
        "fd-fail",
        "max-fail",
        "bout-file",
    ];
    KNOWN.contains(&bare).then_some(bare)
}

/// Reads the numbers that follow an option.
struct Numbers<'a> {
    args: &'a [String],
    option: &'a str,
    /// The option's index in `args`.
    at: usize,
    expects: &'static str,
}

impl Numbers<'_> {
    /// The `k`-th number after the option (1-based).
    fn get(&self, k: usize) -> Result<u32, PosixArgsError> {
        let position = self.at + k;
        let Some(value) = self.args.get(position) else {
            return Err(PosixArgsError::Missing {
                option: self.option.to_string(),
                expects: self.expects,
                position: self.at,
            });
        };
        // Digits only, as KLEE reads them: no sign, no spaces.
        if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(PosixArgsError::NotANumber {
                option: self.option.to_string(),
                value: value.clone(),
                position,
            });
        }
        value
            .parse::<u32>()
            .map_err(|_| PosixArgsError::OutOfRange {
                option: self.option.to_string(),
                message: format!("{value} is too large"),
                position,
            })
    }

    fn out_of_range(&self, message: String) -> PosixArgsError {
        PosixArgsError::OutOfRange {
            option: self.option.to_string(),
            message,
            position: self.at,
        }
    }

    fn size(&self, k: usize, what: &str, min: u32) -> Result<u32, PosixArgsError> {
        let n = self.get(k)?;
        if n < min || n > MAX_SYM_SIZE {
            return Err(self.out_of_range(format!(
                "{what} {n} is out of range ({min} to {MAX_SYM_SIZE})"
            )));
        }
        Ok(n)
    }
}

impl PosixArgs {
    /// The POSIX options among a program's arguments (`args` without the
    /// program name), checked; `None` when there are none, and the program
    /// runs without a symbolic environment.
    pub fn parse(args: &[String]) -> Result<Option<PosixArgs>, PosixArgsError> {
        let mut env = PosixArgs::default();
        let mut found = false;
        let mut k = 0;
        while k < args.len() {
            let Some(option) = option_of(&args[k]) else {
                k += 1;
                continue;
            };
            found = true;
            let name = args[k].as_str();
            let numbers = |expects| Numbers {
                args,
                option: name,
                at: k,
                expects,
            };
            let taken = match option {
                "sym-arg" => {
                    let n = numbers("one number <max-len>");
                    n.size(1, "length", 0)?;
                    env.max_sym_args += 1;
                    if env.max_sym_args > MAX_SYM_ARGS {
                        return Err(n.out_of_range(format!(
                            "more than {MAX_SYM_ARGS} symbolic arguments in all"
                        )));
                    }
                    1
                }
                "sym-args" => {
                    let n = numbers("three numbers <min-argvs> <max-argvs> <max-len>");
                    let (min, max) = (n.get(1)?, n.get(2)?);
                    n.size(3, "length", 0)?;
                    if min > max {
                        return Err(n.out_of_range(format!("MIN {min} is more than MAX {max}")));
                    }
                    if max == 0 {
                        return Err(n.out_of_range("MIN and MAX are both 0".to_string()));
                    }
                    env.max_sym_args = env.max_sym_args.saturating_add(max);
                    if env.max_sym_args > MAX_SYM_ARGS {
                        return Err(n.out_of_range(format!(
                            "more than {MAX_SYM_ARGS} symbolic arguments in all"
                        )));
                    }
                    3
                }
                "sym-files" => {
                    let n = numbers("two numbers <no-sym-files> <sym-file-len>");
                    if env.files != 0 {
                        return Err(n.out_of_range("given twice".to_string()));
                    }
                    let files = n.get(1)?;
                    if files == 0 || files > MAX_SYM_FILES {
                        return Err(n.out_of_range(format!(
                            "{files} files is out of range (1 to {MAX_SYM_FILES})"
                        )));
                    }
                    env.file_len = n.size(2, "file size", 1)?;
                    env.files = files;
                    2
                }
                "sym-stdin" => {
                    env.stdin_len = numbers("one number <sym-stdin-len>").size(1, "size", 0)?;
                    1
                }
                "sym-stdout" => {
                    env.sym_stdout = true;
                    0
                }
                // The model keeps every write to a symbolic file, past its
                // end too, which is what the option asks of KLEE's.
                "save-all-writes" => 0,
                "max-fail" | "fd-fail" => {
                    let n = numbers("one number <max-failures>");
                    if env.max_fail != 0 {
                        return Err(n.out_of_range("failures are given twice".to_string()));
                    }
                    let (max, taken) = match option {
                        "fd-fail" => (1, 0),
                        _ => (n.get(1)?, 1),
                    };
                    if max == 0 {
                        return Err(n.out_of_range("0 failures: leave the option out".to_string()));
                    }
                    env.max_fail = max;
                    taken
                }
                "env" => {
                    let var = args.get(k + 1).ok_or_else(|| PosixArgsError::Missing {
                        option: name.to_string(),
                        expects: "NAME=VALUE",
                        position: k,
                    })?;
                    let bad = |message| PosixArgsError::OutOfRange {
                        option: name.to_string(),
                        message,
                        position: k + 1,
                    };
                    let var_name = match var.split_once('=') {
                        Some((n, _)) if !n.is_empty() => n,
                        _ => return Err(bad(format!("`{var}` is not NAME=VALUE"))),
                    };
                    // A replay's environment holds a name once.
                    if env.vars.iter().any(|v| v == var_name) {
                        return Err(bad(format!("{var_name} is given twice")));
                    }
                    env.vars.push(var_name.to_string());
                    1
                }
                _ => {
                    return Err(PosixArgsError::Unsupported {
                        option: name.to_string(),
                        position: k,
                    })
                }
            };
            k += 1 + taken;
        }
        Ok(found.then_some(env))
    }
}

/// The permission bits of a host file the model keeps (and a replay's copy
/// of it gets): its write bits are cleared, as the program cannot write it.
pub const HOST_FILE_MODE_MASK: u32 = 0o7555;

/// A host file `mnemo run --file PATH` lets the program read, under one
/// name (the path as given, or as resolved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostFile {
    pub path: String,
    pub contents: Arc<[u8]>,
    /// Permission bits, write bits cleared: the program cannot write it.
    pub mode: u32,
    /// The host's inode number, which tells the model which of its names
    /// are one file; the model numbers the file as it numbers what it
    /// makes (`__mnemo_load_hosts` in the runtime), as a replay can.
    pub inode: u64,
    pub mtime: i64,
}

/// A `--file` that cannot be read.
#[derive(Debug, Error)]
#[error("--file {path}: {message}")]
pub struct HostFileError {
    pub path: String,
    pub message: String,
}

impl HostFile {
    /// Reads `path` for `--file`: the file under the path as given and, when
    /// it differs, under its absolute resolved path.
    pub fn read(path: &str) -> Result<Vec<HostFile>, HostFileError> {
        use std::os::unix::fs::MetadataExt;
        let fail = |message: String| HostFileError {
            path: path.to_string(),
            message,
        };
        let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
        if !meta.is_file() {
            return Err(fail("not a regular file".to_string()));
        }
        let contents: Arc<[u8]> = std::fs::read(path).map_err(|e| fail(e.to_string()))?.into();
        let file = HostFile {
            path: path.to_string(),
            contents,
            mode: meta.mode() & HOST_FILE_MODE_MASK,
            inode: meta.ino(),
            mtime: meta.mtime(),
        };
        let mut files = vec![file.clone()];
        if let Ok(full) = std::fs::canonicalize(Path::new(path)) {
            let full = full.display().to_string();
            if full != path {
                files.push(HostFile { path: full, ..file });
            }
        }
        Ok(files)
    }

    /// Its `struct stat` as x86-64 lays it out (KLEE's `struct stat64`):
    /// a regular file of its size, read only, in whole 4 KiB blocks as the
    /// model's own files and a replay's copy of it have.
    pub fn stat(&self) -> [u8; STAT_SIZE] {
        let mut st = [0u8; STAT_SIZE];
        let mut put = |at: usize, bytes: &[u8]| st[at..at + bytes.len()].copy_from_slice(bytes);
        put(8, &self.inode.to_le_bytes());
        put(16, &1u64.to_le_bytes());
        put(24, &(0o100000 | self.mode).to_le_bytes());
        put(48, &(self.contents.len() as u64).to_le_bytes());
        put(56, &4096u64.to_le_bytes());
        put(
            64,
            &((self.contents.len() as u64).div_ceil(4096) * 8).to_le_bytes(),
        );
        for time in [72, 88, 104] {
            put(time, &self.mtime.to_le_bytes());
        }
        st
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn parse(s: &str) -> Result<Option<PosixArgs>, PosixArgsError> {
        PosixArgs::parse(&args(s))
    }

    #[test]
    fn arguments_without_options_ask_for_no_environment() {
        assert_eq!(parse("-n 3 file"), Ok(None));
        assert_eq!(parse(""), Ok(None));
    }

    #[test]
    fn options_are_read_with_one_or_two_dashes() {
        let env = parse(
            "x --sym-args 0 2 3 -sym-arg 4 --sym-files 2 8 -sym-stdin 5 --max-fail 2 --sym-stdout",
        )
        .expect("valid")
        .expect("posix");
        assert_eq!(
            env,
            PosixArgs {
                vars: Vec::new(),
                max_sym_args: 3,
                files: 2,
                file_len: 8,
                stdin_len: 5,
                sym_stdout: true,
                max_fail: 2,
            }
        );
    }

    #[test]
    fn save_all_writes_is_what_the_model_does() {
        assert_eq!(
            parse("-l --save-all-writes"),
            Ok(Some(PosixArgs::default()))
        );
    }

    #[test]
    fn fd_fail_is_one_failure() {
        let env = parse("-fd-fail").expect("valid");
        assert_eq!(
            env,
            Some(PosixArgs {
                max_fail: 1,
                ..PosixArgs::default()
            })
        );
    }

    #[test]
    fn an_environment_variable_is_one_name_and_value() {
        let env = parse("--env TERM=xterm -l --env EMPTY= --sym-stdin 2").expect("valid");
        assert_eq!(
            env,
            Some(PosixArgs {
                vars: vec!["TERM".into(), "EMPTY".into()],
                stdin_len: 2,
                ..PosixArgs::default()
            })
        );
        // Alone it still asks for the runtime's start, which makes the
        // environment.
        assert_eq!(
            parse("--env A=b=c"),
            Ok(Some(PosixArgs {
                vars: vec!["A".into()],
                ..PosixArgs::default()
            }))
        );
        let e = parse("--env A=1 --env A=2").unwrap_err();
        assert!(e.to_string().contains("A is given twice"), "{e}");
        let e = parse("x --env =value").unwrap_err();
        assert!(e.to_string().contains("not NAME=VALUE"), "{e}");
        assert!(
            matches!(
                parse("x --env novalue"),
                Err(PosixArgsError::OutOfRange { position: 2, .. })
            ),
            "a variable needs its ="
        );
        assert!(matches!(
            parse("x --env"),
            Err(PosixArgsError::Missing { position: 1, .. })
        ));
    }

    #[test]
    fn bad_options_are_named_with_their_position() {
        let e = parse("--sym-args 3 1 4").unwrap_err();
        assert!(e.to_string().contains("MIN 3 is more than MAX 1"), "{e}");
        let e = parse("a --sym-arg").unwrap_err();
        assert!(
            matches!(&e, PosixArgsError::Missing { position: 1, .. }),
            "{e}"
        );
        assert!(
            e.to_string().contains("--sym-arg expects one number"),
            "{e}"
        );
        let e = parse("--sym-stdin x").unwrap_err();
        assert!(e.to_string().contains("`x` is not a number"), "{e}");
        let e = parse("--sym-files 27 4").unwrap_err();
        assert!(e.to_string().contains("27 files"), "{e}");
        let e = parse("--sym-files 1 0").unwrap_err();
        assert!(e.to_string().contains("file size 0"), "{e}");
        let e = parse("--sym-stdin 99999999999").unwrap_err();
        assert!(e.to_string().contains("too large"), "{e}");
        let e = parse("--sym-stdin 2000000").unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        let e = parse("--sym-args 0 0 3").unwrap_err();
        assert!(e.to_string().contains("both 0"), "{e}");
        let e = parse("--sym-args 0 99 1 --sym-arg 1 --sym-arg 1").unwrap_err();
        assert!(e.to_string().contains("more than 100"), "{e}");
        let e = parse("--sym-files 1 2 --sym-files 1 2").unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
        let e = parse("--bout-file x").unwrap_err();
        assert!(e.to_string().contains("does not support"), "{e}");
        let e = parse("--fd-fail --max-fail 2").unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
        let e = parse("--max-fail 0").unwrap_err();
        assert!(e.to_string().contains("0 failures"), "{e}");
        let e = parse("--max-fail").unwrap_err();
        assert!(e.to_string().contains("expects one number"), "{e}");
    }

    #[test]
    fn a_host_file_has_its_size_in_whole_blocks_and_its_own_time() {
        let field = |st: &[u8; STAT_SIZE], at: usize| {
            u64::from_le_bytes(st[at..at + 8].try_into().unwrap())
        };
        for (len, blocks) in [(0, 0), (1, 8), (4096, 8), (4097, 16)] {
            let file = HostFile {
                path: "/etc/passwd".into(),
                contents: vec![b'x'; len].into(),
                mode: 0o444,
                inode: 9,
                mtime: 1_600_000_000,
            };
            let st = file.stat();
            assert_eq!(field(&st, 48), len as u64, "size");
            assert_eq!(field(&st, 64), blocks, "blocks of {len} bytes");
            assert_eq!(field(&st, 8), 9, "inode");
            for time in [72, 88, 104] {
                assert_eq!(field(&st, time), 1_600_000_000);
            }
        }
    }
}
