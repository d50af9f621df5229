//! The NBoard protocol front end (`--protocol nboard`), so the NBoard Othello GUI (and tools
//! written for NTest and Edax) can use ponder as an engine. The game is Reversi.
//!
//! NBoard sends `nboard 2`, `set depth N`, `set game GGF`, `set contempt N`, `move MV[/EVAL/TIME]`,
//! `hint N`, `go`, `ping N`, `learn`, `analyze` and `quit`; the engine answers `set myname`,
//! `status …`, `nodestats NODES SECONDS`, `search PV EVAL 0 DEPTH` (hints), `=== MV/EVAL/TIME`
//! (its move for `go`, which it does not play: NBoard sends the `move` back) and `pong N`.
//! Nothing else is written on stdout. A line the front end cannot follow (an unknown command,
//! a bad GGF record, an illegal move) changes nothing and is answered by a `status` line that
//! says why, which NBoard shows in its status bar (NBoard ignores unknown reply lines, and NTest
//! and Edax say nothing at all, which leaves the user guessing). Any input line ends a running
//! `go` or `hint` at once (NBoard sends `ping` before it changes anything); the end of input
//! ends the session. Details: `protocol-specs/nboard.md`.

use std::io::{self, BufReader, Read, Write};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Instant;

use crate::engine::{GtpError, InputSignals, ReversiHint, Session, reversi_hints};
use crate::games::reversi::{Reversi, ReversiConfig, ReversiMove};
use crate::games::{Color, Game};
use crate::protocol::command::{Command, ParamRequest};
use crate::protocol::ggf::{GgfClock, GgfGame, format_move_item, parse_ggf, parse_move_item, play_item};
use crate::protocol::line::{CappedLine, read_line_capped};
use crate::protocol::time_control::{TimeControl, TimeSystem};

/// The longest line read: a GGF record of a whole game with evals and times is a few
/// kilobytes. A longer line is skipped without being stored.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// Lines read ahead while a command runs.
const MAX_PENDING_LINES: usize = 1024;

/// The name NBoard shows for the engine.
const ENGINE_NAME: &str = "ponder";

/// The deepest `set depth` accepted: a game has 60 moves.
const MAX_DEPTH: u32 = 60;

/// The search depth before any `set depth` (NBoard always sends one first).
const DEFAULT_DEPTH: u32 = 60;

/// The game as NBoard last described it, the front end's copy of what the session plays.
struct GameState {
    /// The record of `set game` and the `move`s since, each with the seconds it took.
    game: GgfGame,
    position: Reversi,
}

/// The NBoard front end's state beyond the session.
struct NBoardFrontEnd {
    session: Session,
    state: GameState,
    /// `set depth`: the deepest midgame iteration.
    depth: u32,
    /// `set contempt`, in discs from Black's side: kept and shown, not used (ponder has no
    /// opening book, where NBoard's contempt matters, and its search scores draws 0).
    contempt: i32,
}

/// Where the front end writes: every line flushed at once; the first failed write is kept and
/// ends the session (and the running search: nobody reads what it finds).
struct Output<W: Write> {
    writer: W,
    error: Option<io::Error>,
    signals: Arc<InputSignals>,
}

impl<W: Write> Output<W> {
    fn line(&mut self, text: &str) {
        if self.error.is_some() {
            return;
        }
        let result = self.writer.write_all(text.as_bytes()).and_then(|()| {
            self.writer.write_all(b"\n")?;
            self.writer.flush()
        });
        if let Err(error) = result {
            self.signals.output_closed();
            self.error = Some(error);
        }
    }
}

/// Runs the NBoard protocol on `input`/`output` until `quit` or the end of input. Blocks.
///
/// # Errors
/// Only a failed write to `output`.
pub fn run(session: Session, input: impl Read + Send + 'static, output: impl Write) -> io::Result<()> {
    let mut front_end = NBoardFrontEnd::new(session).map_err(io::Error::other)?;
    let signals = front_end.session.input_signals();
    let lines = spawn_reader(input, Arc::clone(&signals));
    let mut output = Output { writer: output, error: None, signals: Arc::clone(&signals) };
    for line in lines {
        signals.line_taken();
        match line {
            CappedLine::TooLong => output.line(&format!("status error: line longer than {MAX_LINE_BYTES} bytes")),
            CappedLine::Line(raw) => {
                let text = clean_line(&raw);
                let command = text.split_whitespace().next().unwrap_or_default();
                if command == "quit" {
                    break;
                }
                if !command.is_empty() {
                    front_end.answer(&text, &mut |line| output.line(line));
                }
            }
        }
        if let Some(error) = output.error.take() {
            return Err(error);
        }
    }
    Ok(())
}

