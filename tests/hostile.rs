//! Hostile input: every reproduction of issue 17 (files, memory, hangs, lost state, CLI limits,
//! the minor protocol slips), random arguments to every command of every game with the state
//! compared after each refusal, hostile SGF files, and the Gomocup, referee and NBoard front ends.
//!
//! Nothing here writes outside its own temporary directory. Subprocess waits have deadlines, so
//! a hang fails a test instead of stalling the suite; no assertion is about speed.

mod common;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{DEADLINE, Engine};
use ponder::engine::Session;
use ponder::frontends::gtp::answer;

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let unique = COUNTER.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!("ponder-hostile-{}-{tag}-{unique}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `ponder ARGS` with stdin closed; its exit status (`None`: killed at the deadline),
/// stdout and stderr.
fn run_cli(args: &[&str], deadline: Duration) -> (Option<std::process::ExitStatus>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ponder"))
        .args(args)
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stdout.read_to_end(&mut text);
        String::from_utf8_lossy(&text).to_string()
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        String::from_utf8_lossy(&text).to_string()
    });
    let status = common::exit_within(&mut child, deadline);
    (status, out_reader.join().unwrap(), err_reader.join().unwrap())
}

fn session(game: &str) -> Session {
    let mut session = Session::new(game).unwrap();
    for command in
        ["param_search seed 3", "param_search max_time 0", "param_search max_visits 200", "param_search threads 1"]
    {
        let reply = answer(&mut session, command.as_bytes()).unwrap();
        assert!(reply.starts_with('='), "{command}: {reply}");
    }
    session
}

fn gtp(session: &mut Session, line: &str) -> String {
    answer(session, line.as_bytes()).unwrap_or_default()
}

fn ok(session: &mut Session, line: &str) -> String {
    let reply = gtp(session, line);
    assert!(reply.starts_with('='), "{line}: {reply}");
    reply
}

/// Everything a refused command must leave as it was: board, record, side to move, legal moves,
/// variant and search settings, the command list.
fn snapshot(session: &mut Session) -> Vec<String> {
    let mut state: Vec<String> = [
        "showboard",
        "printsgf",
        "param_game",
        "param_search",
        "list_commands",
        "gogui-rules_side_to_move",
        "gogui-rules_legal_moves",
        "gogui-rules_board_size",
    ]
    .iter()
    .map(|command| gtp(session, command))
    .collect();
    state.push(format!("{} {:?} {}", session.game().name(), session.game().to_move(), session.game().moves_played()));
    state
}

fn assert_refused_unchanged(session: &mut Session, line: &str, expected: &str) {
    let before = snapshot(session);
    assert_eq!(gtp(session, line), expected, "{line}");
    assert_eq!(snapshot(session), before, "state changed after {line}");
}

// ---------------------------------------------------------------------------------------------
// The reproductions of the table.

