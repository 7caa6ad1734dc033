//! KLEE's `.ktest` file format: the concrete inputs of one path.
//!
//! Layout (all integers big-endian u32): magic `KTEST` (`BOUT\n` in the
//! oldest files), version, the program arguments as (length, bytes), from
//! version 2 on the sym-argv count and length, then the objects as
//! (name length, name, size, bytes). mnemo writes version 3, which has the
//! same layout as version 2, so KLEE's own tools read mnemo's tests.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// The version mnemo writes.
pub const KTEST_VERSION: u32 = 3;
const MAGIC: &[u8; 5] = b"KTEST";
const OLD_MAGIC: &[u8; 5] = b"BOUT\n";

/// A test: the program's arguments and the bytes of every symbolic input,
/// in the order the program created them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KTest {
    pub args: Vec<String>,
    pub sym_argvs: u32,
    pub sym_argv_len: u32,
    pub objects: Vec<KTestObject>,
}

/// One symbolic input: its name (as given to `klee_make_symbolic`, or the
/// `__VERIFIER_nondet_*` function's name) and its concrete bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KTestObject {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Why a ktest file could not be read or written.
#[derive(Debug, Error)]
pub enum KTestError {
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("not a ktest file (bad magic)")]
    BadMagic,
    #[error("unsupported ktest version {0} (mnemo reads versions 1 to 3)")]
    UnsupportedVersion(u32),
    #[error("truncated ktest file (in {0})")]
    Truncated(TruncatedAt),
    #[error("{path}: {error}")]
    InFile {
        path: PathBuf,
        error: Box<KTestError>,
    },
}

/// The part of a ktest file where the data ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TruncatedAt {
    Header,
    Argument { index: u32, count: u32 },
    Object { index: u32, count: u32 },
}

impl fmt::Display for TruncatedAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TruncatedAt::Header => write!(f, "the header"),
            TruncatedAt::Argument { index, count } => {
                write!(f, "argument {index} of {count}")
            }
            TruncatedAt::Object { index, count } => write!(f, "object {index} of {count}"),
        }
    }
}

/// Reads big-endian fields from a byte slice, reporting where it ran out.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, at: TruncatedAt) -> Result<&'a [u8], KTestError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.data.len())
            .ok_or(KTestError::Truncated(at))?;
        let bytes = &self.data[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    fn u32(&mut self, at: TruncatedAt) -> Result<u32, KTestError> {
        let b = self.take(4, at)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A (u32 length, bytes) field.
    fn blob(&mut self, at: TruncatedAt) -> Result<&'a [u8], KTestError> {
        let len = self.u32(at)?;
        self.take(len as usize, at)
    }
}

fn push_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// Lengths are u32 in the format; longer data cannot be represented, and
/// no test mnemo produces comes near that.
fn push_blob(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    push_u32(out, len);
    out.extend_from_slice(&bytes[..len as usize]);
}

impl KTest {
    /// Reads a ktest file.
    pub fn read(path: &Path) -> Result<KTest, KTestError> {
        let data = fs::read(path).map_err(|error| KTestError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        KTest::from_bytes(&data).map_err(|e| KTestError::InFile {
            path: path.to_path_buf(),
            error: Box::new(e),
        })
    }

    /// Parses the contents of a ktest file (versions 1 to 3).
    pub fn from_bytes(data: &[u8]) -> Result<KTest, KTestError> {
        let mut r = Reader { data, pos: 0 };
        let magic = r
            .take(5, TruncatedAt::Header)
            .map_err(|_| KTestError::BadMagic)?;
        if magic != MAGIC && magic != OLD_MAGIC {
            return Err(KTestError::BadMagic);
        }
        let version = r.u32(TruncatedAt::Header)?;
        if !(1..=KTEST_VERSION).contains(&version) {
            return Err(KTestError::UnsupportedVersion(version));
        }
        let nargs = r.u32(TruncatedAt::Header)?;
        // Every field has at least a 4-byte length, so the remaining size
        // bounds the counts; this keeps a corrupt count from reserving
        // gigabytes.
        let room = (data.len() - r.pos) / 4;
        let mut args = Vec::with_capacity((nargs as usize).min(room));
        for index in 0..nargs {
            let at = TruncatedAt::Argument {
                index,
                count: nargs,
            };
            args.push(String::from_utf8_lossy(r.blob(at)?).into_owned());
        }
        let (sym_argvs, sym_argv_len) = if version >= 2 {
            (r.u32(TruncatedAt::Header)?, r.u32(TruncatedAt::Header)?)
        } else {
            (0, 0)
        };
        let nobjs = r.u32(TruncatedAt::Header)?;
        let room = (data.len() - r.pos) / 8;
        let mut objects = Vec::with_capacity((nobjs as usize).min(room));
        for index in 0..nobjs {
            let at = TruncatedAt::Object {
                index,
                count: nobjs,
            };
            let name = String::from_utf8_lossy(r.blob(at)?).into_owned();
            let bytes = r.blob(at)?.to_vec();
            objects.push(KTestObject { name, bytes });
        }
        Ok(KTest {
            args,
            sym_argvs,
            sym_argv_len,
            objects,
        })
    }

    /// The file contents, in version 3.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        push_u32(&mut out, KTEST_VERSION);
        push_u32(&mut out, u32::try_from(self.args.len()).unwrap_or(u32::MAX));
        for arg in self.args.iter().take(u32::MAX as usize) {
            push_blob(&mut out, arg.as_bytes());
        }
        push_u32(&mut out, self.sym_argvs);
        push_u32(&mut out, self.sym_argv_len);
        push_u32(
            &mut out,
            u32::try_from(self.objects.len()).unwrap_or(u32::MAX),
        );
        for obj in self.objects.iter().take(u32::MAX as usize) {
            push_blob(&mut out, obj.name.as_bytes());
            push_blob(&mut out, &obj.bytes);
        }
        out
    }

