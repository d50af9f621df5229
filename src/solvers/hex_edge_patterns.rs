//! Edge patterns: a stone on the second to fourth row joined to its edge, by itself (an edge
//! template) or by a second-row ladder that runs to one of the player's stones further along
//! the edge (its *escape*), with the empty cells each connection needs.
//!
//! H-search derives the small templates itself, but it rarely derives a ladder that starts from
//! a stone whose template the opponent has cut: the connection is an OR over long chains of
//! semis that its bounds drop. MoHex reads such connections from a pattern file; ponder makes its
//! own table (`ponder edge-patterns`, shipped as `weights/hex.edge-patterns`) by exact search
//! ([`EdgeConnectionSearch`]) in a window between the stone, the escape and the edge, with every
//! cell outside the window taken as the opponent's. Each pattern is therefore a proven full
//! connection on any board where its carrier holds no opponent stone and its stones are the
//! player's: cells outside it may hold anything.
//!
//! Patterns live in the *edge frame*: `y` counts rows away from the edge (0 is the row touching
//! it), `x` runs along it, and the neighbours of `(x, y)` are those of the board's cells
//! ([`NEIGHBOUR_OFFSETS`]). Each of the four edges maps onto this frame by a symmetry of the
//! board; the reflection `(dx, dy) -> (-dx - dy, dy)` gives each pattern's mirror image.
//!
//! H-search ([`super::hex_vc::VcEngine::use_edge_patterns`]) starts from them as from adjacency:
//! for every stone or empty cell of the player (an empty cell as if the player held it) where a
//! pattern fits, with its escape the player's and its carrier free of the opponent's stones, a
//! full connection between the cell's node and the edge whose carrier is the pattern's empty
//! cells.
//!
//! A few patterns end at a *target* instead: an empty cell further along the second row, taken
//! as the player's, which the ladder reaches unless it reaches the edge first. With the player's
//! stone on the second row and one of its two edge cells already the opponent's, the other edge
//! cell and the cell between it and the target two cells on make such a pattern: an intrusion
//! at one is answered at the other. MoHex's pattern file has these ladders (to any length) and
//! its H-search reads them as plain connections of the two cells; they are not, because the
//! opponent may let the ladder reach the edge and cut elsewhere. H-search here keeps them as
//! *tainted* connections, which claim "joined, or the start's side reaches this edge", and
//! trusts a chain of them only where that edge is the chain's other end. Only the two-cell
//! ladders are made: the longer ones decide more positions with no work limit, but cost more
//! than the tree's knowledge budget allows (see `weights/README.md`).
//!
//! # File format (`weights/hex.edge-patterns`, text, version 2)
//!
//! A first comment line (lines starting with `#` are comments), then one pattern a line:
//!
//! ```text
//! <stone row: 0 touches the edge> <escape dx,dy, @target dx,dy, or -> <carrier cells dx,dy ...>
//! ```
//!
//! for example `1 - 0,-1 1,-1` (a second-row stone and the two cells joining it to the edge) or
//! `1 @2,0 0,-1 1,0` (the same stone joined to the second-row cell two along, or to the edge).
//! Offsets are from the stone; `dy < 0` is towards the edge. Both mirror images are listed.
//! `ponder edge-patterns --game hex --out FILE` writes the table; the same command writes the
//! same bytes (the search is deterministic), which CI checks.

use std::sync::OnceLock;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::games::Color;
use crate::games::hex::NEIGHBOUR_OFFSETS;
use crate::solvers::hex_vc::BoardGeometry;

/// The shipped table, made by `ponder edge-patterns --game hex` (see `weights/README.md`).
static EMBEDDED_TABLE: &str = include_str!("../../weights/hex.edge-patterns");

/// Rows (edge-frame `y`) of the stones the patterns start from: the second to fourth row.
const STONE_ROWS: std::ops::RangeInclusive<i32> = 1..=3;

/// How far along the edge an escape may lie from the stone (either way, after mirroring).
const ESCAPE_REACH: i32 = 9;

/// Rows of the escape stones: the first two, and the third and fourth (with their templates)
/// below the stone's own row.
const ESCAPE_ROWS: std::ops::RangeInclusive<i32> = 0..=3;