/// `savesgf /any/path` replaced whatever file was there.
#[test]
fn savesgf_never_replaces_a_file_that_is_not_sgf() {
    let dir = TempDir::new("victim");
    let victim = dir.file("passwd");
    std::fs::write(&victim, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
    let mut session = session("tictactoe");
    ok(&mut session, "play b b2");
    assert_refused_unchanged(&mut session, &format!("savesgf {}", victim.display()), "? cannot save file\n\n");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root:x:0:0:root:/root:/bin/bash\n");
    // An empty file is not an SGF either.
    let empty = dir.file("empty");
    std::fs::write(&empty, "").unwrap();
    assert_eq!(gtp(&mut session, &format!("savesgf {}", empty.display())), "? cannot save file\n\n");
    assert_eq!(std::fs::read(&empty).unwrap(), b"");
    // A directory is refused.
    assert_eq!(gtp(&mut session, &format!("savesgf {}", dir.0.display())), "? cannot save file\n\n");
    // A new file is written, and an SGF file (ours) may be replaced; no temporary file is left.
    let game = dir.file("game.sgf");
    ok(&mut session, &format!("savesgf {}", game.display()));
    assert!(std::fs::read_to_string(&game).unwrap().contains(";B[bb]"));
    ok(&mut session, "play w a1");
    ok(&mut session, &format!("savesgf {}", game.display()));
    assert!(std::fs::read_to_string(&game).unwrap().contains(";B[bb];W[ac]"));
    assert_eq!(dir.names(), ["empty", "game.sgf", "passwd"]);
}

/// `loadsgf` of 16 MiB of `(;GM[4]SZ[15]` and `;` took 3.8 GB; of `;C[]`, 1.56 GB.
#[test]
fn sgf_floods_under_the_size_cap_are_refused_by_their_limits() {
    let cap = 16 << 20;
    let mut semicolons = String::from("(;GM[4]SZ[15]");
    semicolons.push_str(&";".repeat(cap - semicolons.len() - 1));
    semicolons.push(')');
    let mut comments = String::from("(");
    comments.push_str(&";C[]".repeat((cap - 2) / 4));
    comments.push(')');
    for text in [&semicolons, &comments] {
        assert!(text.len() <= cap);
        let error = ponder::sgf::Record::from_sgf(text).expect_err("a node flood loaded");
        assert!(error.reason.contains("too many"), "{error}");
    }
    // Through the engine: refused, nothing changed.
    let dir = TempDir::new("flood");
    let path = dir.file("flood.sgf");
    std::fs::write(&path, &semicolons).unwrap();
    let mut session = session("hex");
    ok(&mut session, "play b c3");
    assert_refused_unchanged(&mut session, &format!("loadsgf {}", path.display()), "? cannot load file\n\n");
}

/// `set_game hex` / `ponder-perft 64` never answered, ignored `# interrupt` and kept running
/// after EOF.
#[test]
fn perft_beyond_its_cost_cap_is_refused_at_once() {
    let mut engine = Engine::start(&["--game", "hex"]);
    let reply = engine.reply_to("ponder-perft 64\n");
    assert!(reply.starts_with("? invalid value: ponder-perft 64"), "{reply}");
    assert_eq!(engine.reply_to("name\n"), "= ponder");
    engine.close_stdin();
    assert!(engine.exit_within(DEADLINE).is_some_and(|status| status.success()));
}

/// A perft under the cap but long ends on `# interrupt`, and at the end of input (like a solve);
/// a command line sent meanwhile waits for it.
#[test]
fn long_perft_ends_on_interrupt_and_at_the_end_of_input() {
    let mut engine = Engine::start(&["--game", "reversi"]);
    engine.send("ponder-perft 12\n");
    std::thread::sleep(Duration::from_millis(300));
    engine.send("name\n");
    assert_eq!(engine.reply_within(Duration::from_millis(300)), None, "a command line ended the perft");
    engine.send("# interrupt\n");
    assert_eq!(engine.reply(), "? interrupted");
    assert_eq!(engine.reply(), "= ponder");
    engine.send("ponder-perft 12\n");
    std::thread::sleep(Duration::from_millis(300));
    engine.close_stdin();
    assert_eq!(engine.reply(), "? interrupted");
    assert!(
        engine.exit_within(DEADLINE).is_some_and(|status| status.success()),
        "perft kept running after the end of input"
    );
}

/// `loadsgf` of a FIFO blocked forever on open.
#[cfg(unix)]
#[test]
fn file_commands_refuse_fifos_without_blocking() {
    let dir = TempDir::new("fifo");
    let fifo = dir.file("pipe.sgf");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|status| status.success()) {
        eprintln!("mkfifo unavailable; skipped");
        return;
    }
    let mut engine = Engine::start(&["--game", "tictactoe"]);
    assert_eq!(engine.reply_to("play b b2\n"), "= ");
    assert_eq!(engine.reply_to(&format!("loadsgf {}\n", fifo.display())), "? cannot load file");
    assert_eq!(engine.reply_to(&format!("savesgf {}\n", fifo.display())), "? cannot save file");
    assert_eq!(engine.reply_to("loadsgf /dev/zero\n"), "? cannot load file");
    assert_eq!(engine.reply_to("savesgf /dev/null\n"), "? cannot save file");
    assert!(engine.reply_to("printsgf\n").contains(";B[bb]"));
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo_like());
}

