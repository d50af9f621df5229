//! GGF (Generic Game Format, the game records of GGS and NBoard) for Othello: what NBoard's
//! `set game` sends.
//!
//! A game is `(;` tags `;)`, each tag `NAME[value]`: `GM[Othello]`, `TY[8]` (the board type:
//! 8x8, with optional letters for variants), `BO[8 <64 squares> <side to move>]` (squares row
//! by row from a1, `*` black, `O` white, `-` empty; the side to move `*` or `O`), the clocks
//! `TI[...]` (both players) or `TB[...]`/`TW[...]` as `main[/increment[/grace]]` with times as
//! `[[days.]hours:]minutes:seconds`, and the moves in order, `B[F5]` or `W[d6/-1.50/2.3]`
//! (move, then optional eval and seconds used; `PA` is a pass). Other tags (players, place,
//! date, result, ratings, comments) are read and ignored. Only 8x8 Othello without komi or
//! synchro is accepted.

use std::fmt;

use crate::games::reversi::{Reversi, ReversiMove, format_square, parse_square};
use crate::games::{Color, Game};

/// The most moves (passes included) a game record may hold: a game has at most 60 placements
/// and a pass between two of them at most.
const MAX_MOVES: usize = 128;

/// One player's clock as GGF states it, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfClock {
    pub main: f64,
    /// Added after every move.
    pub increment: f64,
    /// The extra time after the main time runs out (GGS's grace, 2 minutes by default); a
    /// player in it has lost on time under GGS rules, so the engine does not plan on it.
    pub grace: f64,
}

/// A move of the record: the move, its eval (centi-discs or discs, as the writer chose) and
/// the seconds it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfMove {
    pub color: Color,
    pub mv: ReversiMove,
    pub eval: Option<f64>,
    pub seconds: f64,
}

/// An Othello game from a GGF record, checked move by move.
#[derive(Clone, Debug, PartialEq)]
pub struct GgfGame {
    pub start: Reversi,
    pub moves: Vec<GgfMove>,
    /// Black's and White's clocks, when the record has them.
    pub clocks: [Option<GgfClock>; 2],
}

/// Why a GGF record was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GgfError {
    /// Not `(;` tags `;)`, or a tag without its `[value]`.
    Malformed(String),
    /// `GM` is not Othello, or `TY` not an 8x8 board without komi or synchro.
    Unsupported(String),
    /// The `BO` position cannot be read.
    Board(String),
    /// A clock cannot be read.
    Clock(String),
    /// Move `number` (from 1) cannot be read or is not legal there.
    Move {
        number: usize,
        text: String,
        why: &'static str,
    },
    TooManyMoves,
}

impl fmt::Display for GgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GgfError::Malformed(why) => write!(f, "malformed GGF: {why}"),
            GgfError::Unsupported(what) => write!(f, "unsupported game: {what}"),
            GgfError::Board(why) => write!(f, "bad BO position: {why}"),
            GgfError::Clock(text) => write!(f, "bad clock '{text}'"),
            GgfError::Move { number, text, why } => write!(f, "move {number} '{text}': {why}"),
            GgfError::TooManyMoves => write!(f, "more than {MAX_MOVES} moves"),
        }
    }
}

impl std::error::Error for GgfError {}

impl GgfGame {
    /// The position after every move.
    pub fn position(&self) -> Reversi {
        let mut position = self.start.clone();
        for item in &self.moves {
            position.play_unchecked(item.mv);
        }
        position
    }
}

