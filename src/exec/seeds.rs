//! Seeds: recorded tests (`--seed-file`, `--seed-dir`) whose inputs a run
//! follows first, as KLEE's seeding does. A user brings the inputs that
//! matter (a fuzzer's corpus, a bug report, the tests of an older run) and
//! the run goes down their paths before anything else, without asking the
//! solver which way they go; the paths branching off them are explored
//! after (or, with `--only-seed`, end where they branch off, each with a
//! test, for `--resume` to go on with).
//!
//! A path carries the seeds its constraints allow, each with its inputs
//! bound to the arrays the path made so far: the seed's objects in order,
//! one per symbolic input, as a ktest holds them (or, with
//! `--named-seed-matching`, the k-th object of a name to the k-th input of
//! that name, for a program that makes its inputs in another order than
//! the one the seed was recorded on). A constraint that joins
//! the path keeps those seeds that meet it, so at a fork each seed goes
//! with the alternative it takes. The first seed a path carries is its
//! model (`State::hint`): the fork then knows its alternative feasible
//! without a query, and a value the path fixes is the seed's.

use std::path::PathBuf;
use std::sync::Arc;

use super::state::State;
use crate::expr::{self, ArrayRef, Assignment, ExprRef};
use crate::testgen::ktest::{KTest, KTestObject};

/// A recorded test whose inputs a run follows.
#[derive(Debug)]
pub struct Seed {
    /// Where it was read from, for messages.
    pub name: String,
    /// Its objects, in order: the i-th goes to the i-th symbolic input a
    /// path makes, or to an input of its name ([`SeedFit::by_name`]).
    objects: Vec<KTestObject>,
}

/// How a seed's objects are fitted to a path's inputs: which object goes
/// to an input, and how it may differ in size from it (KLEE's
/// `--named-seed-matching`, `--allow-seed-extension` and
/// `--allow-seed-truncation`). A seed that does not fit is left: the path
/// goes on without it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeedFit {
    /// An input takes the seed's object of its name (the k-th input of a
    /// name the k-th object of that name) rather than the one at its place.
    pub by_name: bool,
    /// A shorter object is padded with zero bytes, and an input past the
    /// seed's last object is all zeros.
    pub extend: bool,
    /// A longer object is cut to the input's size.
    pub truncate: bool,
}

/// One seed as a path carries it.
#[derive(Clone, Debug)]
pub struct SeedPath {
    seed: Arc<Seed>,
    /// The seed's bytes for the path's inputs so far.
    model: Arc<Assignment>,
}

/// The seeds a path carries: never empty (a path with none has `None`).
pub type Seeds = Arc<[SeedPath]>;

/// The input a seed's object is sought for.
#[derive(Clone, Copy, Debug)]
pub(super) struct InputAt<'a> {
    /// Its place among the path's inputs, from 0.
    pub index: usize,
    /// Its name, as the program gave it.
    pub name: &'a str,
    /// How many inputs of this name the path made before it (counted only
    /// with [`SeedFit::by_name`]).
    pub occurrence: usize,
    /// Its size in bytes.
    pub size: usize,
}

impl Seed {
    /// A seed from a ktest's objects.
    pub fn new(name: String, ktest: KTest) -> Seed {
        Seed {
            name,
            // KLEE 3's tests of a POSIX environment name and lay out its
            // objects otherwise than the runtime makes them.
            objects: crate::testgen::klee_layout::in_mnemo_layout(ktest).objects,
        }
    }

