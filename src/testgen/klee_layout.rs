//! KLEE 3's layout of a POSIX test, read as mnemo's runtime lays one out,
//! so that KLEE's tests seed mnemo's runs.

use super::ktest::{KTest, KTestObject};
use super::posix::{PosixEnv, MODEL_VERSION};
use crate::exec::posix::PosixArgs;

/// A test in the layout mnemo's runtime makes (KLEE 2's), which KLEE 3
/// changed: its file objects renamed (`A_data` and `A_data_stat` become
/// `A-data` and `A-data-stat`, `stdin_stat` `stdin-stat`, `stdout_stat`
/// `stdout-stat`), and, where its command line has POSIX options, the
/// `model_version` (1) KLEE 3 no longer makes added after them, so that a
/// KLEE 3 test seeds a run by place and by name. A test of mnemo's, or
/// of KLEE 2's, comes back as it was.
pub fn in_mnemo_layout(mut test: KTest) -> KTest {
    for o in &mut test.objects {
        let renamed = match o.name.as_str() {
            "stdin_stat" => Some("stdin-stat".to_string()),
            "stdout_stat" => Some("stdout-stat".to_string()),
            n => {
                let mut chars = n.chars();
                match (chars.next(), chars.as_str()) {
                    (Some(c), "_data") if c.is_ascii_uppercase() => Some(format!("{c}-data")),
                    (Some(c), "_data_stat") if c.is_ascii_uppercase() => {
                        Some(format!("{c}-data-stat"))
                    }
                    _ => None,
                }
            }
        };
        if let Some(name) = renamed {
            o.name = name;
        }
    }
    // The runtime's start, which makes `model_version`, runs where the
    // command line has POSIX options; it comes after the environment's
    // objects, which reading the environment counts.
    let posix = matches!(
        PosixArgs::parse(test.args.get(1..).unwrap_or_default()),
        Ok(Some(_))
    );
    if posix && !test.objects.iter().any(|o| o.name == MODEL_VERSION) {
        if let Ok(env) = PosixEnv::from_ktest(&test) {
            test.objects.insert(
                env.objects,
                KTestObject {
                    name: MODEL_VERSION.to_string(),
                    bytes: 1u32.to_le_bytes().to_vec(),
                },
            );
        }
    }
    test
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::posix::tests::{obj, posix_test, stat};

    #[test]
    fn a_klee3_test_takes_mnemo_s_layout() {
        let klee3_stat = |name: &str| KTestObject {
            name: name.into(),
            ..stat("", 0o100644)
        };
        let klee3 = posix_test(
            &[
                "p",
                "--sym-files",
                "1",
                "2",
                "--sym-stdin",
                "1",
                "--fd-fail",
            ],
            vec![
                obj("A_data", b"ab"),
                klee3_stat("A_data_stat"),
                obj("stdin", b"x"),
                klee3_stat("stdin_stat"),
                obj("read_fail", &[0; 4]),
                obj("write_fail", &[0; 4]),
                obj("close_fail", &[0; 4]),
                obj("ftruncate_fail", &[0; 4]),
                obj("getcwd_fail", &[0; 4]),
                obj("x", &[7; 4]),
            ],
        );
        let test = in_mnemo_layout(klee3);
        let names: Vec<&str> = test.objects.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names[..4], ["A-data", "A-data-stat", "stdin", "stdin-stat"]);
        assert_eq!(names[9..], ["model_version", "x"]);
        assert_eq!(test.objects[9].bytes, 1u32.to_le_bytes());
        assert_eq!(PosixEnv::from_ktest(&test).unwrap().objects, 10);
        // Mnemo's own, and a test without the options, stay as they were.
        assert_eq!(in_mnemo_layout(test.clone()), test);
        let plain = posix_test(&["p", "A_data"], vec![obj("x", &[1])]);
        assert_eq!(in_mnemo_layout(plain.clone()), plain);
    }
}
