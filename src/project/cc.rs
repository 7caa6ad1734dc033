//! The compiler `mnemo cc-project` and the linker of `mnemo extract`.
//!
//! A C source is compiled once, to bitcode with the engine's flags; the
//! native object is generated from that same bitcode, so the two views of
//! the program cannot differ, and the bitcode is added to the object as a
//! section. Programs are linked by Debian's musl toolchain (`musl-gcc`,
//! static), with compiler-rt's builtins for what clang's code may call,
//! and with the model's clock, machine and listing order (the runtime's
//! `libmnemo-model.a`), so that a test replayed on the program prints the
//! time, the machine's name and a directory's names as the engine
//! predicted.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::args::{Invocation, Mode};
use super::section::{parse_section, section_entry, SECTION};
use super::{io_err, ProjectError};
use crate::files::write_atomic;
use crate::testgen::toolchain::find_tool;
use crate::testgen::{Toolchain, BITCODE_FLAGS};

/// The tools of a project build, found once.
#[derive(Clone, Debug)]
pub struct ProjectCc {
    /// clang, llvm-link and the runtime's C library.
    pub toolchain: Toolchain,
    /// llvm-objcopy, which adds and reads the bitcode section.
    pub objcopy: PathBuf,
    /// The native linker driver of the musl toolchain.
    pub native_cc: PathBuf,
}

impl ProjectCc {
    /// Finds the tools: those of [`Toolchain::find`], llvm-objcopy-14 (or
    /// `$MNEMO_OBJCOPY`) and musl-gcc (or `$MNEMO_NATIVE_CC`).
    pub fn find() -> Result<ProjectCc, ProjectError> {
        Ok(ProjectCc {
            toolchain: Toolchain::find()?,
            objcopy: find_tool("MNEMO_OBJCOPY", "llvm-objcopy-14")?,
            native_cc: find_tool("MNEMO_NATIVE_CC", "musl-gcc")?,
        })
    }

    /// Does what the command line `argv` asks of a C compiler. The tools'
    /// diagnostics go to stderr as they come, as a build expects.
    pub fn run(&self, argv: &[OsString]) -> Result<(), ProjectError> {
        let inv = Invocation::parse(argv)?;
        match inv.mode {
            Mode::Other => {
                let mut args = self.toolchain.include_flags();
                args.extend(inv.all_args());
                self.tool(&self.toolchain.clang, &args, Path::new("(probe)"))
            }
            Mode::Compile => {
                let sources = inv.sources();
                for src in &sources {
                    let out = match (&inv.output, sources.len()) {
                        (Some(o), 1) => PathBuf::from(o),
                        _ => object_name(Path::new(src)),
                    };
                    self.compile(&inv, Path::new(src), &out)?;
                }
                Ok(())
            }
            Mode::Link => {
                let scratch = tempdir()?;
                let mut objects = Vec::new();
                for (i, src) in inv.sources().into_iter().enumerate() {
                    let obj = scratch.path().join(format!("{i}.o"));
                    self.compile(&inv, Path::new(src), &obj)?;
                    objects.push(obj.into_os_string());
                }
                let mut args: Vec<OsString> = vec!["-static".into()];
                args.extend(inv.link_args(&objects));
                if inv.links_a_program() {
                    // Whole: the C library's own callers of readdir (scandir,
                    // glob) list in the model's order too.
                    args.push("-Wl,--whole-archive".into());
                    args.push(self.toolchain.model_library()?.into());
                    args.push("-Wl,--no-whole-archive".into());
                }
                if let Some(builtins) = self.builtins() {
                    args.push(builtins.into());
                }
                let out = inv.output.clone().unwrap_or_else(|| "a.out".into());
                args.push("-o".into());
                args.push(out.clone());
                self.tool(&self.native_cc, &args, Path::new(&out))
            }
        }
    }

