//! `mnemo replay SRC OUTDIR --as-commands`: every test of a run as a shell
//! script a person can read and run, `testNNNNNN.sh` beside its ktest.
//!
//! A script recreates the test's environment in a scratch directory (the
//! symbolic files written with `printf`, their permission bits set with
//! `chmod`), makes that the working directory and runs the program there
//! with the test's arguments and its stdin piped in:
//!
//! ```sh
//! printf 'ab\n' > A
//! chmod 644 A
//! printf 'x y\nz' | "$PROG" -l A
//! ```
//!
//! `PROG` defaults to the program compiled natively beside the scripts
//! (`OUTDIR/<source stem>.native`, under the same sanitizers as replay);
//! setting `PROG` runs another build. Comments head each script with the
//! outcome the engine predicted.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::index::{Outcome, TestRecord, TestsJson, TESTS_JSON};
use super::ktest::KTest;
use super::native::MODEL_DESCRIPTORS;
use super::posix::{PosixEnv, StreamType};
use super::replay::{
    io_err, ReplayError, NO_SLEEP_ENV, ONE_PROCESS_ENV, POSIX_OBJECTS_ENV, USER_ENV,
};
use super::toolchain::{is_native_program, Toolchain};
use crate::exec::{NOBODY, STDOUT_LIMIT};
use crate::files::write_atomic;

/// What `--as-commands` wrote.
#[derive(Clone, Debug, Default)]
pub struct CommandsReport {
    /// The natively compiled program the scripts run by default.
    pub program: PathBuf,
    /// One script per test, in the order of `tests.json`.
    pub scripts: Vec<PathBuf>,
    /// Tests that got no script: (ktest file, why).
    pub skipped: Vec<(String, String)>,
}

/// Bytes that need no quoting in a shell word.
fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_-+=.,:/@%^".contains(&b)
}

/// `bytes` as one shell word: as is when every byte is plain, otherwise in
/// single quotes, inside which only the quote itself needs care (it closes
/// the quotes, adds an escaped quote and reopens them).
pub fn shell_word(bytes: &[u8]) -> Vec<u8> {
    if !bytes.is_empty() && bytes.iter().all(|&b| plain(b)) {
        return bytes.to_vec();
    }
    let mut out = vec![b'\''];
    for &b in bytes {
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(b);
        }
    }
    out.push(b'\'');
    out
}

/// A single-quoted `printf` format that prints exactly `bytes`: printable
/// ASCII as is, `%` and `\` doubled, everything else (and a quote) as a
/// three-digit octal escape. A digit right after an octal escape is
/// escaped too, so no shell's printf can read it as a fourth digit, and
/// so is a leading `-`, which printf would take for an option.
pub fn printf_format(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![b'\''];
    let mut after_octal = false;
    for (i, &b) in bytes.iter().enumerate() {
        let octal = match b {
            b'-' if i == 0 => true,
            b'%' => {
                out.extend_from_slice(b"%%");
                false
            }
            b'\\' => {
                out.extend_from_slice(b"\\\\");
                false
            }
            b'\n' => {
                out.extend_from_slice(b"\\n");
                false
            }
            b'0'..=b'9' if after_octal => true,
            b' '..=b'~' if b != b'\'' => {
                out.push(b);
                false
            }
            _ => true,
        };
        if octal {
            out.extend_from_slice(format!("\\{b:03o}").as_bytes());
        }
        after_octal = octal;
    }
    out.push(b'\'');
    out
}

/// Text for a comment line: control characters escaped, so a message
/// cannot end the comment.
fn comment(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

fn prediction(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Exit { exit_code } => format!("exit status {exit_code}"),
        Outcome::Error {
            kind,
            file,
            line,
            message,
        } => comment(&format!("error '{kind}' at {file}:{line}: {message}")),
        Outcome::Early {
            signal: Some(signal),
            ..
        } => format!("killed by signal {signal}"),
        Outcome::Early { reason, .. } => {
            comment(&format!("none: the run stopped this path early ({reason})"))
        }
    }
}

