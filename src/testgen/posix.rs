//! The POSIX environment a test describes: the program's arguments, its
//! symbolic files and its standard input, rebuilt from the test's recorded
//! command line and its leading objects by the rules of KLEE's
//! `klee_init_env` and `klee-replay`.
//!
//! The recorded command line keeps the `--sym-*` options as given; walking
//! it in order tells which objects the engine created and in what order:
//! `--sym-arg N` one `argNN` object of N+1 bytes; `--sym-args MIN MAX N` an
//! `n_args` object (a 4-byte int, absent when MIN = MAX) and then that many
//! `argNN` objects; after the arguments, for `--sym-files NUM N` the pairs
//! `A-data` (N bytes) and `A-data-stat` (a `struct stat`), `B-data`, ...;
//! for `--sym-stdin N` the pair `stdin`, `stdin-stat`; for `--max-fail N`
//! or `--fd-fail` the failures' indices (`read_fail`, `write_fail`,
//! `close_fail`, `ftruncate_fail`, `getcwd_fail`, 4 bytes each); for `--sym-stdout`
//! the pair `stdout` (1024 bytes), `stdout-stat`; last an optional
//! `model_version`. Every other argument reaches the program unchanged.
//!
//! As in KLEE, the runtime overwrites parts of these objects after making
//! them symbolic (an argument's last byte with NUL, a stat's `st_size` with
//! the object's length), so a test records the solver's values for those
//! bytes, which nothing constrains: replay ignores them, as klee-replay
//! does. An argument is its first N bytes up to a NUL, and a file's
//! contents are its whole `-data` object. Of a stat, the permission bits
//! count, and the file type where the model lets a program see it: a file
//! whose status says directory is made a directory, and a stdin whose
//! status says character device a terminal (as klee-replay makes them);
//! every other file is a regular file and every other stdin a pipe.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use thiserror::Error;

use super::inject::{Failures, FAMILIES};
use super::ktest::{KTest, KTestObject};

/// The time of every file in the model's file system, and its clock
/// (`MNEMO_TIME` in `runtime/include/mnemo/model.h`): 2024-01-01 00:00 UTC.
pub const MODEL_TIME: i64 = 1_704_067_200;

