//! The electric-circuit evaluation of Hex positions (Anshelevich's Hexy, Queenbee, Benzene's
//! resistance): each player's board is a circuit between its two edges in which an empty cell
//! has resistance 1, the player's stones nearly none and the opponent's stones cut the wire.
//! The lower a player's total resistance, the closer it is to connecting; the log of the
//! ratio of the two resistances is the evaluation.
//!
//! The solver uses it to order moves, which only changes the order in which it looks at
//! them, never a result.

use crate::games::Color;
use crate::solvers::hex_vc::{BoardGeometry, iterate};

/// Resistance of a cell holding the player's own stone: small but non-zero, so that the
/// circuit stays a plain linear system.
const OWN_STONE_RESISTANCE: f64 = 0.02;
/// Leak from every cell to ground, so that cells cut off from both edges keep the system
/// regular; small enough to change no ordering that matters.
const LEAK: f64 = 1e-9;

/// Scratch space for [`Resistance::evaluate`], reused across positions.
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

    /// The evaluation for `to_move` of the position with stones `stones` (indexed by
    /// [`Color::index`]): ln(R_opponent / R_to_move), positive when `to_move` is closer to
    /// connecting.
    pub fn evaluate(&mut self, geometry: &BoardGeometry, stones: &[u128; 2], to_move: Color) -> f64 {
        let mine = self.resistance(geometry, stones, to_move);
        let theirs = self.resistance(geometry, stones, to_move.opponent());
        (theirs / mine).ln()
    }

    /// `color`'s resistance between its two edges; infinite when the opponent has cut them.
    pub fn resistance(&mut self, geometry: &BoardGeometry, stones: &[u128; 2], color: Color) -> f64 {
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
        let potential = solve_symmetric(matrix, rhs, count);
        let current: f64 = (0..count).map(|i| source_conductance[i] * (1.0 - potential[i])).sum();
        // With the edges cut only the leak carries current.
        if current < 1e3 * LEAK * count as f64 { f64::INFINITY } else { 1.0 / current }
    }
}

/// Solves `matrix * x = rhs` (a symmetric positive definite `count` x `count` matrix) by
/// Gaussian elimination without pivoting, in place; returns x (in `rhs`).
fn solve_symmetric<'a>(matrix: &mut [f64], rhs: &'a mut [f64], count: usize) -> &'a [f64] {
    for k in 0..count {
        let pivot = matrix[k * count + k];
        for i in k + 1..count {
            let factor = matrix[i * count + k] / pivot;
            if factor == 0.0 {
                continue;
            }
            for j in k..count {
                matrix[i * count + j] -= factor * matrix[k * count + j];
            }
            rhs[i] -= factor * rhs[k];
        }
    }
    for k in (0..count).rev() {
        let mut value = rhs[k];
        for j in k + 1..count {
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
        Resistance::new(&geometry).evaluate(&geometry, &stones, to_move)
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
}
