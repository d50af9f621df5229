//! An exact Hex solver: depth-first proof-number search (Nagai's df-pn with the 1+ε
//! threshold trick) over a transposition table, with move pruning from Hex theory.
//!
//! Every node is first evaluated statically, for the side to move P against the opponent O:
//!
//! 1. P wins at once if one stone joins P's two edges.
//! 2. P loses if O has two such winning cells; with one, P must block it.
//! 3. A *virtual connection* (VC) decides the game: P loses if O's groups already join O's
//!    edges through a chain of links — two groups, or a group and its edge row, with two
//!    common empty neighbours (bridges, the second-row edge template and their group-level
//!    versions) — whose carriers (those pairs of cells) are pairwise disjoint, since O answers
//!    every intrusion in the same link; P wins if P has one.
//! 4. The *must-play region*: for each empty cell c after which O would hold such a VC (a
//!    threat), P must play in c or in that VC's carrier, or O plays c and wins. P's moves are the
//!    intersection of all these regions; an empty intersection is a loss.
//!
//! The VC finder ([`bridge_chain_carrier`]) is deliberately simple — no AND/OR closure as in
//! H-search, no deeper edge templates — so it misses many VCs, but every VC it reports is real,
//! so the pruning is sound. Children get the initial disproof number |must-play region|, which
//! steers the search to forcing moves.
//!
//! Boards up to 128 cells (11x11) are solved on `u128` bitboards; larger ones are refused.

use crate::games::hex::{Cell, Hex, HexMove, NEIGHBOUR_OFFSETS};
use crate::games::{Color, Game};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Limits of one solve.
#[derive(Clone, Copy, Debug)]
pub struct SolveOptions<'a> {
    /// Stop with [`SolveValue::Unknown`] after this many node expansions.
    pub node_limit: u64,
    /// Stop with [`SolveValue::Unknown`] soon after this flag becomes true (polled every few
    /// thousand nodes).
    pub stop: Option<&'a AtomicBool>,
}

impl Default for SolveOptions<'_> {
    /// No node limit, no stop flag.
    fn default() -> Self {
        SolveOptions { node_limit: u64::MAX, stop: None }
    }
}

/// The game-theoretic value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveValue {
    /// The side to move wins, for example with this move.
    Win(HexMove),
    /// The side to move loses whatever it plays (or the game is already lost).
    Loss,
    /// Not proven: stopped, node limit reached, or the board is larger than 128 cells.
    Unknown,
}

/// What [`solve`] found, and at what cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveResult {
    pub value: SolveValue,
    /// Nodes expanded (statically evaluated positions).
    pub nodes: u64,
}

/// The largest number of cells the solver handles (11x11 = 121 fits).
pub const MAX_SOLVER_CELLS: usize = 128;

/// Solves `position` for the side to move. A legal swap at the root is tried as well: White
/// wins with [`HexMove::Swap`] when Black loses the swapped position. A finished game is a
/// `Loss` for the side to move (the other side has connected).
pub fn solve(position: &Hex, options: &SolveOptions) -> SolveResult {
    if position.outcome().is_some() {
        return SolveResult { value: SolveValue::Loss, nodes: 0 };
    }
    if position.width() * position.height() > MAX_SOLVER_CELLS {
        return SolveResult { value: SolveValue::Unknown, nodes: 0 };
    }
    let mut nodes = 0;
    if position.swap_is_legal() {
        let mut swapped = position.clone();
        swapped.play_unchecked(HexMove::Swap);
        let after_swap = solve_cells(&swapped, options);
        nodes += after_swap.nodes;
        match after_swap.value {
            SolveValue::Loss => {
                return SolveResult { value: SolveValue::Win(HexMove::Swap), nodes };
            }
            SolveValue::Unknown => {
                return SolveResult { value: SolveValue::Unknown, nodes };
            }
            SolveValue::Win(_) => {}
        }
    }
    let result = solve_cells(position, options);
    SolveResult { value: result.value, nodes: nodes + result.nodes }
}