/// The line as text: tabs as spaces, other control characters dropped (they would only garble
/// the status lines that quote it), trimmed.
fn clean_line(raw: &[u8]) -> String {
    let text: String = String::from_utf8_lossy(raw)
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .filter(|c| !c.is_control())
        .collect();
    text.trim().to_string()
}

/// Starts the reader thread. Every line ends the search of the commands before it (NBoard
/// sends `ping` before it changes anything, and a search must stop before the `pong`); the end
/// of input ends a `hint`, which has no time limit.
fn spawn_reader(input: impl Read + Send + 'static, signals: Arc<InputSignals>) -> mpsc::Receiver<CappedLine> {
    let (sender, receiver) = mpsc::sync_channel(MAX_PENDING_LINES);
    std::thread::Builder::new()
        .name("stdin-reader".to_string())
        .spawn(move || {
            let mut reader = BufReader::new(input);
            while let Ok(Some(line)) = read_line_capped(&mut reader, MAX_LINE_BYTES) {
                if matches!(&line, CappedLine::Line(raw) if clean_line(raw).is_empty()) {
                    continue;
                }
                signals.interrupt();
                signals.line_arrived();
                if sender.send(line).is_err() {
                    break;
                }
            }
            signals.input_closed();
        })
        .expect("cannot start the input reader thread");
    receiver
}

/// The standard start position with Black to move, as a game record without moves or clocks.
fn new_game() -> GameState {
    let start = Reversi::new(&ReversiConfig);
    GameState { game: GgfGame { start: start.clone(), moves: Vec::new(), clocks: [None, None] }, position: start }
}

/// A score in discs as NBoard reads evals: two decimals.
fn format_eval(discs: f64) -> String {
    format!("{discs:.2}")
}

/// A line of moves as an NBoard PV: `F5-D6-C3`.
fn format_pv(moves: &[ReversiMove]) -> String {
    moves.iter().map(|&mv| format_move_item(mv)).collect::<Vec<_>>().join("-")
}

impl NBoardFrontEnd {
    /// The front end over `session`, switched to Reversi, never resigning (NBoard has no
    /// resignation: a lost game is played out).
    fn new(session: Session) -> Result<NBoardFrontEnd, GtpError> {
        let mut front_end = NBoardFrontEnd { session, state: new_game(), depth: DEFAULT_DEPTH, contempt: 0 };
        // `--max-time` (5 s by default) caps every move, a GGF clock's too: set again, the
        // default counts as the user's (a session's default caps only play without a clock).
        let max_time = front_end.command(Command::ParamSearch(ParamRequest::Get("max_time".to_string())))?;
        front_end.set_search("max_time", &max_time)?;
        front_end.command(Command::SetGame("reversi".to_string()))?;
        front_end.set_search("resign", "0")?;
        front_end.set_search("max_depth", &DEFAULT_DEPTH.to_string())?;
        Ok(front_end)
    }

    fn command(&mut self, command: Command) -> Result<String, GtpError> {
        self.session.execute(command)
    }

    fn set_search(&mut self, name: &str, value: &str) -> Result<String, GtpError> {
        self.command(Command::ParamSearch(ParamRequest::Set(name.to_string(), value.to_string())))
    }

