//! The simple line protocol course referees use for Hex, so such a referee can run ponder as a
//! player.
//!
//! The referee's first line is `first` (we move first) or the opponent's first cell; after that
//! it sends one line per opponent move: a cell, or `change` when the opponent takes the swap.
//! `finish` (or the end of input) ends the game. We answer each of our turns with one line, a
//! cell or `change` (our swap), and print nothing else on stdout. Cells are HTP's (`a1` top-left,
//! column letter then row number); the first player connects row 1 to the last row.
//!
//! The swap follows the convention of the public course bots and of Benzene: the stone stays
//! where it is and the players exchange colours, so from then on the swapper connects the first
//! player's edges. Our game keeps a fixed frame instead (see the `games::hex` module docs): the
//! stone is reflected in the long diagonal and the first player keeps Black. The two frames
//! differ by that reflection, so after a swap every cell crossing this boundary is reflected.
//!
//! A line that is neither a legal move nor `finish` ends the process with an error (on stderr,
//! through the caller): the two boards would disagree from then on, and answering anything
//! would only hide that. Details and examples: `protocol-specs/referee.md`.

use std::io::{self, BufReader, Read, Write};

use crate::engine::{GtpError, Session};
use crate::games::Color;
use crate::protocol::command::{Command, ParamRequest};
use crate::protocol::line::{CappedLine, read_line_capped};

/// The longest line read: a cell name or a keyword is a few bytes, so a longer line is
/// skipped without being stored and ends the game like any other line that is no move.
const MAX_LINE_BYTES: usize = 4096;

/// The referee front end's state beyond the session.
struct RefereeFrontEnd {
    session: Session,
    /// Our colour in the session's fixed frame: Black when the referee said `first`.
    us: Option<Color>,
    /// Whether a swap was played: the referee's cells are then our cells reflected.
    reflected: bool,
    /// The first stone, in our frame, to replay when `allow_swap` has to be turned on.
    first_stone: Option<String>,
}

/// A line the front end cannot follow: it ends the game with this message on stderr.
fn protocol_error(line_number: usize, line: &str, why: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("referee protocol, line {line_number} '{line}': {why}"))
}

