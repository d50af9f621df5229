//! Threat-space search one level above VCT (λ3 in Thomsen's lambda-search, here "VC3"): the
//! attacker's moves need not be fours or open threes, but each must threaten a VCT (were the
//! defender to pass, the attacker would win by VCT), so the defender may only play the cells
//! that can stop that VCT or counter-threats of its own, and each of those must be refuted in
//! turn, by a VCT or by another such move.
//!
//! Why: in games lost to Rapfi, its long forced wins from quiet positions start this way. With
//! Black F9 J10 K10 H7 J6 and White K8 K9 L10 M9 (White to move), Rapfi announces a win in 23
//! plies; the VCT finds none (White must first stop Black's split three), but White's block G8
//! also threatens a VCT, and from there the defences run out.
//!
//! The defender's moves are those [`defence_candidates`] finds for the threatened VCT's line (its
//! cells, every cell within four of its attacking moves on their lines, and the cells that turn
//! a forced reply in it into a four of the defender's), its own fours and open threes (a
//! counter-threat the attacker must answer first), or the block of the attacker's five point.
//! A cell outside that set may stop a long VCT, so a win here is as sound as the defence set,
//! the same set the root uses against the opponent's VCT
//! ([`super::gomoku_tactics::forcing_defences`]). A VCT that runs out of nodes counts as no
//! threat (for the attacker) and as no refutation (for a defence): limits only make the search
//! find less.

use std::sync::atomic::{AtomicBool, Ordering};

use rustc_hash::{FxHashMap, FxHashSet};

use super::gomoku_tactics::defence_candidates;
use super::gomoku_vcf::{
    VcfOptions, VcfOutcome, VcfResult, settled_without_search, solve_vcf_on, solve_vct_on, three_defences_on,
};
use crate::games::Color;
use crate::games::mnk::gomoku_threats::{LINE_DIRECTIONS, LinePattern, ThreatBoard};
use crate::games::mnk::{Cell, Mnk};

/// Limits of one VC3 search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vc3Options {
    /// Nodes in all, the VCT and VCF searches inside counted.
    pub max_nodes: u64,
    /// The most attacker moves that threaten a VCT in a line (the VCTs' own moves not counted).
    pub max_threat_moves: u32,
    /// Nodes of each VCT or VCF search inside: a threat, a refutation, the defender's VCF.
    pub inner_nodes: u64,
    /// Attacker moves tried at a quiet node, best first.
    pub width: usize,
}

impl Vc3Options {
    /// The limits of `ponder-solve`.
    pub const fn solve() -> Vc3Options {
        Vc3Options { max_nodes: 2_000_000, max_threat_moves: 2, inner_nodes: 20_000, width: 16 }
    }
}

/// The node limit or the stop flag ended the search.
struct Aborted;

/// Searches for a VC3 win of `attacker`, which moves first whatever `position`'s side to move
/// is. A found line starts with the attacker's move and alternates; it is one branch of the
/// proof, ending in a VCT's five. [`VcfOutcome::NotFound`] when every line within the limits
/// failed; [`VcfOutcome::Unknown`] when the nodes or `stop` ended the search.
pub fn solve_vc3(position: &Mnk, attacker: Color, options: &Vc3Options, stop: &AtomicBool) -> VcfResult {
    if let Some(result) = settled_without_search(position, attacker) {
        return result;
    }
    let mut board = ThreatBoard::new(position);
    let mut search = Vc3Search::new(&mut board, attacker, options, stop);
    // Shortest first: a line of one threat move costs a fraction of one of two.
    for depth in 1..=options.max_threat_moves {
        match search.attacker_node(depth) {
            Err(Aborted) => return VcfResult { outcome: VcfOutcome::Unknown, nodes: search.nodes },
            Ok(true) => {
                let line = std::mem::take(&mut search.winning_line);
                return VcfResult { outcome: VcfOutcome::Win(line), nodes: search.nodes };
            }
            Ok(false) => {}
        }
    }
    VcfResult { outcome: VcfOutcome::NotFound, nodes: search.nodes }
}

