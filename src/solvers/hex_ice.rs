//! Inferior cell analysis for Hex from each cell's ring of six neighbours: dead cells and
//! captured pairs, filled in before connection search and proving (as Benzene's ICE does, with
//! the local patterns derived here from one rule instead of a pattern file).
//!
//! A stone of colour X on an empty cell c is *useless* to X when every two of c's ring
//! positions that X could still own (its stones, its edges, empty cells) are already joined
//! around the ring through X stones or X edges alone: any X chain through c can then step around
//! it. Two facts make this enough:
//!
//! * **Useless to either colour means dead.** Say c is useless to O. On any full board, if O wins
//!   with c = O, its chain avoids c, so O also wins with c = P; and if P wins with c = O, P wins
//!   with c = P (an extra stone never hurts in Hex). So c's colour never changes the winner: c is
//!   *dead*, and playing there is a pass. A dead cell is filled (with the colour it serves), which
//!   keeps the game value and the side to move.
//! * **Captured pairs.** Two empty neighbours a and b are *captured* by P when a is useless to O
//!   once P holds b, and b is useless to O once P holds a: P answers O's move in one with the
//!   other, and O's stone is then dead. Filling both with P keeps the value; when P is the winner
//!   its proof needs the pair (P's answers are played there).
//!
//! Fill-in repeats both rules until nothing changes, one cell or pair at a time (each step keeps
//! the value of the position it was found in, so the chain of steps does). Dead cells stay dead
//! when more stones are added, which is why the solver may leave them out of every proof set.
//!
//! Boards up to 128 cells, as [`super::hex_vc`].

use crate::games::Color;
use crate::games::hex::{Bitboard, Hex, NEIGHBOUR_OFFSETS};
use crate::solvers::hex_vc::{BoardGeometry, iterate};

/// One position of a cell's neighbour ring: a cell index, or an edge owned by a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RingPosition {
    Cell(usize),
    Edge(Color),
}

/// What fill-in did to a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FillIn {
    /// Dead cells (filled with some colour; their colour never matters).
    pub dead: u128,
    /// Cells captured by Black and by White (indexed by [`Color::index`]), filled with the
    /// capturer's colour.
    pub captured: [u128; 2],
}

/// The rings of every cell of one board shape, in the cyclic order of [`NEIGHBOUR_OFFSETS`]
/// (consecutive ring positions touch each other).
#[derive(Clone, Debug)]
pub struct InferiorCells {
    rings: Vec<[RingPosition; 6]>,
    /// `joined_rings[owned | open << 6]` (six bits each, ring positions): whether every two
    /// open positions are joined around the ring through owned ones, the test of
    /// [`InferiorCells::useless`] for every ring at once (fill-in asks it thousands of times a
    /// position).
    joined_rings: Vec<bool>,
    /// Per cell: its on-board neighbours.
    neighbours: Vec<u128>,
    /// Every cell of the board.
    all: u128,
}

impl InferiorCells {
    /// The rings of `geometry`'s board.
    pub fn new(geometry: &BoardGeometry) -> InferiorCells {
        let (width, height) = (geometry.width() as i32, geometry.height() as i32);
        let mut rings = Vec::with_capacity(geometry.cells());
        for cell in 0..geometry.cells() {
            let (c, r) = (cell as i32 % width, cell as i32 / width);
            rings.push(NEIGHBOUR_OFFSETS.map(|(dc, dr)| {
                let (nc, nr) = (c + dc, r + dr);
                // Off the board past a row is Black's edge, past a column White's; the one
                // position off both (beside a corner) may take either, as it sits between the
                // two edges in the ring.
                if nr < 0 || nr >= height {
                    RingPosition::Edge(Color::Black)
                } else if nc < 0 || nc >= width {
                    RingPosition::Edge(Color::White)
                } else {
                    RingPosition::Cell((nr * width + nc) as usize)
                }
            }));
        }
        // `between[i][j]`: the ring positions strictly between i and j going up from i (mod 6).
        let mut between = [[0u8; 6]; 6];
        for (i, row) in between.iter_mut().enumerate() {
            for (j, mask) in row.iter_mut().enumerate() {
                let mut k = (i + 1) % 6;
                while k != j && i != j {
                    *mask |= 1 << k;
                    k = (k + 1) % 6;
                }
            }
        }
        let joined_rings =
            (0..1usize << 12).map(|index| ring_joined(&between, index as u8 & 63, (index >> 6) as u8)).collect();
        InferiorCells {
            rings,
            joined_rings,
            neighbours: (0..geometry.cells()).map(|cell| geometry.adjacent(cell)).collect(),
            all: geometry.all(),
        }
    }

