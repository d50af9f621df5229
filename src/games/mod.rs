//! Pure game rules: no I/O, no threads, no parsing library, no logging.
//!
//! Every game is a small position value implementing [`Game`]. History, undo, clocks and swap
//! bookkeeping live in the engine session, never in a position. Per-game variant settings (board
//! size, misère, blocked cells, …) live in the game's [`GameConfig`], from which
//! [`Game::new`] builds the start position.

pub mod connect4;
pub mod hex;
pub mod mnk;
pub mod nogo;
pub mod reversi;
#[cfg(test)]
pub(crate) mod testing;

use std::fmt;
use std::hash::Hash;

/// One of the two players. Black always moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black,
    White,
}

impl Color {
    /// The other player.
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White: an index into per-colour tables.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The GTP letter, `B` or `W`.
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Color),
    Draw,
}

impl Outcome {
    /// The outcome from `color`'s point of view: 1 for a win, 0.5 for a draw, 0 for a loss.
    pub fn reward_for(self, color: Color) -> f64 {
        match self {
            Outcome::Win(winner) if winner == color => 1.0,
            Outcome::Win(_) => 0.0,
            Outcome::Draw => 0.5,
        }
    }

    /// The GTP `final_score` text without a disc count: `B+`, `W+` or `0`.
    pub fn score_text(self) -> String {
        match self {
            Outcome::Win(color) => format!("{}+", color.letter()),
            Outcome::Draw => "0".to_string(),
        }
    }
}

/// Why a move text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move in this game's notation at all.
    Syntax,
    /// The text is well formed but names a cell outside the board.
    OffBoard,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MoveError::Syntax => "not a move",
            MoveError::OffBoard => "off the board",
        })
    }
}

impl std::error::Error for MoveError {}

/// Why a move could not be played. The position is unchanged after any of these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The game is already over.
    GameOver,
    /// The cell is taken, the move breaks a rule, or the move is not of this game.
    Illegal,
    /// The game does not let this colour move now (for example an out-of-turn move where the
    /// game cannot hand the turn over).
    WrongTurn,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlayError::GameOver => "the game is over",
            PlayError::Illegal => "illegal move",
            PlayError::WrongTurn => "not this colour's turn",
        })
    }
}

impl std::error::Error for PlayError {}

/// Why a variant setting was refused. The configuration is unchanged after any of these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The game has no board of this size.
    UnacceptableSize,
    /// The game has no parameter of this name.
    UnknownParam,
    /// The value does not fit the parameter; the text says what was expected.
    InvalidValue(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnacceptableSize => f.write_str("unacceptable size"),
            ConfigError::UnknownParam => f.write_str("unknown parameter"),
            ConfigError::InvalidValue(why) => write!(f, "invalid value: {why}"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The type of a variant parameter, as GoGui's parameter dialog shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Bool,
    Int,
    String,
}

/// A variant parameter and its current value, for `param_game`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
    pub value: String,
}

impl Param {
    pub fn bool(name: &'static str, value: bool) -> Param {
        Param { name, kind: ParamKind::Bool, value: if value { "1" } else { "0" }.to_string() }
    }

    pub fn int(name: &'static str, value: impl fmt::Display) -> Param {
        Param { name, kind: ParamKind::Int, value: value.to_string() }
    }

    pub fn string(name: &'static str, value: impl Into<String>) -> Param {
        Param { name, kind: ParamKind::String, value: value.into() }
    }
}

/// Reads a `param_game` boolean: `0`/`1`, `true`/`false` (any case), the words documented in
/// `protocol-specs/gtp.md`; nothing else, so a typo is an error instead of a guess.
///
/// # Errors
/// [`ConfigError::InvalidValue`] for anything else.
pub fn parse_bool_param(value: &str) -> Result<bool, ConfigError> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err(ConfigError::InvalidValue("expected 0, 1, true or false".to_string())),
    }
}

/// Reads a `param_game` integer within `range`.
///
/// # Errors
/// [`ConfigError::InvalidValue`] when the text is not an integer in the range.
pub fn parse_int_param(value: &str, range: std::ops::RangeInclusive<usize>) -> Result<usize, ConfigError> {
    value.parse::<usize>().ok().filter(|n| range.contains(n)).ok_or_else(|| {
        ConfigError::InvalidValue(format!("expected an integer from {} to {}", range.start(), range.end()))
    })
}