/// Reads a GGF Othello record (surrounding whitespace allowed).
///
/// # Errors
/// A [`GgfError`] saying what is wrong; nothing is half-read.
pub fn parse_ggf(text: &str) -> Result<GgfGame, GgfError> {
    let body = text
        .trim()
        .strip_prefix("(;")
        .and_then(|rest| rest.strip_suffix(";)"))
        .ok_or_else(|| GgfError::Malformed("expected (; … ;)".to_string()))?;
    let mut start = None;
    let mut board_type_seen = false;
    let mut clocks = [None, None];
    let mut move_texts: Vec<(Color, &str)> = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let open = rest.find('[').ok_or_else(|| GgfError::Malformed(format!("'{}' has no [value]", short(rest))))?;
        let name = rest[..open].trim();
        let close = rest[open..].find(']').ok_or_else(|| GgfError::Malformed(format!("{name}[ is not closed")))?;
        let value = &rest[open + 1..open + close];
        rest = rest[open + close + 1..].trim_start();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(GgfError::Malformed(format!("bad tag name '{}'", short(name))));
        }
        match name {
            "GM" if !value.trim().eq_ignore_ascii_case("othello") => {
                return Err(GgfError::Unsupported(format!("GM[{}]", short(value))));
            }
            "TY" => {
                check_board_type(value)?;
                board_type_seen = true;
            }
            "BO" => start = Some(parse_board(value)?),
            "TI" => clocks = [Some(parse_clock(value)?); 2],
            "TB" => clocks[0] = Some(parse_clock(value)?),
            "TW" => clocks[1] = Some(parse_clock(value)?),
            "B" | "W" => {
                if move_texts.len() == MAX_MOVES {
                    return Err(GgfError::TooManyMoves);
                }
                move_texts.push((if name == "B" { Color::Black } else { Color::White }, value));
            }
            // Komi games start with both players' bids: not a game we play.
            "KB" | "KW" | "KM" => return Err(GgfError::Unsupported("komi".to_string())),
            _ => {}
        }
    }
    if !board_type_seen {
        return Err(GgfError::Malformed("no TY (board type)".to_string()));
    }
    let start = start.ok_or_else(|| GgfError::Malformed("no BO (start position)".to_string()))?;
    let mut position = start.clone();
    let mut moves = Vec::with_capacity(move_texts.len());
    for (index, (color, text)) in move_texts.into_iter().enumerate() {
        let failure = |why| GgfError::Move { number: index + 1, text: short(text), why };
        let item = parse_move_item(text).map_err(failure)?;
        play_item(&mut position, color, item.mv).map_err(failure)?;
        moves.push(GgfMove { color, mv: item.mv, eval: item.eval, seconds: item.seconds });
    }
    Ok(GgfGame { start, moves, clocks })
}

/// A move list item without its colour: `F5`, `F5/1.5`, `F5//2.1`, `F5/1.5/2.1`, `PA`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveItem {
    pub mv: ReversiMove,
    pub eval: Option<f64>,
    pub seconds: f64,
}

/// Reads a move list item (NBoard's `move` command and the GGF moves).
///
/// # Errors
/// What is wrong with it, in a few words.
pub fn parse_move_item(text: &str) -> Result<MoveItem, &'static str> {
    let mut parts = text.trim().split('/');
    let move_text = parts.next().unwrap_or_default().trim();
    let mv = if ["pa", "pass", "ps"].iter().any(|name| move_text.eq_ignore_ascii_case(name)) {
        ReversiMove::PASS
    } else {
        ReversiMove::square(parse_square(move_text).map_err(|_| "not a square or PA")?)
    };
    let eval = match parts.next().map(str::trim) {
        None | Some("") => None,
        Some(eval) => Some(parse_finite(eval).ok_or("bad eval")?),
    };
    let seconds = match parts.next().map(str::trim) {
        None | Some("") => 0.0,
        Some(time) => parse_time(time).ok_or("bad time")?,
    };
    if parts.next().is_some() {
        return Err("too many '/' parts");
    }
    Ok(MoveItem { mv, eval, seconds })
}

/// Plays `mv` for `color`, inserting the other side's forced pass when `color` is not to move.
///
/// # Errors
/// Why the move cannot be played; `position` is then unchanged.
pub fn play_item(position: &mut Reversi, color: Color, mv: ReversiMove) -> Result<(), &'static str> {
    let mut after = position.clone();
    if position.outcome().is_some() {
        return Err("the game is over");
    }
    if after.give_turn_to(color).is_err() {
        return Err("not that side's turn");
    }
    after.play(mv).map_err(|_| "illegal move")?;
    *position = after;
    Ok(())
}

/// A move as NBoard writes it: `F5`, or `PA` for a pass.
pub fn format_move_item(mv: ReversiMove) -> String {
    match mv.index() {
        Some(index) => format_square(index).to_ascii_uppercase(),
        None => "PA".to_string(),
    }
}

/// `8`, possibly followed by variant letters of GGS (`r` for a random start, which `BO` gives
/// anyway); komi (`k`), synchro (`s`) and other board sizes are refused.
fn check_board_type(value: &str) -> Result<(), GgfError> {
    let value = value.trim();
    let unsupported = || GgfError::Unsupported(format!("TY[{}]", short(value)));
    if value.starts_with(['s', 'S']) || value.contains(['k', 'K']) {
        return Err(unsupported());
    }
    let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
    let letters_only = value[digits.len()..].chars().all(|c| c.is_ascii_alphabetic());
    if digits != "8" || !letters_only {
        return Err(unsupported());
    }
    Ok(())
}