    /// Carries out one command line, writing its replies through `emit`.
    fn answer(&mut self, line: &str, emit: &mut dyn FnMut(&str)) {
        let (command, arguments) = line.split_once(' ').unwrap_or((line, ""));
        let arguments = arguments.trim();
        let result = match command {
            "nboard" => match arguments.parse::<u32>() {
                Ok(1 | 2) => {
                    emit(&format!("set myname {ENGINE_NAME}"));
                    Ok(())
                }
                _ => Err(format!("protocol version '{arguments}' not supported (1 or 2)")),
            },
            "set" => self.set(arguments),
            "move" => self.play(arguments),
            "go" => self.go(emit),
            "hint" => match arguments.parse::<usize>() {
                Ok(count) if count >= 1 => self.hint(count, emit),
                _ => Err(format!("hint needs a number of moves, not '{arguments}'")),
            },
            "ping" => match arguments.parse::<i64>() {
                // Commands run one at a time, so everything before the ping is done.
                Ok(number) => {
                    emit(&format!("pong {number}"));
                    Ok(())
                }
                Err(_) => Err(format!("ping needs an integer, not '{arguments}'")),
            },
            "learn" => {
                // No opening book to add the game to.
                emit("learned");
                Ok(())
            }
            "analyze" => Err("ponder does not analyze whole games (use hints)".to_string()),
            // Protocol version 1 sent a bare move.
            _ if arguments.is_empty() && parse_move_item(command).is_ok() => self.play(command),
            _ => Err(format!("unknown command '{command}'")),
        };
        if let Err(why) = result {
            log::warn!("nboard: {line}: {why}");
            emit(&format!("status error: {why}"));
        }
    }

    /// `set depth N`, `set game GGF`, `set contempt N`.
    fn set(&mut self, arguments: &str) -> Result<(), String> {
        let (name, value) = arguments.split_once(' ').unwrap_or((arguments, ""));
        let value = value.trim();
        match name {
            "depth" => match value.parse::<u32>() {
                Ok(depth) if (1..=MAX_DEPTH).contains(&depth) => {
                    self.set_search("max_depth", &depth.to_string()).map_err(|error| error.to_string())?;
                    self.depth = depth;
                    Ok(())
                }
                _ => Err(format!("set depth needs a depth from 1 to {MAX_DEPTH}, not '{value}'")),
            },
            "contempt" => match value.parse::<i32>() {
                Ok(contempt) if contempt.abs() <= 64 * 100 => {
                    self.contempt = contempt;
                    Ok(())
                }
                _ => Err(format!("set contempt needs an integer, not '{value}'")),
            },
            "game" => {
                let game = parse_ggf(value).map_err(|error| error.to_string())?;
                self.load(game)
            }
            _ => Err(format!("set {name}: unknown setting")),
        }
    }

    /// Makes the session play `game`; on a failure the previous game is restored.
    fn load(&mut self, game: GgfGame) -> Result<(), String> {
        let position = game.position();
        let previous = std::mem::replace(&mut self.state, GameState { game, position });
        if let Err(error) = self.replay() {
            self.state = previous;
            let _ = self.replay();
            return Err(format!("set game: {error}"));
        }
        Ok(())
    }

    /// Sets the session's game to the front end's record: the start position, then every move.
    fn replay(&mut self) -> Result<(), GtpError> {
        self.command(Command::ClearBoard)?;
        let start = self.state.game.start.clone();
        if start != Reversi::new(&ReversiConfig) {
            let stones = (0..64)
                .filter_map(|square| {
                    start.disc_at(square).map(|color| (color, start.format_move(ReversiMove::square(square))))
                })
                .collect();
            self.command(Command::SetPosition(stones))?;
        }
        let moves: Vec<(Color, String)> =
            self.state.game.moves.iter().map(|item| (item.color, start.format_move(item.mv))).collect();
        for (color, mv) in moves {
            self.command(Command::Play { color, mv })?;
        }
        Ok(())
    }

    /// `move MV[/EVAL/TIME]`: the side to move plays it (a pass is `PA`).
    fn play(&mut self, arguments: &str) -> Result<(), String> {
        let item = parse_move_item(arguments).map_err(|why| format!("move '{arguments}': {why}"))?;
        let color = self.state.position.to_move();
        let mut position = self.state.position.clone();
        play_item(&mut position, color, item.mv).map_err(|why| format!("move '{arguments}': {why}"))?;
        let text = position.format_move(item.mv);
        self.command(Command::Play { color, mv: text }).map_err(|error| format!("move '{arguments}': {error}"))?;
        self.state.position = position;
        self.state.game.moves.push(crate::protocol::ggf::GgfMove {
            color,
            mv: item.mv,
            eval: item.eval,
            seconds: item.seconds,
        });
        Ok(())
    }