    /// Writes the test atomically (see [`crate::files::write_atomic`]).
    pub fn write_atomic(&self, path: &Path) -> Result<(), KTestError> {
        crate::files::write_atomic(path, &self.to_bytes()).map_err(|error| KTestError::Io {
            path: path.to_path_buf(),
            error,
        })
    }

    /// The test as text, in the style of KLEE's `ktest-tool`, headed by the
    /// file name it was read from.
    pub fn to_text(&self, file: &str) -> String {
        format!("ktest file : '{file}'\n{self}")
    }
}

/// `b'...'` with printable ASCII as is and everything else escaped, as
/// Python prints bytes (which is what ktest-tool shows).
fn python_bytes(bytes: &[u8]) -> String {
    let mut s = String::from("b'");
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\'' => s.push_str("\\'"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('\'');
    s
}

impl fmt::Display for KTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args: Vec<String> = self.args.iter().map(|a| format!("{a:?}")).collect();
        writeln!(f, "args       : [{}]", args.join(", "))?;
        if self.sym_argvs != 0 || self.sym_argv_len != 0 {
            writeln!(f, "sym argvs  : {}", self.sym_argvs)?;
            writeln!(f, "sym argv len: {}", self.sym_argv_len)?;
        }
        writeln!(f, "num objects: {}", self.objects.len())?;
        for (i, obj) in self.objects.iter().enumerate() {
            let b = &obj.bytes;
            writeln!(f, "object {i}: name: '{}'", obj.name)?;
            writeln!(f, "object {i}: size: {}", b.len())?;
            writeln!(f, "object {i}: data: {}", python_bytes(b))?;
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            writeln!(f, "object {i}: hex : 0x{hex}")?;
            // Little endian, as the inputs of an x86-64 program are.
            let ints = match b.len() {
                1 => Some((i8::from_le_bytes([b[0]]) as i64, b[0] as u64)),
                2 => {
                    let a = [b[0], b[1]];
                    Some((i16::from_le_bytes(a) as i64, u16::from_le_bytes(a) as u64))
                }
                4 => {
                    let a = [b[0], b[1], b[2], b[3]];
                    Some((i32::from_le_bytes(a) as i64, u32::from_le_bytes(a) as u64))
                }
                8 => {
                    let mut a = [0u8; 8];
                    a.copy_from_slice(b);
                    Some((i64::from_le_bytes(a), u64::from_le_bytes(a)))
                }
                _ => None,
            };
            if let Some((signed, unsigned)) = ints {
                writeln!(f, "object {i}: int : {signed}")?;
                writeln!(f, "object {i}: uint: {unsigned}")?;
            }
            let text: String = b
                .iter()
                .map(|&c| {
                    if (0x20..0x7f).contains(&c) {
                        c as char
                    } else {
                        '.'
                    }
                })
                .collect();
            writeln!(f, "object {i}: text: {text}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> KTest {
        KTest {
            args: vec!["prog.bc".into(), "--flag".into()],
            sym_argvs: 0,
            sym_argv_len: 0,
            objects: vec![
                KTestObject {
                    name: "x".into(),
                    bytes: vec![1, 0, 0, 0],
                },
                KTestObject {
                    name: "buf".into(),
                    bytes: b"a'\\\n\xff".to_vec(),
                },
                KTestObject {
                    name: "empty".into(),
                    bytes: vec![],
                },
            ],
        }
    }

    #[test]
    fn round_trip() {
        let t = sample();
        assert_eq!(KTest::from_bytes(&t.to_bytes()).unwrap(), t);
    }

    #[test]
    fn reads_the_klee_layout_built_by_hand() {
        let mut raw = Vec::new();
        raw.extend_from_slice(b"KTEST");
        raw.extend_from_slice(&[0, 0, 0, 3]); // version
        raw.extend_from_slice(&[0, 0, 0, 1]); // one argument
        raw.extend_from_slice(&[0, 0, 0, 4]);
        raw.extend_from_slice(b"a.bc");
        raw.extend_from_slice(&[0, 0, 0, 2]); // sym argvs
        raw.extend_from_slice(&[0, 0, 0, 9]); // sym argv len
        raw.extend_from_slice(&[0, 0, 0, 1]); // one object
        raw.extend_from_slice(&[0, 0, 0, 1]);
        raw.extend_from_slice(b"n");
        raw.extend_from_slice(&[0, 0, 0, 4]);
        raw.extend_from_slice(&[0x2a, 0, 0, 0x80]);
        let t = KTest::from_bytes(&raw).unwrap();
        assert_eq!(t.args, vec!["a.bc".to_string()]);
        assert_eq!((t.sym_argvs, t.sym_argv_len), (2, 9));
        assert_eq!(t.objects.len(), 1);
        assert_eq!(t.objects[0].name, "n");
        assert_eq!(t.objects[0].bytes, vec![0x2a, 0, 0, 0x80]);
        // Our writer produces exactly KLEE's bytes.
        assert_eq!(t.to_bytes(), raw);
    }

    #[test]
    fn reads_version_1_without_sym_argv_fields() {
        let mut raw = Vec::new();
        raw.extend_from_slice(b"BOUT\n");
        raw.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
        raw.extend_from_slice(&[0, 0, 0, 1, b'c', 0, 0, 0, 1, 7]);
        let t = KTest::from_bytes(&raw).unwrap();
        assert!(t.args.is_empty());
        assert_eq!(t.objects[0].bytes, vec![7]);
    }

    #[test]
    fn rejects_bad_magic_and_versions() {
        assert!(matches!(
            KTest::from_bytes(b"NOPE!\0\0\0\x03"),
            Err(KTestError::BadMagic)
        ));
        assert!(matches!(
            KTest::from_bytes(b"KT"),
            Err(KTestError::BadMagic)
        ));
        let mut raw = sample().to_bytes();
        raw[8] = 9;
        assert!(matches!(
            KTest::from_bytes(&raw),
            Err(KTestError::UnsupportedVersion(9))
        ));
        raw[8] = 0;
        assert!(matches!(
            KTest::from_bytes(&raw),
            Err(KTestError::UnsupportedVersion(0))
        ));
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let raw = sample().to_bytes();
        for len in 0..raw.len() {
            let err = KTest::from_bytes(&raw[..len]);
            assert!(err.is_err(), "prefix of {len} bytes parsed");
        }
        // The message says where the data ran out.
        let cut = raw.len() - 2; // inside the last object's size field
        let msg = KTest::from_bytes(&raw[..cut]).unwrap_err().to_string();
        assert!(msg.contains("object 2 of 3"), "{msg}");
    }

    #[test]
    fn absurd_counts_do_not_allocate() {
        let mut raw = Vec::new();
        raw.extend_from_slice(b"KTEST");
        raw.extend_from_slice(&[0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        raw.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        let err = KTest::from_bytes(&raw).unwrap_err();
        assert!(matches!(
            err,
            KTestError::Truncated(TruncatedAt::Object { index: 0, .. })
        ));
    }

    #[test]
    fn write_atomic_then_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test000001.ktest");
        let t = sample();
        t.write_atomic(&path).unwrap();
        assert_eq!(KTest::read(&path).unwrap(), t);
        // No temporary file is left behind.
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        let missing = KTest::read(&dir.path().join("nope.ktest")).unwrap_err();
        assert!(missing.to_string().contains("nope.ktest"));
    }

    #[test]
    fn text_like_ktest_tool() {
        let text = sample().to_text("t.ktest");
        let expected = "ktest file : 't.ktest'\n\
args       : [\"prog.bc\", \"--flag\"]\n\
num objects: 3\n\
object 0: name: 'x'\n\
object 0: size: 4\n\
object 0: data: b'\\x01\\x00\\x00\\x00'\n\
object 0: hex : 0x01000000\n\
object 0: int : 1\n\
object 0: uint: 1\n\
object 0: text: ....\n\
object 1: name: 'buf'\n\
object 1: size: 5\n\
object 1: data: b'a\\'\\\\\\n\\xff'\n\
object 1: hex : 0x61275c0aff\n\
object 1: text: a'\\..\n\
object 2: name: 'empty'\n\
object 2: size: 0\n\
object 2: data: b''\n\
object 2: hex : 0x\n\
object 2: text: \n";
        assert_eq!(text, expected);
    }

    #[test]
    fn ints_of_each_size() {
        let mk = |bytes: Vec<u8>| KTest {
            objects: vec![KTestObject {
                name: "v".into(),
                bytes,
            }],
            ..KTest::default()
        };
        assert!(mk(vec![0xff]).to_string().contains("int : -1\n"));
        assert!(mk(vec![0xff]).to_string().contains("uint: 255\n"));
        assert!(mk(vec![0x00, 0x80]).to_string().contains("int : -32768\n"));
        assert!(mk(vec![0xff; 8])
            .to_string()
            .contains("uint: 18446744073709551615\n"));
        assert!(!mk(vec![1, 2, 3]).to_string().contains("int :"));
    }
}