    /// Whether a `color` stone on the empty cell `cell` is useless to `color` (module docs),
    /// with `stones` per colour.
    pub fn useless(&self, cell: usize, color: Color, stones: &[u128; 2]) -> bool {
        let own = stones[color.index()];
        let theirs = stones[color.opponent().index()];
        let (mut owned, mut open) = (0u8, 0u8);
        for (i, position) in self.rings[cell].iter().enumerate() {
            let (mine, blocked) = match *position {
                RingPosition::Edge(edge) => (edge == color, edge != color),
                RingPosition::Cell(other) => (own >> other & 1 != 0, theirs >> other & 1 != 0),
            };
            if mine {
                owned |= 1 << i;
            }
            if !blocked {
                open |= 1 << i;
            }
        }
        self.joined_rings[owned as usize | (open as usize) << 6]
    }

    /// A *killer* of a `color` stone on the empty cell `cell`: an empty neighbour where the
    /// opponent's answer leaves the stone dead. Such a cell is *vulnerable*: if `color` wins a
    /// position, it also wins with a move that is not vulnerable (the solver's module docs
    /// give the argument), so the solver never needs to try one.
    pub fn killer(&self, cell: usize, color: Color, stones: &[u128; 2], empty: u128) -> Option<usize> {
        let opponent = color.opponent().index();
        self.rings[cell].iter().find_map(|&position| {
            let RingPosition::Cell(killer) = position else { return None };
            if empty >> killer & 1 == 0 {
                return None;
            }
            let mut answered = *stones;
            answered[opponent] |= 1 << killer;
            (self.useless(cell, color, &answered) || self.useless(cell, color.opponent(), &answered)).then_some(killer)
        })
    }

    /// Fills dead cells and captured pairs of `stones` (module docs) until none is left, and
    /// says what was filled. `empty` are the empty cells.
    pub fn fill_in(&self, stones: &mut [u128; 2], empty: u128) -> FillIn {
        self.fill_in_near(stones, empty, u128::MAX)
    }

    /// [`InferiorCells::fill_in`] for a position that was filled in before `changed` (a set of
    /// cells) was played: whether a cell is dead depends only on its ring, and whether two
    /// cells are a captured pair only on their two rings, so only cells within two steps of a
    /// change can have become dead or captured (and within two steps of each cell filled on
    /// the way). It looks at those cells alone, at a fraction of the cost (the solver fills in
    /// every child of every node it searches). It ends where no dead cell or captured pair is
    /// left, as `fill_in` does; where the order of filling matters (a cell in two captured
    /// pairs) the two may fill differently, each soundly.
    pub fn fill_in_after(&self, stones: &mut [u128; 2], empty: u128, changed: u128) -> FillIn {
        self.fill_in_near(stones, empty, self.near(self.near(changed)))
    }

    /// `changed` and the cells next to it.
    fn near(&self, changed: u128) -> u128 {
        let mut out = changed;
        for cell in iterate(changed & self.all) {
            out |= self.neighbours[cell];
        }
        out
    }

