//! The electric-circuit evaluation of Hex positions (Anshelevich's Hexy, Queenbee, Benzene's
//! resistance): each player's board is a circuit between its two edges in which an empty cell
//! has resistance 1, the player's stones nearly none and the opponent's stones cut the wire.
//! The lower a player's total resistance, the closer it is to connecting (the log of the
//! ratio of the two resistances is the classic evaluation).
//!
//! The solver orders moves by the current through each cell in both circuits
//! ([`Resistance::cell_scores`], as Benzene's df-pn does), which only changes the order in
//! which it looks at them, never a result.

use crate::games::Color;
use crate::solvers::hex_vc::{BoardGeometry, iterate};

/// Resistance of a cell holding the player's own stone: small but non-zero, so that the
/// circuit stays a plain linear system.
const OWN_STONE_RESISTANCE: f64 = 0.02;
/// Leak from every cell to ground, so that cells cut off from both edges keep the system
/// regular; small enough to change no ordering that matters.
const LEAK: f64 = 1e-9;

/// Scratch space for the circuits ([`Resistance::resistance`], [`Resistance::cell_scores`]),
/// reused across positions.
pub struct Resistance {
    matrix: Vec<f64>,
    rhs: Vec<f64>,
    /// Per unknown: its conductance to the first edge (the source), for the current.
    source_conductance: Vec<f64>,
    index_of_cell: Vec<usize>,
}

impl Resistance {
    pub fn new(geometry: &BoardGeometry) -> Resistance {
        let cells = geometry.cells();
        Resistance {
            matrix: vec![0.0; cells * cells],
            rhs: vec![0.0; cells],
            source_conductance: vec![0.0; cells],
            index_of_cell: vec![usize::MAX; cells],
        }
    }

    /// `color`'s resistance between its two edges; infinite when the opponent has cut them.
    pub fn resistance(&mut self, geometry: &BoardGeometry, stones: &[u128; 2], color: Color) -> f64 {
        self.circuit(geometry, stones, color, None)
    }

    /// Per cell (indexed by cell), the current through it in Black's circuit plus that in
    /// White's: Benzene's move-ordering score. Cells that carry much of both players' current
    /// are where both want to play. `scores` must hold a value per cell of the board.
    pub fn cell_scores(&mut self, geometry: &BoardGeometry, stones: &[u128; 2], scores: &mut [f64]) {
        scores.fill(0.0);
        for color in [Color::Black, Color::White] {
            self.circuit(geometry, stones, color, Some(&mut *scores));
        }
    }