/// Gives `path` the access and modification time `secs` (whole seconds),
/// which the model gives the file: [`MODEL_TIME`] for its own, the host's
/// modification time for a host file. Natively a test's files are made
/// just before it runs, and a program that prints a time (`ls -l`) or
/// compares two (`test -N`) would tell the difference. The change time
/// stays the host's: nothing can set it.
pub fn set_file_times(path: &Path, secs: i64) -> io::Result<()> {
    let c = super::native::c_path(path)?;
    let at = libc::timespec {
        tv_sec: secs,
        tv_nsec: 0,
    };
    // SAFETY: `c` is a NUL-terminated path and `times` two timespecs, all
    // living across the call.
    let done = unsafe {
        libc::utimensat(
            libc::AT_FDCWD,
            c.as_ptr(),
            [at, at].as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The size of `struct stat` on x86-64 (glibc and musl lay it out alike),
/// which is what a `-stat` object holds.
pub const STAT_SIZE: usize = 144;
const ST_MODE_OFFSET: usize = 24;
const S_IFMT: u32 = 0o170000;
const S_IFDIR: u32 = 0o040000;
const S_IFCHR: u32 = 0o020000;
const S_IFREG: u32 = 0o100000;
/// klee-replay creates a file whose permission bits are all zero with these.
const DEFAULT_MODE: u32 = 0o644;
/// And a directory with these.
const DEFAULT_DIR_MODE: u32 = 0o755;
/// The bits a symbolic file always has, as in the engine's model
/// (`__mnemo_settle`): its owner may read and write it, so a replay as
/// root, which may whatever the bits, takes the model's path.
const OWNER_RW: u32 = 0o600;
/// And a directory: its owner may also search it.
const OWNER_RWX: u32 = 0o700;
/// The size KLEE gives a symbolic stdout.
const SYM_STDOUT_SIZE: usize = 1024;
/// KLEE numbers symbolic arguments with two digits.
const MAX_SYM_ARGS: u32 = 100;
/// Files are named by one letter, `A` to `Z`.
const MAX_SYM_FILES: u32 = 26;
pub(super) const MODEL_VERSION: &str = "model_version";

/// One symbolic file, as the program finds it in its working directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymFile {
    /// `A`, `B`, ...
    pub name: String,
    /// The `-data` object.
    pub contents: Vec<u8>,
    /// The permission bits (`st_mode & 0777`, or 0644 where those are 0).
    pub mode: u32,
    /// Made a directory (its status says so) rather than a regular file;
    /// its contents are then unused.
    pub directory: bool,
}

/// What a test's stdin or stdout is natively, by the type its symbolic
/// status says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StreamType {
    /// A pipe: any type but these two.
    #[default]
    Pipe,
    /// A terminal: a character device.
    Terminal,
    /// A file of the bytes, which the program can seek in: a regular file.
    File,
}

impl StreamType {
    /// The stream a status's `st_mode` makes: a terminal for a character
    /// device, a file for a regular file, else a pipe.
    fn of_mode(mode: u32) -> StreamType {
        match mode & S_IFMT {
            S_IFCHR => StreamType::Terminal,
            S_IFREG => StreamType::File,
            _ => StreamType::Pipe,
        }
    }
}

/// The environment of one test, ready to be recreated natively.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PosixEnv {
    /// The program's arguments after `argv[0]`; each ends at its first NUL.
    pub args: Vec<Vec<u8>>,
    /// The symbolic arguments with bytes other than NUL after their first
    /// NUL, which a path read (an exec would give the next string there):
    /// their place in `args`, and every byte of the model's buffer, the
    /// last NUL included, for a replay to lay out at `main`.
    pub arg_buffers: Vec<(usize, Vec<u8>)>,
    /// The symbolic files, in the order `A`, `B`, ...
    pub files: Vec<SymFile>,
    /// The bytes on standard input; `None` when stdin was not symbolic
    /// (the program then reads end of file at once).
    pub stdin: Option<Vec<u8>>,
    /// What the program's stdin is, by the type its status says.
    pub stdin_type: StreamType,
    /// Whether `--sym-stdout` was given.
    pub sym_stdout: bool,
    /// What stdout is, by the type `stdout-stat` says (a pipe without
    /// `--sym-stdout`).
    pub stdout_type: StreamType,
    /// The system calls the run fails (`--max-fail N`, `--fd-fail`).
    pub failures: Option<Failures>,
    /// The program's environment, from `--env NAME=VALUE`, sorted by name
    /// as the engine's runtime sorts it (empty, as in the engine, without
    /// it).
    pub vars: Vec<(Vec<u8>, Vec<u8>)>,
    /// How many of the test's leading objects describe the environment;
    /// the program's own `klee_make_symbolic` inputs follow them.
    pub objects: usize,
}

/// Why a test's command line and objects do not describe an environment.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum PosixError {
    #[error("recorded argument {index} ({option}): {problem}")]
    BadOption {
        index: usize,
        option: String,
        problem: String,
    },
    #[error("object {index} should be '{expected}' but the test {found}")]
    MissingObject {
        index: usize,
        expected: String,
        found: String,
    },
    #[error("object {index} ('{name}') has {got} bytes where {want} were expected")]
    WrongSize {
        index: usize,
        name: String,
        got: usize,
        want: usize,
    },
    #[error("object {index} ('n_args') is {value}, outside --sym-args {min} {max}")]
    ArgCount {
        index: usize,
        value: i32,
        min: u32,
        max: u32,
    },
}

/// Walks the objects of a test in order, checking names and sizes.
struct Objects<'a> {
    objects: &'a [KTestObject],
    next: usize,
}