    /// The seeds of `files` and of every `.ktest` in `dirs` (sorted by
    /// name, so that a run's order does not depend on the file system's).
    pub fn load(files: &[PathBuf], dirs: &[PathBuf]) -> anyhow::Result<Vec<Arc<Seed>>> {
        let mut paths = files.to_vec();
        for dir in dirs {
            let listing = std::fs::read_dir(dir).map_err(|e| {
                anyhow::anyhow!("cannot read the seed directory {}: {e}", dir.display())
            })?;
            let mut found = Vec::new();
            for entry in listing {
                let path = entry
                    .map_err(|e| {
                        anyhow::anyhow!("cannot read the seed directory {}: {e}", dir.display())
                    })?
                    .path();
                if path.extension().is_some_and(|x| x == "ktest") {
                    found.push(path);
                }
            }
            if found.is_empty() {
                anyhow::bail!("the seed directory {} holds no .ktest file", dir.display());
            }
            found.sort();
            paths.extend(found);
        }
        paths
            .iter()
            .map(|p| {
                let ktest = KTest::read(p)
                    .map_err(|e| anyhow::anyhow!("cannot read the seed {}: {e}", p.display()))?;
                Ok(Arc::new(Seed::new(p.display().to_string(), ktest)))
            })
            .collect()
    }

    /// The bytes this seed gives the input `at`: `Err` with the reason
    /// when it has no object for it or its object does not fit.
    fn bytes_for(&self, at: InputAt<'_>, fit: SeedFit) -> Result<Vec<u8>, String> {
        let size = at.size;
        let found = match fit.by_name {
            false => self.objects.get(at.index).map(|o| (at.index, o)),
            true => self
                .objects
                .iter()
                .enumerate()
                .filter(|(_, o)| o.name == at.name)
                .nth(at.occurrence),
        };
        let Some((place, object)) = found else {
            return match fit.extend {
                true => Ok(vec![0; size]),
                false if fit.by_name => Err(format!(
                    "it has {} object(s) named '{}', and the program makes more inputs of that name (--allow-seed-extension makes them zeros)",
                    at.occurrence, at.name
                )),
                false => Err(format!(
                    "it has {} objects, and the program makes more inputs (--allow-seed-extension makes them zeros)",
                    self.objects.len()
                )),
            };
        };
        let bytes = &object.bytes;
        match bytes.len() {
            n if n == size => Ok(bytes.clone()),
            n if n < size && fit.extend => {
                let mut padded = bytes.clone();
                padded.resize(size, 0);
                Ok(padded)
            }
            n if n > size && fit.truncate => Ok(bytes[..size].to_vec()),
            n => {
                let fix = match n < size {
                    true => "--allow-seed-extension pads it",
                    false => "--allow-seed-truncation cuts it",
                };
                // A seed recorded on a program that made its inputs in
                // another order usually shows itself so.
                let by_name = match !fit.by_name
                    && object.name != at.name
                    && self.objects.iter().any(|o| o.name == at.name)
                {
                    true => format!(
                        "; --named-seed-matching gives the input the object named '{}'",
                        at.name
                    ),
                    false => String::new(),
                };
                Err(format!(
                    "its object {} ('{}') has {n} bytes where the program's input '{}' has {size} ({fix}{by_name})",
                    place + 1,
                    object.name,
                    at.name,
                ))
            }
        }
    }
}

impl super::Executor {
    /// Whether the run follows seeds.
    pub fn has_seeds(&self) -> bool {
        !self.config.seeds.is_empty()
    }

    /// Whether the run's time for seeds (`--seed-time`) is over.
    pub fn seeding_over(&self) -> bool {
        self.config
            .seeding_until
            .is_some_and(|until| std::time::Instant::now() >= until)
    }
}

/// The seeds `seeds` start a run with: each with no input bound yet.
pub fn starting(seeds: &[Arc<Seed>]) -> Option<Seeds> {
    (!seeds.is_empty()).then(|| {
        seeds
            .iter()
            .map(|seed| SeedPath {
                seed: seed.clone(),
                model: Arc::new(Assignment::new()),
            })
            .collect()
    })
}

