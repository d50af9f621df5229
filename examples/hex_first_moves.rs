//! Solves every first move of the given boards from a first-move outcome CSV and prints each
//! result as it comes and the total time, e.g. `cargo run --release --example hex_first_moves --
//! ../shared/data/hex/first-move-outcomes-6x6-7x7-8x8.csv 6x6 7x7`. The environment variable
//! `NODE_LIMIT` bounds each solve. The 6x6 and 7x7 lines are also in `tests/data/hex/`.

use ponder::solvers::hex_solver::{FirstMoveCheck, SolveOptions, check_first_move_outcomes_with};

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let Some((path, boards)) = arguments.split_first() else {
        eprintln!("usage: hex_first_moves FILE BOARD...");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    let node_limit = std::env::var("NODE_LIMIT").ok().and_then(|limit| limit.parse().ok()).unwrap_or(u64::MAX);
    let options = SolveOptions { node_limit, ..SolveOptions::default() };
    let boards: Vec<&str> = boards.iter().map(String::as_str).collect();
    let start = std::time::Instant::now();
    let (mut wrong, mut unsolved, mut nodes) = (0, 0, 0);
    let checks = check_first_move_outcomes_with(&text, &boards, &options, |check: &FirstMoveCheck| {
        let verdict = match (&check.error, check.found) {
            (Some(why), _) => format!("ERROR {why}"),
            (None, None) => {
                unsolved += 1;
                "UNSOLVED".to_string()
            }
            (None, found) if found == check.expected => "ok".to_string(),
            _ => {
                wrong += 1;
                "WRONG".to_string()
            }
        };
        nodes += check.nodes;
        println!(
            "{:>4} {:<8} expected {:?} found {:?} {:>10} nodes {:>8.3} s {verdict}",
            check.line, check.label, check.expected, check.found, check.nodes, check.seconds
        );
    });
    println!(
        "{} positions, {wrong} wrong, {unsolved} unsolved, {nodes} nodes, {:.2} s",
        checks.len(),
        start.elapsed().as_secs_f64()
    );
}