/// The script of one test. `program` is the native build's file name in
/// the output directory, `source` the program's source as given.
pub fn script(
    record: &TestRecord,
    env: &PosixEnv,
    program: &str,
    source: &str,
    stdout_file: Option<&str>,
) -> Vec<u8> {
    let mut s: Vec<u8> = Vec::new();
    let mut line = |parts: &[&[u8]]| {
        for p in parts {
            s.extend_from_slice(p);
        }
        s.push(b'\n');
    };
    let name = record.ktest.trim_end_matches(".ktest");
    let header = format!(
        "#!/bin/sh\n\
         # Test {} of {} ({}), written by `mnemo replay --as-commands`.\n\
         # The engine predicted: {}.",
        record.id,
        comment(source),
        comment(&record.ktest),
        prediction(&record.outcome)
    );
    line(&[header.as_bytes()]);
    if let Some(failures) = env.failures.as_ref().filter(|f| f.any()) {
        line(&[format!(
            "# The path failed system calls (--max-fail), counted from main on: {failures}.\n\
             # A shell cannot fail them: `mnemo replay` does, and this script runs the\n\
             # program without them."
        )
        .as_bytes()]);
    }
    for (place, _) in &env.arg_buffers {
        line(&[format!(
            "# Argument {} has bytes after its NUL, which the path read: a shell cannot\n\
             # give them (`mnemo replay` lays them out at main), and this script gives\n\
             # the bytes before the NUL.",
            place + 1
        )
        .as_bytes()]);
    }
    if let Some(f) = stdout_file {
        line(&[format!("# It recorded the path's stdout in {}.", comment(f)).as_bytes()]);
    }
    line(&[format!(
        "# Run it with `sh {name}.sh`; `PROG=/path/to/build sh {name}.sh` runs another build."
    )
    .as_bytes()]);
    line(&[b"here=$(cd \"$(dirname \"$0\")\" && pwd) || exit 1"]);
    // A program built elsewhere is named by its absolute path; the one
    // compiled for the scripts lies beside them, with the replay library.
    let built_elsewhere = program.starts_with('/');
    let default = if built_elsewhere {
        shell_word(program.as_bytes())
    } else {
        [b"$here/".as_slice(), &shell_word(program.as_bytes())].concat()
    };
    line(&[b"PROG=${PROG:-", &default, b"}"]);
    line(&[b"case $PROG in /*) ;; */*) PROG=$PWD/$PROG ;; esac"]);
    line(&[format!(
        "# The program's own klee_make_symbolic and __VERIFIER_nondet_* inputs are the\n\
         # test's objects after the {} that describe this environment.",
        env.objects
    )
    .as_bytes()]);
    line(&[b"KTEST_FILE=$here/", &shell_word(record.ktest.as_bytes())]);
    line(&[format!("{POSIX_OBJECTS_ENV}={}", env.objects).as_bytes()]);
    line(&[format!(
        "ASAN_OPTIONS=${{ASAN_OPTIONS:-{}}}",
        super::native::asan_options()
    )
    .as_bytes()]);
    line(&[format!("export KTEST_FILE {POSIX_OBJECTS_ENV} ASAN_OPTIONS").as_bytes()]);
    line(&[b"# A scratch working directory, holding the symbolic files."]);
    line(&[b"scratch=$(mktemp -d) || exit 1"]);
    let stdin_file = env.stdin_type == StreamType::File;
    match (&env.stdin, stdin_file) {
        (Some(stdin), true) => {
            line(&[b"# The test's stdin was a regular file: its bytes, in a file outside it."]);
            line(&[b"stdin_file=$(mktemp) || exit 1"]);
            line(&[b"trap 'rm -rf \"$scratch\" \"$stdin_file\"' EXIT"]);
            line(&[b"printf ", &printf_format(stdin), b" > \"$stdin_file\""]);
        }
        _ => line(&[b"trap 'rm -rf \"$scratch\"' EXIT"]),
    }
    // Root runs the program as the model's user, as `mnemo replay` does,
    // with the scratch directory given to it: the replay library changes
    // user itself, once it has read its test (which the user may have no
    // way to); a build from elsewhere is run by setpriv.
    if built_elsewhere {
        line(&[format!(
            "# Run by root, the program runs as the model's user, nobody, as in the engine\n\
             # (where a setpriv can make it so and that user may run the program).\n\
             model_user= as_model_user=\n\
             if [ \"$(id -u)\" = 0 ] && setpriv=$(command -v setpriv); then\n\
             \x20   as_model_user=\"$setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups\"\n\
             \x20   if $as_model_user test -x \"$PROG\"; then model_user={NOBODY}:{NOBODY}; \
             else as_model_user=; fi\n\
             fi"
        )
        .as_bytes()]);
    } else {
        line(&[format!(
            "# Run by root, the program runs as the model's user, nobody, as in the engine:\n\
             # it becomes that user itself once it has read its test.\n\
             model_user=\n\
             [ \"$(id -u)\" != 0 ] || model_user={NOBODY}:{NOBODY}"
        )
        .as_bytes()]);
    }
    line(&[b"cd \"$scratch\" || exit 1"]);
    for f in &env.files {
        let file = shell_word(f.name.as_bytes());
        if f.directory {
            line(&[b"mkdir ", &file]);
        } else {
            line(&[b"printf ", &printf_format(&f.contents), b" > ", &file]);
        }
        line(&[format!("chmod {:o} ", f.mode).as_bytes(), &file]);
    }
    line(&[b"[ -z \"$model_user\" ] || chown -R \"$model_user\" \"$scratch\" || exit 1"]);
    if env.stdin_type == StreamType::Terminal {
        line(&[
            b"# The test's stdin was a terminal; replay types these bytes into one,\n\
              # but the pipe below is not one.",
        ]);
    }
    if env.stdout_type == StreamType::Terminal {
        line(&[
            b"# The test's stdout was a terminal; replay writes it to one, but the pipe\n\
              # into head below is not one.",
        ]);
    }
    let mut command: Vec<u8> = Vec::new();
    if let Some(stdin) = env.stdin.as_ref().filter(|_| !stdin_file) {
        command.extend_from_slice(b"printf ");
        command.extend_from_slice(&printf_format(stdin));
        command.extend_from_slice(b" | ");
    }
    // The environment is the test's `--env` variables, as in the engine,
    // and the replay library's own; for the program compiled with it, two
    // more ask it to answer sleeps at once and to make no process, as the
    // model does (a build from elsewhere would see them in its
    // environment, with nothing to take them out). A build from elsewhere
    // is held to one process by a limit instead, so that a fork fails
    // with EAGAIN as in the engine (its threads are refused too, and root
    // is not held): set by a shell that then becomes the program, as the
    // script's own shell could fork nothing more under it, and after
    // setpriv's change of user, whose exec it would otherwise refuse. bash
    // names the limit -u, dash -p; the descriptors are the model's
    // number. The engine starts the program with
    // SIGPIPE ignored: so is it here, and it stays so through the execs.
    let held = if built_elsewhere {
        format!(
            "$as_model_user sh -c 'ulimit -u 1 2>/dev/null || ulimit -p 1 2>/dev/null; \
             ulimit -n {MODEL_DESCRIPTORS}; exec \"$@\"' sh "
        )
    } else {
        String::new()
    };
    command.extend_from_slice(
        format!(
            "(trap '' PIPE; exec {held}env -i KTEST_FILE=\"$KTEST_FILE\" \
             {POSIX_OBJECTS_ENV}=\"${POSIX_OBJECTS_ENV}\" ASAN_OPTIONS=\"$ASAN_OPTIONS\""
        )
        .as_bytes(),
    );
    if !built_elsewhere {
        command.extend_from_slice(
            format!(
                " {NO_SLEEP_ENV}=1 {ONE_PROCESS_ENV}=1 ${{model_user:+{USER_ENV}=$model_user}}"
            )
            .as_bytes(),
        );
    }
    for (name, value) in &env.vars {
        command.push(b' ');
        command.extend_from_slice(&shell_word(&[name.as_slice(), b"=", value].concat()));
    }
    command.extend_from_slice(b" \"$PROG\"");
    for a in &env.args {
        command.push(b' ');
        command.extend_from_slice(&shell_word(a));
    }
    command.push(b')');
    if env.stdin.is_none() {
        command.extend_from_slice(b" < /dev/null");
    } else if stdin_file {
        command.extend_from_slice(b" < \"$stdin_file\"");
    }
    // Stdout is read as the engine's reader reads it, its first
    // STDOUT_LIMIT bytes, through head; the program's exit status comes
    // back on descriptor 3, the script's stdout on 4.
    line(&[
        format!(
            "# Stdout is read up to {STDOUT_LIMIT} bytes and then closed, as in the engine.\n\
         exec 4>&1\n\
         status=$({{ {{ "
        )
        .as_bytes(),
        &command,
        format!(
            " 3>&- 4>&-; echo $? >&3; }} | head -c {STDOUT_LIMIT} >&4; }} 3>&1)\n\
         exit \"$status\""
        )
        .as_bytes(),
    ]);
    s
}