#[cfg(unix)]
trait FifoLike {
    fn is_fifo_like(&self) -> bool;
}

#[cfg(unix)]
impl FifoLike for std::fs::FileType {
    fn is_fifo_like(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        self.is_fifo()
    }
}

/// Gomocup: a mid-game `INFO rule 1` wiped the board, and ponder then accepted a move onto its
/// own stone.
#[test]
fn gomocup_rule_change_mid_game_keeps_the_board() {
    let run = |script: &str| {
        let mut output = Vec::new();
        ponder::frontends::gomocup::run(session("gomoku"), None, script.as_bytes().to_vec().as_slice(), &mut output)
            .unwrap();
        String::from_utf8(output).unwrap().lines().map(str::to_string).collect::<Vec<_>>()
    };
    let replies = run("START 15\nBEGIN\nINFO rule 1\nTURN 0,0\nEND\n");
    assert_eq!(replies[0], "OK");
    let ours = replies[1].clone();
    let replies = run(&format!("START 15\nBEGIN\nINFO rule 1\nTURN 0,0\nTURN {ours}\nEND\n"));
    let last = replies.last().unwrap();
    assert!(last.starts_with("ERROR TURN"), "a move onto our own stone at {ours} was accepted: {replies:?}");
}

/// Reversi: after `set_position` and moves the record had the set-up and no moves.
#[test]
fn reversi_record_keeps_moves_after_a_setup() {
    let mut session = session("reversi");
    ok(&mut session, "set_position b d5 b e4 w d4 w e5 b a1");
    ok(&mut session, "play b d3");
    ok(&mut session, "play w c3");
    let sgf = gtp(&mut session, "printsgf");
    assert!(sgf.contains(";B[dc];W[cc]"), "{sgf}");
    assert!(sgf.contains("PL[B]"), "{sgf}");
}

/// Every game: `printsgf` → `loadsgf` gives back the same position, history and record after a
/// set-up and moves.
#[test]
fn sgf_round_trip_after_setup_and_moves_in_every_game() {
    let dir = TempDir::new("roundtrip");
    let cases: [(&str, &[&str], &[&str]); 6] = [
        ("tictactoe", &["set_position b a1 w c3"], &["play b b2", "play w a3"]),
        ("gomoku", &["boardsize 9", "set_position b e5 w d4 b f6"], &["play w c3", "play b g7", "play w d5"]),
        ("connect4", &["set_position b a1 w b1"], &["play w c", "play b d", "play w a"]),
        ("nogo", &["boardsize 7", "set_position b c3 w e5"], &["play b d4", "play w b2"]),
        ("hex", &["boardsize 6", "set_position b c3 w d4 b b5"], &["play b a1", "play w f6", "play b e2"]),
        ("reversi", &["set_position b d5 b e4 w d4 w e5 b a1"], &["play b d3", "play w c3", "play b b3"]),
    ];
    for (game, setup, moves) in cases {
        let mut session = session(game);
        ok(&mut session, &format!("set_game {game}"));
        for line in setup.iter().chain(moves) {
            ok(&mut session, line);
        }
        let before = snapshot(&mut session);
        let sgf = gtp(&mut session, "printsgf");
        let path = dir.file(&format!("{game}.sgf"));
        ok(&mut session, &format!("savesgf {}", path.display()));
        let mut fresh = self::session("tictactoe");
        ok(&mut fresh, &format!("loadsgf {}", path.display()));
        assert_eq!(snapshot(&mut fresh), before, "{game}: {sgf}");
        // The history came back too: undo walks it back to the set-up.
        for _ in moves.iter() {
            ok(&mut fresh, "undo");
            ok(&mut session, "undo");
            assert_eq!(snapshot(&mut fresh), snapshot(&mut session), "{game} after undo");
        }
        assert_eq!(gtp(&mut fresh, "undo"), "? cannot undo\n\n", "{game}");
    }
}