/// Solves a position in which only stones can be played (no swap).
fn solve_cells(position: &Hex, options: &SolveOptions) -> SolveResult {
    let geometry = Geometry::new(position.width(), position.height());
    let mut stones = [0u128; 2];
    for color in [Color::Black, Color::White] {
        for index in position.stones(color).iter() {
            stones[color.index()] |= 1 << index;
        }
    }
    let root = State { stones, to_move: position.to_move() };
    let mut solver = Solver::new(&geometry, options);
    let value = solver.solve_root(root);
    SolveResult { value, nodes: solver.nodes }
}

/// Board shape and precomputed masks for one board size.
struct Geometry {
    all: u128,
    /// Per colour: (first edge row or column, second edge row or column).
    edges: [(u128, u128); 2],
    /// Per cell: on-board neighbours.
    adjacent: Vec<u128>,
}

impl Geometry {
    fn new(width: usize, height: usize) -> Geometry {
        let cells = width * height;
        let all = if cells == 128 { u128::MAX } else { (1u128 << cells) - 1 };
        let on_board = |c: i32, r: i32| c >= 0 && r >= 0 && (c as usize) < width && (r as usize) < height;
        let index = |c: i32, r: i32| r as usize * width + c as usize;
        let mut adjacent = vec![0u128; cells];
        let mut top = 0u128;
        let mut bottom = 0u128;
        let mut left = 0u128;
        let mut right = 0u128;
        for cell in 0..cells {
            let (c, r) = ((cell % width) as i32, (cell / width) as i32);
            for &(dc, dr) in &NEIGHBOUR_OFFSETS {
                if on_board(c + dc, r + dr) {
                    adjacent[cell] |= 1 << index(c + dc, r + dr);
                }
            }
            if r == 0 {
                top |= 1 << cell;
            }
            if r as usize == height - 1 {
                bottom |= 1 << cell;
            }
            if c == 0 {
                left |= 1 << cell;
            }
            if c as usize == width - 1 {
                right |= 1 << cell;
            }
        }
        Geometry { all, edges: [(top, bottom), (left, right)], adjacent }
    }

