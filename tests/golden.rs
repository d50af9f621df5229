//! Golden transcripts: every `protocol-specs/**/*.gtp` script (and every `*.gomocup` or
//! `*.referee` script, with `--protocol gomocup` or `--protocol referee` and its `#` lines
//! removed, since those protocols have no comments) is piped through the engine binary in deterministic mode (one thread, fixed seed, visit limits, no time limit) and its
//! stdout must equal the committed `.out` file byte for byte. `PONDER_BLESS=1 cargo test
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
        } else if path.extension().is_some_and(|e| e == "gtp" || e == "gomocup" || e == "referee") {
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_ponder"))
        .args(&args)
        .env("RUST_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
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