impl<'a> Objects<'a> {
    fn take(&mut self, name: &str) -> Result<(usize, &'a KTestObject), PosixError> {
        let index = self.next;
        match self.objects.get(index) {
            Some(o) if o.name == name => {
                self.next += 1;
                Ok((index, o))
            }
            Some(o) => Err(PosixError::MissingObject {
                index,
                expected: name.to_string(),
                found: format!("has '{}'", o.name),
            }),
            None => Err(PosixError::MissingObject {
                index,
                expected: name.to_string(),
                found: format!("has only {} object(s)", self.objects.len()),
            }),
        }
    }

    fn take_sized(&mut self, name: &str, want: usize) -> Result<(usize, &'a [u8]), PosixError> {
        let (index, o) = self.take(name)?;
        if o.bytes.len() != want {
            return Err(PosixError::WrongSize {
                index,
                name: name.to_string(),
                got: o.bytes.len(),
                want,
            });
        }
        Ok((index, &o.bytes))
    }

    /// A `--sym-arg` value into `env`: at most `max_len` bytes, up to the
    /// first NUL (the runtime makes the last of the N+1 bytes a NUL), and
    /// the whole buffer where bytes other than NUL follow that.
    fn take_arg(
        &mut self,
        env: &mut PosixEnv,
        number: u32,
        max_len: u32,
    ) -> Result<(), PosixError> {
        let (_, bytes) = self.take_sized(&format!("arg{number:02}"), max_len as usize + 1)?;
        let mut buffer = bytes.to_vec();
        buffer[max_len as usize] = 0;
        let string = c_string(&buffer);
        if buffer[string.len()..].iter().any(|&b| b != 0) {
            env.arg_buffers.push((env.args.len(), buffer));
        }
        env.args.push(string);
        Ok(())
    }

    /// A `-data` object and its `-stat` object: (contents, st_mode with
    /// the permission bits a replay gives the file: defaulted where they
    /// are all 0, and with the owner's bits the model always gives it).
    fn take_file(&mut self, data: &str, len: usize) -> Result<(Vec<u8>, u32), PosixError> {
        let (_, bytes) = self.take_sized(data, len)?;
        let (_, stat) = self.take_sized(&format!("{data}-stat"), STAT_SIZE)?;
        let mode = u32::from_le_bytes(le_field(stat, ST_MODE_OFFSET));
        let (default, always) = if mode & S_IFMT == S_IFDIR {
            (DEFAULT_DIR_MODE, OWNER_RWX)
        } else {
            (DEFAULT_MODE, OWNER_RW)
        };
        let perm = match mode & 0o777 {
            0 => default,
            bits => bits,
        };
        Ok((bytes.to_vec(), (mode & S_IFMT) | perm | always))
    }
}

/// The bytes before the first NUL, as C sees a string.
fn c_string(bytes: &[u8]) -> Vec<u8> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    bytes[..end].to_vec()
}

/// `N` bytes at `offset` of a stat object already checked to be STAT_SIZE.
fn le_field<const N: usize>(stat: &[u8], offset: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&stat[offset..offset + N]);
    out
}

/// The `nth` value of the option at `index`, a decimal number as
/// klee_init_env reads it (digits only).
fn number(args: &[String], index: usize, nth: usize, usage: &str) -> Result<u32, PosixError> {
    let bad = |problem: String| PosixError::BadOption {
        index,
        option: args[index].clone(),
        problem,
    };
    let text = args
        .get(index + nth)
        .ok_or_else(|| bad(format!("expects {usage}")))?;
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(format!("expects {usage}, got '{text}'")));
    }
    text.parse()
        .map_err(|_| bad(format!("'{text}' is out of range")))
}

