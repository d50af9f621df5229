//! SGF (Smart Game Format, FF[4]) reading and writing for every game ponder plays.
//!
//! Two layers: [`parse_main_line`] / [`write_main_line`] read and write the raw nodes of a game
//! tree's main line (the first variation at every branch), and [`Record`] is the typed game
//! record ponder needs: game type `GM`, board size `SZ`, players, result, set-up stones and the
//! moves. The conventions per game (which `GM`, how moves are written) are in
//! `protocol-specs/sgf.md`.
//!
//! The parser never recurses, so deeply nested variations cannot exhaust the stack; every
//! malformed input is an [`SgfError`], never a panic.

use std::fmt;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{anychar, multispace0};
use nom::combinator::{map, value};
use nom::sequence::preceded;
use nom::{IResult, Parser};

use crate::games::Color;

/// Why an SGF text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfError {
    /// What went wrong, in words.
    pub reason: String,
    /// Byte offset into the text where it went wrong.
    pub offset: usize,
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)
    }
}

impl std::error::Error for SgfError {}

/// One property of a node: its identifier (upper-case letters) and its values, unescaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    pub name: String,
    pub values: Vec<String>,
}

/// One node of a game tree: its properties in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub properties: Vec<Property>,
}

impl Node {
    /// The values of property `name`, if the node has it.
    pub fn values(&self, name: &str) -> Option<&[String]> {
        self.properties.iter().find(|p| p.name == name).map(|p| p.values.as_slice())
    }

    /// The first value of property `name`, if the node has it.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values(name).and_then(|values| values.first()).map(String::as_str)
    }

    /// Adds a property with one value.
    pub fn push(&mut self, name: &str, value: impl Into<String>) {
        self.properties.push(Property { name: name.to_string(), values: vec![value.into()] });
    }
}

fn whitespace(input: &str) -> IResult<&str, &str> {
    multispace0(input)
}

/// A property identifier. FF[3] allowed lower-case letters inside identifiers (`AddBlack`);
/// they are dropped, as the SGF specification says.
fn property_name(input: &str) -> IResult<&str, String> {
    map(take_while1(|c: char| c.is_ascii_alphabetic()), |name: &str| {
        name.chars().filter(char::is_ascii_uppercase).collect()
    })
    .parse(input)
}

/// An escape inside a value: a soft line break (`\` and a newline, which disappears) or an
/// escaped character (`\]`, `\\`, …).
fn value_escape(input: &str) -> IResult<&str, Option<char>> {
    alt((
        value(None, alt((tag("\\\r\n"), tag("\\\n\r"), tag("\\\n"), tag("\\\r")))),
        map(preceded(tag("\\"), anychar), Some),
    ))
    .parse(input)
}

/// A property value in brackets, unescaped.
fn property_value(input: &str) -> IResult<&str, String> {
    let (mut rest, _) = tag("[").parse(input)?;
    let mut text = String::new();
    loop {
        if let Ok((after, _)) = tag::<_, _, nom::error::Error<&str>>("]").parse(rest) {
            return Ok((after, text));
        }
        // Plain runs are taken whole; escapes one character at a time.
        let run: IResult<&str, &str> = take_while1(|c| c != ']' && c != '\\').parse(rest);
        if let Ok((after, chunk)) = run {
            text.push_str(chunk);
            rest = after;
            continue;
        }
        let (after, piece) = value_escape(rest)?;
        text.extend(piece);
        rest = after;
    }
}

/// Why a node could not be read.
enum NodeError {
    Malformed,
    /// More than [`MAX_NODE_VALUES`] values.
    TooManyValues,
}

/// A property with at most `budget` values; `Ok(None)` when no property starts here.
fn property(input: &str, budget: usize) -> Result<Option<(&str, Property)>, NodeError> {
    let Ok((mut rest, name)) = preceded(whitespace, property_name).parse(input) else {
        return Ok(None);
    };
    let mut values = Vec::new();
    while let Ok((after, value)) = preceded(whitespace, property_value).parse(rest) {
        if values.len() == budget {
            return Err(NodeError::TooManyValues);
        }
        values.push(value);
        rest = after;
    }
    if values.is_empty() {
        // The caller reports the name without a value.
        return Ok(None);
    }
    Ok(Some((rest, Property { name, values })))
}