    /// `go`: the move ponder would play, within the depth and the clock, as
    /// `=== MV/EVAL/TIME`; the board is left as it is.
    fn go(&mut self, emit: &mut dyn FnMut(&str)) -> Result<(), String> {
        let position = self.state.position.clone();
        if position.outcome().is_some() {
            return Err("go: the game is over".to_string());
        }
        let color = position.to_move();
        self.set_clock(color)?;
        emit("status thinking...");
        let started = Instant::now();
        let answer = self.command(Command::RegGenMove(color)).map_err(|error| format!("go: {error}"))?;
        let seconds = started.elapsed().as_secs_f64();
        let mv = position.parse_move(&answer).map_err(|_| format!("go: no move ({answer})"))?;
        let summary = self.session.last_search().filter(|summary| summary.mv == answer);
        if let Some(summary) = summary {
            emit(&format!("nodestats {} {seconds:.2}", summary.playouts));
        }
        // The eval of the search or of the exact solver (its final disc difference, a pass
        // included); a move neither chose has none.
        let eval = summary.and_then(|summary| summary.score).map(format_eval).unwrap_or_default();
        emit(&format!("=== {}/{eval}/{seconds:.2}", format_move_item(mv)));
        Ok(())
    }

    /// The session's time for `color`'s move: the GGF clock of that side less the time its
    /// moves took (plus increments), as a sudden-death or Fischer clock; without a clock, no
    /// time limit but `--max-time` (5 s a move by default).
    fn set_clock(&mut self, color: Color) -> Result<(), String> {
        let result = match self.clock_of(color) {
            Some((control, left)) => self
                .command(Command::TimeSettings(control))
                .and_then(|_| self.command(Command::TimeLeft { color, seconds: left, stones: 0 })),
            None => self.command(Command::TimeSettings(TimeControl::UNLIMITED)),
        };
        result.map(drop).map_err(|error| format!("go: {error}"))
    }

    /// `color`'s time control and the seconds left on its clock, from the record: the main
    /// time plus the increments of its moves so far less what they took (never the grace time,
    /// which GGS counts as lost on time). `None` without a clock.
    fn clock_of(&self, color: Color) -> Option<(TimeControl, f64)> {
        let GgfClock { main, increment, .. } = self.state.game.clocks[color.index()]?;
        let own_moves = self.state.game.moves.iter().filter(|item| item.color == color);
        let (count, used) = own_moves.fold((0.0, 0.0), |(count, used), item| (count + 1.0, used + item.seconds));
        let left = (main + increment * count - used).max(0.0);
        let system = if increment > 0.0 { TimeSystem::Fischer { increment } } else { TimeSystem::Absolute };
        Some((TimeControl { system, main_time: main }, left))
    }

