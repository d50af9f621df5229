//! The Gomocup (Piskvork) protocol front end, so Gomocup managers can run matches with ponder.
//!
//! The manager sends `START N` / `RECTSTART W,H`, `INFO key value`, `BEGIN`, `TURN X,Y`,
//! `BOARD` … `DONE`, `TAKEBACK X,Y`, `RESTART`, `ABOUT`, `END`. Cells are `X,Y`, zero-based, `X`
//! the column and `Y` the row from the top. We answer `OK`, a move `X,Y`, the `ABOUT` line, or
//! `ERROR …` / `UNKNOWN …`; `INFO` gets no answer. Everything is carried out through the same
//! session commands a GTP controller would send, with the game fixed to Gomoku.
//!
//! A searched move is preceded by a `MESSAGE` line with the search's summary: managers show
//! and log those, and they merge the engine's stderr into their logs, so in this protocol
//! stderr stays quiet unless `-v` asks (see `main`).
//!
//! Hostile input changes nothing it should not: an `INFO rule` during a game waits for the
//! next one (a rule change restarts the game), lines are capped and stripped of control
//! characters, and a `BOARD` block is bounded. Details: `protocol-specs/gtp.md`.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::time::Instant;

use crate::engine::{GtpError, Session};
use crate::games::{Color, GO_COLUMN_LETTERS};
use crate::protocol::command::{Command, ParamRequest};
use crate::protocol::line::{CappedLine, read_line_capped};
use crate::protocol::time_control::{TimeControl, TimeSystem};

/// Seconds kept back from every Gomocup time limit for process and pipe delays.
const LAG_SECONDS: f64 = 0.1;

/// The time of a move to be played at once (`INFO timeout_turn 0`), and the least any move
/// gets: a search of a few playouts, so forced wins and blocks are still found.
const MOVE_AT_ONCE_SECONDS: f64 = 0.002;

/// The longest line read; Gomocup lines are a few dozen bytes, so a longer one is skipped
/// without being stored and answered `ERROR line too long`.
const MAX_LINE_BYTES: usize = 4096;

/// The Gomocup front end's state beyond the session: the board size (for coordinates) and the
/// time limits the manager announced.
struct GomocupFrontEnd {
    session: Session,
    width: usize,
    height: usize,
    started: bool,
    /// `INFO timeout_turn` in seconds, if the manager sent it (0: play at once).
    turn_seconds: Option<f64>,
    /// `INFO timeout_match` in seconds, if the manager sent one (its 0, no limit, is `None`).
    match_seconds: Option<f64>,
    /// The manager announced `timeout_match 0`: no match clock, whatever `time_left` says
    /// (c-gomoku-cli then sends `time_left 2147483647` before every move).
    match_unlimited: bool,
    /// `INFO time_left` in seconds, if the manager sends it.
    time_left_seconds: Option<f64>,
    /// Our own thinking time in this game, for a match clock without `time_left`.
    used_seconds: f64,
    /// The vertices played since the last `START`/`RESTART`/`BOARD`, for `TAKEBACK`.
    moves: Vec<String>,
    /// The user's own `--max-time` in seconds, a cap on every move's time (none for 0).
    user_max_time: Option<f64>,
    /// `exact_five` from an `INFO rule` that came during a game: a rule change restarts the
    /// game, so it waits for the next `START`, `RECTSTART`, `RESTART` or `BOARD`.
    pending_exact_five: Option<bool>,
}