struct Vc3Search<'a> {
    board: &'a mut ThreatBoard,
    attacker: Color,
    defender: Color,
    options: &'a Vc3Options,
    stop: &'a AtomicBool,
    nodes: u64,
    /// The moves from the root to the current node.
    line: Vec<Cell>,
    /// The last proven branch: the moves to a VCT and its line.
    winning_line: Vec<Cell>,
    /// Attacker nodes (by hash) that failed with this many threat moves left.
    failed: FxHashMap<u64, u32>,
    /// Attacker nodes proven won.
    won: FxHashSet<u64>,
}

impl<'a> Vc3Search<'a> {
    fn new(board: &'a mut ThreatBoard, attacker: Color, options: &'a Vc3Options, stop: &'a AtomicBool) -> Self {
        Vc3Search {
            board,
            attacker,
            defender: attacker.opponent(),
            options,
            stop,
            nodes: 0,
            line: Vec::new(),
            winning_line: Vec::new(),
            failed: FxHashMap::default(),
            won: FxHashSet::default(),
        }
    }

    fn count(&mut self, nodes: u64) -> Result<(), Aborted> {
        self.nodes += nodes;
        if self.nodes > self.options.max_nodes || self.stop.load(Ordering::Relaxed) {
            return Err(Aborted);
        }
        Ok(())
    }

    fn inner_options(&self) -> VcfOptions {
        VcfOptions { max_nodes: self.options.inner_nodes, ..VcfOptions::vct() }
    }

    /// The attacker's VCT (a VCF among them) from the board as it stands, attacker to move.
    fn attacker_vct(&mut self) -> Result<Option<Vec<Cell>>, Aborted> {
        let result = solve_vct_on(self.board, self.attacker, &self.inner_options(), self.stop);
        self.count(result.nodes)?;
        Ok(match result.outcome {
            VcfOutcome::Win(line) => Some(line),
            VcfOutcome::NotFound | VcfOutcome::Unknown => None,
        })
    }

    /// Whether the defender, to move, wins first by a VCF (one the nodes did not settle counts:
    /// the attacker's line is then not proven).
    fn defender_vcf(&mut self) -> Result<bool, Aborted> {
        let options = VcfOptions { max_nodes: self.options.inner_nodes, ..VcfOptions::vcf() };
        let result = solve_vcf_on(self.board, self.defender, &options, self.stop);
        self.count(result.nodes)?;
        Ok(!matches!(result.outcome, VcfOutcome::NotFound))
    }

    /// The attacker to move with `depth` threat moves left: whether it wins by force.
    fn attacker_node(&mut self, depth: u32) -> Result<bool, Aborted> {
        self.count(1)?;
        // 1. A VCT wins now.
        if let Some(vct) = self.attacker_vct()? {
            self.winning_line.clone_from(&self.line);
            self.winning_line.extend(vct);
            return Ok(true);
        }
        if depth == 0 {
            return Ok(false);
        }
        let hash = self.board.zobrist(self.attacker);
        if self.won.contains(&hash) {
            self.winning_line.clone_from(&self.line);
            return Ok(true);
        }
        if self.failed.get(&hash).is_some_and(|&failed| failed >= depth) {
            return Ok(false);
        }
        // 2. Each move that threatens a VCT, every defence of it refuted.
        for cell in self.attacker_moves() {
            self.board.play(self.attacker, cell);
            self.line.push(cell);
            let threat = self.attacker_vct();
            let won = match threat {
                Ok(Some(vct)) => self.defender_node(depth, &vct),
                Ok(None) => Ok(false),
                Err(aborted) => Err(aborted),
            };
            self.line.pop();
            self.board.undo();
            if won? {
                self.won.insert(hash);
                return Ok(true);
            }
        }
        let entry = self.failed.entry(hash).or_insert(0);
        *entry = (*entry).max(depth);
        Ok(false)
    }