/// A node (`;` and its properties), counting values as they are read so that no node holds
/// more than [`MAX_NODE_VALUES`].
fn node(input: &str) -> Result<(&str, Node, usize), NodeError> {
    let mut rest = input.strip_prefix(';').ok_or(NodeError::Malformed)?;
    let mut properties = Vec::new();
    let mut values = 0;
    while let Some((after, property)) = property(rest, MAX_NODE_VALUES - values)? {
        values += property.values.len();
        properties.push(property);
        rest = after;
    }
    Ok((rest, Node { properties }, values))
}

/// Skips text up to the first game tree: SGF files may start with anything.
fn before_tree(input: &str) -> IResult<&str, &str> {
    take_while(|c| c != '(')(input)
}

/// The most nodes a main line may have: far more than any game ponder plays (a 25x25 board
/// has 625 cells), few enough that a file under the `loadsgf` cap stays small in memory.
pub const MAX_MAIN_LINE_NODES: usize = 10_000;
/// The most property values the main line may hold in all.
pub const MAX_MAIN_LINE_VALUES: usize = 100_000;
/// The most property values of one node (nodes off the main line are read and dropped).
pub const MAX_NODE_VALUES: usize = 100_000;
/// The deepest nesting of variations.
pub const MAX_VARIATION_DEPTH: usize = 10_000;

/// The nodes of the main line of the first game tree in `text`: the root node first, then one
/// node per move, following the first variation at every branch. Text before the first `(` and
/// after the end of the first game tree is ignored.
///
/// Memory stays a small multiple of the text: nodes, values and nesting are counted while
/// reading, against [`MAX_MAIN_LINE_NODES`], [`MAX_MAIN_LINE_VALUES`], [`MAX_NODE_VALUES`] and
/// [`MAX_VARIATION_DEPTH`].
///
/// # Errors
/// [`SgfError`] when there is no game tree, a node or property is malformed, the tree is not
/// closed, or a limit is passed (the reason then starts with `too many`).
pub fn parse_main_line(text: &str) -> Result<Vec<Node>, SgfError> {
    let offset = |rest: &str| text.len() - rest.len();
    let error = |reason: &str, rest: &str| SgfError { reason: reason.to_string(), offset: offset(rest) };
    let (mut rest, _) = before_tree(text).map_err(|_| error("no game tree", text))?;
    if rest.is_empty() {
        return Err(error("no game tree", rest));
    }
    // The main line is every node read before the first `)`: each `(` before it opens the first
    // variation of its parent. The rest of the tree is read only to find its end.
    let mut depth = 0usize;
    let mut on_main_line = true;
    let mut nodes = Vec::new();
    let mut main_line_values = 0usize;
    loop {
        let (after, _) = whitespace(rest).map_err(|_| error("bad white space", rest))?;
        rest = after;
        let Some(first) = rest.chars().next() else {
            return Err(error("game tree not closed", rest));
        };
        match first {
            '(' => {
                depth += 1;
                if depth > MAX_VARIATION_DEPTH {
                    return Err(error("too many nested variations", rest));
                }
                rest = &rest[1..];
            }
            ')' => {
                on_main_line = false;
                depth -= 1;
                rest = &rest[1..];
                if depth == 0 {
                    break;
                }
            }
            ';' if depth > 0 => {
                let (after, parsed, values) = node(rest).map_err(|why| match why {
                    NodeError::Malformed => error("malformed node", rest),
                    NodeError::TooManyValues => error("too many property values in one node", rest),
                })?;
                if on_main_line {
                    main_line_values += values;
                    if nodes.len() == MAX_MAIN_LINE_NODES {
                        return Err(error("too many nodes on the main line", rest));
                    }
                    if main_line_values > MAX_MAIN_LINE_VALUES {
                        return Err(error("too many property values on the main line", rest));
                    }
                    nodes.push(parsed);
                }
                rest = after;
                // A property name must be followed by values, and anything else here is junk.
                let (after, _) = whitespace(rest).map_err(|_| error("bad white space", rest))?;
                if after.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    return Err(error("property without a value", after));
                }
            }
            _ => return Err(error("unexpected character", rest)),
        }
    }
    if nodes.is_empty() {
        return Err(error("game tree without nodes", rest));
    }
    Ok(nodes)
}