/// The variant settings of one game: board size and rule options.
pub trait GameConfig: Clone + Send + Sync + fmt::Debug + 'static {
    /// Board width and height.
    fn size(&self) -> (usize, usize);

    /// Sets the board size.
    ///
    /// # Errors
    /// [`ConfigError::UnacceptableSize`] when the game has no such board; the config is unchanged.
    fn set_size(&mut self, width: usize, height: usize) -> Result<(), ConfigError>;

    /// Every variant parameter with its current value, in a stable order.
    fn params(&self) -> Vec<Param>;

    /// Sets one variant parameter.
    ///
    /// # Errors
    /// [`ConfigError::UnknownParam`] or [`ConfigError::InvalidValue`]; the config is unchanged.
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), ConfigError>;
}

/// The rules of one two-player game, as a position value.
///
/// `play_unchecked` is the search path: it `debug_assert!`s legality and trusts the caller.
/// `play` and `play_as` are the protocol path: they check, and leave the position untouched on
/// error.
pub trait Game: Clone + Send + Sync + fmt::Debug + 'static {
    type Move: Copy + Eq + Hash + Send + Sync + fmt::Debug + 'static;
    type Config: GameConfig;

    /// The start position of the variant `config` describes.
    fn new(config: &Self::Config) -> Self;

    /// The player whose turn it is.
    fn to_move(&self) -> Color;

    /// Appends every legal move to `out` (which the caller clears). Empty once the game is over.
    fn legal_moves(&self, out: &mut Vec<Self::Move>);

    /// Whether `mv` is legal for the side to move. False once the game is over.
    fn is_legal(&self, mv: Self::Move) -> bool;

    /// Plays a legal move for the side to move.
    ///
    /// # Panics
    /// In debug builds, when `mv` is not legal. In release builds an illegal move leaves the
    /// position in an unspecified (but memory-safe) state.
    fn play_unchecked(&mut self, mv: Self::Move);

    /// The result once the game is over; `None` while it runs.
    fn outcome(&self) -> Option<Outcome>;

    /// Zobrist hash of the whole position, side to move included.
    fn hash(&self) -> u64;

    /// Reads a move in this game's notation (see DESIGN.md for each game's cell names).
    ///
    /// # Errors
    /// [`MoveError`] when the text is not a move or names a cell off the board.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// Writes a move in this game's notation; `parse_move(format_move(m)) == m`.
    fn format_move(&self, mv: Self::Move) -> String;

    /// A text diagram of the position for `showboard`, lines separated by `\n`, no trailing
    /// newline.
    fn board_text(&self) -> String;

    /// Plays a legal move for the side to move.
    ///
    /// # Errors
    /// [`PlayError::GameOver`] or [`PlayError::Illegal`]; the position is unchanged.
    fn play(&mut self, mv: Self::Move) -> Result<(), PlayError> {
        if self.outcome().is_some() {
            return Err(PlayError::GameOver);
        }
        if !self.is_legal(mv) {
            return Err(PlayError::Illegal);
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Makes `color` the side to move, as GTP's `play` and `genmove` for the other colour need.
    /// Games where stones may be placed in any order (Go-style set-up) just switch the turn;
    /// Reversi inserts a forced pass. Does nothing when `color` is already to move.
    ///
    /// # Errors
    /// [`PlayError::WrongTurn`] when the game cannot hand the turn over (the default);
    /// [`PlayError::GameOver`] after the end. The position is unchanged.
    fn give_turn_to(&mut self, color: Color) -> Result<(), PlayError> {
        if self.outcome().is_some() {
            Err(PlayError::GameOver)
        } else if self.to_move() == color {
            Ok(())
        } else {
            Err(PlayError::WrongTurn)
        }
    }

    /// Plays `mv` for `color`, handing the turn over first when needed.
    ///
    /// # Errors
    /// Any [`PlayError`]; the position is unchanged.
    fn play_as(&mut self, color: Color, mv: Self::Move) -> Result<(), PlayError> {
        let mut next = self.clone();
        next.give_turn_to(color)?;
        next.play(mv)?;
        *self = next;
        Ok(())
    }

    /// A set-up position (`set_position`): these stones on an empty board, `to_move` to play.
    /// By default the stones are played in order with `play_as`, which suits games where a stone
    /// changes nothing else; games whose moves do more (Reversi flips) place them directly.
    ///
    /// # Errors
    /// [`PlayError`] for an occupied cell, a move that is not a stone, or a set-up that ends the
    /// game before its last stone.
    fn set_up(config: &Self::Config, stones: &[(Color, Self::Move)], to_move: Color) -> Result<Self, PlayError> {
        let mut position = Self::new(config);
        for &(color, mv) in stones {
            position.play_as(color, mv)?;
        }
        if position.outcome().is_none() {
            position.give_turn_to(to_move)?;
        }
        Ok(position)
    }

    /// The `final_score` text of a finished game: `B+`, `W+` or `0` by default; games that count
    /// (Reversi) add the margin. `None` while the game runs.
    fn score_text(&self) -> Option<String> {
        self.outcome().map(Outcome::score_text)
    }

    /// Plays uniformly random legal moves to the end: the default playout policy. Games
    /// override it with faster or smarter policies.
    fn playout<R: rand::Rng>(&mut self, rng: &mut R) -> Outcome {
        let mut moves = Vec::new();
        loop {
            if let Some(outcome) = self.outcome() {
                return outcome;
            }
            moves.clear();
            self.legal_moves(&mut moves);
            debug_assert!(!moves.is_empty(), "a running game must have a legal move");
            let mv = moves[rng.random_range(0..moves.len())];
            self.play_unchecked(mv);
        }
    }

    /// Puts stones that do not change the game's value (Hex: the dead and captured cells that
    /// a tree node's knowledge filled in) on the board before a playout, so that the playout
    /// starts from what those cells are worth; cells no longer empty are skipped, and the side
    /// to move stays. The default ignores them.
    fn fill_in(&mut self, stones: &[(Self::Move, Color)]) {
        let _ = stones;
    }

    /// How this game's cell names map to board points, for SGF files and GoGui's board. The
    /// default is the Go convention (`A1` bottom-left, no `I`); games named from the top-left
    /// corner (Hex, Reversi) override it.
    const CELL_NAMES: CellNames = CellNames::GoVertex;

    /// The stone on the point at `column`, `row_from_top` (both zero-based), for GoGui's board
    /// display and SGF set-up; `None` for an empty point or one off the board. The default knows
    /// no stones, so games override it.
    fn stone_at_point(&self, column: usize, row_from_top: usize) -> Option<Color> {
        let _ = (column, row_from_top);
        None
    }

    /// Game knowledge about the moves of a node the search expands, seen from the side to move:
    /// `priors[i]` is for `moves[i]` and comes in as [`Prior::NONE`]. The search starts each
    /// child with the prior's pseudo-visits at the prior's value, so good moves are tried first
    /// and bad ones late. The default knows nothing and leaves every prior at `NONE`.
    fn move_priors(&self, moves: &[Self::Move], priors: &mut [Prior]) {
        let _ = (moves, priors);
    }

    /// A proven outcome of this running position that cheap game knowledge finds (a four to
    /// complete, a virtual connection), asked once when the search expands its node so the
    /// proof propagates like a finished game's. Only sound answers: `None` when unsure (the
    /// default).
    fn proven_outcome(&self) -> Option<Outcome> {
        None
    }

    /// An upper bound on the plies still to play, when the rules give one cheaply (the empty
    /// cells of a game that fills them); `None` (the default) when they do not. The search
    /// expands its leaves at once when the bound is small: a tree that small is there to be
    /// solved, and cannot fill the memory cap.
    fn plies_left_bound(&self) -> Option<usize> {
        None
    }

    /// The plies a game between strong players still lasts from here, for spreading a clock
    /// over the moves to come: never more than [`Game::plies_left_bound`], and for games that
    /// usually end long before the board fills (Gomoku, Hex, NoGo) a typical length that keeps
    /// a floor of moves in reserve. The default is the bound, or 60 without one.
    fn expected_plies_left(&self) -> usize {
        self.plies_left_bound().unwrap_or(60)
    }

    /// Whether RAVE (all-moves-as-first) statistics suit this game: true for games whose moves
    /// put a stone on a cell that stays there (Hex, NoGo, Gomoku), so the final position of a
    /// playout tells who played each cell.
    const SUPPORTS_RAVE: bool = false;

    /// For RAVE, in a finished playout's final position: the colour whose stone stands on the
    /// cell `mv` plays, `None` when the cell is empty or `mv` is no cell move.
    fn amaf_owner(&self, mv: Self::Move) -> Option<Color> {
        let _ = mv;
        None
    }
}

/// The plies a game that ends before its board fills still lasts: `typical_plies` in all
/// (a typical game between strong players), never fewer than `floor_plies` while cells remain
/// (a long game must not run out of clock), never more than the `empty` cells.
pub fn typical_plies_left(typical_plies: usize, played: usize, floor_plies: usize, empty: usize) -> usize {
    typical_plies.saturating_sub(played).max(floor_plies).min(empty)
}

/// Prior knowledge about one move (see [`Game::move_priors`]): `visits` pseudo-playouts whose
/// mean reward for the player making the move is `value` (in [0, 1]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prior {
    pub visits: u32,
    pub value: f32,
    /// The probability a trained move model gives the move among the candidates (0 without
    /// one): the search's progressive bias ([`crate::search::SearchParams::progressive_bias`]).
    pub policy: f32,
}

