//! Hex knowledge for the search, in the spirit of MoHex's prior knowledge: move priors from
//! local patterns around each empty cell. (Proofs from virtual connections need the solvers'
//! H-search, so they live with it, as `solvers::hex_vc::expansion_proof`.)

use super::{Cell, Hex, HexMove, MAX_SIDE, NEIGHBOUR_OFFSETS};
use crate::games::{Color, Game, Prior};

/// Padding around the knowledge board: two rings, so that bridge targets of edge cells exist.
const PAD: usize = 2;
/// Cells of the padded knowledge board of the largest board.
const PADDED_CELLS: usize = (MAX_SIDE + 2 * PAD) * (MAX_SIDE + 2 * PAD);

/// Knowledge-board values: the low two bits are the colour (0 empty, 1 Black, 2 White); the
/// edge bit marks padding, which counts as its owner's colour.
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const COLOR_BITS: u8 = 3;
const EDGE: u8 = 4;

/// Pseudo-visits of an ordinary prior.
const PRIOR_VISITS: u32 = 10;
/// Value of a move with nothing known for or against it.
const NEUTRAL_VALUE: f32 = 0.5;
/// A dead cell (a stone there can never matter): many pseudo-visits at a poor value.
pub const DEAD_PRIOR: Prior = Prior::new(40, 0.05);
/// Restoring a bridge the opponent's last stone intruded into.
const SAVE_BRIDGE_PRIOR: Prior = Prior::new(30, 0.9);
/// Bonus for touching stones (one or more).
const CONTACT_BONUS: f32 = 0.06;
/// Bonus for making a bridge to an own stone or an own edge (second-row template).
const OWN_BRIDGE_BONUS: f32 = 0.08;
/// Bonus for a cell at bridge distance from an opponent stone (blocking shapes).
const OPPONENT_BRIDGE_BONUS: f32 = 0.04;
/// Bonus for a cell next to, or a bridge away from, the opponent's last stone.
const NEAR_LAST_BONUS: f32 = 0.06;
/// Malus for a cell on the outermost ring of the board that touches no stone.
const LONELY_EDGE_MALUS: f32 = 0.15;
/// On a board with at most this many stones, cells near the centre are better.
const OPENING_STONES: usize = 1;
/// Bonus at the centre in the opening, falling linearly to nothing at the farthest cell.
const OPENING_CENTRE_BONUS: f32 = 0.15;

/// The six bridge directions: `BRIDGE_OFFSETS[i]` is the cell whose two common neighbours with
/// the centre are ring cells `i` and `i + 1`.
const BRIDGE_OFFSETS: [(i32, i32); 6] = {
    let mut offsets = [(0, 0); 6];
    let mut i = 0;
    while i < 6 {
        let (a, b) = (NEIGHBOUR_OFFSETS[i], NEIGHBOUR_OFFSETS[(i + 1) % 6]);
        offsets[i] = (a.0 + b.0, a.1 + b.1);
        i += 1;
    }
    offsets
};

/// The position on a padded board: [`PAD`] rings of edge cells, the top and bottom rows
/// Black's, the left and right columns White's (corners go to Black; no real cell's pattern
/// can tell them apart, see [`bridge_targets`]).
struct KnowledgeBoard {
    cells: [u8; PADDED_CELLS],
    stride: usize,
    ring: [isize; 6],
    bridge: [isize; 6],
    /// Whether this is the transposed, colour-swapped board (see [`KnowledgeBoard::for_mover`]).
    transposed: bool,
}

impl KnowledgeBoard {
    fn new(position: &Hex) -> KnowledgeBoard {
        KnowledgeBoard::build(position, false)
    }

    /// The board as the side to move sees it when it plays Black: for White to move, the
    /// position transposed with the colours exchanged, a position of the same value in which
    /// Black is to move (Hex's colour symmetry). Patterns read on it need no colour of their own.
    fn for_mover(position: &Hex) -> KnowledgeBoard {
        KnowledgeBoard::build(position, position.to_move() == Color::White)
    }

    fn build(position: &Hex, transposed: bool) -> KnowledgeBoard {
        let (mut width, mut height) = (position.width(), position.height());
        if transposed {
            (width, height) = (height, width);
        }
        let stride = width + 2 * PAD;
        let mut cells = [0u8; PADDED_CELLS];
        // 1. Padding: whole rows for Black's edges, the side columns for White's.
        for padded_row in 0..height + 2 * PAD {
            let row = &mut cells[padded_row * stride..(padded_row + 1) * stride];
            if padded_row < PAD || padded_row >= height + PAD {
                row.fill(BLACK | EDGE);
            } else {
                row[..PAD].fill(WHITE | EDGE);
                row[width + PAD..].fill(WHITE | EDGE);
            }
        }
        // 2. Stones, straight from the bitboards.
        let colours = if transposed {
            [(Color::Black, WHITE), (Color::White, BLACK)]
        } else {
            [(Color::Black, BLACK), (Color::White, WHITE)]
        };
        for (color, value) in colours {
            for index in position.stones(color).iter() {
                let (mut column, mut row) = (index % position.width(), index / position.width());
                if transposed {
                    (column, row) = (row, column);
                }
                cells[(row + PAD) * stride + column + PAD] = value;
            }
        }
        let offset = |(dc, dr): (i32, i32)| dr as isize * stride as isize + dc as isize;
        KnowledgeBoard {
            cells,
            stride,
            ring: NEIGHBOUR_OFFSETS.map(offset),
            bridge: BRIDGE_OFFSETS.map(offset),
            transposed,
        }
    }