/// The game trees of an SGF collection, each as its own text from its `(` to its closing `)`,
/// in file order (c-gomoku-cli writes every game of a run into one file). Text between trees is
/// skipped; brackets inside property values, escaped or not, do not count. An unclosed last
/// tree is returned as it is, for [`parse_main_line`] to refuse.
pub fn game_trees(text: &str) -> Vec<&str> {
    let mut trees = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let (mut in_value, mut escaped) = (false, false);
    for (offset, byte) in text.bytes().enumerate() {
        if in_value {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b']' => in_value = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'[' if depth > 0 => in_value = true,
            b'(' => {
                if depth == 0 {
                    start = offset;
                }
                depth += 1;
            }
            b')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    trees.push(&text[start..=offset]);
                }
            }
            _ => {}
        }
    }
    if depth > 0 {
        trees.push(&text[start..]);
    }
    trees
}

/// Escapes a property value: `]` and `\` get a backslash.
pub fn escape_value(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ']' || c == '\\' {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// Writes `nodes` as one game tree without variations: `(;root;move;move…)` and a newline,
/// with a line break after the root and every ten move nodes.
pub fn write_main_line(nodes: &[Node]) -> String {
    let mut text = String::from("(");
    for (index, node) in nodes.iter().enumerate() {
        if index > 0 && (index == 1 || (index - 1) % 10 == 0) {
            text.push('\n');
        }
        text.push(';');
        for property in &node.properties {
            text.push_str(&property.name);
            for value in &property.values {
                text.push('[');
                text.push_str(&escape_value(value));
                text.push(']');
            }
        }
    }
    text.push_str(")\n");
    text
}

/// A move as SGF writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SgfMove {
    /// A point: zero-based column and row, row 0 at the top (`aa` is the top-left corner).
    Point { column: usize, row: usize },
    /// A pass: an empty value (or `tt` on Go boards up to 19x19, the FF[3] form).
    Pass,
    /// Any other move text, kept as written (Hex's `swap-pieces`, HexGui's `a1` cell names).
    Text(String),
}

/// Reads a point `aa`…: lower-case letters for 0–25, upper-case for 26–51 (FF[4]).
fn point_index(letter: u8) -> Option<usize> {
    match letter {
        b'a'..=b'z' => Some((letter - b'a') as usize),
        b'A'..=b'Z' => Some((letter - b'A') as usize + 26),
        _ => None,
    }
}

fn point_letter(index: usize) -> char {
    match index {
        0..=25 => (b'a' + index as u8) as char,
        _ => (b'A' + (index - 26) as u8) as char,
    }
}

/// The two-letter SGF name of a point (column, row from the top).
pub fn format_point(column: usize, row: usize) -> String {
    format!("{}{}", point_letter(column), point_letter(row))
}

/// Reads a two-letter SGF point; `None` when the text is not one.
pub fn parse_point(text: &str) -> Option<(usize, usize)> {
    match text.as_bytes() {
        &[column, row] => Some((point_index(column)?, point_index(row)?)),
        _ => None,
    }
}

/// Reads a list of at most `limit` points: single points and `aa:cc` rectangles (FF[4]
/// compressed lists), which could otherwise expand a short text into millions of points.
fn parse_point_list(values: &[String], limit: usize) -> Result<Vec<(usize, usize)>, String> {
    let mut points = Vec::new();
    for value in values {
        if points.len() > limit {
            break;
        }
        let bad = || format!("bad point '{value}'");
        match value.split_once(':') {
            None => points.push(parse_point(value).ok_or_else(bad)?),
            Some((from, to)) => {
                let (c0, r0) = parse_point(from).ok_or_else(bad)?;
                let (c1, r1) = parse_point(to).ok_or_else(bad)?;
                for row in r0.min(r1)..=r0.max(r1) {
                    for column in c0.min(c1)..=c0.max(c1) {
                        points.push((column, row));
                    }
                }
            }
        }
    }
    if points.len() > limit {
        return Err(format!("too many set-up points (more than {limit})"));
    }
    Ok(points)
}

/// SGF game numbers ponder uses (see `protocol-specs/sgf.md`).
pub mod game_numbers {
    /// Go; also NoGo and Connect Four (so Go viewers show them), told apart by `RU`.
    pub const GO: u32 = 1;
    /// Othello / Reversi.
    pub const OTHELLO: u32 = 2;
    /// Gomoku and Renju; also tic-tac-toe, told apart by `RU`.
    pub const GOMOKU: u32 = 4;
    /// Hex.
    pub const HEX: u32 = 11;
}

/// The root-comment line of [`Record::mark_opening`].
const OPENING_LINE: &str = "opening moves: ";

/// A typed game record: what ponder reads from and writes to SGF files.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// `GM`: the game number; `None` when the file has none (SGF then means Go, but GoGui
    /// writes no `GM` whatever game it shows).
    pub game_number: Option<u32>,
    /// `RU`: ponder writes its game name and variant parameters here (`tictactoe misere=1`).
    pub rules: Option<String>,
    /// `SZ`: width and height; the game's usual size when absent.
    pub size: (usize, usize),
    pub black_name: Option<String>,
    pub white_name: Option<String>,
    /// `RE`: `B+R`, `W+T`, `B+F`, `B+`, `0`, …
    pub result: Option<String>,
    pub komi: Option<f64>,
    /// `C` of the root node.
    pub comment: Option<String>,
    /// `AB`/`AW` stones of the root node.
    pub setup: Vec<(Color, (usize, usize))>,
    /// `PL`: the side to move after the set-up.
    pub to_play: Option<Color>,
    /// `B`/`W` moves of the main line, in order.
    pub moves: Vec<(Color, SgfMove)>,
}