    /// `hint N`: the best N moves, each with its exact score, as `search` lines after every
    /// completed depth up to `set depth`, until then or the next input line.
    fn hint(&mut self, count: usize, emit: &mut dyn FnMut(&str)) -> Result<(), String> {
        let position = self.state.position.clone();
        if position.outcome().is_some() {
            return Err("hint: the game is over".to_string());
        }
        emit("status thinking...");
        let signals = self.session.input_signals();
        signals.begin_search(true, true);
        let started = Instant::now();
        let result =
            reversi_hints(&position, count, self.depth, signals.stop_flag(), &mut |hints: &[ReversiHint], nodes| {
                emit(&format!("nodestats {nodes} {:.2}", started.elapsed().as_secs_f64()));
                for hint in hints {
                    let depth = if hint.exact { "100%".to_string() } else { hint.depth.to_string() };
                    emit(&format!("search {} {} 0 {depth}", format_pv(&hint.pv), format_eval(hint.discs)));
                }
            });
        signals.end_search();
        emit("status");
        result.map_err(|why| format!("hint: {why}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        let mut session = Session::new("reversi").unwrap();
        for (name, value) in [("seed", "3"), ("max_visits", "200"), ("max_time", "0")] {
            session.execute(Command::ParamSearch(ParamRequest::Set(name.into(), value.into()))).unwrap();
        }
        session
    }

    use crate::frontends::OpenInput;

    /// Output handed on line by line.
    struct LineSender(mpsc::Sender<String>, Vec<u8>);

    impl Write for LineSender {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.1.extend_from_slice(bytes);
            while let Some(end) = self.1.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.1.drain(..=end).collect();
                let _ = self.0.send(String::from_utf8_lossy(&line[..end]).into_owned());
            }
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Every line the front end writes for `input`, sent as NBoard sends it: after `go` or
    /// `hint` the next line waits for the command's last reply (the move, or the empty status).
    fn transcript(input: &str) -> Vec<String> {
        let (lines, receiver) = mpsc::channel();
        let (sender, replies) = mpsc::channel();
        let runner =
            std::thread::spawn(move || run(session(), OpenInput(receiver, Vec::new()), LineSender(sender, Vec::new())));
        let mut transcript = Vec::new();
        for line in input.lines() {
            lines.send(format!("{line}\n").into_bytes()).unwrap();
            let last_reply: fn(&str) -> bool = match line.split_whitespace().next() {
                // (The errors of earlier lines may still be on their way.)
                Some("go") => |reply| reply.starts_with("=== ") || reply.starts_with("status error: go"),
                Some("hint") => |reply| reply == "status" || reply.starts_with("status error: hint"),
                _ => continue,
            };
            for reply in replies.iter() {
                transcript.push(reply.clone());
                if last_reply(&reply) {
                    break;
                }
            }
        }
        drop(lines);
        runner.join().unwrap().unwrap();
        transcript.extend(replies.try_iter());
        transcript
    }

    const START: &str = "---------------------------O*------*O---------------------------";

    fn game(moves: &str) -> String {
        format!("set game (;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[5:00]TY[8]BO[8 {START} *]{moves};)")
    }

    #[test]
    fn nboard_gets_the_name_and_ping_gets_pong() {
        assert_eq!(transcript("nboard 2\nping 7\n"), ["set myname ponder", "pong 7"]);
    }

    #[test]
    fn go_answers_a_legal_move_without_playing_it() {
        let lines = transcript(&format!("nboard 2\nset depth 2\n{}\nping 1\ngo\ngo\n", game("B[F5]W[F6]")));
        let moves: Vec<&String> = lines.iter().filter(|line| line.starts_with("=== ")).collect();
        assert_eq!(moves.len(), 2, "{lines:?}");
        // The same position twice: the board did not change.
        let first = moves[0].split('/').next().unwrap();
        assert_eq!(first, moves[1].split('/').next().unwrap());
        let mut position = parse_ggf(&game("B[F5]W[F6]")["set game ".len()..]).unwrap().position();
        let mv = position.parse_move(&first[4..]).unwrap();
        assert!(position.play(mv).is_ok(), "{first}");
        // status, nodestats, then the move with its eval and time.
        assert!(lines.contains(&"status thinking...".to_string()));
        let parts: Vec<&str> = moves[0][4..].split('/').collect();
        assert!(parts[1].parse::<f64>().is_ok() && parts[2].parse::<f64>().is_ok(), "{}", moves[0]);
    }

    #[test]
    fn the_exact_solvers_move_carries_its_final_score() {
        // FFO #1 (tests/data/reversi/ffo1-19.txt): 14 empties, solved within the move's time.
        let text = include_str!("../../tests/data/reversi/ffo1-19.txt");
        let line = text.lines().find(|line| !line.starts_with('#')).unwrap();
        let problem = crate::solvers::reversi_endgame::parse_ffo_line(line).unwrap();
        // GGF's board: the same squares with `*` for black, then the side to move.
        let fields: Vec<&str> = line.split_whitespace().collect();
        let side = if problem.position.to_move() == Color::Black { "*" } else { "O" };
        let set_up = format!("set game (;GM[Othello]TI[5:00]TY[8]BO[8 {} {side}];)", fields[0].replace('X', "*"));
        let lines = transcript(&format!("nboard 2\n{set_up}\ngo\n"));
        let answer = lines.iter().find(|line| line.starts_with("=== ")).unwrap();
        let parts: Vec<&str> = answer[4..].split('/').collect();
        let played = problem.position.parse_move(parts[0]).unwrap();
        assert!(problem.expected_moves.contains(&played), "{answer} {line}");
        assert_eq!(parts[1].parse::<f64>().unwrap(), f64::from(problem.expected_score), "{answer} {line}");
    }

    #[test]
    fn moves_and_passes_follow_the_rules() {
        let lines = transcript("move F5\nmove e6\nmove F6/0.5/1.2\nmove PA\nping 1\n");
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].starts_with("status error: move 'e6': illegal move"), "{lines:?}");
        assert!(lines[1].starts_with("status error: move 'PA': illegal move"), "{lines:?}");
        assert_eq!(lines[2], "pong 1");
    }