    /// The `(column, row)` of `cell` on this board.
    fn board_coordinates(&self, position: &Hex, cell: Cell) -> (usize, usize) {
        let (column, row) = position.coordinates(cell);
        if self.transposed { (row, column) } else { (column, row) }
    }

    fn padded(&self, position: &Hex, cell: Cell) -> usize {
        let (column, row) = self.board_coordinates(position, cell);
        (row + PAD) * self.stride + column + PAD
    }

    fn at(&self, index: usize, offset: isize) -> u8 {
        self.cells[(index as isize + offset) as usize]
    }

    /// Six-bit masks around `index`: ring cells of `color` (stones or edge), and ring cells
    /// holding a real stone of either colour.
    fn ring_masks(&self, index: usize, color: u8) -> (u32, u32) {
        let (black, white, stones) = self.all_ring_masks(index);
        (if color == BLACK { black } else { white }, stones)
    }

    /// Six-bit masks around `index`: Black's ring cells, White's, and those with real stones.
    fn all_ring_masks(&self, index: usize) -> (u32, u32, u32) {
        let (mut black, mut white, mut stones) = (0, 0, 0);
        for (j, &offset) in self.ring.iter().enumerate() {
            let value = self.at(index, offset);
            black |= u32::from(value & COLOR_BITS == BLACK) << j;
            white |= u32::from(value & COLOR_BITS == WHITE) << j;
            stones |= u32::from(value != 0 && value & EDGE == 0) << j;
        }
        (black, white, stones)
    }

    /// Bridge directions from `index` whose target is `color`'s (stone or edge) and whose two
    /// carrier cells are empty. A padding corner is never such a target: one of its carrier
    /// cells is always padding too.
    fn bridge_targets(&self, index: usize, color: u8) -> u32 {
        let mut mask = 0;
        for i in 0..6 {
            let target = self.at(index, self.bridge[i]);
            if target & COLOR_BITS == color
                && self.at(index, self.ring[i]) == 0
                && self.at(index, self.ring[(i + 1) % 6]) == 0
            {
                mask |= 1 << i;
            }
        }
        mask
    }
}

/// Rotations of a six-bit ring mask by one place either way.
fn ring_previous(mask: u32) -> u32 {
    ((mask << 1) | (mask >> 5)) & 0x3f
}

fn ring_next(mask: u32) -> u32 {
    ((mask >> 1) | (mask << 5)) & 0x3f
}

/// Whether four ring-consecutive cells of `mask` are set.
fn four_in_a_row(mask: u32) -> bool {
    let two = mask & ring_next(mask);
    two & ring_next(ring_next(two)) != 0
}

/// Whether an empty cell with these ring masks is dead: four consecutive neighbours of one
/// colour (stones or that colour's edge). Consecutive ring cells touch, so the four join each
/// other, and the other two touch each other: no chain of either colour needs the cell.
fn is_dead(black: u32, white: u32) -> bool {
    four_in_a_row(black) || four_in_a_row(white)
}

/// Hex distance between zero-based `(column, row)` cells.
fn hex_distance(a: (usize, usize), b: (usize, usize)) -> usize {
    let dc = a.0 as i64 - b.0 as i64;
    let dr = a.1 as i64 - b.1 as i64;
    // In these axial coordinates a step changes column, row or both in opposite directions.
    (dc.abs().max(dr.abs()).max((dc + dr).abs())) as usize
}

/// The cells where the side to move restores a bridge that the opponent's last stone intruded
/// into (as the playout's reply does), as padded indices; empty when there is no last stone.
fn bridge_saves(position: &Hex, board: &KnowledgeBoard, me: u8) -> Vec<usize> {
    let Some(last) = position.last_cell else {
        return Vec::new();
    };
    if position.stone_at(last) != Some(position.to_move().opponent()) {
        return Vec::new();
    }
    let index = board.padded(position, last);
    let (own, _) = board.ring_masks(index, me);
    let mut empty = 0;
    for (j, &offset) in board.ring.iter().enumerate() {
        empty |= u32::from(board.at(index, offset) == 0) << j;
    }
    let candidates = empty & ring_previous(own) & ring_next(own);
    (0..6).filter(|j| candidates >> j & 1 != 0).map(|j| (index as isize + board.ring[j]) as usize).collect()
}

