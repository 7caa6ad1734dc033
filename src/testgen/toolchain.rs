//! The external tools mnemo drives: clang-14 to build bitcode and the native
//! replay binaries, llvm-link-14, and the runtime directory (klee.h, the
//! runtime's bitcode C library, the native replay library).

use std::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use thiserror::Error;

pub use crate::ir::BITCODE_FLAGS;

/// Flags of the native replay build: the sanitizers turn the errors mnemo
/// reports into reports on stderr that replay can classify.
pub const NATIVE_FLAGS: &[&str] = &[
    "-g",
    "-O0",
    "-fsanitize=address,integer-divide-by-zero,shift-exponent,unreachable",
    "-fno-sanitize-recover=all",
    // A program may call functions that exist nowhere (mnemo ends those
    // paths as `external`); its other paths must still replay, and a call
    // to a missing function crashes at the call, natively too. Without PIE
    // the missing symbol is 0 at link time instead of a load-time error.
    "-Wl,--unresolved-symbols=ignore-all",
    "-no-pie",
];

/// Why a tool could not be found or did not do its job.
#[derive(Debug, Error)]
pub enum ToolchainError {
    #[error(
        "{tool} not found: set {env} to its path or put it on PATH (`make setup` installs it)"
    )]
    ToolNotFound {
        tool: &'static str,
        env: &'static str,
    },
    #[error(
        "mnemo's runtime directory {0} is missing or incomplete (no include/klee/klee.h): \
         set MNEMO_RUNTIME to the runtime/ directory of mnemo's sources"
    )]
    RuntimeMissing(PathBuf),
    #[error("{0} is missing: run `make runtime` to build it")]
    RuntimeNotBuilt(PathBuf),
    #[error("cannot run {tool}: {error}")]
    Spawn {
        tool: PathBuf,
        error: std::io::Error,
    },
    #[error("{what} of {src} failed:\n{stderr}{hint}")]
    CompileFailed {
        what: &'static str,
        src: PathBuf,
        stderr: String,
        hint: &'static str,
    },
}

/// Whether `path` is a native executable (an ELF file), such as a program
/// of a project's own build, rather than a C source to compile.
pub fn is_native_program(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok_and(|()| &magic == b"\x7fELF")
}

/// The tools and runtime one run of mnemo uses, found once.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub clang: PathBuf,
    pub llvm_link: PathBuf,
    pub runtime_dir: PathBuf,
}