impl State {
    /// Binds the seeds' bytes for the input just made (`array`, at `at`),
    /// leaving those that do not fit; the reasons of those left are
    /// returned, one per seed.
    pub(super) fn bind_seeds(
        &mut self,
        array: &ArrayRef,
        at: InputAt<'_>,
        fit: SeedFit,
    ) -> Vec<String> {
        let Some(seeds) = &self.seeds else {
            return Vec::new();
        };
        let mut left = Vec::new();
        let kept: Vec<SeedPath> = seeds
            .iter()
            .filter_map(|s| match s.seed.bytes_for(at, fit) {
                Ok(bytes) => {
                    let mut model = s.model.with_room(1);
                    model.set(array, bytes);
                    Some(SeedPath {
                        seed: s.seed.clone(),
                        model: Arc::new(model),
                    })
                }
                Err(why) => {
                    left.push(format!("the seed {} is left: {why}", s.seed.name));
                    None
                }
            })
            .collect();
        self.seeds = (!kept.is_empty()).then(|| kept.into());
        self.hint_from_seed();
        left
    }

    /// Keeps the seeds that meet `c`, a constraint joining the path.
    pub(super) fn narrow_seeds(&mut self, c: &ExprRef) {
        let Some(seeds) = &self.seeds else {
            return;
        };
        if seeds.iter().all(|s| expr::eval(c, &s.model) != 0) {
            return;
        }
        let kept: Vec<SeedPath> = seeds
            .iter()
            .filter(|s| expr::eval(c, &s.model) != 0)
            .cloned()
            .collect();
        self.seeds = (!kept.is_empty()).then(|| kept.into());
    }

    /// The model of a seed the path carries that meets `c`: the
    /// alternative `c` stands for is feasible without a query.
    pub(super) fn seed_meeting(&self, c: &ExprRef) -> Option<Arc<Assignment>> {
        let seeds = self.seeds.as_ref()?;
        seeds
            .iter()
            .find(|s| expr::eval(c, &s.model) != 0)
            .map(|s| s.model.clone())
    }

    /// Makes the path's first seed its model: every seed it carries meets
    /// its constraints, and the seed's is the way the run follows first.
    pub(super) fn hint_from_seed(&mut self) {
        if let Some(first) = self.seeds.as_ref().and_then(|s| s.first()) {
            self.hint = Some(first.model.clone());
        }
    }

    /// Lets the path's seeds go: it goes on as any other, its model (the
    /// first seed's inputs, which meet its constraints) kept.
    pub(super) fn leave_seeds(&mut self) {
        self.seeds = None;
    }

    /// Whether the path follows a seed.
    pub fn is_seeded(&self) -> bool {
        self.seeds.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{constant, eq, read, Array, UpdateList};

    fn seed(objects: &[&[u8]]) -> Arc<Seed> {
        named(&objects.iter().map(|b| ("x", *b)).collect::<Vec<_>>())
    }

    fn named(objects: &[(&str, &[u8])]) -> Arc<Seed> {
        let ktest = KTest {
            objects: objects
                .iter()
                .map(|(name, b)| KTestObject {
                    name: name.to_string(),
                    bytes: b.to_vec(),
                })
                .collect(),
            ..Default::default()
        };
        Arc::new(Seed::new("s.ktest".into(), ktest))
    }

    /// The `index`-th input, of `size` bytes, named "x" and the first of
    /// its name.
    fn at(index: usize, size: usize) -> InputAt<'static> {
        InputAt {
            index,
            name: "x",
            occurrence: 0,
            size,
        }
    }

    #[test]
    fn an_object_of_another_size_fits_only_where_allowed() {
        let s = seed(&[b"ab", b"abcd"]);
        let none = SeedFit::default();
        let both = SeedFit {
            extend: true,
            truncate: true,
            ..SeedFit::default()
        };
        assert_eq!(s.bytes_for(at(0, 2), none), Ok(b"ab".to_vec()));
        assert!(s
            .bytes_for(at(0, 3), none)
            .unwrap_err()
            .contains("--allow-seed-extension"));
        assert_eq!(s.bytes_for(at(0, 3), both), Ok(b"ab\0".to_vec()));
        assert!(s
            .bytes_for(at(1, 2), none)
            .unwrap_err()
            .contains("--allow-seed-truncation"));
        assert_eq!(s.bytes_for(at(1, 2), both), Ok(b"ab".to_vec()));
        // Past its last object.
        assert!(s
            .bytes_for(at(2, 1), none)
            .unwrap_err()
            .contains("2 objects"));
        assert_eq!(s.bytes_for(at(2, 1), both), Ok(vec![0]));
    }