/// `8 <64 squares> <side to move>`; the squares may be split by spaces (one row per word).
fn parse_board(value: &str) -> Result<Reversi, GgfError> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let [size, squares @ .., to_move] = words.as_slice() else {
        return Err(GgfError::Board("expected a size, the squares and the side to move".to_string()));
    };
    if *size != "8" {
        return Err(GgfError::Board(format!("board size {}", short(size))));
    }
    let squares: String = squares.concat();
    if squares.chars().count() != 64 {
        return Err(GgfError::Board(format!("{} squares instead of 64", squares.chars().count())));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (index, square) in squares.chars().enumerate() {
        match square {
            '*' | 'X' | 'x' | '#' => black |= 1 << index,
            'O' | 'o' => white |= 1 << index,
            '-' | '.' => {}
            other => return Err(GgfError::Board(format!("square '{other}'"))),
        }
    }
    let to_move = match *to_move {
        "*" | "X" | "x" | "#" => Color::Black,
        "O" | "o" => Color::White,
        other => return Err(GgfError::Board(format!("side to move '{}'", short(other)))),
    };
    Reversi::from_bitboards(black, white, to_move).ok_or_else(|| GgfError::Board("overlapping discs".to_string()))
}

/// `main[/increment[/grace]]`, an empty part meaning 0 (grace: 2 minutes when left out).
fn parse_clock(value: &str) -> Result<GgfClock, GgfError> {
    let bad = || GgfError::Clock(short(value));
    let parts: Vec<&str> = value.trim().split('/').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(bad());
    }
    let part = |index: usize, default: f64| match parts.get(index) {
        None => Some(default),
        Some(&"") => Some(0.0),
        Some(text) => parse_time(text),
    };
    Ok(GgfClock {
        main: part(0, 0.0).ok_or_else(bad)?,
        increment: part(1, 0.0).ok_or_else(bad)?,
        grace: part(2, 120.0).ok_or_else(bad)?,
    })
}