/// The usual board size of a game number when `SZ` is absent.
fn default_size(game_number: u32) -> (usize, usize) {
    match game_number {
        game_numbers::OTHELLO => (8, 8),
        game_numbers::GOMOKU => (15, 15),
        game_numbers::HEX => (11, 11),
        _ => (19, 19),
    }
}

fn parse_size(text: &str) -> Option<(usize, usize)> {
    let side = |s: &str| s.trim().parse::<usize>().ok().filter(|&n| (1..=52).contains(&n));
    match text.split_once(':') {
        Some((width, height)) => Some((side(width)?, side(height)?)),
        None => side(text).map(|n| (n, n)),
    }
}

impl Record {
    /// An empty record of a game on a board of `size`.
    pub fn new(game_number: u32, size: (usize, usize)) -> Record {
        Record {
            game_number: Some(game_number),
            rules: None,
            size,
            black_name: None,
            white_name: None,
            result: None,
            komi: None,
            comment: None,
            setup: Vec::new(),
            to_play: None,
            moves: Vec::new(),
        }
    }

    /// Reads the main line of the first game tree of an SGF text.
    ///
    /// # Errors
    /// [`SgfError`] for malformed SGF, an unreadable `GM`/`SZ`/point, set-up stones after the
    /// root node, or a point off the board.
    pub fn from_sgf(text: &str) -> Result<Record, SgfError> {
        let nodes = parse_main_line(text)?;
        let invalid = |reason: String| SgfError { reason, offset: 0 };
        let root = &nodes[0];
        let game_number = match root.value("GM") {
            None => None,
            Some(text) => Some(text.trim().parse().map_err(|_| invalid(format!("bad GM '{text}'")))?),
        };
        let size = match root.value("SZ") {
            None => default_size(game_number.unwrap_or(game_numbers::GO)),
            Some(text) => parse_size(text).ok_or_else(|| invalid(format!("bad SZ '{text}'")))?,
        };
        let mut record = Record::new(game_number.unwrap_or(game_numbers::GO), size);
        record.game_number = game_number;
        record.rules = root.value("RU").map(str::to_string);
        record.black_name = root.value("PB").map(str::to_string);
        record.white_name = root.value("PW").map(str::to_string);
        record.result = root.value("RE").map(str::to_string);
        record.comment = root.value("C").map(str::to_string);
        record.komi = root.value("KM").and_then(|k| k.trim().parse().ok());
        record.to_play = match root.value("PL") {
            None => None,
            Some(text) => Some(parse_color(text).ok_or_else(|| invalid(format!("bad PL '{text}'")))?),
        };
        for (name, color) in [("AB", Color::Black), ("AW", Color::White)] {
            if let Some(values) = root.values(name) {
                // Each cell at most once per colour: more points than cells is no position.
                let cells = record.size.0 * record.size.1;
                for point in parse_point_list(values, cells).map_err(invalid)? {
                    record.check_on_board(point).map_err(invalid)?;
                    record.setup.push((color, point));
                }
            }
        }
        for (index, node) in nodes.iter().enumerate() {
            if index > 0 && ["AB", "AW", "AE"].iter().any(|name| node.values(name).is_some()) {
                return Err(invalid(format!("set-up stones in node {index} (only the root may have them)")));
            }
            for (name, color) in [("B", Color::Black), ("W", Color::White)] {
                if let Some(value) = node.value(name) {
                    let mv = record.read_move(value).map_err(invalid)?;
                    record.moves.push((color, mv));
                }
            }
        }
        Ok(record)
    }