    /// Solves `color`'s circuit and returns its resistance; with `scores`, adds to each open
    /// cell's entry the current through it (half the sum of the absolute currents on its
    /// wires).
    fn circuit(
        &mut self,
        geometry: &BoardGeometry,
        stones: &[u128; 2],
        color: Color,
        scores: Option<&mut [f64]>,
    ) -> f64 {
        let own = stones[color.index()];
        let open = geometry.all() & !stones[color.opponent().index()];
        let cell_resistance = |cell: usize| if own >> cell & 1 != 0 { OWN_STONE_RESISTANCE } else { 1.0 };
        // Unknowns: the potentials of the open cells; the first edge is held at 1, the second
        // at 0.
        let count = open.count_ones() as usize;
        for (index, cell) in iterate(open).enumerate() {
            self.index_of_cell[cell] = index;
        }
        let matrix = &mut self.matrix[..count * count];
        matrix.fill(0.0);
        let rhs = &mut self.rhs[..count];
        rhs.fill(0.0);
        let (first, second) = geometry.edges(color);
        let source_conductance = &mut self.source_conductance[..count];
        source_conductance.fill(0.0);
        for cell in iterate(open) {
            let i = self.index_of_cell[cell];
            matrix[i * count + i] += LEAK;
            for neighbour in iterate(geometry.adjacent(cell) & open) {
                let conductance = 1.0 / (cell_resistance(cell) + cell_resistance(neighbour));
                let j = self.index_of_cell[neighbour];
                matrix[i * count + i] += conductance;
                matrix[i * count + j] -= conductance;
            }
            let to_edge = 1.0 / cell_resistance(cell);
            if first >> cell & 1 != 0 {
                matrix[i * count + i] += to_edge;
                rhs[i] += to_edge;
                source_conductance[i] = to_edge;
            }
            if second >> cell & 1 != 0 {
                matrix[i * count + i] += to_edge;
            }
        }
        // Neighbouring cells are at most a row apart, and numbering only the open cells brings
        // them no further apart: the matrix is a band of that half-width.
        let potential = solve_banded(matrix, rhs, count, geometry.width());
        let current: f64 = (0..count).map(|i| source_conductance[i] * (1.0 - potential[i])).sum();
        if let Some(scores) = scores {
            for cell in iterate(open) {
                let i = self.index_of_cell[cell];
                let to_edge = 1.0 / cell_resistance(cell);
                let mut flow = 0.0;
                if first >> cell & 1 != 0 {
                    flow += to_edge * (1.0 - potential[i]);
                }
                if second >> cell & 1 != 0 {
                    flow += to_edge * potential[i];
                }
                for neighbour in iterate(geometry.adjacent(cell) & open) {
                    let conductance = 1.0 / (cell_resistance(cell) + cell_resistance(neighbour));
                    flow += (conductance * (potential[i] - potential[self.index_of_cell[neighbour]])).abs();
                }
                scores[cell] += flow / 2.0;
            }
        }
        // With the edges cut only the leak carries current.
        if current < 1e3 * LEAK * count as f64 { f64::INFINITY } else { 1.0 / current }
    }
}