/// `ponder solve --game reversi /dev/zero` read until memory ran out.
#[test]
fn solve_refuses_files_that_are_not_regular_or_too_large() {
    let (status, _, stderr) = run_cli(&["solve", "--game", "reversi", "/dev/zero"], DEADLINE);
    assert!(status.is_some_and(|status| !status.success()), "{status:?} {stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    let dir = TempDir::new("solve");
    let big = dir.file("big.txt");
    std::fs::write(&big, vec![b'#'; (64 << 20) + 1]).unwrap();
    let (status, _, stderr) = run_cli(&["solve", "--game", "reversi", big.to_str().unwrap()], DEADLINE);
    assert!(status.is_some_and(|status| !status.success()), "{status:?} {stderr}");
    assert!(stderr.contains("larger than"), "{stderr}");
    let (status, _, stderr) = run_cli(&["match", "--black", "x", "--white", "y", "--openings", "/dev/zero"], DEADLINE);
    assert!(status.is_some_and(|status| !status.success()), "{status:?} {stderr}");
    assert!(stderr.contains("--openings") && stderr.contains("not a regular file"), "{stderr}");
}

/// `ponder bench --threads 100000` started 2,054 threads; the engine caps threads at 256.
#[test]
fn cli_thread_counts_are_capped_like_the_engine() {
    for args in [
        &["bench", "--threads", "100000"][..],
        &["solve", "--game", "reversi", "--threads", "100000", "tests/data/reversi/ffo1-19.txt"],
        &["--threads", "100000"],
        &["bench", "--threads", "0"],
    ] {
        let (status, stdout, stderr) = run_cli(args, DEADLINE);
        assert!(status.is_some_and(|status| !status.success()), "{args:?}: {status:?}");
        assert!(stderr.contains("--threads"), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
    }
}

// ---------------------------------------------------------------------------------------------
// The minor items.

#[test]
fn ids_are_echoed_as_written() {
    let mut session = session("tictactoe");
    assert_eq!(gtp(&mut session, "007 name"), "=007 ponder\n\n");
    assert_eq!(gtp(&mut session, "0 name"), "=0 ponder\n\n");
    assert_eq!(gtp(&mut session, "00 frob"), "?00 unknown command\n\n");
}

#[test]
fn booleans_are_only_the_documented_words() {
    let mut session = session("tictactoe");
    for word in ["yes", "no", "on", "off", "2", "-1", "tru"] {
        assert_refused_unchanged(
            &mut session,
            &format!("param_game misere {word}"),
            "? invalid value: expected 0, 1, true or false\n\n",
        );
        assert_refused_unchanged(
            &mut session,
            &format!("param_search ponder {word}"),
            "? invalid value: expected 0, 1, true or false\n\n",
        );
    }
    for word in ["1", "0", "true", "false", "TRUE"] {
        ok(&mut session, &format!("param_game misere {word}"));
    }
}

#[test]
fn perft_depths_are_plain_digits() {
    let mut session = session("tictactoe");
    for depth in ["+5", "-1", "5.0", "0x5", " 5x"] {
        assert_refused_unchanged(&mut session, &format!("ponder-perft {depth}"), "? syntax error\n\n");
    }
    assert_eq!(gtp(&mut session, "ponder-perft 2"), "= 72\n\n");
}

#[test]
fn byoyomi_needs_a_period_and_canadian_a_stone() {
    let mut session = session("tictactoe");
    assert_refused_unchanged(
        &mut session,
        "kgs-time_settings byoyomi 60 5 0",
        "? invalid value: byo-yomi needs at least one period\n\n",
    );
    assert_refused_unchanged(
        &mut session,
        "kata-time_settings canadian 60 5 0",
        "? invalid value: canadian time needs at least one stone per period\n\n",
    );
    ok(&mut session, "kgs-time_settings byoyomi 60 5 1");
}

fn gomocup(script: &[u8]) -> String {
    let mut output = Vec::new();
    ponder::frontends::gomocup::run(session("gomoku"), None, script, &mut output).unwrap();
    String::from_utf8(output).unwrap()
}

#[test]
fn gomocup_unknown_replies_carry_no_control_characters() {
    let output = gomocup(b"FR\x00OB\x1b[2J\x07\nEND\n");
    assert_eq!(output, "UNKNOWN command FROB[2J\n");
    // A tab separates words, as in GTP (found by the front_ends fuzz target).
    let output = gomocup(b"START 15\nBOARD\n0,0,2\tND\nDONE\nEND\n");
    assert_eq!(output, "OK\nERROR malformed BOARD line '0,0,2 ND'\n");
}

#[test]
fn gomocup_board_lines_have_exactly_three_fields() {
    let output = gomocup(b"START 15\nBOARD\n7,7,1,1\nDONE\nBOARD\n7,7\nDONE\nEND\n");
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines, ["OK", "ERROR malformed BOARD line '7,7,1,1'", "ERROR malformed BOARD line '7,7'"]);
}

#[test]
fn match_options_name_the_option_at_fault() {
    let (status, _, stderr) = run_cli(&["match", "--black", "x", "--white", "y", "--time-margin", "NaN"], DEADLINE);
    assert!(status.is_some_and(|status| !status.success()));
    assert!(stderr.contains("--time-margin") && !stderr.contains("--command-timeout"), "{stderr}");
    let (status, _, stderr) = run_cli(&["match", "--black", "x", "--white", "y", "--command-timeout", "0"], DEADLINE);
    assert!(status.is_some_and(|status| !status.success()));
    assert!(stderr.contains("--command-timeout") && !stderr.contains("--time-margin"), "{stderr}");
}

// ---------------------------------------------------------------------------------------------
// File confinement and the switch that turns the file commands off.

#[test]
fn files_dir_confines_the_file_commands() {
    let inside = TempDir::new("files-dir");
    let outside = TempDir::new("outside");
    let outside_sgf = outside.file("outside.sgf");
    std::fs::write(&outside_sgf, "(;GM[4]SZ[3];B[bb])").unwrap();
    let dir = inside.0.to_str().unwrap();
    let mut engine = Engine::start(&["--game", "tictactoe", "--files-dir", dir]);
    assert_eq!(engine.reply_to("play b a1\n"), "= ");
    assert_eq!(engine.reply_to("savesgf game.sgf\n"), "= ");
    assert!(std::fs::read_to_string(inside.file("game.sgf")).unwrap().contains(";B[ac]"));
    assert_eq!(engine.reply_to(&format!("savesgf {}/sub/../game2.sgf\n", dir)), "? cannot save file");
    for refused in ["../escape.sgf", "/tmp/escape.sgf", outside_sgf.to_str().unwrap()] {
        assert_eq!(engine.reply_to(&format!("savesgf {refused}\n")), "? cannot save file", "{refused}");
    }
    assert_eq!(engine.reply_to(&format!("loadsgf {}\n", outside_sgf.display())), "? cannot load file");
    assert_eq!(engine.reply_to("loadsgf ../outside.sgf\n"), "? cannot load file");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside_sgf, inside.file("link.sgf")).unwrap();
        assert_eq!(engine.reply_to("loadsgf link.sgf\n"), "? cannot load file");
        assert_eq!(engine.reply_to("savesgf link.sgf\n"), "? cannot save file");
    }
    assert_eq!(engine.reply_to("loadsgf game.sgf\n"), "= ");
    assert!(engine.reply_to("printsgf\n").contains(";B[ac]"));
    assert_eq!(std::fs::read_to_string(&outside_sgf).unwrap(), "(;GM[4]SZ[3];B[bb])");
    assert_eq!(outside.names(), ["outside.sgf"]);
}

