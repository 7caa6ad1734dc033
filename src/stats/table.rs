//! `mnemo stats`: the runs of several output directories side by side, one
//! row each, as KLEE's `klee-stats` shows its runs: what a user compares
//! across a sweep of options or programs without opening each
//! `stats.json`.

use super::RunStats;

/// How the table is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    /// Columns padded to line up, for a terminal.
    Aligned,
    /// Comma-separated, a header line first, for a spreadsheet or a script.
    Csv,
}

/// The columns, in order.
const HEADER: [&str; 12] = [
    "Path",
    "Instrs",
    "Time(s)",
    "ICov(%)",
    "LCov(%)",
    "Completed",
    "Errors",
    "Early",
    "Tests",
    "Queries",
    "TSolver(%)",
    "Stopped",
];

/// One run's cells, in [`HEADER`]'s order.
fn row(name: &str, s: &RunStats) -> Vec<String> {
    let early: u64 = s.paths.early.values().sum();
    // The solver's time is summed over the workers, so its share is of
    // their busy time, not of the wall clock.
    let busy: f64 = match s.parallel.busy_s.iter().sum::<f64>() {
        b if b > 0.0 => b,
        _ => s.wall_s,
    };
    let solver_share = match busy > 0.0 {
        true => 100.0 * s.solver.time_s / busy,
        false => 0.0,
    };
    let stopped = match (&s.stopped_by, s.in_progress) {
        (_, true) => "running".to_string(),
        (Some(why), false) => why.clone(),
        (None, false) => "-".to_string(),
    };
    vec![
        name.to_string(),
        s.instructions.to_string(),
        format!("{:.2}", s.wall_s),
        format!("{:.2}", s.coverage.instructions_pct),
        format!("{:.2}", s.coverage.lines_pct),
        s.paths.completed.to_string(),
        s.errors().to_string(),
        early.to_string(),
        s.tests.to_string(),
        s.solver.queries.to_string(),
        format!("{:.2}", solver_share.min(100.0)),
        stopped,
    ]
}

/// The table of `runs` (each named, as the user gave its directory).
pub fn table(runs: &[(String, RunStats)], format: TableFormat) -> String {
    let mut rows = vec![HEADER.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    rows.extend(runs.iter().map(|(name, s)| row(name, s)));
    match format {
        TableFormat::Csv => rows
            .iter()
            .map(|r| {
                let cells: Vec<String> = r.iter().map(|c| csv_cell(c)).collect();
                cells.join(",") + "\n"
            })
            .collect(),
        TableFormat::Aligned => {
            let widths: Vec<usize> = (0..HEADER.len())
                .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
                .collect();
            let mut out = String::new();
            for r in &rows {
                let cells: Vec<String> = r
                    .iter()
                    .zip(&widths)
                    .enumerate()
                    .map(|(i, (c, &w))| match i {
                        // Names and reasons read left to right, numbers
                        // line up on their last digit.
                        0 | 11 => format!("{c:<w$}"),
                        _ => format!("{c:>w$}"),
                    })
                    .collect();
                out += cells.join("  ").trim_end();
                out.push('\n');
            }
            out
        }
    }
}

/// A CSV cell, quoted where its text would split or end the line.
fn csv_cell(c: &str) -> String {
    match c.contains([',', '"', '\n']) {
        true => format!("\"{}\"", c.replace('"', "\"\"")),
        false => c.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(instructions: u64, wall_s: f64, solver_s: f64) -> RunStats {
        let mut s = RunStats {
            instructions,
            wall_s,
            tests: 7,
            ..Default::default()
        };
        s.solver.time_s = solver_s;
        s.solver.queries = 40;
        s.paths.completed = 5;
        s.paths.errors.insert("assert".into(), 1);
        s.paths.early.insert("max-time".into(), 1);
        s.coverage.instructions_pct = 93.456;
        s.coverage.lines_pct = 100.0;
        s.stopped_by = Some("max-time".into());
        s
    }

    #[test]
    fn each_run_is_a_row_under_one_header() {
        let runs = vec![
            ("out-dfs".to_string(), stats(120_000, 2.0, 0.5)),
            ("out,odd".to_string(), stats(9, 0.0, 0.0)),
        ];
        let csv = table(&runs, TableFormat::Csv);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], HEADER.join(","));
        assert_eq!(
            lines[1],
            "out-dfs,120000,2.00,93.46,100.00,5,1,1,7,40,25.00,max-time"
        );
        // A name with a comma is quoted; no time, no solver share.
        assert!(lines[2].starts_with("\"out,odd\",9,0.00,"), "{}", lines[2]);
        let aligned = table(&runs, TableFormat::Aligned);
        let lines: Vec<&str> = aligned.lines().collect();
        assert_eq!(lines.len(), 3);
        // The numbers end in the same column on every line.
        let end_of = |line: &str, cell: &str| line.find(cell).map(|i| i + cell.len());
        assert_eq!(end_of(lines[0], "Instrs"), end_of(lines[1], "120000"));
        assert_eq!(end_of(lines[0], "Instrs"), end_of(lines[2], " 9"));
    }

    #[test]
    fn the_solvers_share_is_of_the_workers_busy_time() {
        let mut s = stats(1, 2.0, 3.0);
        s.parallel.busy_s = vec![2.0, 2.0];
        let csv = table(&[("o".into(), s)], TableFormat::Csv);
        assert!(csv.contains(",75.00,"), "{csv}");
    }

    #[test]
    fn a_run_still_going_says_so() {
        let mut s = stats(1, 1.0, 0.0);
        s.in_progress = true;
        let csv = table(&[("o".into(), s)], TableFormat::Csv);
        assert!(csv.lines().nth(1).is_some_and(|l| l.ends_with(",running")));
    }
}