/// Priors for `moves` from the side to move's view (see [`Game::move_priors`]).
pub(super) fn move_priors(position: &Hex, moves: &[HexMove], priors: &mut [Prior]) {
    if position.outcome().is_some() {
        return;
    }
    let board = KnowledgeBoard::new(position);
    let me = if position.to_move() == Color::Black { BLACK } else { WHITE };
    let opponent = BLACK + WHITE - me;
    let saves = bridge_saves(position, &board, me);
    let last = position.last_cell.filter(|&cell| position.stone_at(cell).is_some()).map(|c| board.padded(position, c));
    let (width, height) = (position.width(), position.height());
    let centre = ((width - 1) / 2, (height - 1) / 2);
    let farthest = hex_distance((0, 0), centre).max(hex_distance((width - 1, 0), centre)).max(1);
    let opening = position.stone_count() <= OPENING_STONES;
    for (prior, &mv) in priors.iter_mut().zip(moves) {
        let HexMove::Cell(cell) = mv else {
            continue;
        };
        let index = board.padded(position, cell);
        let (black, white, stones) = board.all_ring_masks(index);
        if is_dead(black, white) {
            *prior = DEAD_PRIOR;
            continue;
        }
        if saves.contains(&index) {
            *prior = SAVE_BRIDGE_PRIOR;
            continue;
        }
        let mut value = NEUTRAL_VALUE;
        if stones != 0 {
            value += CONTACT_BONUS;
        }
        if board.bridge_targets(index, me) != 0 {
            value += OWN_BRIDGE_BONUS;
        }
        if board.bridge_targets(index, opponent) & real_stone_targets(&board, index) != 0 {
            value += OPPONENT_BRIDGE_BONUS;
        }
        if let Some(last) = last {
            let near = board.ring.iter().chain(&board.bridge).any(|&offset| (index as isize + offset) as usize == last);
            if near {
                value += NEAR_LAST_BONUS;
            }
        }
        let (column, row) = position.coordinates(cell);
        let outer = column == 0 || row == 0 || column + 1 == width || row + 1 == height;
        if outer && stones == 0 && width > 2 && height > 2 {
            value -= LONELY_EDGE_MALUS;
        }
        if opening {
            let distance = hex_distance((column, row), centre);
            value += OPENING_CENTRE_BONUS * (1.0 - distance as f32 / farthest as f32);
        }
        *prior = Prior::new(PRIOR_VISITS, value.clamp(0.0, 1.0));
    }
}

/// Number of 12-cell pattern codes: each of the six ring cells and six bridge cells of a
/// candidate is empty, the mover's or the opponent's (edges count as their owner's), 3^12.
pub const PATTERN_CODES: usize = 531_441;
/// Classes of the candidate's relation to the opponent's last stone: none (no last stone, or
/// at hex distance 4 or more), distance 1, 2, 3, and the bridge-restoring reply.
pub const LAST_MOVE_CLASSES: usize = 5;
/// Classes of the candidate's distance to the mover's edges (0 to 5 or more) times its
/// distance to the opponent's edges (0 to 5 or more).
pub const EDGE_CLASSES: usize = 36;

/// The last-move class of a cell that restores the bridge the opponent's last stone
/// intruded into (as the playout's reply does).
pub const LAST_MOVE_SAVES_BRIDGE: u8 = 4;

/// What the learned priors see of one candidate cell, from the mover's view (as if the mover
/// were Black: see [`KnowledgeBoard::for_mover`]), the same for the 180-degree rotation of the
/// position (the smaller of the two pattern codes is kept).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CellFeatures {
    /// A dead cell: a stone there never matters (such cells keep a fixed poor prior).
    pub dead: bool,
    /// The 12-cell pattern: digit `k` (base 3) is ring cell `k` for `k < 6` and bridge cell
    /// `k - 6` otherwise; 0 empty, 1 the mover's, 2 the opponent's.
    pub pattern: u32,
    /// Below [`LAST_MOVE_CLASSES`].
    pub last_move: u8,
    /// Below [`EDGE_CLASSES`]: distance to the mover's edges times 6 plus the distance to the
    /// opponent's.
    pub edge: u8,
}

/// Where each digit of a pattern goes under a 180-degree rotation: ring and bridge direction
/// `i` become `i + 3`.
const ROTATED_DIGIT: [usize; 12] = [3, 4, 5, 0, 1, 2, 9, 10, 11, 6, 7, 8];

/// Powers of three for the pattern digits.
const POWERS_OF_THREE: [u32; 12] = {
    let mut powers = [1u32; 12];
    let mut i = 1;
    while i < 12 {
        powers[i] = powers[i - 1] * 3;
        i += 1;
    }
    powers
};

/// The pattern code with its cells rotated by 180 degrees.
pub fn rotated_pattern(code: u32) -> u32 {
    let mut rotated = 0;
    let mut rest = code;
    for &target in &ROTATED_DIGIT {
        rotated += rest % 3 * POWERS_OF_THREE[target];
        rest /= 3;
    }
    rotated
}

