//! One-operator mutants of a C program, as in Green's and Memoise's
//! studies: used by the testsuite (regression analysis against a fresh
//! run on the mutant) and by the benchmarks.

/// The operator swaps a mutant is made of.
const SWAPS: &[(&str, &str)] = &[
    (" <= ", " < "),
    (" >= ", " > "),
    (" < ", " <= "),
    (" > ", " >= "),
    (" == ", " != "),
    (" != ", " == "),
    (" + ", " - "),
    (" - ", " + "),
];

/// Up to `most` mutants of `source`, each with one operator of the code
/// (not of the header comment or a preprocessor line) swapped, spread over
/// the program; each comes with a description (`line N:<-><=`).
pub fn mutants(source: &str, most: usize) -> Vec<(String, String)> {
    let body_start = source.find("*/").map_or(0, |i| i + 2);
    let mut sites = Vec::new();
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let code_line = offset >= body_start
            && !line.trim_start().starts_with('#')
            && !line.trim_start().starts_with("//")
            && !line.trim_start().starts_with('*');
        if code_line {
            for (from, to) in SWAPS {
                let mut at = 0;
                while let Some(i) = line[at..].find(from) {
                    let pos = offset + at + i;
                    // "<=" also contains " <": keep only exact operators.
                    if !sites.iter().any(|&(p, _, _)| p == pos) {
                        sites.push((pos, *from, *to));
                    }
                    at += i + from.len();
                }
            }
        }
        offset += line.len();
    }
    sites.sort();
    let step = (sites.len() / most.max(1)).max(1);
    sites
        .iter()
        .step_by(step)
        .take(most)
        .map(|&(pos, from, to)| {
            let line = source[..pos].matches('\n').count() + 1;
            let mut m = source.to_string();
            m.replace_range(pos..pos + from.len(), to);
            (format!("line {line}:{}->{}", from.trim(), to.trim()), m)
        })
        .collect()
}