/// One proven connection from a stone to its edge, relative to the stone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EdgePattern {
    /// The stone's row in the edge frame (0 touches the edge).
    pub stone_row: i32,
    /// The escape stone, `(dx, dy)` from the stone, if the connection needs one.
    pub escape: Option<(i32, i32)>,
    /// The ladder's target, `(dx, dy)` from the stone: an empty second-row cell, taken as the
    /// player's, that the ladder reaches when it does not reach the edge first (see the module
    /// docs). A pattern has an escape or a target, not both.
    pub target: Option<(i32, i32)>,
    /// The empty cells the connection needs, `(dx, dy)` from the stone, sorted.
    pub carrier: Vec<(i32, i32)>,
}

impl EdgePattern {
    /// The mirror image across the line through the stone at right angles to the edge.
    fn mirrored(&self) -> EdgePattern {
        let mirror = |(dx, dy): (i32, i32)| (-dx - dy, dy);
        let mut carrier: Vec<(i32, i32)> = self.carrier.iter().map(|&cell| mirror(cell)).collect();
        carrier.sort_unstable();
        EdgePattern {
            stone_row: self.stone_row,
            escape: self.escape.map(mirror),
            target: self.target.map(mirror),
            carrier,
        }
    }
}

/// A window of edge-frame cells (at most 64) with its adjacency.
struct Window {
    cells: Vec<(i32, i32)>,
    index: FxHashMap<(i32, i32), usize>,
    adjacent: Vec<u64>,
    /// The cells of the row touching the edge.
    edge_row: u64,
    all: u64,
}

impl Window {
    /// A window of `cells` relative to the stone, whose row `edge_dy` touches the edge.
    fn new(cells: Vec<(i32, i32)>, edge_dy: i32) -> Window {
        assert!(cells.len() <= 64, "edge pattern windows hold at most 64 cells");
        let index: FxHashMap<(i32, i32), usize> = cells.iter().enumerate().map(|(i, &cell)| (cell, i)).collect();
        let adjacent = cells
            .iter()
            .map(|&(x, y)| {
                NEIGHBOUR_OFFSETS
                    .iter()
                    .filter_map(|&(dx, dy)| index.get(&(x + dx, y + dy)))
                    .fold(0u64, |set, &i| set | 1 << i)
            })
            .collect();
        let edge_row =
            cells.iter().enumerate().filter(|&(_, &(_, dy))| dy == edge_dy).fold(0, |set, (i, _)| set | 1 << i);
        let all = if cells.len() == 64 { u64::MAX } else { (1 << cells.len()) - 1 };
        Window { cells, index, adjacent, edge_row, all }
    }

    fn bit(&self, cell: (i32, i32)) -> u64 {
        1 << self.index[&cell]
    }

    /// Every cell next to a cell of `set`.
    fn neighbours_of(&self, set: u64) -> u64 {
        let mut out = 0;
        let mut rest = set;
        while rest != 0 {
            out |= self.adjacent[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        out
    }

    fn flood(&self, seed: u64, through: u64) -> u64 {
        let mut group = seed & through;
        let mut frontier = group;
        while frontier != 0 {
            let grown = self.neighbours_of(frontier) & through & !group;
            group |= grown;
            frontier = grown;
        }
        group
    }

    fn set_of(&self, set: u64) -> Vec<(i32, i32)> {
        let mut cells: Vec<(i32, i32)> =
            (0..self.cells.len()).filter(|&i| set >> i & 1 != 0).map(|i| self.cells[i]).collect();
        cells.sort_unstable();
        cells
    }
}

/// The outcome of an [`EdgeConnectionSearch`] question, each with its carrier: the empty cells
/// the winner's strategy uses. The player's win holds whatever the other cells hold; so does
/// the opponent's cut, a wall between the stone and the edge, which the player's stones outside
/// it cannot cross.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Joins(u64),
    Cut(u64),
}

/// Exact search of one question in a window: can the player join the `source` stone to the
/// edge, every cell outside the window being the opponent's? Both sides narrow their moves by
/// the carriers of the strategies that refuted their earlier ones: a move outside such a
/// carrier leaves that strategy intact (proof sets, as Hex solvers use them).
struct EdgeConnectionSearch<'a> {
    window: &'a Window,
    source: u64,
    /// Cells of the player's that count as the edge (a ladder's target), or 0.
    target: u64,
    /// Per (player's stones, opponent's stones, player to move): the verdict.
    memo: FxHashMap<(u64, u64, bool), Verdict>,
}