#[test]
fn file_commands_can_be_turned_off() {
    let dir = TempDir::new("off");
    let mut engine = Engine::start(&["--game", "tictactoe", "--no-file-commands"]);
    let path = dir.file("game.sgf");
    assert_eq!(engine.reply_to(&format!("savesgf {}\n", path.display())), "? file commands are turned off");
    assert_eq!(engine.reply_to(&format!("loadsgf {}\n", path.display())), "? file commands are turned off");
    assert_eq!(engine.reply_to("known_command loadsgf\n"), "= false");
    assert_eq!(engine.reply_to("known_command printsgf\n"), "= true");
    let commands = engine.reply_to("list_commands\n");
    assert!(!commands.contains("loadsgf") && !commands.contains("savesgf") && commands.contains("printsgf"));
    assert!(dir.names().is_empty());
    let (status, _, stderr) = run_cli(&["--files-dir", dir.file("missing").to_str().unwrap()], DEADLINE);
    assert!(status.is_some_and(|status| !status.success()));
    assert!(stderr.contains("--files-dir"), "{stderr}");
}

// ---------------------------------------------------------------------------------------------
// Random arguments to every command of every game: a refusal changes nothing.

/// A small deterministic generator (xorshift64*), so a failure can be replayed.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

const HOSTILE_WORDS: &[&str] = &[
    "",
    "0",
    "1",
    "2",
    "-1",
    "+5",
    "007",
    "1e309",
    "NaN",
    "inf",
    "-inf",
    "0.5",
    "99999999999999999999",
    "yes",
    "true",
    "b",
    "w",
    "black",
    "WHITE",
    "red",
    "a1",
    "A1",
    "c3",
    "z99",
    "Z26",
    "aa",
    "pass",
    "PA",
    "resign",
    "swap-pieces",
    "swap",
    "d",
    "4",
    "k",
    "misere",
    "exact_five",
    "allow_swap",
    "blocked",
    "c3,f5",
    "none",
    "-",
    "hex",
    "reversi",
    "gomoku",
    "chess",
    "byoyomi",
    "canadian",
    "fischer",
    "absolute",
    "cells",
    "pairs",
    "\u{fffd}",
    "é",
    "x\u{200b}",
    "%s%n",
    "../../etc/passwd",
];

