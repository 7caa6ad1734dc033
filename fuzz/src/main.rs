//! `mnemo-fuzz TARGET`: one of `mnemo::fuzz::TARGETS` under AFL++, which
//! gives it input after input in one process (persistent mode).

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(target) = mnemo::fuzz::target(&name) else {
        let names: Vec<&str> = mnemo::fuzz::TARGETS.iter().map(|t| t.name).collect();
        eprintln!("usage: mnemo-fuzz TARGET (one of {})", names.join(", "));
        std::process::exit(2);
    };
    afl::fuzz!(|data: &[u8]| (target.run)(data));
}