impl<'a> EdgeConnectionSearch<'a> {
    fn new(window: &'a Window, source: u64) -> EdgeConnectionSearch<'a> {
        EdgeConnectionSearch::with_target(window, source, 0)
    }

    /// A search in which joining the source to a stone of `target` also wins.
    fn with_target(window: &'a Window, source: u64, target: u64) -> EdgeConnectionSearch<'a> {
        EdgeConnectionSearch { window, source, target, memo: FxHashMap::default() }
    }

    /// The verdict with the player's stones `own`, the opponent's `theirs`, and the player or
    /// the opponent to move.
    fn solve(&mut self, own: u64, theirs: u64, player_to_move: bool) -> Verdict {
        let goal = self.window.edge_row | self.target;
        if self.window.flood(self.source, own) & goal != 0 {
            return Verdict::Joins(0);
        }
        // The cells joined to the source through cells the opponent does not hold: if they miss
        // the edge, the opponent's wall is already there.
        let region = self.window.flood(self.source, self.window.all & !theirs);
        if region & goal == 0 {
            return Verdict::Cut(0);
        }
        if let Some(&known) = self.memo.get(&(own, theirs, player_to_move)) {
            return known;
        }
        let mut candidates = region & !own;
        let mut loser_carrier = 0;
        let verdict = loop {
            if candidates == 0 {
                // Every move of the side to move was refuted.
                break if player_to_move { Verdict::Cut(loser_carrier) } else { Verdict::Joins(loser_carrier) };
            }
            let cell = self.most_urgent(candidates, own);
            let bit = 1 << cell;
            candidates &= !bit;
            match (player_to_move, self.solve_after(own, theirs, player_to_move, bit)) {
                (true, Verdict::Joins(carrier)) => break Verdict::Joins(carrier | bit),
                (false, Verdict::Cut(carrier)) => break Verdict::Cut(carrier | bit),
                (_, Verdict::Joins(carrier) | Verdict::Cut(carrier)) => {
                    loser_carrier |= carrier;
                    candidates &= carrier;
                }
            }
        };
        self.memo.insert((own, theirs, player_to_move), verdict);
        verdict
    }

    fn solve_after(&mut self, own: u64, theirs: u64, player_moved: bool, bit: u64) -> Verdict {
        if player_moved { self.solve(own | bit, theirs, false) } else { self.solve(own, theirs | bit, true) }
    }

    /// The carrier of the player's win with the opponent to move, or `None`.
    fn joins_against_intrusions(&mut self, own: u64, theirs: u64) -> Option<u64> {
        match self.solve(own, theirs, false) {
            Verdict::Joins(carrier) => Some(carrier),
            Verdict::Cut(_) => None,
        }
    }

    /// Move ordering for both sides: cells next to the source's group first, then those
    /// nearest the edge.
    fn most_urgent(&self, candidates: u64, own: u64) -> usize {
        let liberties = self.window.neighbours_of(self.window.flood(self.source, own));
        let near = candidates & liberties;
        let pool = if near != 0 { near } else { candidates };
        let mut best = pool.trailing_zeros() as usize;
        let mut rest = pool;
        while rest != 0 {
            let cell = rest.trailing_zeros() as usize;
            if self.window.cells[cell].1 < self.window.cells[best].1 {
                best = cell;
            }
            rest &= rest - 1;
        }
        best
    }
}

/// The window searched for a stone on row `stone_row` with an escape at `escape` (relative):
/// the two rows next to the edge from a little before the stone to a little past the escape,
/// and the rows above them near the stone.
fn window_cells(stone_row: i32, escape: Option<(i32, i32)>) -> Vec<(i32, i32)> {
    // The escape's row, and the far end of its cone on the edge row.
    let (escape_row, low, high) = match escape {
        Some((dx, dy)) => (stone_row + dy, (-stone_row - 1).min(dx - 1), (stone_row + 1).max(dx + stone_row + dy + 1)),
        None => (0, -stone_row - 1, stone_row + 1),
    };
    let mut cells = Vec::new();
    for y in 0..=stone_row.max(escape_row) {
        let dy = y - stone_row;
        for dx in low..=high {
            // Rows 0 and 1 run the whole length; higher rows stay within a cell of the cones
            // below the stone (dx in [0, -dy]) and the escape.
            let near_stone = dy <= 0 && dx >= -1 && dx <= -dy + 1;
            let near_escape = escape.is_some_and(|(ex, ey)| dy <= ey && dx >= ex - 1 && dx <= ex + (ey - dy) + 1);
            if y <= 1 || near_stone || near_escape {
                cells.push((dx, dy));
            }
        }
    }
    cells
}

/// Connections found for one stone row and escape: the carrier of the player's win with the
/// opponent to move, made minimal, and further ones that avoid one cell of it, each made
/// minimal too. Connections that hold without the escape are left to the escape-free patterns.
fn patterns_for(stone_row: i32, escape: Option<(i32, i32)>) -> Vec<EdgePattern> {
    ladder_patterns(stone_row, escape, None)
}

/// Connections found for one stone row and a ladder's target cell (see the module docs),
/// made as [`patterns_for`] makes them: those that hold without the target are left out, and
/// so are those that never reach the edge, plain connections of the two cells that H-search
/// derives itself.
fn target_patterns(stone_row: i32, target: (i32, i32)) -> Vec<EdgePattern> {
    ladder_patterns(stone_row, None, Some(target))
        .into_iter()
        .filter(|pattern| pattern.carrier.iter().any(|&(_, dy)| stone_row + dy == 0))
        .collect()
}

/// The patterns of a stone on `stone_row` with an escape stone, a target cell or neither.
fn ladder_patterns(stone_row: i32, escape: Option<(i32, i32)>, target: Option<(i32, i32)>) -> Vec<EdgePattern> {
    let window = Window::new(window_cells(stone_row, escape.or(target)), -stone_row);
    let stone = window.bit((0, 0));
    let target_bit = target.map_or(0, |cell| window.bit(cell));
    let own = stone | escape.map_or(0, |cell| window.bit(cell)) | target_bit;
    let solve = |own: u64, blocked: u64| {
        EdgeConnectionSearch::with_target(&window, stone, target_bit).joins_against_intrusions(own, blocked)
    };
    let solve_plain =
        |own: u64, blocked: u64| EdgeConnectionSearch::new(&window, stone).joins_against_intrusions(own, blocked);
    // Drops one cell at a time (everything outside the carrier taken as the opponent's), keeping
    // the smaller carrier of the strategy found whenever the connection still holds.
    let minimise = |mut carrier: u64| {
        for cell in 0..window.cells.len() {
            if carrier >> cell & 1 == 0 {
                continue;
            }
            let trial = carrier & !(1 << cell);
            if let Some(smaller) = solve(own, window.all & !own & !trial) {
                carrier = smaller;
            }
        }
        carrier
    };
    let mut carriers: Vec<u64> = Vec::new();
    let Some(first) = solve(own, 0) else { return Vec::new() };
    let first = minimise(first);
    carriers.push(first);
    for cell in 0..window.cells.len() {
        if first >> cell & 1 == 0 {
            continue;
        }
        if let Some(carrier) = solve(own, 1 << cell) {
            let carrier = minimise(carrier);
            if !carriers.contains(&carrier) {
                carriers.push(carrier);
            }
        }
    }
    carriers
        .into_iter()
        .filter(|&carrier| {
            carrier != 0
                && (escape.is_none() && target.is_none()
                    || solve_plain(stone, window.all & !stone & !carrier).is_none())
        })
        .map(|carrier| EdgePattern { stone_row, escape, target, carrier: window.set_of(carrier) })
        .collect()
}

/// The escapes, `(dx, dy)` from a stone on `stone_row`, that the generation tries: on one side
/// of the mirror axis (2 dx + dy = 0; the mirror gives the other), not next to the stone (such
/// a stone is part of its group).
fn escapes(stone_row: i32) -> impl Iterator<Item = (i32, i32)> {
    ESCAPE_ROWS.filter(move |&row| row <= 1 || row < stone_row).flat_map(move |escape_row| {
        let dy = escape_row - stone_row;
        ((-dy + 1) / 2..=ESCAPE_REACH)
            .map(move |dx| (dx, dy))
            .filter(|&(dx, dy)| !(dy.abs() <= 1 && (dx + dy).abs() <= 1 && dx.abs() <= 1))
    })
}

/// The ladder targets, `(dx, dy)` from a stone on `stone_row`, that the generation tries: the
/// second-row cell two along from a second-row stone (the mirror image gives the other side).
/// Longer ladders to targets, and targets of stones further out, were measured and left out:
/// see the module docs.
fn targets(stone_row: i32) -> impl Iterator<Item = (i32, i32)> {
    (stone_row == 1).then_some((2, 0)).into_iter()
}

/// Every pattern, both mirror images, without duplicates, in a fixed order.
pub fn generate_patterns() -> Vec<EdgePattern> {
    let mut patterns = Vec::new();
    for stone_row in STONE_ROWS {
        patterns.extend(patterns_for(stone_row, None));
        for escape in escapes(stone_row) {
            patterns.extend(patterns_for(stone_row, Some(escape)));
        }
        for target in targets(stone_row) {
            patterns.extend(target_patterns(stone_row, target));
        }
    }
    let mut seen = FxHashSet::default();
    let mut all = Vec::new();
    for pattern in patterns {
        for image in [pattern.mirrored(), pattern] {
            if seen.insert(image.clone()) {
                all.push(image);
            }
        }
    }
    all
}

/// The table's text: a comment line, then one pattern a line (see the module's file format).
pub fn format_table(patterns: &[EdgePattern]) -> String {
    let cell = |(dx, dy): (i32, i32)| format!("{dx},{dy}");
    let mut text = String::from(TABLE_HEADER);
    text.push('\n');
    for pattern in patterns {
        let escape = match (pattern.escape, pattern.target) {
            (Some(escape), _) => cell(escape),
            (None, Some(target)) => format!("@{}", cell(target)),
            (None, None) => "-".to_string(),
        };
        let carrier: Vec<String> = pattern.carrier.iter().map(|&c| cell(c)).collect();
        text.push_str(&format!("{} {} {}\n", pattern.stone_row, escape, carrier.join(" ")));
    }
    text
}

/// The first line of the table.
const TABLE_HEADER: &str = "# ponder hex edge patterns v2: stone_row escape|@target|- carrier cells (dx,dy from the stone; dy < 0 towards the edge)";

/// Reads the table's text.
///
/// # Errors
/// The first malformed line, by number and what is wrong with it.
pub fn parse_table(text: &str) -> Result<Vec<EdgePattern>, String> {
    let cell = |word: &str| -> Option<(i32, i32)> {
        let (dx, dy) = word.split_once(',')?;
        Some((dx.parse().ok()?, dy.parse().ok()?))
    };
    let mut patterns = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |what: &str| format!("line {}: {what}: {line}", index + 1);
        let mut words = line.split_whitespace();
        let stone_row: i32 = words.next().and_then(|w| w.parse().ok()).ok_or_else(|| bad("no stone row"))?;
        if !(1..=8).contains(&stone_row) {
            return Err(bad("stone row out of 1..=8"));
        }
        let (escape, target) = match words.next() {
            Some("-") => (None, None),
            Some(word) if word.starts_with('@') => {
                (None, Some(cell(&word[1..]).ok_or_else(|| bad("bad target cell"))?))
            }
            Some(word) => (Some(cell(word).ok_or_else(|| bad("bad escape cell"))?), None),
            None => return Err(bad("no escape")),
        };
        let carrier = words.map(|w| cell(w).ok_or_else(|| bad("bad carrier cell"))).collect::<Result<Vec<_>, _>>()?;
        let within =
            |&(dx, dy): &(i32, i32)| (dx, dy) != (0, 0) && (0..8).contains(&(stone_row + dy)) && dx.abs() <= 16;
        if carrier.is_empty()
            || !carrier.iter().all(within)
            || escape.is_some_and(|e| !within(&e))
            || target.is_some_and(|t| !within(&t))
        {
            return Err(bad("cells must lie on the first eight rows, within 16 cells of the stone along the edge"));
        }
        patterns.push(EdgePattern { stone_row, escape, target, carrier });
    }
    Ok(patterns)
}

/// The shipped patterns.
fn embedded() -> &'static [EdgePattern] {
    static PATTERNS: OnceLock<Vec<EdgePattern>> = OnceLock::new();
    PATTERNS.get_or_init(|| parse_table(EMBEDDED_TABLE).expect("the embedded edge-pattern table parses"))
}