    /// `src` to the object `out`: bitcode, the native code generated from
    /// it, the bitcode added as a section; `out` appears complete or not at
    /// all.
    fn compile(&self, inv: &Invocation, src: &Path, out: &Path) -> Result<(), ProjectError> {
        let scratch = tempdir()?;
        let bc = scratch.path().join("object.bc");
        let mut args: Vec<OsString> = BITCODE_FLAGS.iter().map(OsString::from).collect();
        args.extend(self.toolchain.include_flags());
        args.extend(inv.compile_flags());
        // Dependency files name the object, not the scratch bitcode.
        let deps = inv.has_flag("-MD") || inv.has_flag("-MMD");
        if deps && !inv.has_flag("-MT") && !inv.has_flag("-MQ") {
            args.extend(["-MT".into(), out.as_os_str().to_owned()]);
        }
        if deps && !inv.has_flag("-MF") {
            args.extend(["-MF".into(), out.with_extension("d").into_os_string()]);
        }
        args.push(src.into());
        args.push("-o".into());
        args.push(bc.clone().into());
        self.tool(&self.toolchain.clang, &args, src)?;

        let native = scratch.path().join("object.o");
        let mut args: Vec<OsString> = vec!["-c".into(), "-Wno-unused-command-line-argument".into()];
        args.extend(inv.codegen_flags());
        args.extend([bc.clone().into(), "-o".into(), native.clone().into()]);
        self.tool(&self.toolchain.clang, &args, src)?;

        let bitcode = fs::read(&bc).map_err(io_err("cannot read", &bc))?;
        let entry = scratch.path().join("section");
        fs::write(&entry, section_entry(&bitcode)).map_err(io_err("cannot write", &entry))?;
        let with_section = scratch.path().join("object-bc.o");
        let add = format!("{SECTION}={}", entry.display());
        let args: Vec<OsString> = vec![
            "--add-section".into(),
            add.into(),
            native.into(),
            with_section.clone().into(),
        ];
        self.tool(&self.objcopy, &args, src)?;
        let object = fs::read(&with_section).map_err(io_err("cannot read", &with_section))?;
        write_atomic(out, &object).map_err(io_err("cannot write", out))
    }

    /// compiler-rt's builtins, which clang's code may call where libgcc has
    /// no such function; none when clang does not name an existing file.
    fn builtins(&self) -> Option<PathBuf> {
        let out = Command::new(&self.toolchain.clang)
            .args(["--rtlib=compiler-rt", "-print-libgcc-file-name"])
            .output()
            .ok()?;
        let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
        path.is_file().then_some(path)
    }

    /// Links the bitcode carried by `program` (a program built with this
    /// compiler) into the one module `out`; returns how many objects it
    /// held.
    pub fn extract(&self, program: &Path, out: &Path) -> Result<usize, ProjectError> {
        let scratch = tempdir()?;
        let dump = scratch.path().join("section");
        let spec = format!("{SECTION}={}", dump.display());
        let args: Vec<OsString> = vec![
            "--dump-section".into(),
            spec.into(),
            program.into(),
            scratch.path().join("discard").into(),
        ];
        let status = Command::new(&self.objcopy)
            .args(&args)
            .output()
            .map_err(|error| ProjectError::Spawn {
                tool: self.objcopy.clone(),
                error,
            })?;
        if !status.status.success() {
            let stderr = String::from_utf8_lossy(&status.stderr);
            if stderr.contains("not found") {
                return Err(ProjectError::NoBitcode(program.to_path_buf()));
            }
            return Err(ProjectError::ToolFailed {
                tool: self.objcopy.clone(),
                status: status.status,
                target: program.to_path_buf(),
                detail: format!(":\n{stderr}"),
            });
        }
        let bytes = fs::read(&dump).map_err(io_err("cannot read", &dump))?;
        let entries = parse_section(&bytes).map_err(|error| ProjectError::Section {
            path: program.to_path_buf(),
            error,
        })?;
        if entries.is_empty() {
            return Err(ProjectError::NoBitcode(program.to_path_buf()));
        }
        let mut args: Vec<OsString> = Vec::new();
        for (i, bc) in entries.iter().enumerate() {
            let file = scratch.path().join(format!("{i:05}.bc"));
            fs::write(&file, bc).map_err(io_err("cannot write", &file))?;
            args.push(file.into());
        }
        let linked = scratch.path().join("linked.bc");
        args.extend(["-o".into(), linked.clone().into()]);
        self.tool(&self.toolchain.llvm_link, &args, program)?;
        let module = fs::read(&linked).map_err(io_err("cannot read", &linked))?;
        write_atomic(out, &module).map_err(io_err("cannot write", out))?;
        Ok(entries.len())
    }

    /// Runs `tool` with stdio inherited; its failure names `target`.
    fn tool(&self, tool: &Path, args: &[OsString], target: &Path) -> Result<(), ProjectError> {
        let status =
            Command::new(tool)
                .args(args)
                .status()
                .map_err(|error| ProjectError::Spawn {
                    tool: tool.to_path_buf(),
                    error,
                })?;
        if status.success() {
            Ok(())
        } else {
            Err(ProjectError::ToolFailed {
                tool: tool.to_path_buf(),
                status,
                target: target.to_path_buf(),
                detail: String::new(),
            })
        }
    }
}

/// The object `cc -c src` writes when no `-o` is given: the source's base
/// name with `.o`, in the working directory.
fn object_name(src: &Path) -> PathBuf {
    PathBuf::from(src.file_name().unwrap_or(src.as_os_str())).with_extension("o")
}

fn tempdir() -> Result<tempfile::TempDir, ProjectError> {
    tempfile::Builder::new()
        .prefix("mnemo-cc-")
        .tempdir()
        .map_err(io_err(
            "cannot create a scratch directory in",
            std::env::temp_dir(),
        ))
}
