//! Golden transcripts: every `protocol-specs/**/*.gtp` script (and every `*.gomocup` or
//! `*.referee` script, with `--protocol gomocup` or `--protocol referee` and its `#` lines
//! removed, since those protocols have no comments) is piped through the engine binary in deterministic mode (one thread, fixed seed, visit limits, no time limit) and its
//! stdout must equal the committed `.out` file byte for byte. A `*.nboard` script runs with
//! `--protocol nboard` and is sent as NBoard sends it: after `go` or `hint` the next line waits
//! for that command's last reply (any line ends a running search in that protocol), and the
//! seconds in `===` and `nodestats` replies read `T`, the one part that changes from run to run. `PONDER_BLESS=1 cargo test
//! --release --test golden` rewrites the `.out` files on purpose; review the diff before
//! committing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn scripts(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            scripts(&path, found);
        } else if path.extension().is_some_and(|e| ["gtp", "gomocup", "referee", "nboard"].iter().any(|x| e == *x)) {
            found.push(path);
        }
    }
}

/// The engine's stdout for `script`. The first line of a script may be `#! ARGS`: extra
/// command-line arguments (for example `#! --game gomoku`).
fn run_script(script: &Path) -> String {
    let mut input = std::fs::read(script).unwrap();
    let mut args = vec!["--seed", "1", "--threads", "1", "--max-time", "0", "--max-visits", "1000"];
    let first_line = String::from_utf8_lossy(input.split(|&b| b == b'\n').next().unwrap_or_default()).to_string();
    if let Some(extra) = first_line.strip_prefix("#!") {
        args.extend(extra.split_whitespace());
    }
    if script.extension().is_some_and(|e| e == "nboard") {
        return run_nboard_script(&input, &args);
    }
    let protocol = script.extension().and_then(|e| e.to_str()).filter(|&e| e == "gomocup" || e == "referee");
    if let Some(protocol) = protocol {
        args.extend(["--protocol", protocol]);
        let text = String::from_utf8(input).unwrap();
        input = text
            .lines()
            .filter(|line| !line.starts_with('#'))
            .map(|line| format!("{line}\n"))
            .collect::<String>()
            .into_bytes();
    }
    let mut child = spawn_engine(&args);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&input).unwrap();
    // GTP: the input stays open until the engine has answered everything, since its end would
    // stop a running `ponder-solve` (as it stops every search without a limit). A `quit` of our
    // own ends the process; its reply is not part of the transcript. The other protocols end at
    // the end of input.
    let held_stdin = protocol.is_none().then(|| {
        stdin.write_all(FINAL_QUIT.as_bytes()).unwrap();
        stdin
    });
    let output = child.wait_with_output().unwrap();
    drop(held_stdin);
    assert!(output.status.success(), "{} exited with {}", script.display(), output.status);
    let stdout = String::from_utf8(output.stdout).unwrap();
    match stdout.strip_suffix(FINAL_QUIT_REPLY) {
        Some(transcript) => transcript.to_string(),
        None => stdout,
    }
}

/// The engine with `args`, quiet on stderr, its stdin and stdout piped.
fn spawn_engine(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_ponder"))
        .args(args)
        .env("RUST_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// An NBoard script's transcript: its lines (but `#` comments) one at a time, waiting after
/// `go` and `hint` for their last reply, as the GUI does; times replaced by `T`.
fn run_nboard_script(input: &[u8], args: &[&str]) -> String {
    use std::io::{BufRead, BufReader};
    let mut child = spawn_engine(&[args, &["--protocol", "nboard"]].concat());
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut transcript = String::new();
    let mut read_reply = |transcript: &mut String| -> String {
        let mut reply = String::new();
        assert!(stdout.read_line(&mut reply).unwrap() > 0, "the engine ended during a search");
        transcript.push_str(&normalize_nboard_times(&reply));
        reply.trim_end().to_string()
    };
    let text = String::from_utf8_lossy(input).to_string();
    for line in text.lines().filter(|line| !line.starts_with('#')) {
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        let command = line.split_whitespace().next().unwrap_or_default();
        // The errors of earlier lines may still come first.
        let is_last: fn(&str) -> bool = match command {
            "go" => |reply| reply.starts_with("=== ") || reply.starts_with("status error: go"),
            "hint" => |reply| reply == "status" || reply.starts_with("status error: hint"),
            _ => continue,
        };
        while !is_last(&read_reply(&mut transcript)) {}
    }
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    transcript.extend(rest.split_inclusive('\n').map(normalize_nboard_times));
    let status = child.wait().unwrap();
    assert!(status.success(), "exited with {status}");
    transcript
}

/// `=== F5/1.25/0.37` and `nodestats 123 0.37` with their seconds as `T`.
fn normalize_nboard_times(line: &str) -> String {
    if let Some(item) = line.strip_prefix("=== ") {
        let mut parts: Vec<&str> = item.trim_end().split('/').collect();
        if parts.len() == 3 {
            parts[2] = "T";
        }
        return format!("=== {}\n", parts.join("/"));
    }
    if let Some(stats) = line.strip_prefix("nodestats ") {
        let nodes = stats.split_whitespace().next().unwrap_or_default();
        return format!("nodestats {nodes} T\n");
    }
    line.to_string()
}

/// The `quit` the harness sends after a GTP script, with an id no script uses, so its reply is
/// told apart from the reply to a script's own `quit` (after which it is not answered).
const FINAL_QUIT: &str = "987654321 quit\n";
const FINAL_QUIT_REPLY: &str = "=987654321 \n\n";

#[test]
fn golden_transcripts_match() {
    let mut found = Vec::new();
    scripts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-specs"), &mut found);
    found.sort();
    assert!(!found.is_empty(), "no transcripts found");
    let bless = std::env::var_os("PONDER_BLESS").is_some();
    let mut failures = Vec::new();
    for script in &found {
        let actual = run_script(script);
        let expected_path = script.with_extension("out");
        if bless {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{} has no .out file; run with PONDER_BLESS=1", script.display()));
        if actual != expected {
            failures.push(format!("{}:\n--- expected\n{expected}\n--- actual\n{actual}", script.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