/// Runs the referee protocol on `input`/`output` until `finish` or the end of input. The session
/// must play Hex; its board size, `allow_swap` (whether we may answer `change`) and search limits
/// are used as they are. Blocks.
///
/// # Errors
/// A failed write, or an [`io::ErrorKind::InvalidData`] error naming the first line that is no
/// legal move in the game so far (nothing more is read then).
pub fn run(session: Session, input: impl Read, mut output: impl Write) -> io::Result<()> {
    if session.game().name() != "hex" {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "the referee protocol plays Hex only (--game hex)"));
    }
    // The protocol has no resignation: a lost game is played out with the most resisting moves.
    let mut session = session;
    session
        .execute(Command::ParamSearch(ParamRequest::Set("resign".to_string(), "0".to_string())))
        .map_err(|error| io::Error::other(error.to_string()))?;
    let mut front_end = RefereeFrontEnd { session, us: None, reflected: false, first_stone: None };
    let mut reader = BufReader::new(input);
    let mut line_number = 0;
    while let Some(line) = read_line_capped(&mut reader, MAX_LINE_BYTES)? {
        line_number += 1;
        let line = match line {
            CappedLine::Line(raw) => String::from_utf8_lossy(&raw).into_owned(),
            CappedLine::TooLong => {
                return Err(protocol_error(line_number, "…", format!("longer than {MAX_LINE_BYTES} bytes")));
            }
        };
        // A tab separates like a space; other control characters would only garble the error
        // message that quotes the line.
        let line: String = line.chars().map(|c| if c == '\t' { ' ' } else { c }).filter(|c| !c.is_control()).collect();
        let text = line.trim().to_ascii_lowercase();
        if text.is_empty() {
            continue;
        }
        if text == "finish" {
            break;
        }
        let reply = front_end.answer(&text).map_err(|why| protocol_error(line_number, line.trim(), why))?;
        if let Some(reply) = reply {
            output.write_all(reply.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
    Ok(())
}

impl RefereeFrontEnd {
    fn param_game(&mut self, name: &str) -> Option<String> {
        self.session.execute(Command::ParamGame(ParamRequest::Get(name.to_string()))).ok()
    }

    /// Our reply to one referee line other than `finish`: `None` when the game is over.
    fn answer(&mut self, text: &str) -> Result<Option<String>, String> {
        let us = match self.us {
            Some(us) => us,
            None => {
                // The first line decides the colours.
                let us = if text == "first" { Color::Black } else { Color::White };
                self.us = Some(us);
                if text == "first" {
                    return self.our_move(us).map(Some);
                }
                us
            }
        };
        let opponent = us.opponent();
        if text == "change" {
            self.opponent_swaps(us)?;
        } else {
            let cell = self.our_frame(text)?;
            self.play(opponent, &cell)?;
            if self.first_stone.is_none() {
                self.first_stone = Some(cell);
            }
        }
        if self.session.game().is_over() {
            return Ok(None);
        }
        self.our_move(us).map(Some)
    }

    fn play(&mut self, color: Color, cell: &str) -> Result<(), String> {
        self.session.execute(Command::Play { color, mv: cell.to_string() }).map(drop).map_err(|error| error.to_string())
    }

    /// `change` from the opponent: legal only as the game's second move, after our first stone.
    /// The game may have been set up without the swap rule; the referee's word decides, so the
    /// rule is turned on (which restarts the game) and our stone replayed.
    fn opponent_swaps(&mut self, us: Color) -> Result<(), String> {
        let our_first_stone = match &self.first_stone {
            Some(cell) if us == Color::Black && self.session.game().moves_played() == 1 => cell.clone(),
            _ => return Err("a swap is only possible as the second move, after our first stone".to_string()),
        };
        if self.param_game("allow_swap").as_deref() != Some("1") {
            let allow = ParamRequest::Set("allow_swap".to_string(), "1".to_string());
            self.session.execute(Command::ParamGame(allow)).map_err(|error| error.to_string())?;
            self.play(Color::Black, &our_first_stone)?;
        }
        self.play(Color::White, "swap-pieces")?;
        self.reflected = true;
        Ok(())
    }

    /// Searches and plays our move, answered in the referee's frame.
    fn our_move(&mut self, us: Color) -> Result<String, String> {
        let answer = self.session.execute(Command::GenMove(us)).map_err(|error: GtpError| error.to_string())?;
        if self.first_stone.is_none() {
            self.first_stone = Some(answer.clone());
        }
        if answer == "swap-pieces" {
            self.reflected = true;
            return Ok("change".to_string());
        }
        self.referee_frame(&answer).ok_or_else(|| format!("internal: no cell answer ({answer})"))
    }

    /// A referee cell as the session's cell text: checked against the board, reflected after a
    /// swap.
    fn our_frame(&self, text: &str) -> Result<String, String> {
        let (width, height) = self.session.game().size();
        let (column, row) = parse_cell(text)
            .filter(|&(c, r)| c < width && r < height)
            .ok_or_else(|| format!("not a cell of the {width}x{height} board, nor first, change or finish"))?;
        Ok(if self.reflected { format_cell(row, column) } else { format_cell(column, row) })
    }

    /// A session cell text in the referee's frame.
    fn referee_frame(&self, cell: &str) -> Option<String> {
        let (column, row) = parse_cell(cell)?;
        Some(if self.reflected { format_cell(row, column) } else { format_cell(column, row) })
    }
}

/// `a1`… as zero-based (column, row).
fn parse_cell(text: &str) -> Option<(usize, usize)> {
    let (&letter, digits) = text.as_bytes().split_first()?;
    // Digits only: `usize::from_str` would also take a sign (`b+1`, and `b+0` as row 0).
    let is_row = (1..=2).contains(&digits.len()) && digits[0] != b'0' && digits.iter().all(u8::is_ascii_digit);
    if !letter.is_ascii_lowercase() || !is_row {
        return None;
    }
    let row: usize = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some(((letter - b'a') as usize, row - 1))
}

fn format_cell(column: usize, row: usize) -> String {
    format!("{}{}", (b'a' + column as u8) as char, row + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The replies to `input` on a `size` board, and the error that ended the game, if any.
    fn transcript(input: &str, size: usize, allow_swap: bool) -> (Vec<String>, Option<String>) {
        let mut session = Session::new("hex").unwrap();
        let mut set = |command| session.execute(command).unwrap();
        set(Command::BoardSize { width: size, height: size });
        set(Command::ParamGame(ParamRequest::Set("allow_swap".into(), if allow_swap { "1" } else { "0" }.into())));
        for (name, value) in [("seed", "3"), ("max_visits", "500"), ("max_time", "0"), ("threads", "1")] {
            set(Command::ParamSearch(ParamRequest::Set(name.into(), value.into())));
        }
        let mut output = Vec::new();
        let error = run(session, input.as_bytes(), &mut output).err().map(|error| error.to_string());
        (String::from_utf8(output).unwrap().lines().map(str::to_string).collect(), error)
    }

    #[test]
    fn cells_are_parsed_checked_and_reflected() {
        assert_eq!(parse_cell("c10"), Some((2, 9)));
        assert_eq!(parse_cell("a0"), None);
        assert_eq!(parse_cell("first"), None);
        // Signs are not digits: `b+0` once reached `row - 1` with row 0 (found by fuzzing).
        for signed in ["b+0", "b+1", "b-1", "b+", "c1+"] {
            assert_eq!(parse_cell(signed), None, "{signed}");
        }
        assert_eq!(format_cell(1, 3), "b4");
        let (replies, error) = transcript("e4\nfinish\n", 4, false);
        assert!(replies.is_empty());
        assert_eq!(
            error.as_deref(),
            Some("referee protocol, line 1 'e4': not a cell of the 4x4 board, nor first, change or finish")
        );
        let (replies, error) = transcript("b+0\n", 4, false);
        assert!(replies.is_empty());
        assert_eq!(
            error.as_deref(),
            Some("referee protocol, line 1 'b+0': not a cell of the 4x4 board, nor first, change or finish")
        );
    }

    #[test]
    fn a_game_answers_each_move_with_one_cell_until_finish() {
        let (replies, error) = transcript("first\n\na1\nB1\nfinish\nc1\n", 5, false);
        assert_eq!(error, None);
        assert_eq!(replies.len(), 3, "{replies:?}");
        assert!(replies.iter().all(|reply| parse_cell(reply).is_some_and(|(c, r)| c < 5 && r < 5)));
        assert!(!replies.iter().any(|reply| reply == "a1" || reply == "b1"), "{replies:?}");
    }

    #[test]
    fn bad_lines_end_the_game_with_an_error_and_no_output() {
        // An occupied cell: our first stone.
        let (replies, _) = transcript("first\n", 5, false);
        let (replies_again, error) = transcript(&format!("first\n{}\n", replies[0]), 5, false);
        assert_eq!(replies_again, replies);
        assert!(error.unwrap().contains("illegal move"));
        // `change` when we are second, after the opening, or as a first line.
        for input in ["c3\nchange\n", "first\na1\nchange\n", "change\n"] {
            let (_, error) = transcript(input, 5, true);
            assert!(error.unwrap().contains("a swap is only possible"), "{input}");
        }
        let (replies, error) = transcript("first\nswap-pieces\n", 5, true);
        assert_eq!(replies.len(), 1);
        assert!(error.unwrap().contains("'swap-pieces': not a cell"));
    }

    #[test]
    fn the_opponents_change_reflects_later_cells_even_without_our_swap_rule() {
        // We (first) play a stone; the opponent swaps and plays the reflection of our stone's
        // reflection, which is our stone's own cell: occupied in the referee's frame.
        for allow_swap in [false, true] {
            let (replies, error) = transcript("first\nchange\n", 5, allow_swap);
            assert_eq!(error, None);
            assert_eq!(replies.len(), 2);
            let ours = &replies[0];
            let (_, error) = transcript(&format!("first\nchange\n{ours}\n"), 5, allow_swap);
            assert!(error.unwrap().contains("illegal move"), "allow_swap {allow_swap}");
        }
    }

    #[test]
    fn we_swap_a_centre_opening_only_when_allowed() {
        // The centre of 3x3 wins for the first player, so taking it over is right.
        let (replies, _) = transcript("b2\n", 3, true);
        assert_eq!(replies, ["change"]);
        let (replies, _) = transcript("b2\n", 3, false);
        assert_ne!(replies[0], "change");
    }
}