/// The features of every cell move of `moves` (`None` for the swap move), from the side to
/// move's view. Nothing in a finished game.
pub fn cell_features(position: &Hex, moves: &[HexMove], out: &mut Vec<Option<CellFeatures>>) {
    out.clear();
    if position.outcome().is_some() {
        out.resize(moves.len(), None);
        return;
    }
    // 1. The mover plays Black on this board: its own stones and edges read as Black.
    let board = KnowledgeBoard::for_mover(position);
    let saves = bridge_saves(position, &board, BLACK);
    let last = position
        .last_cell
        .filter(|&cell| position.stone_at(cell) == Some(position.to_move().opponent()))
        .map(|cell| board.board_coordinates(position, cell));
    let (width, height) =
        if board.transposed { (position.height(), position.width()) } else { (position.width(), position.height()) };
    for &mv in moves {
        let HexMove::Cell(cell) = mv else {
            out.push(None);
            continue;
        };
        let index = board.padded(position, cell);
        let (black, white, _) = board.all_ring_masks(index);
        // 2. The pattern and its rotation.
        let (pattern, rotated) = pattern_codes(&board, index);
        // 3. The relation to the opponent's last stone and the distances to the edges.
        let (column, row) = board.board_coordinates(position, cell);
        let last_move = if saves.contains(&index) {
            LAST_MOVE_SAVES_BRIDGE
        } else {
            match last.map(|last| hex_distance((column, row), last)) {
                Some(distance @ 1..=3) => distance as u8,
                _ => 0,
            }
        };
        let own_edge = row.min(height - 1 - row).min(5);
        let their_edge = column.min(width - 1 - column).min(5);
        out.push(Some(CellFeatures {
            dead: is_dead(black, white),
            pattern: pattern.min(rotated),
            last_move,
            edge: (own_edge * 6 + their_edge) as u8,
        }));
    }
}

/// Cell weights of the pattern playout ([`Hex::weighted_playout`]): the side to move takes an
/// empty cell with a probability in proportion to the weight of its 12-cell pattern times the
/// weight of its edge class, both read from the mover's view as [`CellFeatures`] reads them.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayoutWeights {
    /// By pattern code ([`CellFeatures::pattern`]'s digits, the 180-degree rotation not folded
    /// in): [`PATTERN_CODES`] entries.
    pub pattern: Vec<f32>,
    /// By edge class ([`CellFeatures::edge`]).
    pub edge: [f32; EDGE_CLASSES],
}

/// Whether the cell of a pattern code is dead (the ring digits alone tell).
pub fn pattern_is_dead(code: u32) -> bool {
    let (mut mine, mut theirs, mut rest) = (0, 0, code);
    for ring_cell in 0..6 {
        match rest % 3 {
            1 => mine |= 1 << ring_cell,
            2 => theirs |= 1 << ring_cell,
            _ => {}
        }
        rest /= 3;
    }
    is_dead(mine, theirs)
}

/// The pattern's cells as (column, row) offsets, in digit order: ring, then bridge.
const PATTERN_OFFSETS: [(i32, i32); 12] = {
    let mut offsets = [(0, 0); 12];
    let mut i = 0;
    while i < 6 {
        offsets[i] = NEIGHBOUR_OFFSETS[i];
        offsets[i + 6] = BRIDGE_OFFSETS[i];
        i += 1;
    }
    offsets
};

/// `TRANSPOSED_DIGIT[k]`: the digit whose offset is offset `k` with column and row exchanged.
/// White's view of the board is its transposition, so a stone at offset `k` from a cell is
/// that digit of the cell's pattern in White's view.
const TRANSPOSED_DIGIT: [usize; 12] = {
    let mut digits = [0; 12];
    let mut k = 0;
    while k < 12 {
        let (dc, dr) = PATTERN_OFFSETS[k];
        let mut j = 0;
        while PATTERN_OFFSETS[j].0 != dr || PATTERN_OFFSETS[j].1 != dc {
            j += 1;
        }
        digits[k] = j;
        k += 1;
    }
    digits
};

/// Cells of the playout's padded board on the largest board.
const PLAYOUT_CELLS: usize = (MAX_SIDE + 2) * (MAX_SIDE + 2);

/// The pattern playout's choice of cells: every empty cell's pattern code and weight for
/// either side to move (view 0 Black's, 1 White's), updated around each stone played, and a
/// draw in proportion to the weights.
pub(super) struct PatternChoice<'a> {
    weights: &'a PlayoutWeights,
    width: usize,
    height: usize,
    stride: usize,
    empty: [bool; PLAYOUT_CELLS],
    codes: [[u32; PLAYOUT_CELLS]; 2],
    edge_weights: [[f32; PLAYOUT_CELLS]; 2],
    cell_weights: [[f32; PLAYOUT_CELLS]; 2],
    totals: [f64; 2],
}