    /// Fill-in looking only at the empty cells of `candidates` (and near the cells it fills).
    fn fill_in_near(&self, stones: &mut [u128; 2], empty: u128, candidates: u128) -> FillIn {
        let mut fill = FillIn::default();
        let mut empty = empty;
        let mut candidates = candidates;
        loop {
            let before = empty;
            // 1. Dead cells, filled with the colour they are not useless to (either if both).
            for cell in iterate(empty & candidates) {
                for color in [Color::Black, Color::White] {
                    if self.useless(cell, color.opponent(), stones) {
                        stones[color.index()] |= 1 << cell;
                        empty &= !(1 << cell);
                        fill.dead |= 1 << cell;
                        break;
                    }
                }
            }
            // 2. Captured pairs.
            for cell in iterate(empty & candidates) {
                if empty >> cell & 1 == 0 {
                    continue;
                }
                for position in self.rings[cell] {
                    let RingPosition::Cell(other) = position else { continue };
                    if other < cell || empty >> other & 1 == 0 {
                        continue;
                    }
                    for color in [Color::Black, Color::White] {
                        let index = color.index();
                        let opponent = color.opponent();
                        let mut with_other = *stones;
                        with_other[index] |= 1 << other;
                        let mut with_cell = *stones;
                        with_cell[index] |= 1 << cell;
                        if self.useless(cell, opponent, &with_other) && self.useless(other, opponent, &with_cell) {
                            let pair = 1u128 << cell | 1u128 << other;
                            stones[index] |= pair;
                            empty &= !pair;
                            fill.captured[index] |= pair;
                            break;
                        }
                    }
                    if empty >> cell & 1 == 0 {
                        break;
                    }
                }
            }
            let filled = before & !empty;
            if filled == 0 {
                return fill;
            }
            if candidates != u128::MAX {
                candidates |= self.near(self.near(filled));
            }
        }
    }
}

/// Whether every two `open` ring positions are joined by one of the two ring paths between
/// them whose inner positions are all `owned` (bit i: ring position i).
fn ring_joined(between: &[[u8; 6]; 6], owned: u8, open: u8) -> bool {
    let is_open = |position: usize| open >> position & 1 != 0;
    let joined = |i: usize, j: usize| between[i][j] & !owned == 0 || between[j][i] & !owned == 0;
    (0..6).filter(|&i| is_open(i)).all(|i| (i + 1..6).filter(|&j| is_open(j)).all(|j| joined(i, j)))
}