impl PosixEnv {
    /// Rebuilds the environment of `test` from its command line and objects.
    pub fn from_ktest(test: &KTest) -> Result<PosixEnv, PosixError> {
        let args = &test.args;
        let mut objs = Objects {
            objects: &test.objects,
            next: 0,
        };
        let mut env = PosixEnv::default();
        let mut sym_args = 0u32;
        let mut files: Option<(u32, u32)> = None;
        let mut stdin_len = 0u32;
        let mut max_fail = 0u32;
        let mut k = 1;
        while k < args.len() {
            let option = args[k].as_str();
            let bad = |problem: &str| PosixError::BadOption {
                index: k,
                option: option.to_string(),
                problem: problem.to_string(),
            };
            match option.strip_prefix('-').unwrap_or("") {
                "-sym-arg" | "sym-arg" => {
                    let len = number(args, k, 1, "a length")?;
                    if sym_args >= MAX_SYM_ARGS {
                        return Err(bad("more than 100 symbolic arguments"));
                    }
                    objs.take_arg(&mut env, sym_args, len)?;
                    sym_args += 1;
                    k += 2;
                }
                "-sym-args" | "sym-args" => {
                    let usage = "three numbers MIN MAX N";
                    let min = number(args, k, 1, usage)?;
                    let max = number(args, k, 2, usage)?;
                    let len = number(args, k, 3, usage)?;
                    if min > max || max == 0 {
                        return Err(bad("MIN must be at most MAX, and MAX above 0"));
                    }
                    // klee_range(MIN, MAX + 1) makes no object when only
                    // one value is possible.
                    let count = if min == max {
                        min
                    } else {
                        let (index, bytes) = objs.take_sized("n_args", 4)?;
                        let value = i32::from_le_bytes(le_field(bytes, 0));
                        u32::try_from(value)
                            .ok()
                            .filter(|n| (min..=max).contains(n))
                            .ok_or(PosixError::ArgCount {
                                index,
                                value,
                                min,
                                max,
                            })?
                    };
                    if sym_args + max > MAX_SYM_ARGS {
                        return Err(bad("more than 100 symbolic arguments"));
                    }
                    for _ in 0..count {
                        objs.take_arg(&mut env, sym_args, len)?;
                        sym_args += 1;
                    }
                    k += 4;
                }
                "-sym-files" | "sym-files" => {
                    let usage = "two numbers NUM N";
                    let num = number(args, k, 1, usage)?;
                    let len = number(args, k, 2, usage)?;
                    if files.is_some() {
                        return Err(bad("given twice"));
                    }
                    if num == 0 || len == 0 || num > MAX_SYM_FILES {
                        return Err(bad("NUM must be 1 to 26 and N above 0"));
                    }
                    files = Some((num, len));
                    k += 3;
                }
                "-sym-stdin" | "sym-stdin" => {
                    stdin_len = number(args, k, 1, "a length")?;
                    k += 2;
                }
                "-max-fail" | "max-fail" => {
                    max_fail = number(args, k, 1, "a number of failures")?;
                    k += 2;
                }
                "-save-all-writes" | "save-all-writes" => k += 1,
                "-fd-fail" | "fd-fail" => {
                    max_fail = 1;
                    k += 1;
                }
                "-sym-stdout" | "sym-stdout" => {
                    env.sym_stdout = true;
                    k += 1;
                }
                "-env" | "env" => {
                    let var = args.get(k + 1).ok_or_else(|| bad("expects NAME=VALUE"))?;
                    let (name, value) = var
                        .split_once('=')
                        .filter(|(name, _)| !name.is_empty())
                        .ok_or_else(|| bad("expects NAME=VALUE"))?;
                    env.vars
                        .push((name.as_bytes().to_vec(), value.as_bytes().to_vec()));
                    k += 2;
                }
                _ => {
                    env.args.push(c_string(args[k].as_bytes()));
                    k += 1;
                }
            }
        }
        // klee_init_fds makes the files, then stdin, then stdout.
        if let Some((num, len)) = files {
            for letter in (b'A'..).take(num as usize) {
                let name = char::from(letter).to_string();
                let (contents, mode) = objs.take_file(&format!("{name}-data"), len as usize)?;
                env.files.push(SymFile {
                    name,
                    contents,
                    mode: mode & 0o777,
                    directory: mode & S_IFMT == S_IFDIR,
                });
            }
        }
        if stdin_len > 0 {
            let (contents, mode) = objs.take_file("stdin", stdin_len as usize)?;
            env.stdin = Some(contents);
            env.stdin_type = StreamType::of_mode(mode);
        }
        if max_fail > 0 {
            let mut index = [0; FAMILIES.len()];
            for (at, name) in index.iter_mut().zip(FAMILIES) {
                let (_, bytes) = objs.take_sized(name, 4)?;
                *at = i32::from_le_bytes(le_field(bytes, 0));
            }
            env.failures = Some(Failures {
                max: max_fail,
                index,
            });
        }
        if env.sym_stdout {
            let (_, mode) = objs.take_file("stdout", SYM_STDOUT_SIZE)?;
            env.stdout_type = StreamType::of_mode(mode);
        }
        if objs
            .objects
            .get(objs.next)
            .is_some_and(|o| o.name == MODEL_VERSION)
        {
            objs.take_sized(MODEL_VERSION, 4)?;
        }
        env.vars.sort();
        env.objects = objs.next;
        Ok(env)
    }