/// `[[days.]hours:]minutes:seconds`, or plain seconds, each part a non-negative number.
fn parse_time(text: &str) -> Option<f64> {
    let (days, clock) = match text.split_once('.') {
        // A day count only when a colon follows: `1.12:01:23`; else `1.5` is seconds.
        Some((days, clock)) if clock.contains(':') => (days.parse::<u32>().ok()?, clock),
        _ => (0, text),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    if parts.len() > 3 || (days > 0 && parts.len() != 3) {
        return None;
    }
    // Days count in hours; each later part is the next smaller unit.
    let mut total = f64::from(days) * 24.0;
    for (index, part) in parts.iter().enumerate() {
        let value = parse_finite(part).filter(|v| *v >= 0.0)?;
        total = if index == 0 { total + value } else { total * 60.0 + value };
    }
    Some(total).filter(|seconds| *seconds < 1e9)
}

fn parse_finite(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// At most 40 characters of `text`, for error messages.
fn short(text: &str) -> String {
    let mut kept: String = text.chars().take(40).collect();
    if kept.len() < text.len() {
        kept.push('…');
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "---------------------------O*------*O---------------------------";

    fn record(tags: &str) -> String {
        format!("(;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[15:00]TY[8]BO[8 {START} *]{tags};)")
    }

    #[test]
    fn nboards_record_reads_with_moves_evals_and_times() {
        let game = parse_ggf(&record("B[F5]W[F6/-1.00/2.5]B[D3//0.75]")).unwrap();
        assert_eq!(game.start, Reversi::new(&crate::games::reversi::ReversiConfig));
        assert_eq!(game.moves.len(), 3);
        assert_eq!(
            game.moves[1],
            GgfMove { color: Color::White, mv: game.moves[1].mv, eval: Some(-1.0), seconds: 2.5 }
        );
        assert_eq!(format_move_item(game.moves[1].mv), "F6");
        assert_eq!((game.moves[2].eval, game.moves[2].seconds), (None, 0.75));
        assert_eq!(game.clocks, [Some(GgfClock { main: 900.0, increment: 0.0, grace: 120.0 }); 2]);
        assert_eq!(game.position().to_move(), Color::White);
    }

    #[test]
    fn set_up_positions_clocks_and_passes() {
        // White to move from a set-up with the rows split by spaces; separate clocks.
        let rows = START.as_bytes().chunks(8).map(|row| std::str::from_utf8(row).unwrap()).collect::<Vec<_>>();
        let text = format!("(;GM[Othello]TB[1:00/2]TW[5:00//0]TY[8r]BO[8 {} O]W[e3];)", rows.join(" "));
        let game = parse_ggf(&text).unwrap();
        assert_eq!(game.start.to_move(), Color::White);
        assert_eq!(game.clocks[0], Some(GgfClock { main: 60.0, increment: 2.0, grace: 120.0 }));
        assert_eq!(game.clocks[1], Some(GgfClock { main: 300.0, increment: 0.0, grace: 0.0 }));
        // Black (to move) has no placement but White has h8 (over h7): Black's explicit pass,
        // then White's move, which ends the game.
        let board = format!("{}*--------", "O".repeat(55));
        let game = parse_ggf(&format!("(;GM[Othello]TY[8]BO[8 {board} *]B[PA]W[H8];)")).unwrap();
        assert!(game.position().outcome().is_some());
        // A pass where a placement exists, and a move after the end, are refused.
        let refused = parse_ggf(&format!("(;GM[Othello]TY[8]BO[8 {board} O]W[PA];)"));
        assert!(matches!(refused, Err(GgfError::Move { number: 1, why: "illegal move", .. })), "{refused:?}");
        let refused = parse_ggf(&format!("(;GM[Othello]TY[8]BO[8 {board} *]B[PA]W[H8]B[PA];)"));
        assert!(matches!(refused, Err(GgfError::Move { number: 3, why: "the game is over", .. })), "{refused:?}");
    }

    #[test]
    fn times_read_as_ggs_writes_them() {
        assert_eq!(parse_time("23"), Some(23.0));
        assert_eq!(parse_time("1:23"), Some(83.0));
        assert_eq!(parse_time("12:01:23"), Some(12.0 * 3600.0 + 83.0));
        assert_eq!(parse_time("1.12:01:23"), Some(36.0 * 3600.0 + 83.0));
        assert_eq!(parse_time("0.005"), Some(0.005));
        assert_eq!(parse_time("1:00.5"), Some(60.5));
        for bad in ["", "x", "-1", "1:2:3:4", "1.5:00", "nan", "inf"] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn bad_records_are_refused_with_a_reason() {
        let cases = [
            ("", "malformed"),
            ("(;GM[Othello]TY[8]BO[8 x *];", "malformed"),
            ("(;GM[Othello]TY[8]BO[8 ---;)", "malformed"),
            ("(;GM[Chess]TY[8];)", "unsupported"),
            (&format!("(;GM[Othello]TY[10]BO[8 {START} *];)"), "unsupported"),
            (&format!("(;GM[Othello]TY[8k]BO[8 {START} *];)"), "unsupported"),
            (&format!("(;GM[Othello]TY[s8r20]BO[8 {START} *];)"), "unsupported"),
            (&format!("(;GM[Othello]BO[8 {START} *];)"), "no TY"),
            ("(;GM[Othello]TY[8];)", "no BO"),
            ("(;GM[Othello]TY[8]BO[8 --- *];)", "3 squares"),
            (&format!("(;GM[Othello]TY[8]BO[8 {START} ?];)"), "side to move"),
            (&format!("(;GM[Othello]TY[8]BO[6 {START} *];)"), "board size"),
            (&format!("(;GM[Othello]TI[x]TY[8]BO[8 {START} *];)"), "clock"),
            (&record("B[F5]W[F5]"), "move 2 'F5': illegal move"),
            (&record("W[F5]"), "move 1 'F5': not that side's turn"),
            (&record("B[Z9]"), "not a square"),
            (&record("B[F5/x]"), "bad eval"),
            (&record("B[F5/1/2/3]"), "too many"),
            (&record("B[F5]W[F6]B[PA]"), "illegal move"),
            ("(;GM[Othello]9[x]TY[8];)", "bad tag name"),
        ];
        for (text, expected) in cases {
            let error = parse_ggf(text).unwrap_err().to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
        let many = "B[F5]W[F6]".repeat(MAX_MOVES / 2 + 1);
        assert_eq!(parse_ggf(&record(&many)), Err(GgfError::TooManyMoves));
    }

    #[test]
    fn move_items_round_trip_nboards_forms() {
        for text in ["F5", "f5", "F5/1.5", "F5//2", "F5/-3.25/0.5", "PA", "pa/0/1"] {
            let item = parse_move_item(text).unwrap();
            assert_eq!(format_move_item(item.mv).to_ascii_lowercase(), text.split('/').next().unwrap().to_lowercase());
        }
        assert_eq!(
            parse_move_item("F5/1.5/0.25"),
            Ok(MoveItem { mv: parse_move_item("f5").unwrap().mv, eval: Some(1.5), seconds: 0.25 })
        );
    }
}