/// Commands whose cost or effect the arguments choose beyond a quick refusal: searches and
/// solves (run elsewhere with limits), settings of the search itself, files, quit.
const NOT_FUZZED: &[&str] = &[
    "genmove",
    "reg_genmove",
    "lz-analyze",
    "kata-analyze",
    "lz-genmove_analyze",
    "kata-genmove_analyze",
    "ponder-solve",
    "dfpn-solve-state",
    "ponder-vc_status",
    "ponder-vc_carrier",
    "ponder-vc_mustplay",
    "param_search",
    "loadsgf",
    "savesgf",
    "quit",
];

#[test]
fn random_arguments_never_change_state_when_refused() {
    let names: Vec<&str> = ponder::protocol::command::COMMANDS
        .iter()
        .map(|spec| spec.name)
        .filter(|name| !NOT_FUZZED.contains(name))
        .collect();
    let openings: [(&str, &[&str]); 6] = [
        ("tictactoe", &["play b b2", "play w a1"]),
        ("gomoku", &["boardsize 9", "play b e5", "play w d4"]),
        ("connect4", &["play b d", "play w d"]),
        ("nogo", &["boardsize 5", "play b c3", "play w b2"]),
        ("hex", &["boardsize 5", "play b c3", "play w b2"]),
        ("reversi", &["play b d3", "play w c3"]),
    ];
    let mut random = Random(0x5eed_1234_abcd_0017);
    let mut refusals = 0;
    for (game, opening) in openings {
        let mut session = session(game);
        ok(&mut session, &format!("set_game {game}"));
        for line in opening {
            ok(&mut session, line);
        }
        for _ in 0..300 {
            let name = names[random.below(names.len())];
            let words: Vec<&str> =
                (0..random.below(5)).map(|_| HOSTILE_WORDS[random.below(HOSTILE_WORDS.len())]).collect();
            let line = format!("{name} {}", words.join(" "));
            // A perft the arguments make deep is a test of patience, not of refusals.
            if name == "ponder-perft" && words.iter().any(|w| w.parse::<u32>().is_ok_and(|d| d > 2)) {
                continue;
            }
            let before = snapshot(&mut session);
            let reply = gtp(&mut session, &line);
            assert!(reply.ends_with("\n\n") && (reply.starts_with('=') || reply.starts_with('?')), "{line}: {reply:?}");
            if reply.starts_with('?') {
                refusals += 1;
                assert_eq!(snapshot(&mut session), before, "{game}: state changed after refused {line:?}: {reply}");
            }
        }
    }
    assert!(refusals > 500, "only {refusals} refusals: the fuzz no longer reaches the error paths");
}