impl Prior {
    /// Nothing known.
    pub const NONE: Prior = Prior { visits: 0, value: 0.5, policy: 0.0 };

    /// `visits` pseudo-playouts at `value`.
    pub const fn new(visits: u32, value: f32) -> Prior {
        Prior { visits, value, policy: 0.0 }
    }

    /// This prior with the move model's probability `policy`.
    pub const fn with_policy(self, policy: f32) -> Prior {
        Prior { policy, ..self }
    }
}

/// The conventions for naming the cells of a board, which decide how a move text maps to a
/// point (column, row from the top).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellNames {
    /// Go-style vertices: letters A–Z without I for the column, row 1 at the bottom.
    GoVertex,
    /// A column letter (`a`, `b`, … with no letter skipped) and a row number with row 1 at the
    /// top, as Hex and Reversi name cells.
    LetterFromTop,
}

impl CellNames {
    /// The cell name of the point at `column`, `row_from_top` on a board `height` rows high;
    /// `None` when the convention has no name for it.
    pub fn name_of(self, column: usize, row_from_top: usize, height: usize) -> Option<String> {
        if row_from_top >= height {
            return None;
        }
        match self {
            CellNames::GoVertex => {
                (column < GO_COLUMN_LETTERS.len()).then(|| format_go_vertex(column, height - 1 - row_from_top))
            }
            CellNames::LetterFromTop => {
                (column < 26).then(|| format!("{}{}", (b'a' + column as u8) as char, row_from_top + 1))
            }
        }
    }