/// Writes a script for every test listed in `out_dir/tests.json`, beside
/// its ktest, running `src`: a C source compiled natively into `out_dir`,
/// or a native program built elsewhere (a project's own build), run where
/// it is. A test whose ktest cannot be read or whose environment is
/// inconsistent gets no script and is listed in the report.
pub fn write_commands(
    toolchain: &Toolchain,
    src: &Path,
    out_dir: &Path,
    clang_args: &[String],
) -> Result<CommandsReport, ReplayError> {
    let index = TestsJson::read(&out_dir.join(TESTS_JSON))?;
    let native = is_native_program(src);
    if native && !clang_args.is_empty() {
        return Err(ReplayError::FlagsForNative(src.to_path_buf()));
    }
    let (program, program_name) = if native {
        let program = fs::canonicalize(src).map_err(io_err(src))?;
        let name = program.to_string_lossy().into_owned();
        (program, name)
    } else {
        let stem = src
            .file_stem()
            .map_or_else(|| "program".into(), |s| s.to_string_lossy().into_owned());
        let program_name = format!("{stem}.native");
        let program = out_dir.join(&program_name);
        // Built aside and renamed into place, so the program is never half
        // written.
        let build = tempfile::Builder::new()
            .prefix(".mnemo-build-")
            .tempdir_in(out_dir)
            .map_err(io_err(out_dir))?;
        let built = build.path().join(&program_name);
        toolchain.compile_native_with(src, &built, clang_args)?;
        fs::rename(&built, &program).map_err(io_err(&program))?;
        (program, program_name)
    };

    let mut report = CommandsReport {
        program,
        ..CommandsReport::default()
    };
    let source = src.display().to_string();
    for record in &index.tests {
        let ktest_path = out_dir.join(&record.ktest);
        let env = KTest::read(&ktest_path)
            .map_err(|e| e.to_string())
            .and_then(|t| PosixEnv::from_ktest(&t).map_err(|e| format!("POSIX environment: {e}")));
        let env = match env {
            Ok(env) => env,
            Err(why) => {
                report.skipped.push((record.ktest.clone(), why));
                continue;
            }
        };
        let stdout_path = ktest_path.with_extension("stdout");
        let stdout_file = stdout_path
            .is_file()
            .then(|| stdout_path.file_name())
            .flatten()
            .map(|n| n.to_string_lossy().into_owned());
        let text = script(record, &env, &program_name, &source, stdout_file.as_deref());
        let path = ktest_path.with_extension("sh");
        write_atomic(&path, &text).map_err(io_err(&path))?;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).map_err(io_err(&path))?;
        report.scripts.push(path);
    }
    Ok(report)
}
