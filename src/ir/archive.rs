//! A C library in bitcode kept as a directory of objects, one per source
//! file, with an index of the symbols each defines and needs (what
//! `llvm-nm --extern-only -A` prints). Linking from it works as a linker
//! reads `libc.a`: only the objects that define a symbol the program still
//! needs are linked, and then what they need in turn, so a run lowers the
//! few dozen functions its program uses rather than the whole library.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::LoadError;

/// The index file an archive directory holds.
pub const INDEX: &str = "symbols.txt";

/// The index of an archive directory: which object defines each symbol and
/// which symbols each object needs.
#[derive(Debug, Default)]
pub struct Archive {
    /// The directory of the objects.
    dir: PathBuf,
    objects: Vec<Object>,
    /// Symbol -> the object defining it (a strong definition over a weak
    /// one, as a linker resolves them).
    defined: FxHashMap<String, (usize, bool)>,
}

#[derive(Debug)]
struct Object {
    file: String,
    /// Symbols the object refers to without defining (weak references,
    /// which do not pull an object in, left out).
    needs: Vec<String>,
}

impl Archive {
    /// Whether `dir` is an archive directory (it holds an index).
    pub fn is_archive(dir: &Path) -> bool {
        dir.join(INDEX).is_file()
    }

    /// Reads the index of the archive directory `dir`.
    pub fn open(dir: &Path) -> Result<Archive, LoadError> {
        let path = dir.join(INDEX);
        let text = std::fs::read_to_string(&path).map_err(|e| LoadError::Read {
            path: path.clone(),
            message: e.to_string(),
        })?;
        Archive::parse(dir, &path, &text)
    }

    fn parse(dir: &Path, path: &Path, text: &str) -> Result<Archive, LoadError> {
        let mut archive = Archive {
            dir: dir.join("obj"),
            ..Archive::default()
        };
        let mut by_file: FxHashMap<String, usize> = FxHashMap::default();
        for (n, line) in text.lines().enumerate() {
            let bad = |what: &str| LoadError::Parse {
                path: path.to_path_buf(),
                message: format!("line {}: {what}: {line:?}", n + 1),
            };
            let Some((file, rest)) = line.split_once(": ") else {
                return Err(bad("no object name"));
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            // `FILE: no symbols`, `FILE: ADDR TYPE NAME`, `FILE: TYPE NAME`.
            if words == ["no", "symbols"] {
                continue;
            }
            let (kind, name) = match words.as_slice() {
                [_, kind, name] | [kind, name] => (*kind, *name),
                _ => return Err(bad("not `TYPE NAME`")),
            };
            if file.contains('/') || !file.ends_with(".bc") {
                return Err(bad("not a bitcode object of this directory"));
            }
            let index = *by_file.entry(file.to_string()).or_insert_with(|| {
                archive.objects.push(Object {
                    file: file.to_string(),
                    needs: Vec::new(),
                });
                archive.objects.len() - 1
            });
            match kind {
                "U" => archive.objects[index].needs.push(name.to_string()),
                // Weak references and absolute symbols pull nothing in.
                "w" | "v" | "a" | "A" => {}
                "W" | "V" | "T" | "D" | "B" | "R" | "C" | "S" => {
                    let strong = !matches!(kind, "W" | "V");
                    let entry = archive
                        .defined
                        .entry(name.to_string())
                        .or_insert((index, strong));
                    if strong && !entry.1 {
                        *entry = (index, true);
                    }
                }
                _ => return Err(bad("unknown symbol type")),
            }
        }
        Ok(archive)
    }

    /// The symbols some object needs and none defines: what a program
    /// linked with the archive must define itself, or the engine provide.
    pub fn unresolved(&self) -> BTreeSet<&str> {
        self.objects
            .iter()
            .flat_map(|o| o.needs.iter().map(String::as_str))
            .filter(|name| !self.defined.contains_key(*name))
            .collect()
    }

    /// The objects to link for a program whose undefined symbols are
    /// `undefined` and whose defined ones are `defined`: those defining a
    /// needed symbol, transitively, in the order they were first needed.
    pub fn resolve(&self, undefined: &[String], defined: &BTreeSet<String>) -> Vec<PathBuf> {
        let mut taken = vec![false; self.objects.len()];
        let mut order = Vec::new();
        let mut known: BTreeSet<&str> = defined.iter().map(String::as_str).collect();
        let mut work: Vec<&str> = undefined.iter().rev().map(String::as_str).collect();
        while let Some(name) = work.pop() {
            if !known.insert(name) {
                continue;
            }
            let Some(&(index, _)) = self.defined.get(name) else {
                continue;
            };
            if std::mem::replace(&mut taken[index], true) {
                continue;
            }
            order.push(self.dir.join(&self.objects[index].file));
            work.extend(self.objects[index].needs.iter().rev().map(String::as_str));
        }
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive(text: &str) -> Archive {
        Archive::parse(Path::new("lib"), Path::new("lib/symbols.txt"), text).expect("parses")
    }

    fn names(paths: Vec<PathBuf>) -> Vec<String> {
        paths
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    const INDEX_TEXT: &str = "\
a.bc: ---------------- T puts
a.bc:                  U write
a.bc:                  w __stdio_exit
b.bc: ---------------- T write
b.bc:                  U errno
c.bc: ---------------- D errno
d.bc: ---------------- T __stdio_exit
e.bc: no symbols
f.bc: ---------------- W strlen
g.bc: ---------------- T strlen
";

    #[test]
    fn only_what_the_program_needs_is_linked_transitively() {
        let a = archive(INDEX_TEXT);
        let got = names(a.resolve(&["puts".into()], &BTreeSet::new()));
        // The weak reference to __stdio_exit pulls nothing in.
        assert_eq!(got, ["a.bc", "b.bc", "c.bc"]);
        assert!(a.resolve(&["nowhere".into()], &BTreeSet::new()).is_empty());
    }

    #[test]
    fn the_program_s_own_definitions_and_strong_ones_win() {
        let a = archive(INDEX_TEXT);
        let mine: BTreeSet<String> = ["write".to_string()].into();
        assert_eq!(names(a.resolve(&["puts".into()], &mine)), ["a.bc"]);
        assert_eq!(
            names(a.resolve(&["strlen".into()], &BTreeSet::new())),
            ["g.bc"]
        );
    }

    #[test]
    fn unresolved_symbols_are_those_no_object_defines() {
        assert!(archive(INDEX_TEXT).unresolved().is_empty());
        let more = format!("{INDEX_TEXT}h.bc:                  U nowhere\n");
        assert_eq!(archive(&more).unresolved(), ["nowhere"].into());
    }

    #[test]
    fn a_damaged_index_is_an_error_naming_the_line() {
        for bad in [
            "a.bc T puts",
            "a.bc: X puts",
            "../x.bc: T puts",
            "a.bc: 1 2 3 4",
        ] {
            let err = Archive::parse(Path::new("l"), Path::new("l/symbols.txt"), bad)
                .expect_err(bad)
                .to_string();
            assert!(err.contains("line 1"), "{err}");
        }
    }
}