    /// The point (column, row from the top) a cell name stands for on a `width` x `height`
    /// board; `None` when the text is no cell name of this convention or lies off the board.
    pub fn point_of(self, text: &str, width: usize, height: usize) -> Option<(usize, usize)> {
        match self {
            CellNames::GoVertex => {
                parse_go_vertex(text, width, height).ok().map(|(column, row)| (column, height - 1 - row))
            }
            CellNames::LetterFromTop => {
                let (&letter, digits) = text.as_bytes().split_first()?;
                let column = letter.to_ascii_lowercase().checked_sub(b'a').filter(|&c| c < 26)? as usize;
                if digits.is_empty() || digits.len() > 3 || !digits.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let row: usize = std::str::from_utf8(digits).ok()?.parse().ok()?;
                (row >= 1 && row <= height && column < width).then_some((column, row - 1))
            }
        }
    }
}

/// Counts the positions exactly `depth` moves after `position`. A game that ends earlier
/// contributes nothing below its end, so the count is that of move sequences of that length.
pub fn perft<G: Game>(position: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if position.outcome().is_some() {
        return 0;
    }
    let mut moves = Vec::new();
    position.legal_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&mv| {
            let mut child = position.clone();
            child.play_unchecked(mv);
            perft(&child, depth - 1)
        })
        .sum()
}

