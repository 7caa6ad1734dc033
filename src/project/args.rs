//! A C compiler's command line as a build system writes it, sorted into
//! what `mnemo cc-project` needs to know: what the call does (compile,
//! link, or anything else), its C sources, its other inputs, its output and
//! the flags.

use std::ffi::{OsStr, OsString};

use super::ProjectError;

/// Flags whose value is the next argument.
const WITH_VALUE: &[&str] = &[
    "-o",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-idirafter",
    "-iquote",
    "-iprefix",
    "-MF",
    "-MT",
    "-MQ",
    "-x",
    "-L",
    "-l",
    "-Xlinker",
    "-Xclang",
    "-Xassembler",
    "-Xpreprocessor",
    "-z",
    "-u",
    "-T",
    "--param",
    "-target",
];

/// Flags after which the call neither compiles to an object nor links:
/// configure's probes of the preprocessor and of the compiler's identity.
const OTHER_WORK: &[&str] = &[
    "-E",
    "-S",
    "-M",
    "-MM",
    "-fsyntax-only",
    "-###",
    "--version",
    "-V",
    "-qversion",
    "-dumpversion",
    "-dumpmachine",
    "-dumpspecs",
];

/// What a call of the compiler does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `-c`: each C source to an object carrying its bitcode.
    Compile,
    /// Sources (compiled first) and objects to a program.
    Link,
    /// Anything else (preprocessing, assembly output, version probes):
    /// handed to clang as is, with the C library's include path.
    Other,
}

/// One argument, classified.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Arg {
    /// A C source file.
    Source(OsString),
    /// Any other input (objects, archives, assembly).
    Input(OsString),
    /// A flag, with its value when it takes the next argument.
    Flag(Vec<OsString>),
}

/// A compiler command line.
#[derive(Clone, Debug)]
pub struct Invocation {
    args: Vec<Arg>,
    /// `-o`'s value.
    pub output: Option<OsString>,
    /// What the call does.
    pub mode: Mode,
}

fn is_c_source(arg: &OsStr) -> bool {
    let bytes = arg.as_encoded_bytes();
    bytes.ends_with(b".c") || bytes.ends_with(b".i")
}

impl Invocation {
    /// Sorts `argv` (without the compiler's own name).
    pub fn parse(argv: &[OsString]) -> Result<Invocation, ProjectError> {
        let mut args = Vec::new();
        let mut output = None;
        let mut explicit_language = false;
        let mut it = argv.iter();
        while let Some(a) = it.next() {
            let s = a.to_string_lossy();
            if WITH_VALUE.contains(&s.as_ref()) {
                let value = it
                    .next()
                    .ok_or_else(|| ProjectError::MissingValue(s.to_string()))?;
                if s == "-o" {
                    output = Some(value.clone());
                    continue;
                }
                explicit_language |= s == "-x";
                args.push(Arg::Flag(vec![a.clone(), value.clone()]));
            } else if let Some(value) = s.strip_prefix("-o").filter(|v| !v.is_empty()) {
                output = Some(value.into());
            } else if s.starts_with('-') && s != "-" {
                explicit_language |= s.starts_with("-x");
                args.push(Arg::Flag(vec![a.clone()]));
            } else if is_c_source(a) && !explicit_language {
                args.push(Arg::Source(a.clone()));
            } else {
                args.push(Arg::Input(a.clone()));
            }
        }
        let flag = |name: &str| {
            args.iter()
                .any(|a| matches!(a, Arg::Flag(f) if f[0] == name))
        };
        let probe = args.iter().any(|a| match a {
            Arg::Flag(f) => {
                let f = f[0].to_string_lossy();
                OTHER_WORK.contains(&f.as_ref())
                    || f.starts_with("-print-")
                    || f.starts_with("--print")
            }
            _ => false,
        });
        let has_inputs = args.iter().any(|a| !matches!(a, Arg::Flag(_)));
        // With `-x` the language of the inputs is the caller's business.
        let mode = if probe || !has_inputs || explicit_language {
            Mode::Other
        } else if flag("-c") {
            Mode::Compile
        } else {
            Mode::Link
        };
        Ok(Invocation { args, output, mode })
    }

    /// Whether a link makes a program, not a shared library (`-shared`) or
    /// a relocatable object (`-r`), and with the C library (no
    /// `-nostdlib`): what the model's library can be linked into.
    pub fn links_a_program(&self) -> bool {
        self.mode == Mode::Link
            && !["-shared", "-r", "-nostdlib", "-nodefaultlibs"]
                .iter()
                .any(|f| self.has_flag(f))
    }

