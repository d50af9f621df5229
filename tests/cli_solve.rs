//! `ponder solve`: the batch solvers over test files, as a user runs them.

use std::process::Command;

fn ponder_solve(game: &str, file: &std::path::Path, extra: &[&str]) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_ponder"))
        .args(["solve", "--game", game])
        .arg(file)
        .args(extra)
        .output()
        .expect("ponder runs");
    (output.status.success(), String::from_utf8(output.stdout).expect("utf-8 output"))
}

fn data(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(path)
}

#[test]
fn connect4_test_set_lines_are_solved_and_summarised() {
    let (ok, out) = ponder_solve("connect4", &data("connect4/Test_L3_R1_first20"), &["--first", "12"]);
    assert!(ok, "{out}");
    assert_eq!(out.lines().filter(|line| line.starts_with('#')).count(), 12, "{out}");
    assert!(out.lines().last().unwrap().starts_with("12/12 correct, mean time"), "{out}");
}

#[test]
fn a_wrong_expected_score_is_marked_and_fails_the_run() {
    let text = std::fs::read_to_string(data("connect4/Test_L3_R1_first20")).unwrap();
    let first = text.lines().next().unwrap();
    let (moves, score) = first.split_once(' ').unwrap();
    let wrong: i32 = score.trim().parse::<i32>().unwrap() + 1;
    let file = std::env::temp_dir().join(format!("ponder-c4-wrong-{}.txt", std::process::id()));
    std::fs::write(&file, format!("{moves} {wrong}\n")).unwrap();
    let (ok, out) = ponder_solve("connect4", &file, &[]);
    std::fs::remove_file(&file).ok();
    assert!(!ok);
    assert!(out.contains("WRONG"), "{out}");
    assert!(out.contains("0/1 correct"), "{out}");
}

#[test]
fn reversi_ffo_positions_are_solved_with_their_scores() {
    let (ok, out) = ponder_solve("reversi", &data("reversi/ffo1-19.txt"), &["--first", "3"]);
    assert!(ok, "{out}");
    let solved: Vec<&str> = out.lines().filter(|line| line.starts_with('#')).collect();
    assert_eq!(solved.len(), 3, "{out}");
}

#[test]
fn hex_first_moves_are_solved_and_a_wrong_winner_fails_the_run() {
    let (ok, out) = ponder_solve("hex", &data("hex/first-move-outcomes-6x6.csv"), &["--first", "4"]);
    assert!(ok, "{out}");
    assert_eq!(out.lines().filter(|line| line.ends_with(" ok")).count(), 4, "{out}");
    assert!(out.lines().last().unwrap().starts_with("4 openings: 4 correct, 0 wrong"), "{out}");
    // b2 wins 3x3 for Black, so "white" is wrong; the other board is left out by --board.
    let file = std::env::temp_dir().join(format!("ponder-hex-wrong-{}.csv", std::process::id()));
    std::fs::write(&file, "board,cell,winner\n3x3,b2,white\n4x4,a1,black\n").unwrap();
    let (ok, out) = ponder_solve("hex", &file, &["--board", "3x3"]);
    std::fs::remove_file(&file).ok();
    assert!(!ok);
    assert!(out.contains("WRONG"), "{out}");
    assert!(out.lines().last().unwrap().starts_with("1 openings: 0 correct, 1 wrong"), "{out}");
}

#[test]
fn a_report_whose_reader_has_gone_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // As `ponder solve … | head -1`: the reader takes the first line and closes the pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ponder"))
        .args(["solve", "--game", "gomoku"])
        .arg(data("gomoku/rapfi_won_positions.tsv"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ponder runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut first).expect("a first line");
    assert!(first.starts_with("p1s-"), "{first}");
    let output = child.wait_with_output().expect("ponder ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