/// `name` on PATH, as the shell would find it.
fn which(name: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The tool named by environment variable `env`, else `default` on PATH.
pub(crate) fn find_tool(
    env_var: &'static str,
    default: &'static str,
) -> Result<PathBuf, ToolchainError> {
    let not_found = ToolchainError::ToolNotFound {
        tool: default,
        env: env_var,
    };
    match env::var_os(env_var).filter(|v| !v.is_empty()) {
        Some(value) => {
            let p = PathBuf::from(&value);
            if p.components().count() > 1 {
                if is_executable(&p) {
                    Ok(p)
                } else {
                    Err(not_found)
                }
            } else {
                which(&p.to_string_lossy()).ok_or(not_found)
            }
        }
        None => which(default).ok_or(not_found),
    }
}

impl Toolchain {
    /// Finds clang-14 (or `$MNEMO_CLANG`), llvm-link-14 (or
    /// `$MNEMO_LLVM_LINK`) and the runtime directory (`$MNEMO_RUNTIME`, else
    /// the `runtime/` directory of the sources mnemo was built from).
    pub fn find() -> Result<Toolchain, ToolchainError> {
        let clang = find_tool("MNEMO_CLANG", "clang-14")?;
        let llvm_link = find_tool("MNEMO_LLVM_LINK", "llvm-link-14")?;
        let runtime_dir = match env::var_os("MNEMO_RUNTIME").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/runtime")),
        };
        if !runtime_dir.join("include/klee/klee.h").is_file() {
            return Err(ToolchainError::RuntimeMissing(runtime_dir));
        }
        Ok(Toolchain {
            clang,
            llvm_link,
            runtime_dir,
        })
    }

    /// The directory to pass as `-I` so programs find `klee/klee.h`.
    pub fn include_dir(&self) -> PathBuf {
        self.runtime_dir.join("include")
    }

    /// The runtime C library (musl) as an archive directory of bitcode
    /// objects, of which every program links what it needs.
    pub fn runtime_bitcode(&self) -> Result<PathBuf, ToolchainError> {
        self.built_file("build/musl/symbols.txt")?;
        Ok(self.runtime_dir.join("build/musl"))
    }

    /// The C library's headers, which programs are compiled against.
    pub fn libc_include_dir(&self) -> PathBuf {
        self.runtime_dir.join("build/musl/include")
    }

    /// The include path of a project's compilations for the engine: the C
    /// library the engine links (not the host's), then klee.h.
    pub fn include_flags(&self) -> Vec<OsString> {
        self.include_path("-nostdinc")
    }

    /// [`Self::include_flags`] with the compiler's own headers after the C
    /// library's, for a program compiled alone: `stdatomic.h` is one musl
    /// leaves to the compiler. A project's configure script, which probes
    /// for headers, keeps to the C library's: finding `cpuid.h` it would
    /// build code for vector units the engine does not run.
    fn program_include_flags(&self) -> Vec<OsString> {
        self.include_path("-nostdlibinc")
    }

    /// `-nostdinc` leaves out the compiler's headers too, `-nostdlibinc`
    /// only the host's C library.
    fn include_path(&self, leave_out: &str) -> Vec<OsString> {
        vec![
            leave_out.into(),
            "-isystem".into(),
            self.libc_include_dir().into(),
            "-I".into(),
            self.include_dir().into(),
        ]
    }

    /// The native replay library linked into replay binaries.
    pub fn replay_library(&self) -> Result<PathBuf, ToolchainError> {
        self.built_file("build/libmnemo-replay.a")
    }

    /// The replay library's model of the clock, the machine and the order
    /// of a directory's names, alone: linked into the programs of a
    /// project build, which take their input as the engine gave it (the
    /// command line, files, stdin) and not from a `.ktest`.
    pub fn model_library(&self) -> Result<PathBuf, ToolchainError> {
        self.built_file("build/libmnemo-model.a")
    }

    fn built_file(&self, rel: &str) -> Result<PathBuf, ToolchainError> {
        let p = self.runtime_dir.join(rel);
        if p.is_file() {
            Ok(p)
        } else {
            Err(ToolchainError::RuntimeNotBuilt(p))
        }
    }

    /// Compiles one C file to bitcode the engine can run.
    pub fn compile_bitcode(
        &self,
        src: &Path,
        out: &Path,
        extra: &[String],
    ) -> Result<(), ToolchainError> {
        let mut args: Vec<OsString> = BITCODE_FLAGS.iter().map(OsString::from).collect();
        args.extend(self.program_include_flags());
        args.extend(extra.iter().map(OsString::from));
        args.push(src.into());
        args.push("-o".into());
        args.push(out.into());
        self.run_clang("bitcode compilation", src, &args)
    }

    /// Builds `src` natively, under sanitizers and linked with the replay
    /// library, into the executable `out`.
    pub fn compile_native(&self, src: &Path, out: &Path) -> Result<(), ToolchainError> {
        self.compile_native_with(src, out, &[] as &[&str])
    }

    /// [`Toolchain::compile_native`] with more flags for clang (for
    /// instance `--coverage`, for a build whose replays gcov measures).
    pub fn compile_native_with(
        &self,
        src: &Path,
        out: &Path,
        extra: &[impl AsRef<std::ffi::OsStr>],
    ) -> Result<(), ToolchainError> {
        let lib = self.replay_library()?;
        let mut args: Vec<OsString> = NATIVE_FLAGS.iter().map(OsString::from).collect();
        args.extend(extra.iter().map(|a| a.as_ref().to_os_string()));
        args.push("-I".into());
        args.push(self.include_dir().into());
        args.push(src.into());
        // Whole, so that its constructor, which takes its own variables out
        // of the program's environment, is there even in a program that
        // asks the library for no input.
        args.push("-Wl,--whole-archive".into());
        args.push(lib.into());
        args.push("-Wl,--no-whole-archive".into());
        args.push("-lm".into());
        args.push("-o".into());
        args.push(out.into());
        self.run_clang("native replay build", src, &args)
    }

    fn run_clang(
        &self,
        what: &'static str,
        src: &Path,
        args: &[OsString],
    ) -> Result<(), ToolchainError> {
        let output = Command::new(&self.clang)
            .args(args)
            .output()
            .map_err(|error| ToolchainError::Spawn {
                tool: self.clang.clone(),
                error,
            })?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let hint = if stderr.contains("libclang_rt") {
            "\n(the sanitizer runtime is missing: install Debian's libclang-rt-14-dev, e.g. with `make setup`)"
        } else {
            ""
        };
        Err(ToolchainError::CompileFailed {
            what,
            src: src.to_path_buf(),
            stderr,
            hint,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(runtime_dir: &Path) -> Toolchain {
        Toolchain {
            clang: which("clang-14").unwrap_or_else(|| PathBuf::from("clang-14")),
            llvm_link: PathBuf::from("llvm-link-14"),
            runtime_dir: runtime_dir.to_path_buf(),
        }
    }

    #[test]
    fn missing_runtime_files_say_how_to_build_them() {
        let dir = tempfile::tempdir().unwrap();
        let tc = fake(dir.path());
        let err = tc.runtime_bitcode().unwrap_err().to_string();
        assert!(
            err.contains("symbols.txt") && err.contains("make runtime"),
            "{err}"
        );
        let err = tc.replay_library().unwrap_err().to_string();
        assert!(err.contains("libmnemo-replay.a"), "{err}");
        let err = tc.model_library().unwrap_err().to_string();
        assert!(err.contains("libmnemo-model.a"), "{err}");
        assert_eq!(tc.include_dir(), dir.path().join("include"));
    }

    #[test]
    fn which_finds_only_executables() {
        assert!(which("sh").is_some());
        assert!(which("surely-no-such-tool-for-mnemo").is_none());
    }

    #[test]
    fn compile_errors_carry_clang_output() {
        let Some(clang) = which("clang-14") else {
            // Without clang-14 there is nothing to run; `find` reports it.
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("bad.c");
        std::fs::write(&src, "int main(void) { return undefined_name; }\n").unwrap();
        let tc = Toolchain {
            clang,
            ..fake(dir.path())
        };
        let err = tc
            .compile_bitcode(&src, &dir.path().join("bad.bc"), &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("undefined_name"), "{err}");

        let good = dir.path().join("good.c");
        std::fs::write(&good, "int main(void) { return 0; }\n").unwrap();
        let out = dir.path().join("good.bc");
        tc.compile_bitcode(&good, &out, &["-DX=1".to_string()])
            .unwrap();
        assert!(out.is_file());
    }
}