    /// The C sources, in order.
    pub fn sources(&self) -> Vec<&OsString> {
        self.args
            .iter()
            .filter_map(|a| match a {
                Arg::Source(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    /// Whether a flag is on the command line.
    pub fn has_flag(&self, name: &str) -> bool {
        self.args
            .iter()
            .any(|a| matches!(a, Arg::Flag(f) if f[0] == name))
    }

    /// The flags that shape a compilation to bitcode: all of them but
    /// `-c`, optimisation levels (the engine runs `-O0` bitcode) and
    /// instrumentation, which belongs to native builds.
    pub fn compile_flags(&self) -> Vec<OsString> {
        self.flags(|f| {
            !(f == "-c"
                || f.starts_with("-O")
                || f == "--coverage"
                || f.starts_with("-fprofile")
                || f == "-ftest-coverage"
                || f.starts_with("-fsanitize"))
        })
    }

    /// The flags that shape code generation from bitcode (`-f…`, `-m…`).
    pub fn codegen_flags(&self) -> Vec<OsString> {
        self.flags(|f| (f.starts_with("-f") || f.starts_with("-m")) && !f.starts_with("-fsanitize"))
    }

    fn flags(&self, keep: impl Fn(&str) -> bool) -> Vec<OsString> {
        self.args
            .iter()
            .filter_map(|a| match a {
                Arg::Flag(f) if keep(&f[0].to_string_lossy()) => Some(f.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// The command line with each source replaced by `objects[i]` (a link
    /// of sources compiled first) and without `-o`.
    pub fn link_args(&self, objects: &[OsString]) -> Vec<OsString> {
        let mut objects = objects.iter();
        let mut out = Vec::new();
        for a in &self.args {
            match a {
                Arg::Source(_) => out.extend(objects.next().cloned()),
                Arg::Input(i) => out.push(i.clone()),
                Arg::Flag(f) => out.extend(f.iter().cloned()),
            }
        }
        out
    }

    /// The command line as given, `-o` included.
    pub fn all_args(&self) -> Vec<OsString> {
        let mut out = self.link_args(&self.sources().into_iter().cloned().collect::<Vec<_>>());
        if let Some(o) = &self.output {
            out.push("-o".into());
            out.push(o.clone());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Invocation {
        let argv: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
        Invocation::parse(&argv).unwrap()
    }

    #[test]
    fn modes_follow_what_the_call_does() {
        let c = parse("-DX=1 -I lib -O2 -g -MT a.o -MD -MP -MF .deps/a.Tpo -c -o a.o a.c");
        assert_eq!(c.mode, Mode::Compile);
        assert_eq!(c.output, Some("a.o".into()));
        assert_eq!(c.sources(), vec![&OsString::from("a.c")]);
        let flags: Vec<String> = c
            .compile_flags()
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            flags,
            [
                "-DX=1",
                "-I",
                "lib",
                "-g",
                "-MT",
                "a.o",
                "-MD",
                "-MP",
                "-MF",
                ".deps/a.Tpo"
            ]
        );
        assert!(c.has_flag("-MD") && !c.has_flag("-MMD"));

        let l = parse("-g -o prog conftest.c lib/libx.a -lm");
        assert_eq!(l.mode, Mode::Link);
        let linked: Vec<String> = l
            .link_args(&["t/0.o".into()])
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect();
        assert_eq!(linked, ["-g", "t/0.o", "lib/libx.a", "-lm"]);
        assert_eq!(parse("-oprog a.o").output, Some("prog".into()));
        assert!(l.links_a_program());
        for not_a_program in [
            "-shared -o x.so a.o",
            "-r -o all.o a.o b.o",
            "-nostdlib -o start start.o",
            "-c a.c",
        ] {
            assert!(!parse(not_a_program).links_a_program(), "{not_a_program}");
        }

        for other in [
            "-E conftest.c",
            "--version",
            "-v",
            "-print-prog-name=ld",
            "-x c -c conftest.cpp",
            "-S a.c",
        ] {
            assert_eq!(parse(other).mode, Mode::Other, "{other}");
        }
        assert_eq!(parse("-E -").mode, Mode::Other);
    }

    #[test]
    fn a_flag_without_its_value_is_an_error() {
        let err = Invocation::parse(&["-c".into(), "a.c".into(), "-o".into()]).unwrap_err();
        assert!(err.to_string().contains("-o"), "{err}");
    }

    #[test]
    fn all_args_gives_the_line_back() {
        let l = parse("-O2 -c a.c -o a.o");
        let back: Vec<String> = l
            .all_args()
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect();
        assert_eq!(back, ["-O2", "-c", "a.c", "-o", "a.o"]);
    }
}