impl<'a> PatternChoice<'a> {
    pub(super) fn new(weights: &'a PlayoutWeights) -> PatternChoice<'a> {
        PatternChoice {
            weights,
            width: 0,
            height: 0,
            stride: 0,
            empty: [false; PLAYOUT_CELLS],
            codes: [[0; PLAYOUT_CELLS]; 2],
            edge_weights: [[0.0; PLAYOUT_CELLS]; 2],
            cell_weights: [[0.0; PLAYOUT_CELLS]; 2],
            totals: [0.0; 2],
        }
    }

    fn coordinates(&self, cell: usize) -> (isize, isize) {
        ((cell % self.stride) as isize - 1, (cell / self.stride) as isize - 1)
    }

    fn set_weight(&mut self, view: usize, cell: usize) {
        let weight = self.weights.pattern[self.codes[view][cell] as usize] * self.edge_weights[view][cell];
        self.totals[view] += f64::from(weight - self.cell_weights[view][cell]);
        self.cell_weights[view][cell] = weight;
    }
}

impl super::CellChoice for PatternChoice<'_> {
    fn start(&mut self, position: &Hex, stride: usize, empties: &[u16]) {
        (self.width, self.height, self.stride) = (position.width(), position.height(), stride);
        // Each side's view as the learned priors read it: White's is the transposed board.
        let views = [KnowledgeBoard::build(position, false), KnowledgeBoard::build(position, true)];
        for &cell in empties {
            let cell = cell as usize;
            let (column, row) = self.coordinates(cell);
            self.empty[cell] = true;
            let row_distance = row.min(self.height as isize - 1 - row).min(5) as usize;
            let column_distance = column.min(self.width as isize - 1 - column).min(5) as usize;
            self.edge_weights[0][cell] = self.weights.edge[row_distance * 6 + column_distance];
            self.edge_weights[1][cell] = self.weights.edge[column_distance * 6 + row_distance];
            let board_cell = position.cell(column as usize, row as usize);
            for (view, board) in views.iter().enumerate() {
                self.codes[view][cell] = pattern_codes(board, board.padded(position, board_cell)).0;
                self.set_weight(view, cell);
            }
        }
    }

    fn choose<R: rand::Rng>(&mut self, empties: &[u16], mover: u8, rng: &mut R) -> usize {
        let view = usize::from(mover) - 1;
        let weights = &self.cell_weights[view];
        if self.totals[view] > 0.0 {
            let mut left = rng.random::<f64>() * self.totals[view];
            for &cell in empties {
                left -= f64::from(weights[cell as usize]);
                if left < 0.0 {
                    return cell as usize;
                }
            }
        }
        // Rounding (or no weight left): any cell.
        empties[rng.random_range(0..empties.len())] as usize
    }

    fn played(&mut self, cell: usize, color: u8) {
        self.empty[cell] = false;
        for view in 0..2 {
            self.totals[view] -= f64::from(self.cell_weights[view][cell]);
            self.cell_weights[view][cell] = 0.0;
        }
        let (column, row) = self.coordinates(cell);
        // Digit 1 for the viewer's stone, 2 for the opponent's.
        let digits = if color == 1 { [1, 2] } else { [2, 1] };
        for (k, &(dc, dr)) in PATTERN_OFFSETS.iter().enumerate() {
            let (column, row) = (column - dc as isize, row - dr as isize);
            if column < 0 || row < 0 || column >= self.width as isize || row >= self.height as isize {
                continue;
            }
            let neighbour = (row as usize + 1) * self.stride + column as usize + 1;
            if !self.empty[neighbour] {
                continue;
            }
            self.codes[0][neighbour] += digits[0] * POWERS_OF_THREE[k];
            self.codes[1][neighbour] += digits[1] * POWERS_OF_THREE[TRANSPOSED_DIGIT[k]];
            self.set_weight(0, neighbour);
            self.set_weight(1, neighbour);
        }
    }
}

/// The 12-cell pattern code of the cell at padded `index` (digit `k` ring cell `k`, then
/// bridge cell `k - 6`; 1 the board's Black, 2 its White) and the code of its 180-degree
/// rotation.
fn pattern_codes(board: &KnowledgeBoard, index: usize) -> (u32, u32) {
    let (mut pattern, mut rotated) = (0, 0);
    for (k, &offset) in board.ring.iter().chain(&board.bridge).enumerate() {
        let digit = match board.at(index, offset) & COLOR_BITS {
            BLACK => 1,
            WHITE => 2,
            _ => 0,
        };
        pattern += digit * POWERS_OF_THREE[k];
        rotated += digit * POWERS_OF_THREE[ROTATED_DIGIT[k]];
    }
    (pattern, rotated)
}