// ---------------------------------------------------------------------------------------------
// Hostile SGF files through `loadsgf`: refused (nothing changes) or loaded, never a panic.

#[test]
fn hostile_sgf_files_are_refused_without_changes() {
    let dir = TempDir::new("sgf");
    let refused: &[(&str, &[u8])] = &[
        ("empty", b""),
        ("no-tree", b"hello"),
        ("unclosed", b"(;GM[4]SZ[3];B[aa]"),
        ("unclosed-value", b"(;GM[4]C[abc"),
        ("bad-size", b"(;GM[4]SZ[0])"),
        ("huge-size", b"(;GM[4]SZ[99999999999999999999])"),
        ("bad-game", b"(;GM[99])"),
        ("off-board", b"(;GM[4]SZ[3];B[zz])"),
        ("occupied", b"(;GM[4]SZ[3];B[aa];W[aa])"),
        ("setup-later", b"(;GM[4]SZ[3];B[aa];AB[bb])"),
        ("bad-rule", b"(;GM[4]SZ[3]RU[tictactoe k=99])"),
        ("bad-player", b"(;GM[4]SZ[3]AB[aa]PL[X])"),
        ("rectangle-flood", b"(;GM[1]SZ[52]AB[aa:ZZ][aa:ZZ][aa:ZZ]AW[aa:ZZ])"),
        ("nested", &[b'('; 20_000]),
        ("hex-too-big", b"(;GM[11]SZ[52])"),
        ("non-utf8", b"(;GM[4]SZ[3]\xff\xfe;B[\xc3])"),
        ("reversi-illegal", b"(;GM[2];B[aa])"),
    ];
    let mut session = session("tictactoe");
    ok(&mut session, "play b b2");
    for (name, bytes) in refused {
        let path = dir.file(&format!("{name}.sgf"));
        std::fs::write(&path, bytes).unwrap();
        assert_refused_unchanged(&mut session, &format!("loadsgf {}", path.display()), "? cannot load file\n\n");
    }
    // Oddities that are still game records load.
    let loaded: &[(&str, &[u8])] = &[
        ("bom-and-junk", b"\xef\xbb\xbfjunk before (;GM[4]SZ[3];B[bb]) junk after"),
        ("variations", b"(;GM[4]SZ[3](;B[aa](;W[bb])(;W[cc]))(;B[cc]))"),
        ("escapes", b"(;GM[4]SZ[3]C[a \\] b \\\\ c\\\n d]PB[\\]];B[aa])"),
    ];
    for (name, bytes) in loaded {
        let path = dir.file(&format!("{name}.sgf"));
        std::fs::write(&path, bytes).unwrap();
        ok(&mut session, &format!("loadsgf {}", path.display()));
    }
}

// ---------------------------------------------------------------------------------------------
// The front ends: over-long lines are refused without being stored.

#[test]
fn gtp_lines_over_the_cap_are_refused_and_the_session_goes_on() {
    let mut engine = Engine::start(&["--game", "tictactoe"]);
    let mut line = "play b ".to_string();
    line.push_str(&"a ".repeat(1 << 20));
    line.push('\n');
    assert_eq!(engine.reply_to(&line), "? syntax error");
    assert_eq!(engine.reply_to("7 name\n"), "=7 ponder");
}