/// Runs the Gomocup protocol on `input`/`output` until `END` or the end of input. Blocks.
/// `user_max_time` is the user's own cap on a move's seconds (`--max-time`); without one the
/// manager's limits alone decide (the session's own default cap, for GTP, does not apply).
///
/// # Errors
/// Only a failed write to `output`.
pub fn run(session: Session, user_max_time: Option<f64>, input: impl Read, mut output: impl Write) -> io::Result<()> {
    let mut front_end = GomocupFrontEnd::new(session, user_max_time)?;
    let mut reader = BufReader::new(input);
    while let Some(line) = next_line(&mut reader) {
        let reply = match line {
            Err(reply) => Some(reply),
            Ok(line) if line.is_empty() => continue,
            Ok(line) => {
                let (keyword, rest) = line.split_once(char::is_whitespace).unwrap_or((&line, ""));
                match keyword.to_ascii_uppercase().as_str() {
                    "END" => break,
                    "BOARD" => {
                        let stones = board_lines(&mut reader);
                        front_end.board(stones)
                    }
                    keyword => front_end.answer(keyword, rest.trim()),
                }
            }
        };
        if let Some(reply) = reply {
            output.write_all(reply.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
    Ok(())
}

/// The next line, trimmed, tabs as spaces and without other control characters (they would only garble the replies
/// that quote it); `Err` with the reply for a line that is too long; `None` at the end of input
/// or on a read error.
fn next_line(reader: &mut impl BufRead) -> Option<Result<String, String>> {
    match read_line_capped(reader, MAX_LINE_BYTES).ok()?? {
        CappedLine::TooLong => Some(Err(format!("ERROR line too long (more than {MAX_LINE_BYTES} bytes)"))),
        CappedLine::Line(raw) => {
            let text: String = String::from_utf8_lossy(&raw)
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .filter(|c| !c.is_control())
                .collect();
            Some(Ok(text.trim().to_string()))
        }
    }
}

/// The lines of a `BOARD` block up to `DONE`. At most one line per cell of the largest board is
/// kept; a block with more (or a line too long) is refused as a whole, after reading to `DONE`.
fn board_lines(reader: &mut impl BufRead) -> Result<Vec<String>, String> {
    const MAX_BOARD_LINES: usize = 25 * 25;
    let mut stones = Vec::new();
    let mut refusal = None;
    while let Some(line) = next_line(reader) {
        match line {
            Ok(line) if line.eq_ignore_ascii_case("DONE") => break,
            Ok(_) if stones.len() == MAX_BOARD_LINES => {
                refusal.get_or_insert_with(|| format!("ERROR BOARD has more than {MAX_BOARD_LINES} stones"));
            }
            Ok(line) => stones.push(line),
            Err(reply) => {
                refusal.get_or_insert(reply);
            }
        }
    }
    refusal.map_or(Ok(stones), Err)
}

impl GomocupFrontEnd {
    /// The front end over `session`, switched to Gomoku, its moves capped at `user_max_time`
    /// seconds if the user set a cap.
    fn new(session: Session, user_max_time: Option<f64>) -> io::Result<GomocupFrontEnd> {
        let mut front_end = GomocupFrontEnd {
            session,
            width: 15,
            height: 15,
            started: false,
            turn_seconds: None,
            match_seconds: None,
            match_unlimited: false,
            time_left_seconds: None,
            used_seconds: 0.0,
            moves: Vec::new(),
            user_max_time: user_max_time.filter(|&seconds| seconds > 0.0),
            pending_exact_five: None,
        };
        front_end.command(Command::SetGame("gomoku".to_string())).map_err(io::Error::other)?;
        Ok(front_end)
    }

    fn command(&mut self, command: Command) -> Result<String, GtpError> {
        self.session.execute(command)
    }

    fn set_search(&mut self, name: &str, value: String) {
        let _ = self.command(Command::ParamSearch(ParamRequest::Set(name.to_string(), value)));
    }

    /// The reply to one line other than `BOARD` and `END`; `None` for `INFO`.
    fn answer(&mut self, keyword: &str, arguments: &str) -> Option<String> {
        Some(match keyword {
            "START" => match arguments.parse::<usize>() {
                Ok(size) => self.start(size, size),
                Err(_) => "ERROR START needs a board size".to_string(),
            },
            "RECTSTART" => match parse_pair(arguments) {
                Some((width, height)) => self.start(width, height),
                None => "ERROR RECTSTART needs width,height".to_string(),
            },
            "RESTART" => match self.apply_pending_rule().and_then(|()| self.command(Command::ClearBoard)) {
                Ok(_) => {
                    self.moves.clear();
                    self.used_seconds = 0.0;
                    "OK".to_string()
                }
                Err(error) => format!("ERROR {error}"),
            },
            "INFO" => return self.info(arguments),
            "ABOUT" => format!(
                "name=\"ponder\", version=\"{}\", author=\"the ponder developers\", country=\"-\", www=\"-\"",
                env!("CARGO_PKG_VERSION")
            ),
            "BEGIN" if self.started => self.our_move(),
            "TURN" if self.started => match self.vertex(arguments) {
                Some(vertex) => {
                    let color = self.session.game().to_move();
                    match self.command(Command::Play { color, mv: vertex.clone() }) {
                        Ok(_) => {
                            self.moves.push(vertex);
                            self.our_move()
                        }
                        Err(error) => format!("ERROR TURN {arguments}: {error}"),
                    }
                }
                None => format!("ERROR TURN {arguments}: not a cell of this board"),
            },
            // Stones are taken back last first, so the cell must be the last move.
            "TAKEBACK" if self.started => match self.vertex(arguments) {
                Some(vertex) if self.moves.last() == Some(&vertex) => match self.command(Command::Undo) {
                    Ok(_) => {
                        self.moves.pop();
                        "OK".to_string()
                    }
                    Err(error) => format!("ERROR {error}"),
                },
                _ => format!("ERROR TAKEBACK {arguments}: not the last move"),
            },
            "BEGIN" | "TURN" | "TAKEBACK" => "ERROR no game started (START first)".to_string(),
            other => format!("UNKNOWN command {other}"),
        })
    }

    fn start(&mut self, width: usize, height: usize) -> String {
        if let Err(error) = self.apply_pending_rule() {
            return format!("ERROR {error}");
        }
        match self.command(Command::BoardSize { width, height }) {
            Ok(_) => {
                self.width = width;
                self.height = height;
                self.started = true;
                self.moves.clear();
                self.used_seconds = 0.0;
                "OK".to_string()
            }
            Err(_) => format!("ERROR unsupported board size {width}x{height} (5 to 25)"),
        }
    }

    /// `INFO key value`: time limits (milliseconds), memory (bytes) and the rule bits (1: exactly
    /// five). Keys we do not use are ignored, as the protocol asks.
    fn info(&mut self, arguments: &str) -> Option<String> {
        let (key, value) = arguments.split_once(char::is_whitespace).unwrap_or((arguments, ""));
        let value = value.trim();
        let milliseconds = || value.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
        match key.to_ascii_lowercase().as_str() {
            "timeout_turn" => {
                if let Some(ms) = milliseconds() {
                    self.turn_seconds = Some(ms / 1000.0);
                }
            }
            "timeout_match" => {
                if let Some(ms) = milliseconds() {
                    self.match_seconds = (ms > 0.0).then_some(ms / 1000.0);
                    self.match_unlimited = ms == 0.0;
                }
            }
            "time_left" => self.time_left_seconds = milliseconds().map(|ms| ms / 1000.0),
            "max_memory" => {
                if let Some(bytes) = value.parse::<u64>().ok().filter(|&b| b > 0) {
                    // The tree gets half of what the manager allows; the rest is the process.
                    let megabytes = (bytes / 2 / (1 << 20)).max(16);
                    self.set_search("max_memory_mb", megabytes.to_string());
                }
            }
            "rule" => {
                if let Ok(rule) = value.parse::<u32>() {
                    let exact_five = rule & 1 != 0;
                    self.pending_exact_five = Some(exact_five);
                    // A rule change restarts the game, so during a game it waits for the next
                    // one (the protocol lets INFO come at any time, and a manager may repeat its
                    // settings mid-game); before the first stone it applies now.
                    let game_running = self.session.game().moves_played() > 0 || !self.moves.is_empty();
                    if !game_running {
                        let _ = self.apply_pending_rule();
                    }
                    // Renju (4) and caro (8) are not supported: say so, as MESSAGE lines may
                    // come at any time.
                    if rule & !3 != 0 {
                        return Some(format!(
                            "MESSAGE rule {rule}: only freestyle and exact five are supported; playing {}",
                            if exact_five { "exact five" } else { "freestyle" }
                        ));
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// `BOARD` … `DONE`: the whole position, `X,Y,1` our stones and `X,Y,2` the opponent's; we
    /// are to move, so we have as many stones as the opponent (we are Black) or one fewer.
    fn board(&mut self, stones: Result<Vec<String>, String>) -> Option<String> {
        if !self.started {
            return Some("ERROR no game started (START first)".to_string());
        }
        let stones = match stones {
            Ok(stones) => stones,
            Err(reply) => return Some(reply),
        };
        let mut cells = Vec::new();
        for stone in &stones {
            let parts: Vec<&str> = stone.split(',').map(str::trim).collect();
            let &[x, y, owner] = parts.as_slice() else {
                return Some(format!("ERROR malformed BOARD line '{stone}'"));
            };
            let Some(vertex) = self.vertex(&format!("{x},{y}")) else {
                return Some(format!("ERROR BOARD cell {x},{y} is off the board"));
            };
            let ours = match owner {
                "1" => true,
                "2" | "3" => false,
                _ => return Some(format!("ERROR malformed BOARD line '{stone}'")),
            };
            cells.push((ours, vertex));
        }
        let own = cells.iter().filter(|(ours, _)| *ours).count();
        let us = if own * 2 >= cells.len() { Color::Black } else { Color::White };
        let stones: Vec<(Color, String)> =
            cells.into_iter().map(|(ours, vertex)| (if ours { us } else { us.opponent() }, vertex)).collect();
        // BOARD starts the game over from this position, so a rule change waiting for the next
        // game applies first (it would clear the board after the set-up otherwise).
        if let Err(error) = self.apply_pending_rule() {
            return Some(format!("ERROR {error}"));
        }
        if let Err(error) = self.command(Command::SetPosition(stones)) {
            return Some(format!("ERROR BOARD: {error}"));
        }
        self.moves.clear();
        Some(self.our_move_as(us))
    }

    /// Applies a rule change that waited for a new game; changes nothing when the rule is the
    /// one in force (a change starts a new game).
    fn apply_pending_rule(&mut self) -> Result<(), GtpError> {
        let Some(exact_five) = self.pending_exact_five.take() else {
            return Ok(());
        };
        let wanted = if exact_five { "1" } else { "0" };
        let current = self.command(Command::ParamGame(ParamRequest::Get("exact_five".to_string())))?;
        if current != wanted {
            self.command(Command::ParamGame(ParamRequest::Set("exact_five".to_string(), wanted.to_string())))?;
        }
        Ok(())
    }

    fn our_move(&mut self) -> String {
        let color = self.session.game().to_move();
        self.our_move_as(color)
    }

    /// Plays our move within the announced limits, answered as `X,Y` after a `MESSAGE` line
    /// with the search's summary. On an empty board that is the centre: the strongest opening
    /// move in freestyle Gomoku, and no search needed.
    fn our_move_as(&mut self, color: Color) -> String {
        let board_is_empty = self.session.game().stone_rows().iter().flatten().all(Option::is_none);
        if board_is_empty {
            return self.play_centre(color);
        }
        // The match clock is planned as a GTP sudden-death clock is (target, extension, hard
        // limit, lag reserve: protocol-specs/gtp.md), from what is left of it; the turn limit
        // caps every move.
        let clock = match self.match_time_left() {
            Some(left) => TimeControl { system: TimeSystem::Absolute, main_time: left },
            None => TimeControl::UNLIMITED,
        };
        if let Err(error) = self.command(Command::TimeSettings(clock)) {
            return format!("ERROR {error}");
        }
        // 0: no cap, the match clock's plan alone decides.
        self.set_search("max_time", format!("{:.3}", self.move_seconds().unwrap_or(0.0)));
        let started = Instant::now();
        let answer = self.command(Command::GenMove(color));
        self.used_seconds += started.elapsed().as_secs_f64();
        match answer {
            Ok(vertex) => match self.cell(&vertex) {
                Some(cell) => {
                    self.moves.push(vertex);
                    match self.search_message() {
                        Some(message) => format!("{message}\n{cell}"),
                        None => cell,
                    }
                }
                None => format!("ERROR no move ({vertex})"),
            },
            Err(error) => format!("ERROR {error}"),
        }
    }

    /// The most a move may take: the turn limit less the lag reserve (`timeout_turn 0`: at
    /// once, a search of a few playouts); without one, no cap under a match clock (`None`: its
    /// plan decides; c-gomoku-cli sends no `timeout_turn` for `tc=180/0`, a turn without a
    /// limit) and 5 s without that either; never more than the user's own `--max-time`.
    fn move_seconds(&self) -> Option<f64> {
        let seconds = match self.turn_seconds {
            Some(0.0) => Some(MOVE_AT_ONCE_SECONDS),
            Some(turn) => Some(turn - LAG_SECONDS),
            None if self.match_time_left().is_some() => None,
            None => Some(5.0),
        };
        let seconds = match (seconds, self.user_max_time) {
            (Some(seconds), Some(cap)) => Some(seconds.min(cap)),
            (seconds, cap) => seconds.or(cap),
        };
        seconds.map(|seconds| seconds.max(MOVE_AT_ONCE_SECONDS))
    }

    /// What is left of the match clock: the manager's `time_left`, else `timeout_match` less
    /// our own thinking so far; `None` without a match clock (`timeout_match 0`).
    fn match_time_left(&self) -> Option<f64> {
        if self.match_unlimited {
            return None;
        }
        self.time_left_seconds.or_else(|| self.match_seconds.map(|total| (total - self.used_seconds).max(0.0)))
    }

    fn play_centre(&mut self, color: Color) -> String {
        let cell = format!("{},{}", self.width / 2, self.height / 2);
        let Some(vertex) = self.vertex(&cell) else { return format!("ERROR no centre on this board ({cell})") };
        match self.command(Command::Play { color, mv: vertex.clone() }) {
            Ok(_) => {
                self.moves.push(vertex);
                cell
            }
            Err(error) => format!("ERROR {error}"),
        }
    }

    /// The last search's summary as a `MESSAGE` line (cells as `X,Y`; no times, so the line is
    /// the same in every deterministic run): the work done, the alpha-beta's depth where it
    /// searched, the win rate, the expected line.
    fn search_message(&self) -> Option<String> {
        let summary = self.session.last_search()?;
        let pv: Vec<String> = summary.pv.iter().filter_map(|vertex| self.cell(vertex)).collect();
        let depth = summary.depth_note();
        Some(format!(
            "MESSAGE {} {}{depth}, win rate {:.1}%{}, pv {}",
            summary.playouts,
            summary.work_unit(),
            100.0 * summary.value,
            summary.proof.summary_note(),
            pv.join(" ")
        ))
    }

    /// Gomocup `X,Y` (Y from the top) as a Go-style vertex.
    fn vertex(&self, text: &str) -> Option<String> {
        let (x, y) = parse_pair(text)?;
        (x < self.width && y < self.height).then(|| format!("{}{}", GO_COLUMN_LETTERS[x] as char, self.height - y))
    }

    /// A Go-style vertex as Gomocup `X,Y`.
    fn cell(&self, vertex: &str) -> Option<String> {
        let letter = vertex.as_bytes().first()?.to_ascii_uppercase();
        let x = GO_COLUMN_LETTERS.iter().position(|&c| c == letter)?;
        let row: usize = vertex.get(1..)?.parse().ok()?;
        (row >= 1 && row <= self.height).then(|| format!("{x},{}", self.height - row))
    }
}

fn parse_pair(text: &str) -> Option<(usize, usize)> {
    let (x, y) = text.split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        let mut session = Session::new("gomoku").unwrap();
        for (name, value) in [("seed", "3"), ("max_visits", "3000")] {
            session.execute(Command::ParamSearch(ParamRequest::Set(name.into(), value.into()))).unwrap();
        }
        session
    }

    /// Every line the front end writes for `input`.
    fn transcript_with_messages(input: &str) -> Vec<String> {
        let mut output = Vec::new();
        run(session(), None, input.as_bytes(), &mut output).unwrap();
        String::from_utf8(output).unwrap().lines().map(str::to_string).collect()
    }

    /// The replies to `input`, without the MESSAGE lines.
    fn transcript(input: &str) -> Vec<String> {
        transcript_with_messages(input).into_iter().filter(|line| !line.starts_with("MESSAGE ")).collect()
    }

    #[test]
    fn begin_on_an_empty_board_plays_the_centre() {
        assert_eq!(transcript("START 15\nBEGIN\nEND\n"), ["OK", "7,7"]);
        assert_eq!(transcript("RECTSTART 20,10\nBEGIN\nEND\n"), ["OK", "10,5"]);
        // Not a search's move, so no summary either.
        assert_eq!(transcript_with_messages("START 15\nBEGIN\nEND\n").len(), 2);
    }

    #[test]
    fn a_searched_move_comes_after_a_message_line_with_its_summary() {
        let lines = transcript_with_messages("START 15\nBEGIN\nTURN 8,8\nEND\n");
        assert_eq!(lines.len(), 4, "{lines:?}");
        let message = &lines[2];
        // Gomoku plays by alpha-beta (the default): it counts nodes, at most the 20 nodes a
        // playout of `max_visits` 3000 stands for (the limit is seen every 1024 nodes).
        let count: u64 = message
            .strip_prefix("MESSAGE ")
            .and_then(|rest| rest.split(" nodes, depth ").next())
            .and_then(|count| count.parse().ok())
            .unwrap_or_else(|| panic!("{message}"));
        assert!((1..=3000 * 20 + 1024).contains(&count), "{message}");
        // The depth it reached: a few plies at most in so few nodes, and at least the first.
        let depth: u32 = message
            .split(", depth ")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .and_then(|depth| depth.parse().ok())
            .unwrap_or_else(|| panic!("{message}"));
        assert!((1..=20).contains(&depth), "{message}");
        // The principal variation starts with the move played, in Gomocup cells.
        let pv = message.split(", pv ").nth(1).unwrap();
        assert_eq!(pv.split(' ').next(), Some(lines[3].as_str()), "{lines:?}");
    }

    #[test]
    fn turn_and_match_limits_make_the_move_time() {
        let mut front_end = GomocupFrontEnd::new(session(), None).unwrap();
        assert_eq!(front_end.move_seconds(), Some(5.0), "no limit announced");
        front_end.info("timeout_turn 5000");
        assert!((front_end.move_seconds().unwrap() - (5.0 - LAG_SECONDS)).abs() < 1e-9);
        // The session's default cap for GTP (5 s) does not bind a longer turn limit: before
        // this, `timeout_turn 30000` got moves of at most 5 s.
        front_end.info("timeout_turn 30000");
        assert!((front_end.move_seconds().unwrap() - (30.0 - LAG_SECONDS)).abs() < 1e-9);
        let mut capped = GomocupFrontEnd::new(session(), Some(7.0)).unwrap();
        capped.info("timeout_turn 30000");
        assert_eq!(capped.move_seconds(), Some(7.0), "the user's --max-time caps every move");
        // A clock of the whole game and no turn limit (c-gomoku-cli's `tc=180/0`): no cap but
        // the clock's plan, or the user's.
        capped.turn_seconds = None;
        capped.info("timeout_match 180000");
        assert_eq!(capped.move_seconds(), Some(7.0));
        let mut match_clock_only = GomocupFrontEnd::new(session(), None).unwrap();
        match_clock_only.info("timeout_match 180000");
        assert_eq!(match_clock_only.move_seconds(), None);
        front_end.info("timeout_turn 0");
        assert_eq!(front_end.move_seconds(), Some(MOVE_AT_ONCE_SECONDS), "0 means at once");
        assert_eq!(front_end.match_time_left(), None);
        // A match clock without time_left counts our own thinking down.
        front_end.info("timeout_match 10000");
        front_end.used_seconds = 3.5;
        assert_eq!(front_end.match_time_left(), Some(6.5));
        front_end.info("time_left 2000");
        assert_eq!(front_end.match_time_left(), Some(2.0), "the manager's figure wins");
        front_end.info("timeout_match 0");
        front_end.info("time_left 2147483647");
        assert_eq!(front_end.match_time_left(), None, "timeout_match 0: no limit, whatever time_left says");
        front_end.info("timeout_match 60000");
        assert_eq!(front_end.match_time_left(), Some(2147483.647), "a match clock again");
    }

    fn is_cell(reply: &str, size: usize) -> bool {
        parse_pair(reply).is_some_and(|(x, y)| x < size && y < size)
    }

    #[test]
    fn a_spent_match_clock_still_gets_a_move() {
        // One millisecond of match time left: the time plan's floor still runs a search and
        // answers a move (the manager, not the engine, decides a loss on time).
        let replies = transcript("START 15\nINFO timeout_turn 5000\nINFO time_left 1\nBEGIN\nTURN 8,8\nEND\n");
        assert_eq!(replies[0], "OK");
        assert!(is_cell(&replies[1], 15) && is_cell(&replies[2], 15), "{replies:?}");
        assert_eq!(replies.len(), 3);
    }

    #[test]
    fn a_game_start_turns_and_takeback() {
        // A turn limit far above what the session's visit limit takes, so that the limit of
        // visits, not the machine's load, decides the reply, and the second run repeats it.
        let replies =
            transcript("START 15\nINFO timeout_turn 30000\nINFO rule 1\nBEGIN\nTURN 0,0\nTAKEBACK 0,0\nABOUT\nEND\n");
        assert_eq!(replies[0], "OK");
        assert!(is_cell(&replies[1], 15), "{replies:?}");
        assert!(is_cell(&replies[2], 15) && replies[2] != "0,0", "{replies:?}");
        // 0,0 (a corner our opening never takes) is not the last move (our reply is), so it cannot be taken back yet.
        assert!(replies[3].starts_with("ERROR TAKEBACK"), "{replies:?}");
        assert!(replies[4].starts_with("name=\"ponder\""));
        assert_eq!(replies.len(), 5);
        let our_reply = &replies[2];
        let replies = transcript(&format!(
            "START 15\nINFO timeout_turn 30000\nINFO rule 1\nBEGIN\nTURN 0,0\nTAKEBACK {our_reply}\nTAKEBACK 0,0\nEND\n"
        ));
        assert_eq!(replies[3..], ["OK", "OK"]);
    }

    #[test]
    fn board_sets_the_position_and_we_block_a_four() {
        // The opponent (2) has four in a row on the top edge from 0,0 to 3,0; we must play 4,0.
        let board = "BOARD\n0,0,2\n1,0,2\n2,0,2\n3,0,2\n0,2,1\n2,2,1\n4,2,1\n1,4,1\nDONE\n";
        let replies = transcript(&format!("START 5\n{board}END\n"));
        assert_eq!(replies, vec!["OK", "4,0"]);
    }

    #[test]
    fn errors_are_reported_in_protocol_form() {
        let replies = transcript("BEGIN\nSTART 3\nRECTSTART 12,8\nTURN 20,1\nFROB\nBOARD\n1,1,7\nDONE\n");
        assert!(replies[0].starts_with("ERROR"));
        assert!(replies[1].starts_with("ERROR unsupported board size"));
        assert_eq!(replies[2], "OK");
        assert!(replies[3].starts_with("ERROR TURN 20,1"));
        assert_eq!(replies[4], "UNKNOWN command FROB");
        assert!(replies[5].starts_with("ERROR malformed BOARD line"));
    }
}