/// One pattern placed on a board: for the player whose edge it is, the stone, the escape stone
/// or the ladder's target (if any), the edge (0: first, 1: second, as [`BoardGeometry::edges`])
/// and the carrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacedPattern {
    pub stone: usize,
    pub escape: Option<usize>,
    pub target: Option<usize>,
    pub edge: u8,
    pub carrier: u128,
}

/// Every placement of the shipped patterns on `geometry`'s board for `color`, by stone cell:
/// those whose cells all lie on the board.
pub fn placements(geometry: &BoardGeometry, color: Color) -> Vec<Vec<PlacedPattern>> {
    placements_of(embedded(), geometry, color)
}

fn placements_of(patterns: &[EdgePattern], geometry: &BoardGeometry, color: Color) -> Vec<Vec<PlacedPattern>> {
    let (width, height) = (geometry.width() as i32, geometry.height() as i32);
    let mut by_stone = vec![Vec::new(); geometry.cells()];
    for edge in 0..2u8 {
        // Board (column, row) of an edge-frame (x, y): a symmetry of the board per edge.
        let to_board = |x: i32, y: i32| -> (i32, i32) {
            match (color, edge) {
                (Color::Black, 0) => (x, y),
                (Color::Black, _) => (width - 1 - x, height - 1 - y),
                (Color::White, 0) => (y, x),
                (Color::White, _) => (width - 1 - y, height - 1 - x),
            }
        };
        let (frame_width, frame_height) = if color == Color::Black { (width, height) } else { (height, width) };
        let cell_at = |x: i32, y: i32| -> Option<usize> {
            let (column, row) = to_board(x, y);
            (column >= 0 && row >= 0 && column < width && row < height).then(|| (row * width + column) as usize)
        };
        for x in 0..frame_width {
            for pattern in patterns {
                let y = pattern.stone_row;
                if y >= frame_height {
                    continue;
                }
                let Some(stone) = cell_at(x, y) else { continue };
                let placed_cell = |offset: Option<(i32, i32)>| match offset {
                    Some((dx, dy)) => cell_at(x + dx, y + dy).map(Some),
                    None => Some(None),
                };
                let (Some(escape), Some(target)) = (placed_cell(pattern.escape), placed_cell(pattern.target)) else {
                    continue;
                };
                let carrier =
                    pattern.carrier.iter().try_fold(0u128, |set, &(dx, dy)| Some(set | 1 << cell_at(x + dx, y + dy)?));
                if let Some(carrier) = carrier {
                    by_stone[stone].push(PlacedPattern { stone, escape, target, edge, carrier });
                }
            }
        }
    }
    by_stone
}