    /// Every cell next to a cell of `set`.
    fn neighbours_of(&self, set: u128) -> u128 {
        let mut out = 0;
        let mut rest = set;
        while rest != 0 {
            out |= self.adjacent[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        out
    }

    /// The cells of `own` joined to `seed` through `own`.
    fn flood(&self, seed: u128, own: u128) -> u128 {
        let mut group = seed & own;
        let mut frontier = group;
        while frontier != 0 {
            let grown = self.neighbours_of(frontier) & own & !group;
            group |= grown;
            frontier = grown;
        }
        group
    }

    /// Empty cells where one `color` stone joins `color`'s two edges.
    fn winning_cells(&self, color: Color, own: u128, empty: u128) -> u128 {
        let (first, second) = self.edges[color.index()];
        let first_group = self.flood(first, own);
        let second_group = self.flood(second, own);
        let first_reach = (self.neighbours_of(first_group) | first) & empty;
        let second_reach = (self.neighbours_of(second_group) | second) & empty;
        first_reach & second_reach
    }
}

/// The two lowest cells of `set`, or `None` when it has fewer than two.
fn two_cells(set: u128) -> Option<u128> {
    let first = set & set.wrapping_neg();
    let rest = set & !first;
    (rest != 0).then(|| first | (rest & rest.wrapping_neg()))
}

/// The empty cells that keep `own`'s stones joined to both of `color`'s edges, or `None` when
/// no such chain is found. Links are between groups (maximal sets of adjacent own stones) and
/// edges: a group touching an edge is joined to it; two groups, or a group and an edge row,
/// with two common empty neighbours not yet used by the chain are joined through those two
/// cells (this covers bridges and the second-row edge template). The carriers along a chain
/// are pairwise disjoint, so the opponent's intrusion into one link is answered in the same
/// link. A breadth-first search over groups that keeps the first chain reaching each group:
/// sound, not complete.
fn bridge_chain_carrier(
    geometry: &Geometry,
    scratch: &mut ChainScratch,
    color: Color,
    own: u128,
    empty: u128,
) -> Option<u128> {
    let (first_edge, second_edge) = geometry.edges[color.index()];
    // 1. Groups and their empty neighbours.
    scratch.groups.clear();
    let mut rest = own;
    while rest != 0 {
        let group = geometry.flood(rest & rest.wrapping_neg(), own);
        rest &= !group;
        scratch.groups.push((group, geometry.neighbours_of(group) & empty));
    }
    // 2. Breadth-first search from the first edge, one level per link with a carrier.
    let mut reached = 0u128;
    scratch.level.clear();
    scratch.next_level.clear();
    let first_empty = first_edge & empty;
    let second_empty = second_edge & empty;
    for (index, &(group, liberties)) in scratch.groups.iter().enumerate() {
        if group & first_edge != 0 {
            scratch.level.push((index as u8, 0));
        } else if let Some(pair) = two_cells(liberties & first_empty) {
            scratch.next_level.push((index as u8, pair));
        }
    }
    while !scratch.level.is_empty() || !scratch.next_level.is_empty() {
        while let Some((index, carrier)) = scratch.level.pop() {
            let index = index as usize;
            if reached >> index & 1 != 0 {
                continue;
            }
            reached |= 1 << index;
            let (group, liberties) = scratch.groups[index];
            if group & second_edge != 0 {
                return Some(carrier);
            }
            if let Some(pair) = two_cells(liberties & second_empty & !carrier) {
                return Some(carrier | pair);
            }
            for (other, &(_, other_liberties)) in scratch.groups.iter().enumerate() {
                if reached >> other & 1 == 0
                    && let Some(pair) = two_cells(liberties & other_liberties & !carrier)
                {
                    scratch.next_level.push((other as u8, carrier | pair));
                }
            }
        }
        std::mem::swap(&mut scratch.level, &mut scratch.next_level);
    }
    None
}

/// Reusable buffers of the VC search: groups with their empty neighbours, and the groups
/// reached with k links with a carrier and with k + 1.
#[derive(Default)]
struct ChainScratch {
    groups: Vec<(u128, u128)>,
    level: Vec<(u8, u128)>,
    next_level: Vec<(u8, u128)>,
}

/// A solver position: stones per colour and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct State {
    stones: [u128; 2],
    to_move: Color,
}

impl State {
    fn empty(&self, geometry: &Geometry) -> u128 {
        geometry.all & !(self.stones[0] | self.stones[1])
    }

    fn play(&self, cell: usize) -> State {
        let mut next = *self;
        next.stones[self.to_move.index()] |= 1 << cell;
        next.to_move = self.to_move.opponent();
        next
    }
}

/// The static verdict on a position, for the side to move.
enum Evaluation {
    /// Wins, for example with this cell.
    Win(usize),
    Loss,
    /// Unknown; the side to move need only consider these cells.
    MustPlay(u128),
}

/// Proof and disproof numbers are capped at this "infinity".
const INFINITY: u32 = u32::MAX / 4;

/// A transposition-table entry: numbers for the side to move, and the must-play region.
#[derive(Clone, Copy, Debug)]
struct Entry {
    proof: u32,
    disproof: u32,
    moves: u128,
    winning_cell: u8,
}

/// Keeps the table below this many entries by dropping unproven ones.
const TABLE_LIMIT: usize = 4_000_000;

struct Solver<'a> {
    geometry: &'a Geometry,
    options: &'a SolveOptions<'a>,
    table: FxHashMap<State, Entry>,
    scratch: ChainScratch,
    nodes: u64,
    aborted: bool,
}