    #[test]
    fn by_name_the_kth_input_of_a_name_takes_the_kth_object_of_that_name() {
        let s = named(&[("len", b"\x05"), ("buf", b"ab"), ("buf", b"cd")]);
        let by_name = SeedFit {
            by_name: true,
            ..SeedFit::default()
        };
        let input = |index, name, occurrence, size| InputAt {
            index,
            name,
            occurrence,
            size,
        };
        // The program makes "buf" first, then "len", then "buf" again.
        assert_eq!(
            s.bytes_for(input(0, "buf", 0, 2), by_name),
            Ok(b"ab".to_vec())
        );
        assert_eq!(
            s.bytes_for(input(1, "len", 0, 1), by_name),
            Ok(b"\x05".to_vec())
        );
        assert_eq!(
            s.bytes_for(input(2, "buf", 1, 2), by_name),
            Ok(b"cd".to_vec())
        );
        // By place, the first input would take "len"'s byte.
        assert!(s
            .bytes_for(input(0, "buf", 0, 2), SeedFit::default())
            .unwrap_err()
            .contains(
                "its object 1 ('len') has 1 bytes where the program's input 'buf' has 2 \
                 (--allow-seed-extension pads it; --named-seed-matching gives the input the object named 'buf')"
            ));
        // A third "buf", and a name the seed lacks.
        let third = s.bytes_for(input(3, "buf", 2, 2), by_name).unwrap_err();
        assert!(third.contains("2 object(s) named 'buf'"), "{third}");
        assert!(s
            .bytes_for(input(3, "n", 0, 4), by_name)
            .unwrap_err()
            .contains("0 object(s) named 'n'"));
        let zeros = SeedFit {
            extend: true,
            ..by_name
        };
        assert_eq!(s.bytes_for(input(3, "n", 0, 4), zeros), Ok(vec![0; 4]));
    }

    #[test]
    fn a_constraint_keeps_the_seeds_that_meet_it_and_the_first_is_the_model() {
        let module = crate::ir::testutil::load_ll("define i32 @main() {\nentry:\n  ret i32 0\n}\n");
        let mut executor =
            super::super::Executor::new(Arc::new(module), super::super::ExecConfig::default());
        let mut state = executor.initial_state().expect("initial state");
        state.seeds = starting(&[seed(&[b"\x01"]), seed(&[b"\x02"]), seed(&[b"\x03"])]);
        let array = Array::symbolic("x", 1);
        assert!(state
            .bind_seeds(&array, at(0, 1), SeedFit::default())
            .is_empty());
        let x = read(&UpdateList::new(array.clone()), &constant(0, 64));
        let is = |v| eq(&x, &constant(v, 8));
        assert_eq!(state.hint.as_ref().map(|h| expr::eval(&x, h)), Some(1));
        assert!(state.seed_meeting(&is(3)).is_some());
        assert!(state.seed_meeting(&is(4)).is_none());
        // The first seed leaves: the next one is the path's model.
        state.add_constraint(crate::expr::not(&is(1)));
        assert_eq!(state.seeds.as_ref().map(|s| s.len()), Some(2));
        assert_eq!(state.hint.as_ref().map(|h| expr::eval(&x, h)), Some(2));
        state.add_constraint(is(4));
        assert!(!state.is_seeded());
        // A second input the seeds have no object for leaves them all.
        let mut other = executor.initial_state().expect("initial state");
        other.seeds = starting(&[seed(&[b"\x01"])]);
        let _ = other.bind_seeds(&array, at(0, 1), SeedFit::default());
        let left = other.bind_seeds(&Array::symbolic("y", 1), at(1, 1), SeedFit::default());
        assert_eq!(left.len(), 1, "{left:?}");
        assert!(!other.is_seeded());
    }
}