/// [`perft`] that asks `stop` before every node two or more moves above the leaves and gives
/// up (`None`) as soon as it answers true, so a long count can be interrupted at once.
pub fn perft_until<G: Game>(position: &G, depth: u32, stop: &impl Fn() -> bool) -> Option<u64> {
    if depth < 2 {
        return Some(perft(position, depth));
    }
    if stop() {
        return None;
    }
    if position.outcome().is_some() {
        return Some(0);
    }
    let mut moves = Vec::new();
    position.legal_moves(&mut moves);
    let mut total = 0;
    for &mv in &moves {
        let mut child = position.clone();
        child.play_unchecked(mv);
        total += perft_until(&child, depth - 1, stop)?;
    }
    Some(total)
}

/// An estimate of what [`perft`] counts, cheap to compute: the product of the numbers of legal
/// moves along a few lines of play (Knuth's estimate of a tree's size; here the first, middle
/// and last legal move at every ply), the largest of them. Used to refuse counts that would
/// take hours.
pub fn perft_estimate<G: Game>(position: &G, depth: u32) -> f64 {
    let mut largest = 0.0f64;
    let mut moves = Vec::new();
    for line in 0..3usize {
        let mut current = position.clone();
        let mut product = 1.0f64;
        for _ in 0..depth {
            if current.outcome().is_some() {
                break;
            }
            moves.clear();
            current.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            product *= moves.len() as f64;
            let pick = match line {
                0 => 0,
                1 => moves.len() / 2,
                _ => moves.len() - 1,
            };
            current.play_unchecked(moves[pick]);
        }
        largest = largest.max(product);
    }
    largest
}

/// `N` pseudo-random 64-bit Zobrist keys from `seed`, computed at compile time (SplitMix64).
pub const fn zobrist_keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut keys = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        keys[i] = z ^ (z >> 31);
        i += 1;
    }
    keys
}

/// Column letters of Go-style vertices: A to Z without I.
pub const GO_COLUMN_LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// Reads a Go-style vertex (`A1`, `t19`; column letters skip I, row 1 at the bottom) as
/// zero-based `(column, row from the bottom)`.
///
/// # Errors
/// [`MoveError::Syntax`] when the text is not a vertex, [`MoveError::OffBoard`] when it lies
/// outside `width` x `height`.
pub fn parse_go_vertex(text: &str, width: usize, height: usize) -> Result<(usize, usize), MoveError> {
    let bytes = text.as_bytes();
    let Some((&letter, digits)) = bytes.split_first() else {
        return Err(MoveError::Syntax);
    };
    let letter = letter.to_ascii_uppercase();
    let column = GO_COLUMN_LETTERS.iter().position(|&c| c == letter).ok_or(MoveError::Syntax)?;
    if digits.is_empty() || digits.len() > 3 || !digits.iter().all(u8::is_ascii_digit) {
        return Err(MoveError::Syntax);
    }
    let row: usize =
        std::str::from_utf8(digits).map_err(|_| MoveError::Syntax)?.parse().map_err(|_| MoveError::Syntax)?;
    if row == 0 || row > height || column >= width {
        return Err(MoveError::OffBoard);
    }
    Ok((column, row - 1))
}

/// The `showboard` diagram of a Go-style board: column letters above and below, row numbers on
/// both sides with row 1 at the bottom, and `symbol(column, row from the bottom)` in each cell
/// (`X` Black, `O` White, `.` empty, or a game's own mark).
pub fn go_board_text(width: usize, height: usize, symbol: impl Fn(usize, usize) -> char) -> String {
    let header: String = (0..width).map(|column| format!(" {}", GO_COLUMN_LETTERS[column] as char)).collect();
    let mut lines = vec![format!("  {header}")];
    for row in (0..height).rev() {
        let cells: String = (0..width).map(|column| format!(" {}", symbol(column, row))).collect();
        lines.push(format!("{:>2}{cells} {}", row + 1, row + 1));
    }
    lines.push(format!("  {header}"));
    lines.join("\n")
}

/// The diagram symbol of a stone: `X` Black, `O` White, `.` empty.
pub fn stone_symbol(stone: Option<Color>) -> char {
    match stone {
        Some(Color::Black) => 'X',
        Some(Color::White) => 'O',
        None => '.',
    }
}

/// Writes a Go-style vertex from zero-based `(column, row from the bottom)`.
pub fn format_go_vertex(column: usize, row: usize) -> String {
    format!("{}{}", GO_COLUMN_LETTERS[column] as char, row + 1)
}