    /// The defender to move against the attacker's threatened `vct`, the attacker with `depth`
    /// threat moves left counting the one just played: whether every defence is refuted.
    fn defender_node(&mut self, depth: u32, vct: &[Cell]) -> Result<bool, Aborted> {
        self.count(1)?;
        if !self.board.five_points(self.defender).is_empty() || self.defender_vcf()? {
            return Ok(false);
        }
        let defences = match self.board.five_points(self.attacker).first() {
            Some(block) => vec![block],
            None => {
                let mut defences = defence_candidates(self.board, self.defender, vct, true);
                defences.extend(self.board.four_points(self.defender).iter());
                defences.sort();
                defences.dedup();
                defences
            }
        };
        for cell in defences {
            self.board.play(self.defender, cell);
            self.line.push(cell);
            let refuted = self.attacker_node(depth - 1);
            self.line.pop();
            self.board.undo();
            if !refuted? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The attacker's moves at a node: the block of the defender's five point; against its
    /// open three, every answer the VCT allows there (the cells that leave it no open four,
    /// then the attacker's own fours); else the quiet cells near the attacker's stones, best
    /// first, [`Vc3Options::width`] of them.
    fn attacker_moves(&mut self) -> Vec<Cell> {
        let defender = self.defender;
        if let Some(block) = self.board.five_points(defender).first() {
            return vec![block];
        }
        if !self.board.winning_four_points(defender).is_empty() {
            return three_defences_on(self.board, defender);
        }
        let mut scored: Vec<(u32, Cell)> = (0..self.board.width() * self.board.height())
            .map(|index| Cell(index as u16))
            .filter(|&cell| self.board.is_empty(cell))
            .filter_map(|cell| {
                let score = self.attack_score(cell);
                (score > 0).then_some((score, cell))
            })
            .collect();
        scored.sort_unstable_by_key(|&(score, cell)| (std::cmp::Reverse(score), cell.0));
        scored.truncate(self.options.width);
        scored.into_iter().map(|(_, cell)| cell).collect()
    }

    /// How promising `cell` is for the attacker: per line, the square of its stones within
    /// four cells each way up to a defender stone or the edge (stones that a five through the
    /// cell could use), plus the threat it makes there; 0 with no attacker stone in reach.
    fn attack_score(&self, cell: Cell) -> u32 {
        let mut score = 0;
        for direction in 0..LINE_DIRECTIONS.len() {
            let mut stones = 0;
            for sign in [-1, 1] {
                for steps in 1..=4 {
                    match self.board.step(cell, direction, sign * steps) {
                        Some(next) => match self.board.stone_at(next) {
                            Some(color) if color == self.attacker => stones += 1,
                            Some(_) => break,
                            None => {}
                        },
                        None => break,
                    }
                }
            }
            score += stones * stones;
            score += match self.board.line_pattern(self.attacker, cell, direction) {
                LinePattern::Five | LinePattern::OpenFour | LinePattern::Four => 16,
                LinePattern::OpenThree => 8,
                LinePattern::ClosedThree => 2,
                LinePattern::None => 0,
            };
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::mnk::MnkConfig;
    use crate::solvers::gomoku_vcf::{VcfPuzzle, parse_won_positions_tsv, solve_vct};

    const WON_POSITIONS: &str = include_str!("../../tests/data/gomoku/rapfi_won_positions.tsv");

    fn won_position(id: &str) -> VcfPuzzle {
        let (positions, problems) = parse_won_positions_tsv(WON_POSITIONS);
        assert!(problems.is_empty(), "{problems:?}");
        positions.into_iter().find(|puzzle| puzzle.id == id).expect("the id is in the table")
    }

    fn gomoku(moves: &[&str]) -> Mnk {
        let mut position = Mnk::new(&MnkConfig::gomoku());
        for text in moves {
            let cell = position.parse_move(text).expect("a cell");
            position.play(cell).expect("legal");
        }
        position
    }

    #[test]
    fn finds_wins_that_start_with_a_move_threatening_a_vct() {
        // Two positions where Rapfi announced a win in 7 plies that ponder's VCT (the limits of
        // `ponder-solve`) does not find; Rapfi (3 s) confirms the move found here: after it the
        // defender is mated in 6. The first is won by Rapfi's own move (G9), the second by
        // another (N7; Rapfi played M7).
        let stop = AtomicBool::new(false);
        for id in ["p1s-g10-m24", "p5s-g10-m34"] {
            let puzzle = won_position(id);
            let (position, attacker) = (&puzzle.position, puzzle.attacker);
            let vct = solve_vct(position, attacker, &VcfOptions::vct(), &stop);
            assert!(!matches!(vct.outcome, VcfOutcome::Win(_)), "{id}: the VCT alone wins, so this shows nothing");
            let result = solve_vc3(position, attacker, &Vc3Options::solve(), &stop);
            let VcfOutcome::Win(line) = result.outcome else { panic!("{id}: {:?}", result.outcome) };
            // The line replays legally, attacker first, the sides alternating.
            let mut replay = position.clone();
            assert_eq!(replay.to_move(), attacker);
            for &cell in &line {
                replay
                    .play(cell)
                    .unwrap_or_else(|_| panic!("{id}: {} is not legal in the line", replay.format_move(cell)));
                if replay.outcome().is_some() {
                    break;
                }
            }
            // Its first move threatens a VCT: the defender must answer it.
            let mut threatened = position.clone();
            threatened.play_unchecked(line[0]);
            let threat = solve_vct(&threatened, attacker, &VcfOptions::vct(), &stop);
            assert!(matches!(threat.outcome, VcfOutcome::Win(_)), "{id}: {}", position.format_move(line[0]));
        }
    }

    #[test]
    fn against_the_defenders_open_three_the_attacker_blocks_it_or_plays_a_four() {
        // White's open three E8 F8 G8; Black (the attacker, to move) has A1 B1 C1.
        let position = gomoku(&["A1", "E8", "B1", "F8", "C1", "G8"]);
        let mut board = ThreatBoard::new(&position);
        let options = Vc3Options::solve();
        let stop = AtomicBool::new(false);
        let mut search = Vc3Search::new(&mut board, Color::Black, &options, &stop);
        let mut moves: Vec<String> =
            search.attacker_moves().into_iter().map(|cell| position.format_move(cell)).collect();
        moves.sort();
        // The blocks beside the three, and Black's own fours, which White must answer first.
        assert_eq!(moves, ["D1", "D8", "E1", "H8"]);
    }

    #[test]
    fn a_quiet_opening_has_no_such_win() {
        let position = gomoku(&["H8", "J9", "G7"]);
        for attacker in [Color::Black, Color::White] {
            let result = solve_vc3(&position, attacker, &Vc3Options::solve(), &AtomicBool::new(false));
            assert!(!matches!(result.outcome, VcfOutcome::Win(_)), "{attacker:?}: {:?}", result.outcome);
            assert!(result.nodes > 0);
        }
    }

    #[test]
    fn the_node_limit_and_the_stop_flag_end_it_unknown() {
        let puzzle = won_position("p5s-g6-m16");
        let few = Vc3Options { max_nodes: 1_000, ..Vc3Options::solve() };
        let result = solve_vc3(&puzzle.position, puzzle.attacker, &few, &AtomicBool::new(false));
        assert_eq!(result.outcome, VcfOutcome::Unknown);
        let stopped = solve_vc3(&puzzle.position, puzzle.attacker, &Vc3Options::solve(), &AtomicBool::new(true));
        assert_eq!(stopped.outcome, VcfOutcome::Unknown);
    }
}