    /// Notes in the root comment that the first `count` moves were a referee's opening, not
    /// the players' choices (`ponder match` writes it; the move-prior fits skip those moves).
    pub fn mark_opening(&mut self, count: usize) {
        let line = format!("{OPENING_LINE}{count}");
        self.comment = Some(match self.comment.take() {
            Some(comment) if !comment.is_empty() => format!("{comment}\n{line}"),
            _ => line,
        });
    }

    /// How many first moves were an opening, as [`Record::mark_opening`] noted it.
    pub fn opening_moves(&self) -> Option<usize> {
        self.comment.as_deref()?.lines().find_map(|line| line.strip_prefix(OPENING_LINE)?.trim().parse().ok())
    }

    fn check_on_board(&self, (column, row): (usize, usize)) -> Result<(), String> {
        if column < self.size.0 && row < self.size.1 {
            Ok(())
        } else {
            Err(format!("point {} off the {}x{} board", format_point(column, row), self.size.0, self.size.1))
        }
    }

    fn read_move(&self, value: &str) -> Result<SgfMove, String> {
        let value = value.trim();
        if value.is_empty()
            || (self.game_number.unwrap_or(game_numbers::GO) == game_numbers::GO
                && value == "tt"
                && self.size.0.max(self.size.1) <= 19)
        {
            return Ok(SgfMove::Pass);
        }
        match parse_point(value) {
            Some(point) if value.bytes().all(|b| b.is_ascii_alphabetic()) => {
                self.check_on_board(point)?;
                Ok(SgfMove::Point { column: point.0, row: point.1 })
            }
            _ => Ok(SgfMove::Text(value.to_string())),
        }
    }