    #[test]
    fn bad_input_changes_nothing_and_says_why() {
        let input = [
            "frobnicate",
            "set depth 0",
            "set depth x",
            "set game (;GM[Othello]TY[8];)",
            "set colour red",
            "hint 0",
            "ping x",
            "nboard 3",
            "move Z9",
        ]
        .join("\n");
        let lines = transcript(&format!("set depth 1\n{}\n{input}\nhint 1\n", game("B[F5]")));
        let errors: Vec<&String> = lines.iter().filter(|line| line.starts_with("status error: ")).collect();
        assert_eq!(errors.len(), 9, "{lines:?}");
        // The game of the last good `set game` is still there: White to move after F5, depth 1.
        let hint = lines.iter().find(|line| line.starts_with("search ")).unwrap();
        assert!(["F4", "D6", "F6"].iter().any(|mv| hint.starts_with(&format!("search {mv}"))), "{hint}");
        assert!(hint.ends_with(" 0 1"), "{hint}");
    }

    #[test]
    fn hints_score_the_best_moves_at_every_depth() {
        let lines = transcript(&format!("set depth 3\n{}\nhint 3\n", game("")));
        let searches: Vec<&String> = lines.iter().filter(|line| line.starts_with("search ")).collect();
        // The four opening moves are symmetric: three lines per depth, all with the same score.
        assert_eq!(searches.len(), 9, "{lines:?}");
        let evals: Vec<&str> = searches.iter().map(|line| line.split(' ').nth(2).unwrap()).collect();
        assert!(evals[6..].iter().all(|eval| *eval == evals[6]), "{searches:?}");
        assert_eq!(lines.first().map(String::as_str), Some("status thinking..."));
        assert_eq!(lines.last().map(String::as_str), Some("status"));
    }

    #[test]
    fn a_set_up_position_with_white_to_move_is_played_from() {
        // White to move on the start position: White's moves are the mirror of Black's.
        let set_up = format!("set game (;GM[Othello]TY[8]BO[8 {START} O];)");
        let lines = transcript(&format!("set depth 1\n{set_up}\nmove E6\nping 1\n"));
        assert!(lines[0].starts_with("status error: move 'E6'"), "{lines:?}");
        let lines = transcript(&format!("set depth 1\n{set_up}\nmove E3\ngo\n"));
        assert!(lines.iter().any(|line| line.starts_with("=== ")), "{lines:?}");
    }

    #[test]
    fn the_default_max_time_caps_a_move_under_the_records_clock() {
        use std::time::Duration;
        // A session left at the default 5 s: under a clock a GTP session's default would not cap
        // a move, NBoard's documented one does.
        let front_end = NBoardFrontEnd::new(Session::new("reversi").unwrap()).unwrap();
        let plan = crate::engine::clock::TimePlan {
            target: Duration::from_secs(20),
            hard: Duration::from_secs(60),
            saved_time_carries_over: true,
        };
        let limits = front_end.session.settings().limits(Some(plan));
        assert_eq!(limits.max_time, Some(Duration::from_secs(5)));
    }

    #[test]
    fn the_clock_comes_from_the_record() {
        let mut front_end = NBoardFrontEnd::new(session()).unwrap();
        let text = format!("(;GM[Othello]TB[1:00/2]TW[30]TY[8]BO[8 {START} *]B[F5//10]W[F6//5]B[E6//4];)");
        front_end.load(parse_ggf(&text).unwrap()).unwrap();
        // Black: a minute, two moves with 2 s added each, 14 s used.
        let (control, left) = front_end.clock_of(Color::Black).unwrap();
        assert_eq!(control, TimeControl { system: TimeSystem::Fischer { increment: 2.0 }, main_time: 60.0 });
        assert!((left - 50.0).abs() < 1e-9, "{left}");
        let (control, left) = front_end.clock_of(Color::White).unwrap();
        assert_eq!(control.system, TimeSystem::Absolute);
        assert!((left - 25.0).abs() < 1e-9, "{left}");
        front_end.set_clock(Color::White).unwrap();
        // A `move` adds its time; a record without clocks has none.
        front_end.play("d6//20").unwrap();
        assert!((front_end.clock_of(Color::White).unwrap().1 - 5.0).abs() < 1e-9);
        front_end.load(parse_ggf(&format!("(;GM[Othello]TY[8]BO[8 {START} *];)")).unwrap()).unwrap();
        assert_eq!(front_end.clock_of(Color::Black), None);
    }
}