/// Bridge directions from `index` whose target is a real stone (not padding).
fn real_stone_targets(board: &KnowledgeBoard, index: usize) -> u32 {
    let mut mask = 0;
    for i in 0..6 {
        let target = board.at(index, board.bridge[i]);
        if target != 0 && target & EDGE == 0 {
            mask |= 1 << i;
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::GameConfig;
    use crate::games::hex::HexConfig;
    use crate::games::testing::{minimax_value, random_running_position};
    use rand::Rng;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;
    use rustc_hash::FxHashMap;

    fn position(size: usize, black: &[&str], white: &[&str], to_move: Color) -> Hex {
        let mut position = crate::games::testing::hex_position(size, size, black, white);
        position.give_turn_to(to_move).unwrap();
        position
    }

    fn priors_of(position: &Hex) -> FxHashMap<String, Prior> {
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut priors = vec![Prior::NONE; moves.len()];
        move_priors(position, &moves, &mut priors);
        moves.iter().zip(priors).map(|(&mv, prior)| (position.format_move(mv), prior)).collect()
    }

    /// The stride of the playout's padded scratch board of `position` and its empty cells, as
    /// `Hex::fill_board` lists them.
    fn scratch_empties(position: &Hex) -> (usize, Vec<u16>) {
        let stride = position.width() + 2;
        let empties = (0..position.height())
            .flat_map(|row| (0..position.width()).map(move |column| (column, row)))
            .filter(|&(column, row)| position.stone_at(position.cell(column, row)).is_none())
            .map(|(column, row)| ((row + 1) * stride + column + 1) as u16)
            .collect();
        (stride, empties)
    }

    /// The pattern playout's codes are the learned priors' patterns: for every empty cell and
    /// either side to move, the code (folded with its rotation) is `cell_features`' pattern,
    /// when the playout starts and after each stone it plays.
    #[test]
    fn pattern_playout_codes_follow_the_cell_features() {
        use crate::games::hex::CellChoice;
        let weights = PlayoutWeights { pattern: vec![1.0; PATTERN_CODES], edge: [1.0; EDGE_CLASSES] };
        let mut rng = SmallRng::seed_from_u64(9);
        let mut features = Vec::new();
        let mut checked = 0;
        for (width, height) in [(11, 11), (5, 7), (9, 4)] {
            for stones in [0, 6, 20] {
                let start = Hex::new(&HexConfig::with_size(width, height).unwrap());
                let mut current = random_running_position(&start, &mut rng, stones);
                let (stride, empties) = scratch_empties(&current);
                let mut choice = PatternChoice::new(&weights);
                choice.start(&current, stride, &empties);
                for _ in 0..8 {
                    if current.outcome().is_some() {
                        break;
                    }
                    for to_move in [Color::Black, Color::White] {
                        let mut view = current.clone();
                        if view.to_move() != to_move {
                            view.give_turn_to(to_move).unwrap();
                        }
                        let mut moves = Vec::new();
                        view.legal_moves(&mut moves);
                        cell_features(&view, &moves, &mut features);
                        for (mv, feature) in moves.iter().zip(&features) {
                            let HexMove::Cell(cell) = *mv else { continue };
                            let (column, row) = view.coordinates(cell);
                            let code = choice.codes[to_move.index()][(row + 1) * stride + column + 1];
                            let feature = feature.unwrap();
                            assert_eq!(code.min(rotated_pattern(code)), feature.pattern, "{}", view.format_move(*mv));
                            assert_eq!(pattern_is_dead(code), feature.dead);
                            checked += 1;
                        }
                    }
                    let mut moves = Vec::new();
                    current.legal_moves(&mut moves);
                    let mv = moves[rng.random_range(0..moves.len())];
                    let HexMove::Cell(cell) = mv else { continue };
                    let (column, row) = current.coordinates(cell);
                    let color = if current.to_move() == Color::Black { 1 } else { 2 };
                    current.play(mv).unwrap();
                    choice.played((row + 1) * stride + column + 1, color);
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    /// The pattern playout draws each cell in proportion to its weight: with edge weights of 3
    /// on the mover's edge rows, 1 one row in and 0 further in, a 5x5 board's draws for Black
    /// fall on the edge rows three times in four and never on the middle row; White's, whose
    /// edges are the side columns, likewise on the columns.
    #[test]
    fn pattern_playout_draws_cells_in_proportion_to_their_weights() {
        use crate::games::hex::CellChoice;
        let mut edge = [0.0; EDGE_CLASSES];
        for their_distance in 0..6 {
            edge[their_distance] = 3.0;
            edge[6 + their_distance] = 1.0;
        }
        let weights = PlayoutWeights { pattern: vec![1.0; PATTERN_CODES], edge };
        let position = Hex::new(&HexConfig::with_size(5, 5).unwrap());
        let (stride, empties) = scratch_empties(&position);
        let mut choice = PatternChoice::new(&weights);
        choice.start(&position, stride, &empties);
        let mut rng = SmallRng::seed_from_u64(4);
        for (mover, coordinate) in [(1u8, 1usize), (2, 0)] {
            let mut at_distance = [0; 3];
            for _ in 0..20_000 {
                let cell = choice.choose(&empties, mover, &mut rng);
                let (column, row) = (cell % stride - 1, cell / stride - 1);
                let along = if coordinate == 1 { row } else { column };
                at_distance[along.min(4 - along)] += 1;
            }
            assert_eq!(at_distance[2], 0, "{at_distance:?}");
            let edge_share = f64::from(at_distance[0]) / 20_000.0;
            assert!((edge_share - 0.75).abs() < 0.02, "{at_distance:?}");
        }
    }

    #[test]
    fn the_bridge_saving_reply_gets_the_best_prior() {
        // Black's b2 and c3 form a bridge through b3 and c2; White intrudes at c2.
        let mut bridged = position(5, &["b2", "c3"], &[], Color::White);
        bridged.play(bridged.parse_move("c2").unwrap()).unwrap();
        let priors = priors_of(&bridged);
        assert_eq!(priors["b3"], SAVE_BRIDGE_PRIOR);
        let best = priors.iter().max_by(|a, b| a.1.value.total_cmp(&b.1.value)).unwrap();
        assert_eq!(best.0, "b3");
        // The second-row edge template: Black's c2 reaches the top edge through c1 and d1.
        let mut template = position(5, &["c2"], &[], Color::White);
        template.play(template.parse_move("d1").unwrap()).unwrap();
        assert_eq!(priors_of(&template)["c1"], SAVE_BRIDGE_PRIOR);
        // Without an intrusion there is nothing to save.
        let quiet = position(5, &["b2", "c3"], &["e5"], Color::Black);
        assert!(priors_of(&quiet).values().all(|&prior| prior != SAVE_BRIDGE_PRIOR));
    }

    #[test]
    fn dead_cells_and_lonely_edges_are_poor_and_the_centre_opens() {
        // c3's ring: d3, d2, c2, b3, b4, c4. Black on four consecutive ones (d3, d2, c2, b3)
        // makes it dead.
        let dead = position(5, &["d3", "d2", "c2", "b3"], &["a1"], Color::White);
        assert_eq!(priors_of(&dead)["c3"], DEAD_PRIOR);
        // a1's ring holds the top edge twice (Black) and the left edge twice (White): alive.
        let corner = position(5, &["b1"], &[], Color::White);
        assert_ne!(priors_of(&corner)["a1"], DEAD_PRIOR);
        // The acute corner a1 with Black on b1 and a2's side: top edge twice, then b1 — three
        // Black in a row plus a2 Black makes four: dead.
        let acute = position(5, &["b1", "a2"], &[], Color::White);
        assert_eq!(priors_of(&acute)["a1"], DEAD_PRIOR);
        let empty = Hex::new(&HexConfig::default());
        let priors = priors_of(&empty);
        assert!(priors["f6"].value > priors["c3"].value);
        assert!(priors["c3"].value > priors["a1"].value);
        assert!(priors["f6"].value > priors["f1"].value);
        assert!(priors.values().all(|prior| (0.0..=1.0).contains(&prior.value) && prior.visits > 0));
    }

    #[test]
    fn the_swap_move_gets_no_prior() {
        let mut config = HexConfig::with_size(5, 5).unwrap();
        config.set_param("allow_swap", "1").unwrap();
        let mut position = Hex::new(&config);
        position.play(position.parse_move("c3").unwrap()).unwrap();
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut priors = vec![Prior::NONE; moves.len()];
        move_priors(&position, &moves, &mut priors);
        assert_eq!(moves.last(), Some(&HexMove::Swap));
        assert_eq!(priors.last(), Some(&Prior::NONE));
    }

    /// The minimax value of `position` for the side to move: 1 a win, -1 a loss.
    fn exact(position: &Hex, memo: &mut FxHashMap<u64, i32>) -> i32 {
        minimax_value(position, memo)
    }

    #[test]
    fn dead_cells_never_change_the_value() {
        // Filling a dead cell with either colour, the same side to move, keeps the exact value.
        let mut rng = SmallRng::seed_from_u64(11);
        let mut dead_seen = 0;
        for size in [3, 4] {
            // Hashes do not include the board size: one memo per size.
            let mut memo = FxHashMap::default();
            let start = Hex::new(&HexConfig::with_size(size, size).unwrap());
            for _ in 0..150 {
                let stones = rng.random_range(2 * size - 2..size * size - 3);
                let position = random_running_position(&start, &mut rng, stones);
                let mut moves = Vec::new();
                position.legal_moves(&mut moves);
                let mut priors = vec![Prior::NONE; moves.len()];
                move_priors(&position, &moves, &mut priors);
                let value = exact(&position, &mut memo);
                for (&mv, prior) in moves.iter().zip(&priors) {
                    if *prior != DEAD_PRIOR {
                        continue;
                    }
                    dead_seen += 1;
                    for color in [Color::Black, Color::White] {
                        let mut filled = position.clone();
                        filled.play_as(color, mv).unwrap();
                        if filled.outcome().is_some() {
                            panic!("a dead cell finished the game:\n{}", position.board_text());
                        }
                        filled.give_turn_to(position.to_move()).unwrap();
                        assert_eq!(exact(&filled, &mut memo), value, "{}", position.board_text());
                    }
                }
            }
        }
        assert!(dead_seen > 20, "{dead_seen}");
    }

    /// `position` with every stone moved by `map` and, with `swap_colours`, recoloured; the
    /// latest stone is played last, so the image has a latest stone too.
    fn image(position: &Hex, map: impl Fn(usize, usize) -> (usize, usize), swap_colours: bool) -> Hex {
        let last = position.last_cell.unwrap();
        let moved = |cell: Cell| {
            let (column, row) = position.coordinates(cell);
            let (column, row) = map(column, row);
            position.cell(column, row)
        };
        let colour = |color: Color| if swap_colours { color.opponent() } else { color };
        let mut stones: [Vec<Cell>; 2] = [Vec::new(), Vec::new()];
        for color in [Color::Black, Color::White] {
            for index in position.stones(color).iter() {
                if Cell(index as u16) != last {
                    stones[colour(color).index()].push(moved(Cell(index as u16)));
                }
            }
        }
        let config = HexConfig::with_size(position.width(), position.height()).unwrap();
        let mut image = Hex::from_stones(&config, &stones[0], &stones[1]).unwrap();
        let last_colour = colour(position.stone_at(last).unwrap());
        image.give_turn_to(last_colour).unwrap();
        image.play(HexMove::Cell(moved(last))).unwrap();
        assert_eq!(image.to_move(), colour(position.to_move()));
        image
    }

    #[test]
    fn cell_features_are_the_same_for_symmetric_positions() {
        // Transposing the board and exchanging the colours (the other side to move) and
        // rotating it by 180 degrees keep every cell's features; the pattern also tells
        // apart what it should.
        let mut rng = SmallRng::seed_from_u64(23);
        let start = Hex::new(&HexConfig::with_size(7, 7).unwrap());
        let mut distinct = std::collections::HashSet::new();
        for _ in 0..200 {
            let stones = rng.random_range(1..30);
            let position = random_running_position(&start, &mut rng, stones);
            if position.outcome().is_some() {
                continue;
            }
            let transposed = image(&position, |c, r| (r, c), true);
            let rotated = image(&position, |c, r| (6 - c, 6 - r), false);
            let mut moves = Vec::new();
            position.legal_moves(&mut moves);
            let (mut original, mut seen) = (Vec::new(), Vec::new());
            cell_features(&position, &moves, &mut original);
            for (other, map) in [
                (&transposed, (|c, r| (r, c)) as fn(usize, usize) -> (usize, usize)),
                (&rotated, |c, r| (6 - c, 6 - r)),
            ] {
                let moved: Vec<HexMove> = moves
                    .iter()
                    .map(|&mv| match mv {
                        HexMove::Cell(cell) => {
                            let (c, r) = position.coordinates(cell);
                            let (c, r) = map(c, r);
                            HexMove::Cell(other.cell(c, r))
                        }
                        swap => swap,
                    })
                    .collect();
                cell_features(other, &moved, &mut seen);
                assert_eq!(original, seen, "{}", position.board_text());
            }
            distinct.extend(original.iter().flatten().copied());
            for features in original.iter().flatten() {
                assert!((features.pattern as usize) < PATTERN_CODES);
                assert!(features.pattern <= rotated_pattern(features.pattern));
                assert!(usize::from(features.last_move) < LAST_MOVE_CLASSES);
                assert!(usize::from(features.edge) < EDGE_CLASSES);
            }
        }
        assert!(distinct.len() > 1000, "{}", distinct.len());
        // Rotating twice is the identity.
        for code in [0, 1, 5, 728, 12345, PATTERN_CODES as u32 - 1] {
            assert_eq!(rotated_pattern(rotated_pattern(code)), code);
        }
    }

    #[test]
    fn the_bridge_save_and_the_edges_show_in_the_features() {
        // Black's b2 and c3 form a bridge; White intrudes at c2: b3 restores it.
        let mut bridged = position(5, &["b2", "c3"], &[], Color::White);
        bridged.play(bridged.parse_move("c2").unwrap()).unwrap();
        let moves: Vec<HexMove> =
            ["b3", "d2", "a1", "e5", "c1"].iter().map(|m| bridged.parse_move(m).unwrap()).collect();
        let mut features = Vec::new();
        cell_features(&bridged, &moves, &mut features);
        let features: Vec<CellFeatures> = features.into_iter().flatten().collect();
        assert_eq!(features[0].last_move, LAST_MOVE_SAVES_BRIDGE);
        assert_eq!(features[1].last_move, 1);
        assert_eq!(features[2].last_move, 3);
        assert_eq!(features[3].last_move, 0);
        // a1: on both kinds of edge; c1: on Black's (the mover's) edge, two from White's.
        assert_eq!(features[2].edge, 0);
        assert_eq!(features[4].edge, 2);
        // e5 is empty all round but for the padding: its pattern is not the all-empty one.
        assert_ne!(features[3].pattern, 0);
    }

    /// Cost of `move_priors` on random 11x11 positions. Run with
    /// `cargo test --release --lib games::hex::knowledge::tests::prior_cost -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn prior_cost() {
        let mut rng = SmallRng::seed_from_u64(5);
        let start = Hex::new(&HexConfig::default());
        let positions: Vec<Hex> = (0..1000).map(|i| random_running_position(&start, &mut rng, i % 60)).collect();
        let mut moves = Vec::new();
        let mut priors = Vec::new();
        let started = std::time::Instant::now();
        for position in &positions {
            moves.clear();
            position.legal_moves(&mut moves);
            priors.clear();
            priors.resize(moves.len(), Prior::NONE);
            move_priors(position, &moves, &mut priors);
        }
        let micros = started.elapsed().as_secs_f64() * 1e6 / positions.len() as f64;
        println!("move_priors on 11x11 (0 to 59 stones): {micros:.1} us per call");
    }
}