    /// The record as an SGF FF[4] text: one game tree, no variations.
    pub fn to_sgf(&self) -> String {
        let mut root = Node::default();
        root.push("FF", "4");
        if let Some(game_number) = self.game_number {
            root.push("GM", game_number.to_string());
        }
        root.push("CA", "UTF-8");
        root.push("AP", format!("ponder:{}", env!("CARGO_PKG_VERSION")));
        if let Some(rules) = &self.rules {
            root.push("RU", rules.clone());
        }
        let (width, height) = self.size;
        root.push("SZ", if width == height { width.to_string() } else { format!("{width}:{height}") });
        for (name, value) in [("PB", &self.black_name), ("PW", &self.white_name), ("RE", &self.result)] {
            if let Some(value) = value {
                root.push(name, value.clone());
            }
        }
        if let Some(komi) = self.komi {
            root.push("KM", komi.to_string());
        }
        if let Some(comment) = &self.comment {
            root.push("C", comment.clone());
        }
        for (name, color) in [("AB", Color::Black), ("AW", Color::White)] {
            let points: Vec<String> = self
                .setup
                .iter()
                .filter(|(c, _)| *c == color)
                .map(|&(_, (column, row))| format_point(column, row))
                .collect();
            if !points.is_empty() {
                root.properties.push(Property { name: name.to_string(), values: points });
            }
        }
        if let Some(color) = self.to_play {
            root.push("PL", color.letter().to_string());
        }
        let mut nodes = vec![root];
        for (color, mv) in &self.moves {
            let mut node = Node::default();
            let value = match mv {
                SgfMove::Point { column, row } => format_point(*column, *row),
                SgfMove::Pass => String::new(),
                SgfMove::Text(text) => text.clone(),
            };
            node.push(&color.letter().to_string(), value);
            nodes.push(node);
        }
        write_main_line(&nodes)
    }
}