/// Solves `matrix * x = rhs` (a symmetric positive definite `count` x `count` matrix whose
/// entries more than `half_width` off the diagonal are zero) by Gaussian elimination without
/// pivoting, in place; returns x (in `rhs`). Without pivoting the band fills in nothing outside
/// itself, so only the band is worked: the same arithmetic as the dense elimination, minus the
/// operations on zeros.
fn solve_banded<'a>(matrix: &mut [f64], rhs: &'a mut [f64], count: usize, half_width: usize) -> &'a [f64] {
    for k in 0..count {
        let pivot = matrix[k * count + k];
        let band_end = (k + half_width + 1).min(count);
        for i in k + 1..band_end {
            let factor = matrix[i * count + k] / pivot;
            if factor == 0.0 {
                continue;
            }
            for j in k..band_end {
                matrix[i * count + j] -= factor * matrix[k * count + j];
            }
            rhs[i] -= factor * rhs[k];
        }
    }
    for k in (0..count).rev() {
        let mut value = rhs[k];
        for j in k + 1..(k + half_width + 1).min(count) {
            value -= matrix[k * count + j] * rhs[j];
        }
        rhs[k] = value / matrix[k * count + k];
    }
    rhs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testing::hex_position;

    fn evaluate(size: usize, black: &[&str], white: &[&str], to_move: Color) -> f64 {
        let position = hex_position(size, size, black, white);
        let geometry = BoardGeometry::of(&position).unwrap();
        let stones = geometry.stones_of(&position);
        // ln(R_opponent / R_to_move): positive when `to_move` is closer to connecting.
        let mut resistance = Resistance::new(&geometry);
        let mine = resistance.resistance(&geometry, &stones, to_move);
        let theirs = resistance.resistance(&geometry, &stones, to_move.opponent());
        (theirs / mine).ln()
    }

    #[test]
    fn empty_boards_are_even_and_stones_help_their_owner() {
        assert!(evaluate(5, &[], &[], Color::Black).abs() < 1e-9);
        let centre = evaluate(5, &["c3"], &[], Color::Black);
        let corner = evaluate(5, &["a1"], &[], Color::Black);
        assert!(centre > corner && corner > 0.0, "{centre} {corner}");
        assert!((evaluate(5, &["c3"], &[], Color::White) + centre).abs() < 1e-9);
    }

    #[test]
    fn a_cut_player_has_infinite_resistance() {
        let position = hex_position(3, 3, &[], &["a2", "b2", "c2"]);
        let geometry = BoardGeometry::of(&position).unwrap();
        let stones = geometry.stones_of(&position);
        let mut resistance = Resistance::new(&geometry);
        assert_eq!(resistance.resistance(&geometry, &stones, Color::Black), f64::INFINITY);
        assert!(resistance.resistance(&geometry, &stones, Color::White) < 0.2);
    }

    #[test]
    fn the_banded_solve_is_the_dense_one_without_the_zeros() {
        // A random symmetric, diagonally dominant band matrix: eliminating only the band must
        // give the dense elimination's numbers exactly.
        let (count, half_width) = (30, 6);
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as f64 / (1u64 << 31) as f64
        };
        let mut matrix = vec![0.0; count * count];
        for i in 0..count {
            for j in i + 1..(i + half_width + 1).min(count) {
                if next() < 0.6 {
                    let value = -next();
                    matrix[i * count + j] = value;
                    matrix[j * count + i] = value;
                }
            }
        }
        for i in 0..count {
            let off: f64 = (0..count).filter(|&j| j != i).map(|j| matrix[i * count + j].abs()).sum();
            matrix[i * count + i] = off + 0.1 + next();
        }
        let rhs: Vec<f64> = (0..count).map(|_| next()).collect();
        let (mut banded_matrix, mut banded_rhs) = (matrix.clone(), rhs.clone());
        let banded = solve_banded(&mut banded_matrix, &mut banded_rhs, count, half_width).to_vec();
        let (mut dense_matrix, mut dense_rhs) = (matrix.clone(), rhs.clone());
        let dense = solve_banded(&mut dense_matrix, &mut dense_rhs, count, count).to_vec();
        assert_eq!(banded, dense);
        // And it solves the system.
        for i in 0..count {
            let product: f64 = (0..count).map(|j| matrix[i * count + j] * banded[j]).sum();
            assert!((product - rhs[i]).abs() < 1e-9, "row {i}: {product} against {}", rhs[i]);
        }
    }

    #[test]
    fn cell_scores_follow_the_current_of_both_players() {
        let scores = |black: &[&str], white: &[&str]| {
            let position = hex_position(5, 5, black, white);
            let geometry = BoardGeometry::of(&position).unwrap();
            let stones = geometry.stones_of(&position);
            let mut scores = vec![0.0; 25];
            Resistance::new(&geometry).cell_scores(&geometry, &stones, &mut scores);
            scores
        };
        let empty = scores(&[], &[]);
        // The empty board: symmetric under the half turn (up to the tiny leak to ground), the
        // acute corners (a1, e5) the quietest cells, the centre and the obtuse corners (e1, a5,
        // on an edge of each player) busy.
        for cell in 0..25 {
            assert!((empty[cell] - empty[24 - cell]).abs() < 1e-6, "cell {cell}: {empty:?}");
        }
        let (centre, a1, e1) = (empty[12], empty[0], empty[4]);
        assert!(empty.iter().all(|&score| score >= a1 - 1e-6), "{empty:?}");
        assert!(centre > 2.0 * a1 && e1 > 2.0 * a1 && a1 > 0.0, "{centre} {e1} {a1}");
        // A White wall on the second row cuts Black off and joins White's edges: White's
        // current runs along the wall (its stones nearly conduct), and the empty cells, with
        // no current of Black's left, carry less than on the empty board.
        let walled = scores(&[], &["a2", "b2", "c2", "d2", "e2"]);
        for cell in 0..25 {
            let on_wall = (5..10).contains(&cell);
            assert!(on_wall == (walled[cell] > 1.0), "cell {cell}: {walled:?}");
            assert!(on_wall || walled[cell] < empty[cell], "cell {cell}: {walled:?}");
        }
    }
}