/// `ponder edge-patterns --game hex --out FILE`: generates the table and writes it; returns
/// the report lines.
///
/// # Errors
/// The file could not be written.
pub fn run_edge_patterns(out: &std::path::Path) -> Result<Vec<String>, String> {
    let started = std::time::Instant::now();
    let patterns = generate_patterns();
    std::fs::write(out, format_table(&patterns)).map_err(|error| format!("{}: {error}", out.display()))?;
    let mut lines = Vec::new();
    for stone_row in STONE_ROWS {
        let of_row = patterns.iter().filter(|p| p.stone_row == stone_row);
        let (templates, ladders, targets) = of_row.fold((0, 0, 0), |(t, l, g), p| match (p.escape, p.target) {
            (Some(_), _) => (t, l + 1, g),
            (None, Some(_)) => (t, l, g + 1),
            (None, None) => (t + 1, l, g),
        });
        lines.push(format!(
            "row {}: {templates} templates, {ladders} with an escape, {targets} with a target",
            stone_row + 1
        ));
    }
    lines.push(format!("{} patterns in {:.1} s -> {}", patterns.len(), started.elapsed().as_secs_f64(), out.display()));
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Whether the player joins the stone to the edge by plain minimax (no carriers, no
    /// narrowing): the reference for the search.
    fn minimax_joins(window: &Window, source: u64, own: u64, theirs: u64, player_to_move: bool) -> bool {
        minimax_reaches(window, source, 0, own, theirs, player_to_move)
    }

    /// The same, the player's stones of `target` counting as the edge.
    fn minimax_reaches(window: &Window, source: u64, target: u64, own: u64, theirs: u64, player_to_move: bool) -> bool {
        if window.flood(source, own) & (window.edge_row | target) != 0 {
            return true;
        }
        let empty = window.all & !own & !theirs;
        if empty == 0 {
            return false;
        }
        let mut moves = (0..window.cells.len()).filter(|&cell| empty >> cell & 1 != 0);
        if player_to_move {
            moves.any(|cell| minimax_reaches(window, source, target, own | 1 << cell, theirs, false))
        } else {
            moves.all(|cell| minimax_reaches(window, source, target, own, theirs | 1 << cell, true))
        }
    }

    #[test]
    fn the_search_agrees_with_minimax_and_its_carriers_suffice() {
        // Random stones in the windows of a second- and a third-row stone: the verdict is
        // minimax's, a win still holds with every cell outside its carrier taken by the
        // opponent, and a cut still holds with every cell outside its carrier the player's.
        let mut rng = SmallRng::seed_from_u64(5);
        let (mut joins, mut cuts) = (0, 0);
        for (stone_row, escape) in [(1, None), (1, Some((3, 0))), (2, None)] {
            let window = Window::new(window_cells(stone_row, escape), -stone_row);
            let stone = window.bit((0, 0));
            assert!(window.cells.len() <= 20, "{} cells", window.cells.len());
            for _ in 0..150 {
                let mut own = stone | escape.map_or(0, |cell| window.bit(cell));
                let mut theirs = 0;
                for cell in 0..window.cells.len() {
                    if own >> cell & 1 == 0 {
                        match rng.random_range(0..4) {
                            0 => own |= 1 << cell,
                            1 => theirs |= 1 << cell,
                            _ => {}
                        }
                    }
                }
                for player_to_move in [false, true] {
                    let mut search = EdgeConnectionSearch::new(&window, stone);
                    let verdict = search.solve(own, theirs, player_to_move);
                    let expected = minimax_joins(&window, stone, own, theirs, player_to_move);
                    let free = window.all & !own & !theirs;
                    match verdict {
                        Verdict::Joins(carrier) => {
                            assert!(expected, "{own:b} {theirs:b} {player_to_move}");
                            assert_eq!(carrier & !free, 0);
                            let outside = free & !carrier;
                            assert!(minimax_joins(&window, stone, own, theirs | outside, player_to_move));
                            joins += 1;
                        }
                        Verdict::Cut(carrier) => {
                            assert!(!expected, "{own:b} {theirs:b} {player_to_move}");
                            assert_eq!(carrier & !free, 0);
                            let outside = free & !carrier;
                            assert!(!minimax_joins(&window, stone, own | outside, theirs, player_to_move));
                            cuts += 1;
                        }
                    }
                }
            }
        }
        assert!(joins > 100 && cuts > 50, "{joins} joins, {cuts} cuts");
    }

    #[test]
    fn generated_patterns_are_minimal_and_need_their_escape() {
        // The second-row stone's patterns: each joins with its carrier alone, loses the join
        // when any carrier cell is taken, and (with an escape) fails without the escape.
        let patterns: Vec<EdgePattern> = std::iter::once(None)
            .chain((2..=5).map(|dx| Some((dx, 0))))
            .flat_map(|escape| patterns_for(1, escape))
            .collect();
        assert!(
            patterns.iter().any(|p| p.escape.is_none()) && patterns.iter().filter(|p| p.escape.is_some()).count() >= 4
        );
        for pattern in &patterns {
            let window = Window::new(window_cells(1, pattern.escape), -1);
            let stone = window.bit((0, 0));
            let escape = pattern.escape.map_or(0, |cell| window.bit(cell));
            let carrier = pattern.carrier.iter().fold(0, |set, &cell| set | window.bit(cell));
            let joins = |own: u64, carrier: u64| {
                EdgeConnectionSearch::new(&window, stone)
                    .joins_against_intrusions(own, window.all & !own & !carrier)
                    .is_some()
            };
            assert!(joins(stone | escape, carrier), "{pattern:?}");
            for cell in pattern.carrier.iter().map(|&cell| window.bit(cell)) {
                assert!(!joins(stone | escape, carrier & !cell), "{pattern:?} without {cell:b}");
            }
            if escape != 0 {
                assert!(!joins(stone, carrier), "{pattern:?} without its escape");
            }
        }
        // The second-row ladder to a second-row escape three cells on: the ladder's two rows.
        let ladder = patterns.iter().find(|p| p.escape == Some((3, 0))).unwrap();
        assert!(ladder.carrier.iter().all(|&(_, dy)| dy == -1 || dy == 0), "{ladder:?}");
    }

    #[test]
    fn ladders_to_a_target_hold_by_minimax_and_need_the_edge_and_the_target() {
        // The second-row stone whose edge cell on one side is the opponent's: the other edge
        // cell and the cell towards the target two along answer each other.
        let patterns = target_patterns(1, (2, 0));
        let mut carriers: Vec<&[(i32, i32)]> = patterns.iter().map(|p| p.carrier.as_slice()).collect();
        carriers.sort_unstable();
        assert_eq!(carriers, [&[(0, -1), (1, 0)][..], &[(1, -1), (1, 0)][..]], "{patterns:?}");
        let window = Window::new(window_cells(1, Some((2, 0))), -1);
        let (stone, target) = (window.bit((0, 0)), window.bit((2, 0)));
        for pattern in &patterns {
            let carrier = pattern.carrier.iter().fold(0, |set, &cell| set | window.bit(cell));
            let theirs = window.all & !stone & !target & !carrier;
            // With the opponent to move, every cell outside the carrier the opponent's: the
            // stone reaches the target (the player's) or the edge.
            assert!(minimax_reaches(&window, stone, target, stone | target, theirs, false), "{pattern:?}");
            // Not without the target, nor without the edge (the target alone does not join it).
            assert!(!minimax_reaches(&window, stone, 0, stone, theirs, false), "{pattern:?}");
            let no_edge = Window { edge_row: 0, ..Window::new(window.cells.clone(), -1) };
            assert!(!minimax_reaches(&no_edge, stone, target, stone | target, theirs, false), "{pattern:?}");
        }
        // Stones further out have no target patterns.
        assert_eq!(targets(2).count() + targets(3).count(), 0);
    }

    #[test]
    fn the_table_format_round_trips_and_refuses_bad_lines() {
        let patterns = parse_table(EMBEDDED_TABLE).unwrap();
        assert!(patterns.len() > 200, "{} patterns", patterns.len());
        assert_eq!(format_table(&patterns), EMBEDDED_TABLE);
        assert_eq!(parse_table("2 - 0,-1 1,-1\n").unwrap()[0].carrier, vec![(0, -1), (1, -1)]);
        assert_eq!(parse_table("x - 0,-1").unwrap_err(), "line 1: no stone row: x - 0,-1");
        assert_eq!(parse_table("# c\n2").unwrap_err(), "line 2: no escape: 2");
        assert_eq!(parse_table("2 1;0 0,-1").unwrap_err(), "line 1: bad escape cell: 2 1;0 0,-1");
        let ladder = &parse_table("1 @2,0 0,-1 1,0").unwrap()[0];
        assert_eq!((ladder.escape, ladder.target), (None, Some((2, 0))));
        assert_eq!(parse_table("1 @2 0,-1").unwrap_err(), "line 1: bad target cell: 1 @2 0,-1");
        assert!(
            patterns.iter().any(|p| p.target.is_some())
                && format_table(std::slice::from_ref(ladder)).ends_with("1 @2,0 0,-1 1,0\n")
        );
        assert_eq!(
            parse_table("2 - 0,-3").unwrap_err(),
            "line 1: cells must lie on the first eight rows, within 16 cells of the stone along the edge: 2 - 0,-3"
        );
        assert_eq!(
            parse_table("2 -").unwrap_err(),
            "line 1: cells must lie on the first eight rows, within 16 cells of the stone along the edge: 2 -"
        );
    }

    /// The generation's cost per stone row and escape:
    /// `cargo test --release --lib hex_edge_patterns::tests::generation_cost -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn generation_cost() {
        let start = std::time::Instant::now();
        for stone_row in STONE_ROWS {
            let t = std::time::Instant::now();
            let templates = patterns_for(stone_row, None);
            eprintln!("row {stone_row}: {} templates in {:?}", templates.len(), t.elapsed());
            for (dx, dy) in escapes(stone_row) {
                let t = std::time::Instant::now();
                let found = patterns_for(stone_row, Some((dx, dy)));
                let sizes: Vec<usize> = found.iter().map(|p| p.carrier.len()).collect();
                let window = window_cells(stone_row, Some((dx, dy))).len();
                eprintln!("row {stone_row} escape ({dx},{dy}) window {window}: {sizes:?} in {:?}", t.elapsed());
            }
        }
        eprintln!("total {:?}", start.elapsed());
    }
}