impl<'a> Solver<'a> {
    fn new(geometry: &'a Geometry, options: &'a SolveOptions<'a>) -> Solver<'a> {
        Solver {
            geometry,
            options,
            table: FxHashMap::default(),
            scratch: ChainScratch::default(),
            nodes: 0,
            aborted: false,
        }
    }

    /// Steps 1 to 4 of the module docs.
    fn evaluate(&mut self, state: &State) -> Evaluation {
        let scratch = &mut self.scratch;
        let geometry = self.geometry;
        let me = state.to_move;
        let opponent = me.opponent();
        let own = state.stones[me.index()];
        let theirs = state.stones[opponent.index()];
        let empty = state.empty(geometry);
        // 1. Win in one.
        let wins = geometry.winning_cells(me, own, empty);
        if wins != 0 {
            return Evaluation::Win(wins.trailing_zeros() as usize);
        }
        // 2. The opponent's wins in one: two are a loss, one must be blocked.
        let threats = geometry.winning_cells(opponent, theirs, empty);
        if threats.count_ones() >= 2 {
            return Evaluation::Loss;
        }
        // 3. Virtual connections already in place.
        if bridge_chain_carrier(geometry, scratch, opponent, theirs, empty).is_some() {
            return Evaluation::Loss;
        }
        if let Some(carrier) = bridge_chain_carrier(geometry, scratch, me, own, empty) {
            let cell = if carrier != 0 { carrier } else { empty };
            return Evaluation::Win(cell.trailing_zeros() as usize);
        }
        // 4. Must-play region against every opponent threat to make a VC in one move.
        let mut region = if threats != 0 { threats } else { empty };
        let mut candidates = empty;
        while candidates != 0 && region != 0 {
            let cell = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            let bit = 1u128 << cell;
            if let Some(carrier) = bridge_chain_carrier(geometry, scratch, opponent, theirs | bit, empty & !bit) {
                region &= carrier | bit;
            }
        }
        if region == 0 { Evaluation::Loss } else { Evaluation::MustPlay(region) }
    }

    /// The table entry for `state`, evaluating and storing it when new.
    fn entry(&mut self, state: &State) -> Entry {
        if let Some(entry) = self.table.get(state) {
            return *entry;
        }
        self.nodes += 1;
        let entry = match self.evaluate(state) {
            Evaluation::Win(cell) => Entry { proof: 0, disproof: INFINITY, moves: 0, winning_cell: cell as u8 },
            Evaluation::Loss => Entry { proof: INFINITY, disproof: 0, moves: 0, winning_cell: 0 },
            Evaluation::MustPlay(moves) => Entry { proof: 1, disproof: moves.count_ones(), moves, winning_cell: 0 },
        };
        if self.table.len() >= TABLE_LIMIT {
            self.table.retain(|_, e| e.proof == 0 || e.disproof == 0);
        }
        self.table.insert(*state, entry);
        entry
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.options.node_limit {
            self.aborted = true;
        }
        if self.nodes.is_multiple_of(4096)
            && let Some(stop) = self.options.stop
            && stop.load(Ordering::Relaxed)
        {
            self.aborted = true;
        }
        self.aborted
    }

    fn solve_root(&mut self, root: State) -> SolveValue {
        let entry = self.entry(&root);
        if entry.proof != 0 && entry.disproof != 0 {
            self.search(&root, INFINITY - 1, INFINITY - 1);
        }
        let entry = self.entry(&root);
        if entry.disproof == 0 {
            return SolveValue::Loss;
        }
        if entry.proof != 0 {
            return SolveValue::Unknown;
        }
        let cell = if entry.moves == 0 {
            entry.winning_cell as usize
        } else {
            // A child the opponent loses.
            let mut moves = entry.moves;
            let mut found = None;
            while moves != 0 {
                let cell = moves.trailing_zeros() as usize;
                moves &= moves - 1;
                if self.table.get(&root.play(cell)).is_some_and(|e| e.disproof == 0) {
                    found = Some(cell);
                    break;
                }
            }
            match found {
                Some(cell) => cell,
                None => return SolveValue::Unknown,
            }
        };
        SolveValue::Win(HexMove::Cell(Cell(cell as u16)))
    }

    /// df-pn's multiple-iterative-deepening step: expands below `state` until its proof number
    /// reaches `proof_limit` or its disproof number reaches `disproof_limit`.
    fn search(&mut self, state: &State, proof_limit: u32, disproof_limit: u32) {
        // 1. The node's must-play region (its children).
        let entry = self.entry(state);
        let mut children: Vec<(State, usize)> = Vec::with_capacity(entry.moves.count_ones() as usize);
        let mut moves = entry.moves;
        while moves != 0 {
            let cell = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            children.push((state.play(cell), cell));
        }
        loop {
            // 2. Collect the children's numbers: a child's proof number is our disproof
            //    contribution, its disproof number our proof candidate.
            let mut proof = INFINITY;
            let mut disproof = 0u32;
            let mut best = 0;
            let mut best_disproof = INFINITY; // our proof number: the smallest child disproof
            let mut second_disproof = INFINITY;
            let mut best_proof = 0;
            for (i, (child, _)) in children.iter().enumerate() {
                let child_entry = self.entry(child);
                disproof = disproof.saturating_add(child_entry.proof).min(INFINITY);
                if child_entry.disproof < best_disproof {
                    second_disproof = best_disproof;
                    best_disproof = child_entry.disproof;
                    best_proof = child_entry.proof;
                    best = i;
                } else if child_entry.disproof < second_disproof {
                    second_disproof = child_entry.disproof;
                }
                proof = proof.min(child_entry.disproof);
            }
            // 3. Store; return when a limit is reached or the node is solved.
            let stored = self.table.get_mut(state);
            if let Some(stored) = stored {
                stored.proof = proof;
                stored.disproof = disproof;
            }
            if proof >= proof_limit || disproof >= disproof_limit || self.out_of_budget() {
                return;
            }
            // 4. Descend into the most proving child with thresholds that return control as
            //    soon as another child becomes better (1 + ε trick on the sibling bound).
            let child_disproof_limit =
                proof_limit.min(second_disproof.saturating_add(second_disproof / 4).saturating_add(1));
            let child_proof_limit =
                disproof_limit.saturating_sub(disproof).saturating_add(best_proof).min(INFINITY - 1);
            let child = children[best].0;
            self.search(&child, child_proof_limit, child_disproof_limit.min(INFINITY - 1));
        }
    }
}

/// One line of a first-move outcome file checked by [`check_first_move_outcomes`].
#[derive(Clone, Debug, PartialEq)]
pub struct FirstMoveCheck {
    /// 1-based line number in the file.
    pub line: usize,
    /// Board and cell as written, e.g. `7x7 d4`.
    pub label: String,
    /// The winner the file gives.
    pub expected: Option<Color>,
    /// The winner the solver found (`None` when unsolved or the line is malformed).
    pub found: Option<Color>,
    pub nodes: u64,
    pub seconds: f64,
    /// Why the line could not be used, if it could not.
    pub error: Option<String>,
}

/// Solves every line of a first-move outcome CSV (`board,cell,winner,...`, `#` comments and a
/// header line allowed; see `../shared/data/hex/README.md`) whose board is in `boards` (e.g.
/// `["6x6"]`): Black plays the cell, then the position is solved with White to move. Malformed
/// lines are reported in [`FirstMoveCheck::error`], never a panic.
pub fn check_first_move_outcomes(csv_text: &str, boards: &[&str], options: &SolveOptions) -> Vec<FirstMoveCheck> {
    let mut checks = Vec::new();
    for (number, raw) in csv_text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with("board,") {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let mut check = FirstMoveCheck {
            line: number + 1,
            label: fields.iter().take(2).copied().collect::<Vec<_>>().join(" "),
            expected: None,
            found: None,
            nodes: 0,
            seconds: 0.0,
            error: None,
        };
        if fields.len() < 3 {
            check.error = Some("expected board,cell,winner".to_string());
            checks.push(check);
            continue;
        }
        if !boards.contains(&fields[0]) {
            continue;
        }
        match first_move_position(fields[0], fields[1]) {
            Err(why) => check.error = Some(why),
            Ok(position) => {
                check.expected = match fields[2] {
                    "black" | "B" => Some(Color::Black),
                    "white" | "W" => Some(Color::White),
                    other => {
                        check.error = Some(format!("unknown winner {other:?}"));
                        None
                    }
                };
                let start = std::time::Instant::now();
                let result = solve(&position, options);
                check.seconds = start.elapsed().as_secs_f64();
                check.nodes = result.nodes;
                check.found = match result.value {
                    SolveValue::Win(_) => Some(Color::White),
                    SolveValue::Loss => Some(Color::Black),
                    SolveValue::Unknown => None,
                };
            }
        }
        checks.push(check);
    }
    checks
}

/// The position after Black's first move `cell` on a `WxH` board, White to move.
fn first_move_position(board: &str, cell: &str) -> Result<Hex, String> {
    use crate::games::GameConfig;
    let (width, height) = board
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse::<usize>().ok()?, h.parse::<usize>().ok()?)))
        .ok_or_else(|| format!("bad board {board:?}"))?;
    let mut config = crate::games::hex::HexConfig::default();
    config.set_size(width, height).map_err(|e| e.to_string())?;
    let mut position = Hex::new(&config);
    let mv = position.parse_move(cell).map_err(|e| format!("{cell:?}: {e}"))?;
    position.play(mv).map_err(|e| format!("{cell:?}: {e}"))?;
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hex::HexConfig;
    use crate::games::{GameConfig, Outcome};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Plain memoised minimax over the rules module: does the side to move win?
    fn minimax(position: &Hex, memo: &mut FxHashMap<u64, bool>) -> bool {
        if let Some(Outcome::Win(winner)) = position.outcome() {
            return winner == position.to_move();
        }
        if let Some(&known) = memo.get(&position.hash()) {
            return known;
        }
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let wins = moves.iter().any(|&mv| {
            let mut child = position.clone();
            child.play_unchecked(mv);
            !minimax(&child, memo)
        });
        memo.insert(position.hash(), wins);
        wins
    }

    fn random_position(rng: &mut SmallRng, width: usize, height: usize, stones: usize) -> Hex {
        let config = HexConfig::with_size(width, height).unwrap();
        loop {
            let mut position = Hex::new(&config);
            let mut moves = Vec::new();
            for _ in 0..stones {
                moves.clear();
                position.legal_moves(&mut moves);
                if position.outcome().is_some() {
                    break;
                }
                position.play_unchecked(moves[rng.random_range(0..moves.len())]);
            }
            if position.outcome().is_none() {
                return position;
            }
        }
    }

    fn check_against_minimax(position: &Hex, memo: &mut FxHashMap<u64, bool>) {
        let expected = minimax(position, memo);
        let result = solve(position, &SolveOptions::default());
        match result.value {
            SolveValue::Win(mv) => {
                assert!(expected, "solver says win, minimax loss:\n{}", position.board_text());
                let mut child = position.clone();
                child.play(mv).unwrap();
                assert!(
                    !minimax(&child, memo),
                    "winning move {} is not winning:\n{}",
                    position.format_move(mv),
                    position.board_text()
                );
            }
            SolveValue::Loss => {
                assert!(!expected, "solver says loss, minimax win:\n{}", position.board_text())
            }
            SolveValue::Unknown => panic!("unsolved"),
        }
    }

    #[test]
    fn agrees_with_minimax_on_small_boards() {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut memo = FxHashMap::default();
        for (width, height) in [(1, 1), (2, 2), (3, 3), (3, 2), (2, 4)] {
            memo.clear();
            for stones in 0..width * height {
                for _ in 0..5 {
                    let position = random_position(&mut rng, width, height, stones);
                    check_against_minimax(&position, &mut memo);
                }
            }
        }
        for (width, height, min_stones) in [(4, 4, 4), (4, 3, 0), (5, 3, 3)] {
            memo.clear();
            for stones in min_stones..width * height {
                for _ in 0..8 {
                    let position = random_position(&mut rng, width, height, stones);
                    check_against_minimax(&position, &mut memo);
                }
            }
        }
    }

    #[test]
    fn agrees_with_minimax_on_5x5_endgames() {
        let mut rng = SmallRng::seed_from_u64(17);
        let mut memo = FxHashMap::default();
        for stones in 12..25 {
            for _ in 0..6 {
                let position = random_position(&mut rng, 5, 5, stones);
                check_against_minimax(&position, &mut memo);
            }
        }
    }

    /// The known 6x6 first-move outcomes (tests/data/hex/README.md). The solver is not yet
    /// strong enough to prove them quickly, so this runs on request:
    /// `cargo test --release --lib solvers::hex_solver::tests::known_6x6 -- --ignored`.
    #[test]
    #[ignore]
    fn known_6x6_first_move_outcomes() {
        let text = include_str!("../../tests/data/hex/first-move-outcomes-6x6.csv");
        let checks = check_first_move_outcomes(text, &["6x6"], &SolveOptions::default());
        assert_eq!(checks.len(), 36);
        for check in checks {
            assert_eq!(check.error, None);
            assert_eq!(check.found, check.expected, "line {} {}", check.line, check.label);
        }
    }

    #[test]
    fn batch_check_reports_malformed_lines() {
        let text = "# comment\nboard,cell,winner\n3x3,b2,white\n3x3,b2\n3x3,z9,black\nAxB,a1,black\n3x3,a1,purple\n";
        let checks = check_first_move_outcomes(text, &["3x3", "AxB"], &SolveOptions::default());
        assert_eq!(checks.len(), 5);
        // b2 wins 3x3 for Black, so White to move loses: the file's "white" is contradicted.
        assert_eq!((checks[0].expected, checks[0].found), (Some(Color::White), Some(Color::Black)));
        assert!(checks[1..].iter().all(|check| check.error.is_some()), "{checks:?}");
    }

    #[test]
    fn first_player_wins_small_empty_boards() {
        for size in 1..=4 {
            let position = Hex::new(&HexConfig::with_size(size, size).unwrap());
            let result = solve(&position, &SolveOptions::default());
            assert!(matches!(result.value, SolveValue::Win(_)), "{size}x{size}");
        }
        // On a board with more columns than rows the player joining the short way wins even
        // moving second (a classical result): Black joins 3 rows on 4x3 when White starts.
        let mut position = Hex::new(&HexConfig::with_size(4, 3).unwrap());
        position.give_turn_to(Color::White).unwrap();
        assert_eq!(solve(&position, &SolveOptions::default()).value, SolveValue::Loss);
    }

    #[test]
    fn swap_is_considered_at_the_root() {
        let mut config = HexConfig::with_size(3, 3).unwrap();
        config.set_param("allow_swap", "1").unwrap();
        let mut position = Hex::new(&config);
        position.play(position.parse_move("b2").unwrap()).unwrap();
        // b2 wins 3x3 for Black, so White's only winning reply is to take it by swapping.
        let result = solve(&position, &SolveOptions::default());
        assert_eq!(result.value, SolveValue::Win(HexMove::Swap));
    }

    #[test]
    fn node_limit_and_stop_flag_end_the_search() {
        let position = Hex::new(&HexConfig::with_size(7, 7).unwrap());
        let limited = solve(&position, &SolveOptions { node_limit: 100, stop: None });
        assert_eq!(limited.value, SolveValue::Unknown);
        let stop = AtomicBool::new(true);
        let stopped = solve(&position, &SolveOptions { node_limit: u64::MAX, stop: Some(&stop) });
        assert_eq!(stopped.value, SolveValue::Unknown);
        let big = Hex::new(&HexConfig::with_size(12, 11).unwrap());
        assert_eq!(solve(&big, &SolveOptions::default()).value, SolveValue::Unknown);
    }
}
#[cfg(test)]
mod timing {
    use super::*;
    use crate::games::hex::HexConfig;

    /// `cargo test --release --lib solvers::hex_solver::timing -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn empty_boards() {
        for size in [4, 5] {
            let position = Hex::new(&HexConfig::with_size(size, size).unwrap());
            let start = std::time::Instant::now();
            let result = solve(&position, &SolveOptions::default());
            println!("{size}x{size}: {:?} {} nodes {:.3} s", result.value, result.nodes, start.elapsed().as_secs_f64());
        }
        for cell in ["a1", "f1", "c3", "b2"] {
            let mut position = Hex::new(&HexConfig::with_size(6, 6).unwrap());
            position.play(position.parse_move(cell).unwrap()).unwrap();
            let start = std::time::Instant::now();
            let result = solve(&position, &SolveOptions { node_limit: 2_000_000, stop: None });
            println!("6x6 {cell}: {:?} {} nodes {:.3} s", result.value, result.nodes, start.elapsed().as_secs_f64());
        }
    }
}