    /// Writes the symbolic files into `dir` with their permission bits,
    /// and gives them and `dir` the model's times.
    pub fn create_files(&self, dir: &Path) -> io::Result<()> {
        for f in &self.files {
            let path = dir.join(&f.name);
            if f.directory {
                fs::create_dir(&path)?;
            } else {
                fs::write(&path, &f.contents)?;
            }
            fs::set_permissions(&path, fs::Permissions::from_mode(f.mode))?;
            set_file_times(&path, MODEL_TIME)?;
        }
        set_file_times(dir, MODEL_TIME)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    pub(crate) fn obj(name: &str, bytes: &[u8]) -> KTestObject {
        KTestObject {
            name: name.into(),
            bytes: bytes.to_vec(),
        }
    }

    /// An argument object of `max_len` + 1 bytes holding `value`.
    pub(crate) fn arg(number: u32, max_len: usize, value: &[u8]) -> KTestObject {
        let mut bytes = value.to_vec();
        bytes.resize(max_len + 1, 0);
        obj(&format!("arg{number:02}"), &bytes)
    }

    /// A stat object with this mode, its other bytes the unconstrained
    /// values a solver may give them (st_size among them, at offset 48).
    pub(crate) fn stat(name: &str, mode: u32) -> KTestObject {
        let mut bytes = vec![0xa5u8; STAT_SIZE];
        bytes[ST_MODE_OFFSET..ST_MODE_OFFSET + 4].copy_from_slice(&mode.to_le_bytes());
        obj(&format!("{name}-stat"), &bytes)
    }

    pub(crate) fn posix_test(args: &[&str], objects: Vec<KTestObject>) -> KTest {
        KTest {
            args: args.iter().map(|a| a.to_string()).collect(),
            objects,
            ..KTest::default()
        }
    }

    #[test]
    fn rebuilds_args_files_and_stdin() {
        let test = posix_test(
            &[
                "wc.bc",
                "-l",
                "--sym-arg",
                "3",
                "--sym-args",
                "0",
                "2",
                "2",
                "--sym-files",
                "2",
                "4",
                "--sym-stdin",
                "5",
                "--sym-stdout",
                "A",
            ],
            vec![
                arg(0, 3, b"-c"),
                obj("n_args", &1i32.to_le_bytes()),
                arg(1, 2, b"B\0"),
                obj("A-data", b"ab\nc"),
                stat("A-data", 0o100140),
                obj("B-data", b"\0\xff'$"),
                stat("B-data", 0o040000),
                obj("stdin", b"x y\nz"),
                stat("stdin", 0o100644),
                obj("stdout", &[0; 1024]),
                stat("stdout", 0o100644),
                obj("model_version", &1u32.to_le_bytes()),
                obj("x", &[7; 4]),
            ],
        );
        let env = PosixEnv::from_ktest(&test).unwrap();
        assert_eq!(
            env.args,
            vec![b"-l".to_vec(), b"-c".to_vec(), b"B".to_vec(), b"A".to_vec()]
        );
        assert_eq!(
            env.files,
            vec![
                SymFile {
                    name: "A".into(),
                    contents: b"ab\nc".to_vec(),
                    mode: 0o740,
                    directory: false,
                },
                SymFile {
                    name: "B".into(),
                    contents: b"\0\xff'$".to_vec(),
                    mode: 0o755,
                    directory: true,
                },
            ]
        );
        assert_eq!(env.stdin.as_deref(), Some(&b"x y\nz"[..]));
        assert!(env.sym_stdout);
        assert_eq!(env.objects, 12, "the program's own object 'x' follows");
    }

    #[test]
    fn arguments_with_bytes_past_their_end_keep_their_buffers() {
        let test = posix_test(
            &["p", "-sym-args", "3", "3", "2"],
            vec![
                obj("arg00", b"\0b\0"),
                obj("arg01", b"a\0\0"),
                obj("arg02", b"\0\0c"),
            ],
        );
        let env = PosixEnv::from_ktest(&test).unwrap();
        assert_eq!(env.args, vec![Vec::new(), b"a".to_vec(), Vec::new()]);
        assert_eq!(env.arg_buffers, vec![(0, b"\0b\0".to_vec())]);
    }

    #[test]
    fn bytes_the_runtime_overwrites_are_ignored() {
        // The last byte of an argument becomes NUL, whatever the test says;
        // a stat's st_size does not change the file (its type makes it a
        // directory, with a directory's default bits).
        let test = posix_test(
            &["p", "--sym-arg", "2", "--sym-files", "1", "3"],
            vec![
                obj("arg00", b"abc"),
                obj("A-data", b"xyz"),
                stat("A-data", 0o040000),
            ],
        );
        let env = PosixEnv::from_ktest(&test).unwrap();
        assert_eq!(env.args, vec![b"ab".to_vec()]);
        assert!(env.arg_buffers.is_empty());
        assert_eq!(env.files[0].contents, b"xyz");
        assert_eq!(env.files[0].mode, DEFAULT_DIR_MODE);
        assert!(env.files[0].directory);
    }

    #[test]
    fn sym_args_with_one_possible_count_has_no_n_args() {
        let test = posix_test(
            &["p", "-sym-args", "2", "2", "1"],
            vec![arg(0, 1, b"a"), arg(1, 1, b"")],
        );
        let env = PosixEnv::from_ktest(&test).unwrap();
        assert_eq!(env.args, vec![b"a".to_vec(), Vec::new()]);
        assert_eq!(env.stdin, None);
        assert_eq!(env.objects, 2);
        // A closed program: no environment objects at all.
        let closed = posix_test(&["p", "x y"], vec![obj("x", &[1; 4])]);
        let env = PosixEnv::from_ktest(&closed).unwrap();
        assert_eq!((env.args, env.objects), (vec![b"x y".to_vec()], 0));
    }

    #[test]
    fn failures_sit_between_stdin_and_stdout_in_klees_order() {
        let index = |name, k: i32| obj(name, &k.to_le_bytes());
        let test = posix_test(
            &[
                "p",
                "--sym-stdin",
                "1",
                "--max-fail",
                "2",
                "-save-all-writes",
                "--sym-stdout",
            ],
            vec![
                obj("stdin", b"x"),
                stat("stdin", 0o010644),
                index("read_fail", 0),
                index("write_fail", 3),
                index("close_fail", 0),
                index("ftruncate_fail", 0),
                index("getcwd_fail", 1),
                obj("stdout", &[0; 1024]),
                stat("stdout", 0o100644),
            ],
        );
        let env = PosixEnv::from_ktest(&test).unwrap();
        assert!(env.args.is_empty(), "the options are not the program's");
        assert_eq!(
            env.failures,
            Some(Failures {
                max: 2,
                index: [0, 3, 0, 0, 1],
            })
        );
        assert_eq!(env.objects, 9);
        let e = error_of(&["p", "-fd-fail"], vec![index("read_fail", 0)]);
        assert_eq!(
            e,
            "object 1 should be 'write_fail' but the test has only 1 object(s)"
        );
    }

    fn error_of(args: &[&str], objects: Vec<KTestObject>) -> String {
        PosixEnv::from_ktest(&posix_test(args, objects))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn inconsistent_tests_are_named_errors() {
        let e = error_of(&["p", "--sym-args", "0", "2", "3"], vec![arg(0, 3, b"a")]);
        assert_eq!(e, "object 0 should be 'n_args' but the test has 'arg00'");
        let e = error_of(&["p", "--sym-args", "0", "2", "3"], vec![]);
        assert_eq!(
            e,
            "object 0 should be 'n_args' but the test has only 0 object(s)"
        );
        let e = error_of(&["p", "--sym-arg", "2"], vec![obj("arg00", b"ab")]);
        assert_eq!(e, "object 0 ('arg00') has 2 bytes where 3 were expected");
        let e = error_of(
            &["p", "--sym-args", "1", "2", "1"],
            vec![obj("n_args", &5i32.to_le_bytes())],
        );
        assert_eq!(e, "object 0 ('n_args') is 5, outside --sym-args 1 2");
        let short_stat = obj("A-data-stat", &[0; 88]);
        let e = error_of(
            &["p", "--sym-files", "1", "2"],
            vec![obj("A-data", b"ab"), short_stat],
        );
        assert_eq!(
            e,
            "object 1 ('A-data-stat') has 88 bytes where 144 were expected"
        );
        let e = error_of(&["p", "--sym-arg"], vec![]);
        assert_eq!(e, "recorded argument 1 (--sym-arg): expects a length");
        let e = error_of(&["p", "--sym-files", "1", "x"], vec![]);
        assert_eq!(
            e,
            "recorded argument 1 (--sym-files): expects two numbers NUM N, got 'x'"
        );
        let e = error_of(&["p", "--sym-files", "27", "1"], vec![]);
        assert!(e.contains("NUM must be 1 to 26"), "{e}");
    }

    #[test]
    fn creates_files_with_their_modes() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, mode, directory| SymFile {
            name: name.into(),
            contents: b"\0x".to_vec(),
            mode,
            directory,
        };
        let env = PosixEnv {
            files: vec![file("A", 0o640, false), file("B", 0o750, true)],
            ..PosixEnv::default()
        };
        env.create_files(dir.path()).unwrap();
        let path = dir.path().join("A");
        // Before anything reads them (reading moves the access time).
        for p in [&path, &dir.path().join("B"), &dir.path().to_path_buf()] {
            let m = fs::metadata(p).unwrap();
            assert_eq!((m.atime(), m.mtime()), (MODEL_TIME, MODEL_TIME), "{p:?}");
            assert_eq!((m.atime_nsec(), m.mtime_nsec()), (0, 0));
        }
        assert_eq!(fs::read(&path).unwrap(), b"\0x");
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        let b = fs::metadata(dir.path().join("B")).unwrap();
        assert!(b.is_dir());
        assert_eq!(b.permissions().mode() & 0o777, 0o750);
    }

    #[test]
    fn the_model_time_is_the_runtimes() {
        let header = concat!(env!("CARGO_MANIFEST_DIR"), "/runtime/include/mnemo/model.h");
        let text = fs::read_to_string(header).unwrap();
        let defined = text
            .lines()
            .find_map(|l| l.strip_prefix("#define MNEMO_TIME "))
            .expect("model.h defines MNEMO_TIME");
        assert_eq!(
            defined.trim().trim_end_matches('L').parse::<i64>().unwrap(),
            MODEL_TIME
        );
    }
}