fn parse_color(text: &str) -> Option<Color> {
    match text.trim().to_ascii_uppercase().as_str() {
        "B" | "BLACK" => Some(Color::Black),
        "W" | "WHITE" => Some(Color::White),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_line_follows_first_variations() {
        let nodes = parse_main_line("junk (;GM[1]SZ[9];B[aa](;W[bb];B[cc])(;W[dd]))(;GM[2])").unwrap();
        let moves: Vec<_> = nodes[1..].iter().map(|n| n.properties[0].values[0].clone()).collect();
        assert_eq!(moves, ["aa", "bb", "cc"]);
        assert_eq!(nodes[0].value("SZ"), Some("9"));
    }

    #[test]
    fn a_collection_splits_into_its_game_trees() {
        let text = "junk (;GM[4]C[a ( in a comment];B[hh](;W[ii])(;W[jj]))\n\n(;GM[4]C[an escaped \\] ) here];B[aa])\n(;GM[4];B[bb]";
        let trees = game_trees(text);
        assert_eq!(
            trees,
            [
                "(;GM[4]C[a ( in a comment];B[hh](;W[ii])(;W[jj]))",
                "(;GM[4]C[an escaped \\] ) here];B[aa])",
                "(;GM[4];B[bb]"
            ]
        );
        assert_eq!(parse_main_line(trees[1]).unwrap()[0].value("C"), Some("an escaped ] ) here"));
        // The unclosed last tree is left for the parser to refuse.
        assert_eq!(parse_main_line(trees[2]).unwrap_err().reason, "game tree not closed");
        assert!(game_trees("no tree at all").is_empty());
    }

    #[test]
    fn an_opening_mark_survives_the_file_and_keeps_the_comment() {
        let mut record = Record::new(game_numbers::HEX, (5, 5));
        assert_eq!(record.opening_moves(), None);
        record.mark_opening(0);
        assert_eq!(Record::from_sgf(&record.to_sgf()).unwrap().opening_moves(), Some(0));
        record.comment = Some("resignation".to_string());
        record.mark_opening(2);
        let read = Record::from_sgf(&record.to_sgf()).unwrap();
        assert_eq!(read.opening_moves(), Some(2));
        assert_eq!(read.comment.as_deref(), Some("resignation\nopening moves: 2"));
        record.comment = Some("opening moves: many".to_string());
        assert_eq!(record.opening_moves(), None);
    }

    #[test]
    fn values_are_unescaped_and_soft_breaks_vanish() {
        let nodes = parse_main_line("(;C[a \\] b \\\\ c\\\nd]PB[x]\n)").unwrap();
        assert_eq!(nodes[0].value("C"), Some("a ] b \\ cd"));
        let nodes = parse_main_line("(;AddBlack[aa][bb])").unwrap();
        assert_eq!(nodes[0].values("AB").unwrap(), ["aa", "bb"]);
    }

    #[test]
    fn malformed_texts_are_errors_not_panics() {
        for text in ["", "no tree", "(", "(;", "(;B[aa", "(;B)", "(;B[aa]x)", "(;;B[aa]", "()", "((((("] {
            assert!(parse_main_line(text).is_err(), "{text:?} parsed");
        }
        assert!(parse_main_line(&"(".repeat(100_000)).is_err());
        assert!(Record::from_sgf("(;SZ[0])").is_err());
        assert!(Record::from_sgf("(;SZ[3];B[dd])").is_err());
        assert!(Record::from_sgf("(;GM[x])").is_err());
        assert!(Record::from_sgf("(;SZ[3];B[aa];AB[bb])").is_err());
    }

    #[test]
    fn typed_record_reads_sizes_setup_and_moves() {
        let record =
            Record::from_sgf("(;FF[4]GM[1]SZ[7:5]AB[aa:bb]AW[cc]PL[W];W[dd];B[];W[tt];B[swap-pieces])").unwrap();
        assert_eq!(record.size, (7, 5));
        assert_eq!(record.setup.len(), 5);
        assert_eq!(record.setup[4], (Color::White, (2, 2)));
        assert_eq!(record.to_play, Some(Color::White));
        assert_eq!(
            record.moves,
            [
                (Color::White, SgfMove::Point { column: 3, row: 3 }),
                (Color::Black, SgfMove::Pass),
                (Color::White, SgfMove::Pass),
                (Color::Black, SgfMove::Text("swap-pieces".into())),
            ]
        );
        assert_eq!(Record::from_sgf("(;GM[11])").unwrap().size, (11, 11));
    }

    #[test]
    fn records_round_trip() {
        let mut record = Record::new(game_numbers::GOMOKU, (3, 3));
        record.rules = Some("tictactoe k=3 misere=0".into());
        record.black_name = Some("ponder [0.1]".into());
        record.white_name = Some("back\\slash".into());
        record.result = Some("B+".into());
        record.comment = Some("three in a row".into());
        record.setup = vec![(Color::Black, (0, 0)), (Color::White, (1, 1))];
        record.to_play = Some(Color::Black);
        record.moves = (0..25)
            .map(|i| {
                let color = if i % 2 == 0 { Color::Black } else { Color::White };
                let mv = match i % 5 {
                    0 => SgfMove::Pass,
                    1 => SgfMove::Text("swap-pieces".into()),
                    _ => SgfMove::Point { column: i % 3, row: (i / 3) % 3 },
                };
                (color, mv)
            })
            .collect();
        let text = record.to_sgf();
        assert!(text.starts_with("(;FF[4]GM[4]"), "{text}");
        assert!(text.contains("SZ[3]") && text.contains("PB[ponder [0.1\\]]"), "{text}");
        assert_eq!(Record::from_sgf(&text).unwrap(), record);
        let mut wide = Record::new(game_numbers::GO, (7, 6));
        wide.moves.push((Color::Black, SgfMove::Point { column: 6, row: 5 }));
        let text = wide.to_sgf();
        assert!(text.contains("SZ[7:6]") && text.contains(";B[gf]"), "{text}");
        assert_eq!(Record::from_sgf(&text).unwrap(), wide);
    }

    #[test]
    fn points_cover_large_boards() {
        assert_eq!(format_point(0, 0), "aa");
        assert_eq!(format_point(27, 3), "Bd");
        assert_eq!(parse_point("Bd"), Some((27, 3)));
        assert_eq!(parse_point("a"), None);
        assert_eq!(parse_point("a1"), None);
    }
}