#[test]
fn gomocup_lines_over_the_cap_and_board_floods_are_refused() {
    let mut script = b"START 15\nABOUT".to_vec();
    script.extend(std::iter::repeat_n(b'x', 100_000));
    script.extend_from_slice(b"\nBOARD\n");
    for i in 0..700 {
        script.extend_from_slice(format!("{},{},1\n", i % 15, (i / 15) % 15).as_bytes());
    }
    script.extend_from_slice(b"DONE\nINFO rule 1\nTURN 7,7\nEND\n");
    let output = gomocup(&script);
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(
        lines[..3],
        ["OK", "ERROR line too long (more than 4096 bytes)", "ERROR BOARD has more than 625 stones"]
    );
    // Then the one move of the game (TURN 7,7), after its search's MESSAGE line.
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(lines[3].starts_with("MESSAGE "), "{lines:?}");
}

#[test]
fn referee_lines_over_the_cap_end_the_game_with_an_error() {
    let mut session = session("hex");
    ok(&mut session, "boardsize 5");
    let mut script = b"first\n".to_vec();
    script.extend(std::iter::repeat_n(b'a', 100_000));
    script.push(b'\n');
    let mut output = Vec::new();
    let error = ponder::frontends::referee::run(session, script.as_slice(), &mut output).unwrap_err();
    assert!(error.to_string().contains("line 2") && error.to_string().contains("longer than 4096 bytes"), "{error}");
    assert_eq!(String::from_utf8(output).unwrap().lines().count(), 1);
}

fn nboard(script: &[u8]) -> String {
    let mut output = Vec::new();
    ponder::frontends::nboard::run(session("reversi"), std::io::Cursor::new(script.to_vec()), &mut output).unwrap();
    String::from_utf8(output).unwrap()
}

/// The first words of every line the NBoard front end may write.
const NBOARD_REPLIES: [&str; 7] = ["set myname ", "status", "pong ", "=== ", "search ", "nodestats ", "learned"];

fn assert_nboard_replies(output: &str) {
    assert!(output.is_empty() || output.ends_with('\n'), "{output:?}");
    for line in output.lines() {
        assert!(NBOARD_REPLIES.iter().any(|start| line.starts_with(start)), "{line:?}");
        assert!(!line.chars().any(char::is_control), "{line:?}");
    }
}

#[test]
fn nboard_hostile_lines_get_status_errors_and_the_session_goes_on() {
    let mut script = b"nboard 2\nFR\x00OB\x1b[2J\x07\nset game (;GM[Othello]TY[8]BO[8 ".to_vec();
    script.extend(std::iter::repeat_n(b'-', 100_000));
    script.extend_from_slice(
        b" *];)\nset\tdepth\t2\nmove\nmove F5/nan\nmove F5/1/inf\nset game (;;)\nset game ((;GM[Othello];);)\n",
    );
    script.extend_from_slice(b"hint -1\nhint 99999999999999999999\nping 99999999999999999999\nping 1\n");
    let output = nboard(&script);
    assert_nboard_replies(&output);
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines[0], "set myname ponder");
    assert_eq!(lines[1], "status error: unknown command 'FROB[2J'");
    assert_eq!(lines[2], "status error: line longer than 65536 bytes");
    // The tab-separated `set depth 2` is fine; every later line but the last ping is refused.
    assert_eq!(lines.len(), 12, "{lines:?}");
    assert!(lines[3..11].iter().all(|line| line.starts_with("status error: ")), "{lines:?}");
    assert_eq!(lines[11], "pong 1");
}

#[test]
fn nboard_random_lines_never_break_the_protocol() {
    // NBoard's words with random arguments and junk, in a fixed pseudo-random order; the game
    // moves on whenever a move happens to be legal.
    let words = ["nboard", "set", "depth", "game", "contempt", "move", "go", "hint", "ping", "learn", "F5", "PA", "d3"];
    let arguments = ["", "1", "-3", "2", "x", "F5", "f6/1/2", "PA", "(;GM[Othello]TY[8];)", "c4//0.5", "\u{e9}"];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut script = String::from("set depth 1\n");
    for _ in 0..300 {
        let line =
            format!("{} {} {}", words[next(words.len())], words[next(words.len())], arguments[next(arguments.len())]);
        script.push_str(line.trim());
        script.push('\n');
    }
    assert_nboard_replies(&nboard(script.as_bytes()));
}