/// Dead and captured cells of `position` after fill-in: `(dead, captured by Black, captured by
/// White)`. None of them needs to be played by either side: a dead cell is a pass, a cell in
/// one's own captured pair is one already, and a move into the opponent's captured pair is
/// answered in the pair and becomes dead (play-side move pruning may drop them all while some
/// other empty cell is left). `None` on boards over 128 cells or when the game is over.
pub fn inferior_cells(position: &Hex) -> Option<(Bitboard, Bitboard, Bitboard)> {
    use crate::games::Game;
    if position.outcome().is_some() {
        return None;
    }
    let geometry = BoardGeometry::of(position)?;
    let mut stones = geometry.stones_of(position);
    let empty = geometry.all() & !(stones[0] | stones[1]);
    let fill = InferiorCells::new(&geometry).fill_in(&mut stones, empty);
    let to_bitboard = |set: u128| {
        let mut board = Bitboard::default();
        for cell in iterate(set) {
            board.insert(cell);
        }
        board
    };
    Some((to_bitboard(fill.dead), to_bitboard(fill.captured[0]), to_bitboard(fill.captured[1])))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::hex::{HexConfig, HexMove};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use rustc_hash::FxHashMap;

    /// A killer really kills (after the answer the stone's colour changes no minimax value),
    /// and a position won by the side to move always has a winning move without a killer.
    #[test]
    fn killers_kill_and_a_winner_has_an_invulnerable_winning_move() {
        let mut rng = SmallRng::seed_from_u64(37);
        let (mut killed, mut winners) = (0, 0);
        for (width, height) in [(3, 3), (4, 3), (3, 4), (4, 4)] {
            let mut memo = FxHashMap::default();
            let config = HexConfig::with_size(width, height).unwrap();
            let geometry = BoardGeometry::new(width, height).unwrap();
            let ice = InferiorCells::new(&geometry);
            let cells = |set: u128| iterate(set).map(|i| crate::games::hex::Cell(i as u16)).collect::<Vec<_>>();
            let value_with = |stones: [u128; 2], to_move: Color, memo: &mut FxHashMap<u64, i32>| {
                let mut position = Hex::from_stones(&config, &cells(stones[0]), &cells(stones[1])).unwrap();
                match position.outcome() {
                    Some(crate::games::Outcome::Win(winner)) => winner == to_move,
                    _ => {
                        if position.to_move() != to_move {
                            position.give_turn_to(to_move).unwrap();
                        }
                        crate::games::testing::minimax_value(&position, memo) > 0
                    }
                }
            };
            let min_stones = if width * height > 12 { 6 } else { 0 };
            for stones in min_stones..width * height - 1 {
                for _ in 0..6 {
                    let position = crate::games::testing::random_running_position(&Hex::new(&config), &mut rng, stones);
                    let board = geometry.stones_of(&position);
                    let empty = geometry.all() & !(board[0] | board[1]);
                    let me = position.to_move();
                    let (mine, theirs) = (me.index(), me.opponent().index());
                    let mut invulnerable_win = false;
                    let mut any_win = false;
                    for cell in iterate(empty) {
                        let mut played = board;
                        played[mine] |= 1 << cell;
                        let wins = !value_with(played, me.opponent(), &mut memo);
                        any_win |= wins;
                        let Some(killer) = ice.killer(cell, me, &board, empty) else {
                            invulnerable_win |= wins;
                            continue;
                        };
                        killed += 1;
                        let mut answered = played;
                        answered[theirs] |= 1 << killer;
                        let mut recoloured = answered;
                        recoloured[mine] &= !(1 << cell);
                        recoloured[theirs] |= 1 << cell;
                        for to_move in [me, me.opponent()] {
                            assert_eq!(
                                value_with(answered, to_move, &mut memo),
                                value_with(recoloured, to_move, &mut memo),
                                "killer {killer} of {cell}\n{}",
                                position.board_text()
                            );
                        }
                    }
                    if any_win {
                        winners += 1;
                        assert!(invulnerable_win, "only vulnerable winning moves\n{}", position.board_text());
                    }
                }
            }
        }
        assert!(killed > 100 && winners > 50, "{killed} killers, {winners} won positions checked");
    }

    /// Fill-in must keep the minimax value of random small positions, for either side to move.
    #[test]
    fn filling_in_after_a_move_leaves_nothing_for_a_full_fill_in() {
        let mut rng = SmallRng::seed_from_u64(47);
        let (mut checked, mut filled_cells, mut same) = (0, 0, 0);
        for size in [5, 7, 11] {
            let config = HexConfig::with_size(size, size).unwrap();
            let geometry = BoardGeometry::new(size, size).unwrap();
            let ice = InferiorCells::new(&geometry);
            for stones in 0..size * size - 2 {
                let position = crate::games::testing::random_running_position(&Hex::new(&config), &mut rng, stones);
                let mut before = geometry.stones_of(&position);
                let empty = geometry.all() & !(before[0] | before[1]);
                ice.fill_in(&mut before, empty);
                let empty = geometry.all() & !(before[0] | before[1]);
                if empty == 0 {
                    continue;
                }
                let cell = iterate(empty).nth(rng.random_range(0..empty.count_ones() as usize)).unwrap();
                let mut after = before;
                after[rng.random_range(0..2)] |= 1 << cell;
                let empty = empty & !(1 << cell);
                let mut near = after;
                let near_fill = ice.fill_in_after(&mut near, empty, 1 << cell);
                let mut full = after;
                let full_fill = ice.fill_in(&mut full, empty);
                // What the local fill-in leaves, a full one cannot fill.
                let rest = ice.fill_in(&mut near.clone(), geometry.all() & !(near[0] | near[1]));
                assert_eq!(rest, FillIn::default(), "{size}x{size}, {stones} stones, cell {cell}");
                checked += 1;
                filled_cells += (full_fill.dead | full_fill.captured[0] | full_fill.captured[1]).count_ones();
                same += usize::from(near_fill == full_fill && near == full);
            }
        }
        assert!(filled_cells > 100, "{filled_cells} cells filled in {checked} positions");
        assert!(same * 100 >= checked * 95, "the same fill in {same} of {checked} positions");
    }

    #[test]
    fn fill_in_keeps_the_minimax_value() {
        let mut rng = SmallRng::seed_from_u64(31);
        let (mut dead, mut captured) = (0, 0);
        for (width, height) in [(2, 2), (3, 3), (4, 3), (3, 4), (4, 4), (5, 4)] {
            let mut memo = FxHashMap::default();
            let config = HexConfig::with_size(width, height).unwrap();
            let geometry = BoardGeometry::new(width, height).unwrap();
            let ice = InferiorCells::new(&geometry);
            // Minimax from a nearly empty board is slow beyond 16 cells.
            let min_stones = match width * height {
                cells if cells > 16 => 8,
                16 => 4,
                _ => 0,
            };
            for stones in min_stones..width * height {
                for _ in 0..5 {
                    let position = crate::games::testing::random_running_position(&Hex::new(&config), &mut rng, stones);
                    let mut filled_stones = geometry.stones_of(&position);
                    let empty = geometry.all() & !(filled_stones[0] | filled_stones[1]);
                    let fill = ice.fill_in(&mut filled_stones, empty);
                    if fill == FillIn::default() {
                        continue;
                    }
                    dead += fill.dead.count_ones();
                    captured += (fill.captured[0] | fill.captured[1]).count_ones();
                    let cells = |set: u128| iterate(set).map(|i| crate::games::hex::Cell(i as u16)).collect::<Vec<_>>();
                    let mut filled =
                        Hex::from_stones(&config, &cells(filled_stones[0]), &cells(filled_stones[1])).unwrap();
                    let me = position.to_move();
                    if filled.outcome().is_none() && filled.to_move() != me {
                        filled.give_turn_to(me).unwrap();
                    }
                    let value = crate::games::testing::minimax_value(&position, &mut memo) > 0;
                    let filled_value = match filled.outcome() {
                        Some(crate::games::Outcome::Win(winner)) => winner == me,
                        _ => crate::games::testing::minimax_value(&filled, &mut memo) > 0,
                    };
                    assert_eq!(value, filled_value, "{fill:?}\n{}\n{}", position.board_text(), filled.board_text());
                }
            }
        }
        assert!(dead > 100 && captured > 20, "{dead} dead, {captured} captured cells checked");
    }

    #[test]
    fn finds_classic_dead_and_captured_cells() {
        let config = HexConfig::with_size(5, 5).unwrap();
        let at = |text: &str| match Hex::new(&config).parse_move(text).unwrap() {
            HexMove::Cell(cell) => cell,
            HexMove::Swap => unreachable!(),
        };
        // c3 with four Black neighbours in a row around it is dead.
        let position = Hex::from_stones(&config, &[at("d3"), at("d2"), at("c2"), at("b3")], &[at("a5")]).unwrap();
        let (dead, _, _) = inferior_cells(&position).unwrap();
        assert!(dead.contains(at("c3").0 as usize));
        // a1 next to Black's b1 and the top edge, with White's a2 already at the left edge.
        let position = Hex::from_stones(&config, &[at("b1")], &[at("a2")]).unwrap();
        let (dead, _, _) = inferior_cells(&position).unwrap();
        assert!(dead.contains(at("a1").0 as usize));
        // Under Black's b2, with White on a2 and d1, Black answers b1 with c1 and back.
        let position = Hex::from_stones(&config, &[at("b2")], &[at("a2"), at("d1")]).unwrap();
        let (_, black, _) = inferior_cells(&position).unwrap();
        assert!(black.contains(at("b1").0 as usize) && black.contains(at("c1").0 as usize), "{black:?}");
    }
}
