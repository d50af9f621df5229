//! Threat-space search for Gomoku: VCF (victory by continuous fours) and VCT (victory by
//! continuous threats: threes as well as fours), plus the root helpers [`immediate_win`] and
//! [`must_block`] and a batch runner for VCF puzzle files.
//!
//! The searches work on a [`ThreatBoard`] (incremental threat patterns) with make/unmake, a
//! node limit and a stop flag. VCF is a depth-first search with a transposition table keyed by
//! the position's Zobrist hash ([`Game::hash`] of the same [`Mnk`] with the attacker to move)
//! and iterative deepening on the number of attacker moves. VCT first looks for a short line
//! the same way, within a quarter of its nodes, then runs a depth-first proof-number search
//! (df-pn) over a tree it keeps, with a VCF check at each attacker node: that goes where the
//! defender has fewest answers, and on the won-position table the two together find more wins
//! than the depth-first search alone did in about the same time. Both rules (freestyle, exact five) come
//! from the position.
//!
//! Forcing rules, as the searches apply them (attacker A, defender D):
//! - A wins at once with a five; if D has a five point, A must block it (two: A has lost), and
//!   in VCF that block must itself make a four;
//! - A move leaving two or more five points (open four, double four) wins when D cannot make
//!   five at once;
//! - after A's four, D's only move is the block, unless D can make five (then the line fails);
//!   a block that makes a four for D forces A to answer it (first rule);
//! - VCT only: after A's open three, D may play any cell that leaves A no open four or double
//!   four, or any four of its own; every such defence must be refuted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::games::mnk::gomoku_threats::{CellSet, LINE_DIRECTIONS, LinePattern, ThreatBoard, is_five_in_a_row};
use crate::games::mnk::{Cell, Mnk, MnkConfig};
use crate::games::{Color, Game, Outcome};

/// Limits of one VCF or VCT search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcfOptions {
    /// Nodes (attacker and defender turns) before the search gives up with
    /// [`VcfOutcome::Unknown`].
    pub max_nodes: u64,
    /// The most attacker moves in a line, the final five not counted.
    pub max_attacker_moves: u32,
    /// VCF only: deepen one attacker move at a time, so a shortest line is found (VCF puzzles:
    /// about ten times the nodes); otherwise one depth-first search to `max_attacker_moves`
    /// returns the first line it meets. VCT ignores it: its short lines are found shortest
    /// first, its longer ones by the proof-number search, which finds a proof's line, not
    /// always a shortest one.
    pub shortest_line: bool,
}

impl VcfOptions {
    /// Limits for VCF: fours are few, so lines may be long.
    pub const fn vcf() -> VcfOptions {
        VcfOptions { max_nodes: 2_000_000, max_attacker_moves: 60, shortest_line: false }
    }

    /// Limits for VCT: threes branch widely, so lines are kept short (20 attacker moves found
    /// no more of the won-position table than 10).
    pub const fn vct() -> VcfOptions {
        VcfOptions { max_nodes: 300_000, max_attacker_moves: 10, shortest_line: true }
    }
}

impl Default for VcfOptions {
    fn default() -> Self {
        VcfOptions::vcf()
    }
}

/// What a VCF or VCT search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VcfOutcome {
    /// The attacker wins by force. The line holds the attacker's and the defender's moves
    /// interleaved, attacker first and last. After its last move the attacker has made five, or
    /// has two or more cells that make five while the defender has none. For VCF the line is the
    /// whole forcing sequence (every defender move is the only block). For VCT it is one branch
    /// of the proof tree (the first move is the winning move; the rest follows one defence and
    /// may stop early where it reached a position already proven). Empty when the attacker has
    /// already won.
    Win(Vec<Cell>),
    /// The search finished: no such win within `max_attacker_moves`.
    NotFound,
    /// The node limit or the stop flag ended the search first.
    Unknown,
}

/// A search's answer and effort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VcfResult {
    /// What was found.
    pub outcome: VcfOutcome,
    /// Nodes searched, over all iterations.
    pub nodes: u64,
}

/// The kind of threat search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Fours,
    Threats,
}

/// The node limit or the stop flag ended the search.
struct Aborted;

/// What expanding a proof-number leaf found.
enum PnExpansion {
    Proven,
    Disproven,
    Children(Vec<Cell>),
}

/// How often (in nodes) the stop flag is read.
const STOP_POLL_INTERVAL: u64 = 256;
/// A transposition entry for a failure that no depth limit caused.
const FAILED_AT_ANY_DEPTH: u8 = u8::MAX;
/// Attacker moves a VCF run inside a VCT may use (they do not count against the VCT's depth).
const VCF_DEPTH_IN_VCT: u8 = 30;
/// Mixed into the hashes of the VCF runs inside a VCT, so their failures (fours only) are kept
/// apart from the VCT's.
const VCF_HASH_SALT: u64 = 0x5643_465f_696e_5643;

/// Searches for a VCF of `attacker`, which moves first whatever `position`'s side to move is
/// (so asking about the opponent tells whether it threatens a VCF). The result is
/// [`VcfOutcome::NotFound`] for a finished game the attacker did not win, or a game that is not
/// five in a row. Blocks until done, polling `stop` every few hundred nodes.
pub fn solve_vcf(position: &Mnk, attacker: Color, options: &VcfOptions, stop: &AtomicBool) -> VcfResult {
    solve(position, attacker, options, stop, Mode::Fours)
}

/// [`solve_vcf`] on a board the caller keeps (a search's own [`ThreatBoard`], in whatever
/// position it stands), played on and left as it was: no board is built, so a search can ask
/// at its inner nodes. The game is taken to be on, and five in a row.
pub fn solve_vcf_on(board: &mut ThreatBoard, attacker: Color, options: &VcfOptions, stop: &AtomicBool) -> VcfResult {
    solve_on(board, attacker, options, stop, Mode::Fours)
}

/// Searches for a VCT of `attacker` (fours and open threes), which moves first whatever
/// `position`'s side to move is. Slower and wider than [`solve_vcf`]; see [`VcfOutcome::Win`]
/// for what its line holds. Blocks until done, polling `stop` every few hundred nodes.
pub fn solve_vct(position: &Mnk, attacker: Color, options: &VcfOptions, stop: &AtomicBool) -> VcfResult {
    solve(position, attacker, options, stop, Mode::Threats)
}

/// [`solve_vct`] on a board the caller keeps, as [`solve_vcf_on`] does.
pub fn solve_vct_on(board: &mut ThreatBoard, attacker: Color, options: &VcfOptions, stop: &AtomicBool) -> VcfResult {
    solve_on(board, attacker, options, stop, Mode::Threats)
}

fn solve(position: &Mnk, attacker: Color, options: &VcfOptions, stop: &AtomicBool, mode: Mode) -> VcfResult {
    match settled_without_search(position, attacker) {
        Some(result) => result,
        None => solve_on(&mut ThreatBoard::new(position), attacker, options, stop, mode),
    }
}

/// The answer of every threat search where no search is needed: a finished game (won by the
/// attacker: an empty line), or a game that is not five in a row (nothing found).
pub(super) fn settled_without_search(position: &Mnk, attacker: Color) -> Option<VcfResult> {
    let outcome = match position.outcome() {
        Some(Outcome::Win(winner)) if winner == attacker => VcfOutcome::Win(Vec::new()),
        Some(_) => VcfOutcome::NotFound,
        None if !is_five_in_a_row(position) => VcfOutcome::NotFound,
        None => return None,
    };
    Some(VcfResult { outcome, nodes: 0 })
}

/// The search of `board` as it stands (left as it was), the game taken to be on and five in a
/// row.
fn solve_on(
    board: &mut ThreatBoard,
    attacker: Color,
    options: &VcfOptions,
    stop: &AtomicBool,
    mode: Mode,
) -> VcfResult {
    let mut search = ThreatSearch::new(board, attacker, mode, options.max_nodes, stop);
    let outcome = match mode {
        Mode::Fours => search.iterative_deepening(options.max_attacker_moves, options.shortest_line),
        Mode::Threats => search.shallow_then_proof_number(options.max_attacker_moves),
    };
    VcfResult { outcome, nodes: search.nodes }
}

/// Proof and disproof numbers beyond any real count: the node is proven (or disproven).
const PN_INFINITY: u32 = u32::MAX / 2;

/// One node of a proof-number search's tree: the move that leads to it, its numbers, and its
/// children (a range of the tree's vector, once expanded).
#[derive(Clone, Copy, Debug)]
struct PnNode {
    mv: Cell,
    proof: u32,
    disproof: u32,
    first_child: u32,
    child_count: u32,
}

impl PnNode {
    fn leaf(mv: Cell) -> PnNode {
        PnNode { mv, proof: 1, disproof: 1, first_child: 0, child_count: 0 }
    }

    /// Whether the node was expanded: it has children, or its expansion settled it (a leaf
    /// keeps its first numbers, neither 0, until then).
    fn is_expanded(&self) -> bool {
        self.child_count > 0 || self.proof == 0 || self.disproof == 0
    }

    fn children(&self) -> std::ops::Range<usize> {
        self.first_child as usize..(self.first_child + self.child_count) as usize
    }
}

/// The state a depth-first proof-number search passes down.
struct PnContext<'t> {
    tree: &'t mut Vec<PnNode>,
    max_depth: usize,
}

/// A child's threshold reaches 1/`PN_EPSILON_DIVISOR` past its best sibling's number, not
/// just one past it (Pawlewicz and Lew's 1+ε trick): the search switches subtrees less often,
/// and each switch replays moves.
const PN_EPSILON_DIVISOR: u32 = 2;

/// The proof number a defender node starts with after an attacker's four (1 after an open
/// three): the proof-number search tries the threes first. Every attacker node checks for a
/// VCF before its threat moves are tried, so what a four leads to (one forced block, then the
/// same check again) seldom holds a win that check missed; the open threes are what a VCT adds.
/// Positions found within 20,000 / 300,000 VCT nodes, before (1 for both) and after: Rapfi's
/// won-position table (154 positions, see tests/data/gomoku/README.md) 114 / 131 and 114 / 134;
/// 538 others of the same kind from later matches (`rapfi_won_positions_later.tsv`), on
/// which the variants the table picked were compared, 296 / 362 and 313 / 369. A four at 2 did
/// about as well (305 / 371 of the 538); the threes at 4 and the fours at 1 did worse at
/// 20,000 nodes (104 of the 154).
const PN_FOUR_PROOF: u32 = 3;

/// See [`ThreatSearch::shallow_then_proof_number`]: the share of a VCT's nodes and the most
/// attacker moves of its depth-first start.
const SHALLOW_VCT_SHARE: u64 = 4;
const SHALLOW_VCT_ATTACKER_MOVES: u32 = 5;

/// The most nodes a proof-number tree holds (20 bytes each: at most 40 MiB). The won-position
/// table at the default 300,000 nodes stays under it.
const PN_MAX_TREE: usize = 1 << 21;

/// The state of one threat search: the board it plays on (lent by the caller and left as it
/// was), the current line and the tables.
struct ThreatSearch<'a> {
    board: &'a mut ThreatBoard,
    attacker: Color,
    defender: Color,
    mode: Mode,
    nodes: u64,
    max_nodes: u64,
    stop: &'a AtomicBool,
    /// Moves from the root to the current node.
    line: Vec<Cell>,
    /// The line at the last win reached.
    winning_line: Vec<Cell>,
    /// Whether a node of the current subtree stopped for lack of depth.
    depth_cut: bool,
    /// Attacker-to-move positions proven lost within the stored number of attacker moves.
    failed: FxHashMap<u64, u8>,
    /// Attacker-to-move positions proven won (VCT only; a VCF stops at its first win).
    won: FxHashSet<u64>,
    /// Mixed into transposition keys: 0, or [`VCF_HASH_SALT`] in a VCF run inside a VCT.
    hash_salt: u64,
}

impl<'a> ThreatSearch<'a> {
    fn new(board: &'a mut ThreatBoard, attacker: Color, mode: Mode, max_nodes: u64, stop: &'a AtomicBool) -> Self {
        ThreatSearch {
            board,
            attacker,
            defender: attacker.opponent(),
            mode,
            nodes: 0,
            max_nodes,
            stop,
            line: Vec::new(),
            winning_line: Vec::new(),
            depth_cut: false,
            failed: FxHashMap::default(),
            won: FxHashSet::default(),
            hash_salt: 0,
        }
    }

    /// Searches with 1, 2, … attacker moves (or, unless `shortest`, straight away with the
    /// most) until a win, a search that no depth limit cut short (nothing longer exists), or
    /// the limits.
    fn iterative_deepening(&mut self, max_attacker_moves: u32, shortest: bool) -> VcfOutcome {
        let max_depth = max_attacker_moves.min(FAILED_AT_ANY_DEPTH as u32 - 1) as u8;
        // With no attacker move allowed, only a five already on offer counts.
        let first_depth = if shortest { max_depth.min(1) } else { max_depth };
        for depth in first_depth..=max_depth {
            self.depth_cut = false;
            match self.attacker_turn(depth) {
                Err(Aborted) => return VcfOutcome::Unknown,
                Ok(true) => return VcfOutcome::Win(std::mem::take(&mut self.winning_line)),
                Ok(false) if !self.depth_cut => return VcfOutcome::NotFound,
                Ok(false) => {}
            }
        }
        VcfOutcome::NotFound
    }

    fn count_node(&mut self) -> Result<(), Aborted> {
        self.nodes += 1;
        if self.nodes > self.max_nodes || (self.nodes % STOP_POLL_INTERVAL == 1 && self.stop.load(Ordering::Relaxed)) {
            return Err(Aborted);
        }
        Ok(())
    }

    /// Records the current line (plus `last`, if any) as a win.
    fn record_win(&mut self, last: Option<Cell>) -> bool {
        self.winning_line.clone_from(&self.line);
        self.winning_line.extend(last);
        true
    }

    /// The attacker to move with `depth` attacker moves left: whether it wins by force.
    fn attacker_turn(&mut self, depth: u8) -> Result<bool, Aborted> {
        self.count_node()?;
        let (attacker, defender) = (self.attacker, self.defender);
        // 1. A five ends it; two defender five points cannot both be blocked.
        if let Some(five) = self.board.five_points(attacker).first() {
            return Ok(self.record_win(Some(five)));
        }
        let defender_fives = *self.board.five_points(defender);
        if defender_fives.len() >= 2 {
            return Ok(false);
        }
        if depth == 0 {
            self.depth_cut = true;
            return Ok(false);
        }
        // 2. Transpositions.
        let hash = self.board.zobrist(attacker) ^ self.hash_salt;
        if self.won.contains(&hash) {
            return Ok(self.record_win(None));
        }
        if let Some(&failed_depth) = self.failed.get(&hash)
            && failed_depth >= depth
        {
            self.depth_cut |= failed_depth != FAILED_AT_ANY_DEPTH;
            return Ok(false);
        }
        // 3. The moves: the forced block of the defender's four, else a winning four, else
        // every four (and, for VCT, every open three), best first.
        let winning_fours = self.board.winning_four_points(attacker);
        let candidates = if let Some(block) = defender_fives.first() {
            if winning_fours.contains(block) {
                return Ok(self.record_win(Some(block)));
            }
            if self.mode == Mode::Fours && !self.board.four_points(attacker).contains(block) {
                self.failed.insert(hash, FAILED_AT_ANY_DEPTH);
                return Ok(false);
            }
            vec![block]
        } else {
            if let Some(winning) = winning_fours.first() {
                return Ok(self.record_win(Some(winning)));
            }
            // A VCF settles a VCT node without its threes, and costs far less to find.
            if self.mode == Mode::Threats && self.vcf_from_here()? {
                self.won.insert(hash);
                return Ok(true);
            }
            self.ordered_threat_moves()
        };
        // 4. Try each; the subtree's depth cuts decide how long a failure holds.
        let outer_cut = std::mem::replace(&mut self.depth_cut, false);
        let mut won = false;
        for cell in candidates {
            self.board.play(attacker, cell);
            self.line.push(cell);
            let result = self.defender_turn(depth - 1);
            self.line.pop();
            self.board.undo();
            if result? {
                won = true;
                break;
            }
        }
        let cut = self.depth_cut;
        self.depth_cut |= outer_cut;
        if won {
            if self.mode == Mode::Threats {
                self.won.insert(hash);
            }
        } else {
            let stored = if cut { depth } else { FAILED_AT_ANY_DEPTH };
            let entry = self.failed.entry(hash).or_insert(0);
            *entry = (*entry).max(stored);
        }
        Ok(won)
    }

    /// VCT: short lines first by the depth-first search, shortest first, within
    /// 1/[`SHALLOW_VCT_SHARE`] of the nodes and [`SHALLOW_VCT_ATTACKER_MOVES`]; then, if that
    /// found nothing, the proof-number search with the nodes left. The depth-first search finds
    /// a short VCT in a few hundred nodes where the proof-number search can wander among the
    /// defences for tens of thousands; it is the longer ones that the proof-number search
    /// finds where the depth-first one runs out of nodes.
    fn shallow_then_proof_number(&mut self, max_attacker_moves: u32) -> VcfOutcome {
        let shallow_moves = max_attacker_moves.min(SHALLOW_VCT_ATTACKER_MOVES);
        let total = self.max_nodes;
        self.max_nodes = total / SHALLOW_VCT_SHARE;
        let shallow = self.iterative_deepening(shallow_moves, true);
        self.max_nodes = total;
        match shallow {
            VcfOutcome::Win(line) => VcfOutcome::Win(line),
            VcfOutcome::NotFound if shallow_moves == max_attacker_moves => VcfOutcome::NotFound,
            _ if self.stop.load(Ordering::Relaxed) => VcfOutcome::Unknown,
            _ => self.proof_number_search(max_attacker_moves),
        }
    }

    /// VCT by proof-number search: the tree is kept whole, and each step expands the most
    /// proving leaf (the one whose proof would prove the root soonest, or whose disproof would
    /// disprove it), so the search goes where the defender has fewest answers instead of
    /// deepening every line alike. Attacker (OR) nodes: a five, the block of the defender's
    /// four, a winning four or a VCF settle them, else the threat moves are their children;
    /// defender (AND) nodes: the block of a four, else every defence of the open three. A line
    /// longer than `max_attacker_moves` counts as a failure.
    fn proof_number_search(&mut self, max_attacker_moves: u32) -> VcfOutcome {
        let max_depth = max_attacker_moves.min(FAILED_AT_ANY_DEPTH as u32 - 1) as usize;
        // The root has no move of its own; its cell is never read.
        let mut tree = vec![PnNode::leaf(Cell(0))];
        let mut context = PnContext { tree: &mut tree, max_depth };
        if self.depth_first_pn(&mut context, 0, 0, PN_INFINITY, PN_INFINITY).is_err() {
            return VcfOutcome::Unknown;
        }
        if tree[0].proof != 0 {
            return VcfOutcome::NotFound;
        }
        // One branch of the proof: the attacker's proven moves and the defender's first answers,
        // played out to where a node was proven without children.
        let mut line = Vec::new();
        let mut index = 0;
        while tree[index].child_count > 0 {
            let attacker_to_move = line.len().is_multiple_of(2);
            let mut children = tree[index].children();
            let next = if attacker_to_move { children.find(|&child| tree[child].proof == 0) } else { children.next() };
            let Some(next) = next else { break };
            let color = if attacker_to_move { self.attacker } else { self.defender };
            self.board.play(color, tree[next].mv);
            line.push(tree[next].mv);
            index = next;
        }
        // Where the attacker is to move, the line ends with what proved the node: a five, the
        // block of the defender's four or a winning four, or the VCF found again.
        let moves_played = line.len();
        if moves_played.is_multiple_of(2) {
            line.extend(self.finishing_moves());
        }
        for _ in 0..moves_played {
            self.board.undo();
        }
        VcfOutcome::Win(line)
    }

    /// The moves that end an attacker node proven without children (see
    /// [`ThreatSearch::expand_attacker`]), the board left as it was: none when the stop flag
    /// cuts the VCF short.
    fn finishing_moves(&mut self) -> Vec<Cell> {
        let (attacker, defender) = (self.attacker, self.defender);
        if let Some(five) = self.board.five_points(attacker).first() {
            return vec![five];
        }
        if let Some(block) = self.board.five_points(defender).first() {
            return vec![block];
        }
        if let Some(winning) = self.board.winning_four_points(attacker).first() {
            return vec![winning];
        }
        // The VCF was found once within the node limit; finding it again must not stop there.
        let max_nodes = std::mem::replace(&mut self.max_nodes, u64::MAX);
        let found = matches!(self.vcf_from_here(), Ok(true));
        self.max_nodes = max_nodes;
        if found { std::mem::take(&mut self.winning_line) } else { Vec::new() }
    }

    /// Depth-first proof-number search (Nagai's df-pn, over a tree kept whole) below `node`, at
    /// `depth` plies from the root, until its proof number reaches `proof_threshold` or its
    /// disproof number `disproof_threshold`: the search stays in a subtree for as long as its
    /// most proving leaf would be found there, instead of going back to the root each time.
    fn depth_first_pn(
        &mut self,
        context: &mut PnContext,
        node: usize,
        depth: usize,
        proof_threshold: u32,
        disproof_threshold: u32,
    ) -> Result<(), Aborted> {
        let attacker_to_move = depth.is_multiple_of(2);
        if !context.tree[node].is_expanded() {
            let expansion = if attacker_to_move {
                self.expand_attacker(depth / 2 >= context.max_depth)?
            } else {
                self.expand_defender()?
            };
            let first_child = context.tree.len() as u32;
            if let PnExpansion::Children(moves) = &expansion
                && context.tree.len() + moves.len() > PN_MAX_TREE
            {
                return Err(Aborted);
            }
            let leaf = &mut context.tree[node];
            match expansion {
                PnExpansion::Proven => (leaf.proof, leaf.disproof) = (0, PN_INFINITY),
                PnExpansion::Disproven => (leaf.proof, leaf.disproof) = (PN_INFINITY, 0),
                PnExpansion::Children(moves) => {
                    leaf.first_child = first_child;
                    leaf.child_count = moves.len() as u32;
                    // Only an attacker's children can be fours (a defender's are answers).
                    let fours = if attacker_to_move { *self.board.four_points(self.attacker) } else { CellSet::new() };
                    context.tree.extend(moves.into_iter().map(|mv| {
                        let mut child = PnNode::leaf(mv);
                        if fours.contains(mv) {
                            child.proof = PN_FOUR_PROOF;
                        }
                        child
                    }));
                }
            }
        }
        loop {
            let children = context.tree[node].children();
            if children.is_empty() {
                return Ok(());
            }
            // The node's numbers from its children, and the child to search with its second
            // best rival (the child's threshold stops where that rival would take over).
            let tree = &*context.tree;
            let (mut best, mut best_number, mut second_number) = (children.start, PN_INFINITY, PN_INFINITY);
            let mut sum = 0u32;
            for child in children {
                let (selecting, summed) = if attacker_to_move {
                    (tree[child].proof, tree[child].disproof)
                } else {
                    (tree[child].disproof, tree[child].proof)
                };
                sum = sum.saturating_add(summed);
                if selecting < best_number {
                    second_number = best_number;
                    best_number = selecting;
                    best = child;
                } else if selecting < second_number {
                    second_number = selecting;
                }
            }
            let sum = sum.min(PN_INFINITY);
            let (proof, disproof) = if attacker_to_move { (best_number, sum) } else { (sum, best_number) };
            context.tree[node].proof = proof;
            context.tree[node].disproof = disproof;
            if proof >= proof_threshold || disproof >= disproof_threshold || proof == 0 || disproof == 0 {
                return Ok(());
            }
            let child = context.tree[best];
            let rival = second_number.saturating_add((second_number / PN_EPSILON_DIVISOR).max(1));
            let (child_proof, child_disproof) = if attacker_to_move {
                (proof_threshold.min(rival), (disproof_threshold - disproof).saturating_add(child.disproof))
            } else {
                ((proof_threshold - proof).saturating_add(child.proof), disproof_threshold.min(rival))
            };
            // Every move played counts as a node, as in the depth-first search: going back
            // into an expanded child costs its move too (the expansion counts a new one).
            if child.is_expanded() {
                self.count_node()?;
            }
            let color = if attacker_to_move { self.attacker } else { self.defender };
            self.board.play(color, child.mv);
            let result = self.depth_first_pn(
                context,
                best,
                depth + 1,
                child_proof.min(PN_INFINITY),
                child_disproof.min(PN_INFINITY),
            );
            self.board.undo();
            result?;
        }
    }

    /// A proof-number leaf with the attacker to move (see [`ThreatSearch::attacker_turn`]).
    fn expand_attacker(&mut self, out_of_depth: bool) -> Result<PnExpansion, Aborted> {
        self.count_node()?;
        let (attacker, defender) = (self.attacker, self.defender);
        if !self.board.five_points(attacker).is_empty() {
            return Ok(PnExpansion::Proven);
        }
        let defender_fives = *self.board.five_points(defender);
        if defender_fives.len() >= 2 {
            return Ok(PnExpansion::Disproven);
        }
        if out_of_depth {
            return Ok(PnExpansion::Disproven);
        }
        let winning_fours = self.board.winning_four_points(attacker);
        if let Some(block) = defender_fives.first() {
            if winning_fours.contains(block) {
                return Ok(PnExpansion::Proven);
            }
            return Ok(PnExpansion::Children(vec![block]));
        }
        if !winning_fours.is_empty() || self.vcf_from_here()? {
            return Ok(PnExpansion::Proven);
        }
        let moves = self.ordered_threat_moves();
        Ok(if moves.is_empty() { PnExpansion::Disproven } else { PnExpansion::Children(moves) })
    }

    /// A proof-number leaf with the defender to move (see [`ThreatSearch::defender_turn`]).
    fn expand_defender(&mut self) -> Result<PnExpansion, Aborted> {
        self.count_node()?;
        if !self.board.five_points(self.defender).is_empty() {
            return Ok(PnExpansion::Disproven);
        }
        let attacker_fives = *self.board.five_points(self.attacker);
        if attacker_fives.len() >= 2 {
            return Ok(PnExpansion::Proven);
        }
        if let Some(block) = attacker_fives.first() {
            return Ok(PnExpansion::Children(vec![block]));
        }
        if self.board.winning_four_points(self.attacker).is_empty() {
            return Ok(PnExpansion::Disproven);
        }
        let defences = self.three_defences();
        Ok(if defences.is_empty() { PnExpansion::Proven } else { PnExpansion::Children(defences) })
    }

    /// Inside a VCT: whether the attacker to move has a VCF here.
    fn vcf_from_here(&mut self) -> Result<bool, Aborted> {
        self.mode = Mode::Fours;
        self.hash_salt = VCF_HASH_SALT;
        let result = self.attacker_turn(VCF_DEPTH_IN_VCT);
        self.mode = Mode::Threats;
        self.hash_salt = 0;
        result
    }

    /// The defender to move right after an attacker move: whether the attacker still wins.
    fn defender_turn(&mut self, depth: u8) -> Result<bool, Aborted> {
        self.count_node()?;
        let (attacker, defender) = (self.attacker, self.defender);
        // 1. The defender's own five beats any threat.
        if !self.board.five_points(defender).is_empty() {
            return Ok(false);
        }
        // 2. A four has one answer; two five points have none.
        let attacker_fives = *self.board.five_points(attacker);
        if attacker_fives.len() >= 2 {
            return Ok(self.record_win(None));
        }
        if let Some(block) = attacker_fives.first() {
            return self.defend_with(block, depth);
        }
        // 3. Only VCT goes on: without a threat to make an open four the defender is free.
        if self.mode == Mode::Fours || self.board.winning_four_points(attacker).is_empty() {
            return Ok(false);
        }
        let defences = self.three_defences();
        if defences.is_empty() {
            return Ok(self.record_win(None));
        }
        for cell in defences {
            if !self.defend_with(cell, depth)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn defend_with(&mut self, cell: Cell, depth: u8) -> Result<bool, Aborted> {
        self.board.play(self.defender, cell);
        self.line.push(cell);
        let result = self.attacker_turn(depth);
        self.line.pop();
        self.board.undo();
        result
    }

    /// The attacker's fours (and, for VCT, open threes), most promising first: a move that
    /// also builds threats in its other lines comes before one that makes a lone four.
    fn ordered_threat_moves(&self) -> Vec<Cell> {
        let attacker = self.attacker;
        let mut moves = *self.board.four_points(attacker);
        if self.mode == Mode::Threats {
            moves = moves.union(self.board.open_three_points(attacker));
        }
        let mut scored: Vec<(i32, Cell)> = moves
            .iter()
            .map(|cell| {
                let own: i32 = (0..LINE_DIRECTIONS.len())
                    .map(|direction| match self.board.line_pattern(attacker, cell, direction) {
                        LinePattern::Five | LinePattern::OpenFour => 64,
                        LinePattern::Four => 16,
                        LinePattern::OpenThree => 12,
                        LinePattern::ClosedThree => 4,
                        LinePattern::None => 0,
                    })
                    .sum();
                (-own, cell)
            })
            .collect();
        scored.sort_unstable();
        scored.into_iter().map(|(_, cell)| cell).collect()
    }

    /// Every defence to the attacker's threat of an open four or double four: cells that leave
    /// the attacker none, then the defender's own fours. Any other move loses to the attacker's
    /// open four, so these are all the moves worth refuting.
    fn three_defences(&mut self) -> Vec<Cell> {
        let threats = *self.board.winning_four_points(self.attacker);
        // A stone changes a cell's pattern in one line only from within five cells on that line,
        // and a threat cell threatens through the lines where it makes a four: a defence must
        // lie on one of those lines of every threat cell (or on the cell).
        let mut zone: Option<CellSet> = None;
        for threat in threats.iter() {
            let mut near = CellSet::new();
            near.insert(threat);
            let makes_four =
                |direction: usize| self.board.line_pattern(self.attacker, threat, direction) >= LinePattern::Four;
            let any_four = (0..LINE_DIRECTIONS.len()).any(makes_four);
            for direction in (0..LINE_DIRECTIONS.len()).filter(|&direction| !any_four || makes_four(direction)) {
                for steps in (-5..=5).filter(|&steps| steps != 0) {
                    if let Some(cell) = self.board.step(threat, direction, steps)
                        && self.board.is_empty(cell)
                    {
                        near.insert(cell);
                    }
                }
            }
            zone = Some(zone.map_or(near, |zone| zone.intersection(&near)));
        }
        let mut defences = Vec::new();
        for cell in zone.unwrap_or_default().iter() {
            self.board.play(self.defender, cell);
            let stops = self.board.winning_four_points(self.attacker).is_empty()
                && self.board.five_points(self.attacker).is_empty();
            self.board.undo();
            if stops {
                defences.push(cell);
            }
        }
        let mut counter_fours: Vec<Cell> =
            self.board.four_points(self.defender).iter().filter(|cell| !defences.contains(cell)).collect();
        defences.append(&mut counter_fours);
        defences
    }
}

/// A cell where the side to move makes five, if any. `None` for a finished game or a game that
/// is not five in a row.
pub fn immediate_win(position: &Mnk) -> Option<Cell> {
    if position.outcome().is_some() || !is_five_in_a_row(position) {
        return None;
    }
    ThreatBoard::new(position).five_points(position.to_move()).first()
}

/// The moves the side to move must choose from because of the opponent's immediate threat:
/// - the opponent has a four: the cells that block its five (two or more: every move loses);
/// - the opponent threatens an open four or double four (an open three, or two threes): the
///   cells that leave it none, plus the side to move's own fours (which force a reply first);
///   an empty list means every move loses to that threat.
///
/// `None` when there is no such threat, the game is over or not five in a row, or the side to
/// move can make five itself (it should: see [`immediate_win`]). Moves outside the list lose by
/// force; moves inside it may still lose to a longer attack.
pub fn must_block(position: &Mnk) -> Option<Vec<Cell>> {
    if position.outcome().is_some() || !is_five_in_a_row(position) {
        return None;
    }
    let mut board = ThreatBoard::new(position);
    let (side, opponent) = (position.to_move(), position.to_move().opponent());
    if !board.five_points(side).is_empty() {
        return None;
    }
    let opponent_fives = board.five_points(opponent);
    if !opponent_fives.is_empty() {
        return Some(opponent_fives.iter().collect());
    }
    if board.winning_four_points(opponent).is_empty() {
        return None;
    }
    Some(three_defences_on(&mut board, opponent))
}

/// The answers to `threatening`'s open three (or threes) on `board`, the other side to move:
/// the cells after which `threatening` has no open four or double four left, then the other
/// side's own fours (a counter-four forces a reply first). Empty when nothing stops the threat.
pub(super) fn three_defences_on(board: &mut ThreatBoard, threatening: Color) -> Vec<Cell> {
    let stop = AtomicBool::new(false);
    ThreatSearch::new(board, threatening, Mode::Threats, u64::MAX, &stop).three_defences()
}

/// The empty cells where a stone of `defender` on `board` makes one of the defender's replies
/// in an attacker's forcing `line` (its odd-indexed cells) a four point of the defender's own,
/// which it was not: at that reply the attacker then meets a counter-four and must block it.
/// Such a cell may lie on none of the line's windows. In a game lost to Rapfi (2026-12-08,
/// opening 2, White to move at stone 46), Rapfi stopped Black's VCF C10 D9 D11 with G12,
/// which made White's forced D9 a four on the diagonal D9-G12; the defences read from the
/// line's windows missed it, and the root's checks refuted every one of them. Sorted, without
/// repeats.
pub fn counter_four_cells(board: &mut ThreatBoard, defender: Color, line: &[Cell]) -> Vec<Cell> {
    let mut cells = Vec::new();
    for &reply in line.iter().skip(1).step_by(2) {
        if !board.is_empty(reply) || board.four_points(defender).contains(reply) {
            continue;
        }
        for direction in 0..LINE_DIRECTIONS.len() {
            for steps in (-4..=4).filter(|&steps| steps != 0) {
                let Some(cell) = board.step(reply, direction, steps).filter(|&cell| board.is_empty(cell)) else {
                    continue;
                };
                board.play(defender, cell);
                let armed = board.four_points(defender).contains(reply);
                board.undo();
                if armed {
                    cells.push(cell);
                }
            }
        }
    }
    cells.sort();
    cells.dedup();
    cells
}

/// The cells that stop an attacker's forcing `line` on `board` wherever its windows do not
/// show it: the line's own cells, and the [`counter_four_cells`] of `defender`'s replies in it.
/// The answers every defence set against a line starts from. Sorted, without repeats.
pub fn line_defences(board: &mut ThreatBoard, defender: Color, line: &[Cell]) -> Vec<Cell> {
    let mut cells = counter_four_cells(board, defender, line);
    cells.extend(line);
    cells.sort();
    cells.dedup();
    cells
}

/// One test position: a position and the side that wins it (by continuous fours, in the VCF
/// puzzle files; by force, in the won-position tables).
#[derive(Clone, Debug)]
pub struct VcfPuzzle {
    /// The puzzle's id or its 1-based number in the file.
    pub id: String,
    /// The position, 15x15 freestyle, the attacker to move.
    pub position: Mnk,
    /// The side that must win.
    pub attacker: Color,
}

/// Reads a puzzle cell as the puzzle files write it: column letters A.. left to right with no
/// letter skipped (unlike GTP vertices), row 1 at the bottom.
pub(super) fn parse_puzzle_cell(text: &str, position: &Mnk) -> Option<Cell> {
    let mut chars = text.chars();
    let letter = chars.next()?.to_ascii_uppercase();
    let column = (letter as usize).checked_sub('A' as usize)?;
    let row: usize = chars.as_str().parse().ok()?;
    (letter.is_ascii_uppercase() && column < position.width() && (1..=position.height()).contains(&row))
        .then(|| position.cell(column, row - 1))
}

/// Sets up a 15x15 freestyle position from puzzle cells played in order, Black first.
fn puzzle_position(cells: &[&str], attacker: Color) -> Result<Mnk, String> {
    let mut position = Mnk::new(&MnkConfig::gomoku());
    for text in cells {
        let cell = parse_puzzle_cell(text, &position).ok_or_else(|| format!("bad cell {text:?}"))?;
        position.play(cell).map_err(|error| format!("cannot play {text}: {error}"))?;
    }
    position.give_turn_to(attacker).map_err(|error| format!("cannot give the turn: {error}"))?;
    Ok(position)
}

/// Reads the puzzle table `black_vcf_504_solutions.tsv` (header line; columns id, side to move,
/// comma-separated stones in play order, …, freestyle status): the puzzles whose freestyle
/// status says they are freestyle VCFs (`same_as_renju`, `shorter_prefix`, `immediate_five`),
/// and one message per line that could not be read or is not a freestyle VCF.
pub fn parse_vcf_puzzles_tsv(text: &str) -> (Vec<VcfPuzzle>, Vec<String>) {
    parse_position_table(text, |fields| {
        let status = fields.get(5).copied().unwrap_or("");
        if matches!(status, "same_as_renju" | "shorter_prefix" | "immediate_five") {
            Ok(())
        } else {
            Err(format!("not a freestyle VCF (status {status:?})"))
        }
    })
}

/// Reads a table of won positions in the puzzle table's layout (header line; columns id, side
/// to move, comma-separated stones in play order in puzzle cells, then any further columns,
/// which are not read), such as `tests/data/gomoku/rapfi_won_positions.tsv`: every position,
/// and one message per line that could not be read.
pub fn parse_won_positions_tsv(text: &str) -> (Vec<VcfPuzzle>, Vec<String>) {
    parse_position_table(text, |_| Ok(()))
}

/// The rows of a puzzle-layout table that `accept` (given the row's columns) lets through.
fn parse_position_table(text: &str, accept: impl Fn(&[&str]) -> Result<(), String>) -> (Vec<VcfPuzzle>, Vec<String>) {
    let mut puzzles = Vec::new();
    let mut problems = Vec::new();
    for (number, line) in text.lines().enumerate().skip(1).filter(|(_, line)| !line.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let parsed = (|| {
            let (id, side, stones) = match fields.as_slice() {
                [id, side, stones, ..] => (*id, *side, *stones),
                _ => return Err("too few columns".to_string()),
            };
            let attacker = match side {
                "B" => Color::Black,
                "W" => Color::White,
                _ => return Err(format!("bad side {side:?}")),
            };
            accept(&fields)?;
            let cells: Vec<&str> = stones.split(',').map(str::trim).filter(|cell| !cell.is_empty()).collect();
            Ok(VcfPuzzle { id: id.to_string(), position: puzzle_position(&cells, attacker)?, attacker })
        })();
        match parsed {
            Ok(puzzle) => puzzles.push(puzzle),
            Err(why) => problems.push(format!("line {}: {why}", number + 1)),
        }
    }
    (puzzles, problems)
}

/// Reads the lfz084 puzzle JSON (`"stones": "G12H12G11…"` entries, Black first, `side` 1 for
/// Black to move): every puzzle whose size is 15, numbered from 1, and one message per puzzle
/// that could not be read. A small scanner for this one file layout, not a JSON parser.
pub fn parse_vcf_puzzles_json(text: &str) -> (Vec<VcfPuzzle>, Vec<String>) {
    let mut puzzles = Vec::new();
    let mut problems = Vec::new();
    let field = |object: &str, name: &str| -> Option<String> {
        let start = object.find(&format!("\"{name}\""))? + name.len() + 2;
        let rest = object[start..].trim_start().strip_prefix(':')?.trim_start();
        let end = rest.find([',', '}', '\n']).unwrap_or(rest.len());
        Some(rest[..end].trim().trim_matches('"').to_string())
    };
    let Some(list_start) = text.find("\"puzzles\"") else {
        return (puzzles, vec!["no \"puzzles\" list".to_string()]);
    };
    for (index, object) in text[list_start..].split('{').skip(1).enumerate() {
        let id = (index + 1).to_string();
        let parsed = (|| {
            let stones = field(object, "stones").ok_or("no stones")?;
            if field(object, "size").is_some_and(|size| size != "15") {
                return Err("not 15x15".to_string());
            }
            let attacker = match field(object, "side").as_deref() {
                Some("2") => Color::White,
                _ => Color::Black,
            };
            let cells = split_concatenated_cells(&stones).ok_or_else(|| format!("bad stones {stones:?}"))?;
            let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
            Ok(VcfPuzzle { id: id.clone(), position: puzzle_position(&cells, attacker)?, attacker })
        })();
        match parsed {
            Ok(puzzle) => puzzles.push(puzzle),
            Err(why) => problems.push(format!("puzzle {id}: {why}")),
        }
    }
    (puzzles, problems)
}

/// Splits `G12H12G11` into `G12`, `H12`, `G11`.
fn split_concatenated_cells(stones: &str) -> Option<Vec<String>> {
    let mut cells = Vec::new();
    let mut current = String::new();
    for character in stones.chars() {
        if character.is_ascii_alphabetic() {
            if !current.is_empty() {
                cells.push(std::mem::take(&mut current));
            }
        } else if !character.is_ascii_digit() || current.is_empty() {
            return None;
        }
        current.push(character);
    }
    if !current.is_empty() {
        cells.push(current);
    }
    Some(cells)
}

/// The empty cells where `color` would make five, found by playing each one with the game's own
/// rules (no threat tables): the independent check for [`verify_vcf_line`].
fn five_cells_by_rules(position: &Mnk, color: Color) -> Vec<Cell> {
    let mut probe = position.clone();
    if probe.give_turn_to(color).is_err() {
        return Vec::new();
    }
    let mut moves = Vec::new();
    probe.legal_moves(&mut moves);
    moves
        .into_iter()
        .filter(|&cell| {
            let mut next = probe.clone();
            next.play_unchecked(cell);
            next.outcome() == Some(Outcome::Win(color))
        })
        .collect()
}

/// Replays a VCF line (as [`solve_vcf`] returns it) with the game's rules alone and checks it
/// is a legal forcing win: every attacker move makes five or leaves a five point while the
/// defender has none to play at once; every defender move is the only block of the attacker's
/// single five point; the line ends with a five, or with two or more attacker five points.
///
/// # Errors
/// A sentence naming the first move that breaks these rules.
pub fn verify_vcf_line(position: &Mnk, attacker: Color, line: &[Cell]) -> Result<(), String> {
    let mut current = position.clone();
    if let Some(Outcome::Win(winner)) = current.outcome() {
        return if winner == attacker && line.is_empty() { Ok(()) } else { Err("the game is over".into()) };
    }
    current.give_turn_to(attacker).map_err(|error| error.to_string())?;
    let defender = attacker.opponent();
    for (index, &cell) in line.iter().enumerate() {
        let name = current.format_move(cell);
        let last = index + 1 == line.len();
        if index % 2 == 0 {
            current.play(cell).map_err(|error| format!("attacker move {name}: {error}"))?;
            if current.outcome() == Some(Outcome::Win(attacker)) {
                return if last { Ok(()) } else { Err(format!("moves after the five at {name}")) };
            }
            if !five_cells_by_rules(&current, defender).is_empty() {
                return Err(format!("after {name} the defender can make five"));
            }
            let threats = five_cells_by_rules(&current, attacker).len();
            if threats == 0 {
                return Err(format!("attacker move {name} makes no four"));
            }
            if last {
                return if threats >= 2 { Ok(()) } else { Err(format!("the line ends with a single four at {name}")) };
            }
            if threats >= 2 {
                return Err(format!("moves after the winning four at {name}"));
            }
        } else {
            let threats = five_cells_by_rules(&current, attacker);
            if threats != [cell] {
                return Err(format!("defender move {name} is not the forced block"));
            }
            current.play(cell).map_err(|error| format!("defender move {name}: {error}"))?;
            if current.outcome().is_some() {
                return Err(format!("the defender's block {name} ends the game"));
            }
        }
    }
    Err("the line does not reach a win".to_string())
}

/// Totals of a puzzle batch.
#[derive(Clone, Debug, Default)]
pub struct PuzzleBatchReport {
    /// Puzzles tried.
    pub puzzles: usize,
    /// Puzzles where the solver found a line that [`verify_vcf_line`] accepts.
    pub solved: usize,
    /// Puzzles not solved, with the reason (no line found, limits, or a line that failed the
    /// replay).
    pub failures: Vec<(String, String)>,
    /// Solver nodes over all puzzles.
    pub nodes: u64,
    /// Total attacker moves of the solved lines.
    pub attacker_moves: usize,
    /// Time spent in the solver (the replays not included).
    pub solve_time: Duration,
}

/// Solves every puzzle with [`solve_vcf`], replays each line found with [`verify_vcf_line`],
/// and adds up the results. Never panics on a puzzle: problems are reported in `failures`.
pub fn solve_vcf_puzzles(puzzles: &[VcfPuzzle], options: &VcfOptions, stop: &AtomicBool) -> PuzzleBatchReport {
    let mut report = PuzzleBatchReport { puzzles: puzzles.len(), ..PuzzleBatchReport::default() };
    for puzzle in puzzles {
        let started = Instant::now();
        let result = solve_vcf(&puzzle.position, puzzle.attacker, options, stop);
        report.solve_time += started.elapsed();
        report.nodes += result.nodes;
        match result.outcome {
            VcfOutcome::Win(line) => match verify_vcf_line(&puzzle.position, puzzle.attacker, &line) {
                Ok(()) => {
                    report.solved += 1;
                    report.attacker_moves += line.len().div_ceil(2);
                }
                Err(why) => report.failures.push((puzzle.id.clone(), format!("bad line: {why}"))),
            },
            VcfOutcome::NotFound => report.failures.push((puzzle.id.clone(), "no VCF found".to_string())),
            VcfOutcome::Unknown => report.failures.push((puzzle.id.clone(), "limits reached".to_string())),
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::GameConfig;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    const SAMPLE: &str = include_str!("../../tests/data/gomoku/vcf_puzzles_sample.tsv");

    fn not_stopped() -> AtomicBool {
        AtomicBool::new(false)
    }

    fn gomoku(width: usize, height: usize, exact: bool) -> Mnk {
        let mut config = MnkConfig::gomoku();
        config.set_size(width, height).unwrap();
        config.set_param("exact_five", if exact { "1" } else { "0" }).unwrap();
        Mnk::new(&config)
    }

    /// A position from rows of `X`, `O` and `.`, top row first, `to_move` to move.
    fn position_from(rows: &[&str], exact: bool, to_move: Color) -> Mnk {
        let mut position = gomoku(rows[0].len(), rows.len(), exact);
        for (index, text) in rows.iter().enumerate() {
            let row = rows.len() - 1 - index;
            for (column, symbol) in text.chars().enumerate() {
                let color = match symbol {
                    'X' => Color::Black,
                    'O' => Color::White,
                    _ => continue,
                };
                position.play_as(color, position.cell(column, row)).unwrap();
            }
        }
        position.give_turn_to(to_move).unwrap();
        position
    }

    /// Plain VCF by the game's rules alone, same forcing rules and depth count as the solver:
    /// whether `attacker` (to move) wins within `depth` attacker moves.
    fn naive_vcf(position: &Mnk, attacker: Color, depth: u32) -> bool {
        let defender = attacker.opponent();
        if !five_cells_by_rules(position, attacker).is_empty() {
            return true;
        }
        let defender_fives = five_cells_by_rules(position, defender);
        if defender_fives.len() >= 2 || depth == 0 {
            return false;
        }
        let candidates = if defender_fives.is_empty() {
            let mut moves = Vec::new();
            position.legal_moves(&mut moves);
            moves
        } else {
            defender_fives
        };
        candidates.into_iter().any(|cell| {
            let mut next = position.clone();
            next.play_unchecked(cell);
            if next.outcome().is_some() || !five_cells_by_rules(&next, defender).is_empty() {
                return false;
            }
            match five_cells_by_rules(&next, attacker).as_slice() {
                [] => false,
                [block] => {
                    next.play_unchecked(*block);
                    next.outcome().is_none() && naive_vcf(&next, attacker, depth - 1)
                }
                _ => true,
            }
        })
    }

    fn random_position(rng: &mut SmallRng, width: usize, height: usize, exact: bool, stones: usize) -> Mnk {
        let mut position = gomoku(width, height, exact);
        for _ in 0..stones {
            let cell = Cell(rng.random_range(0..width * height) as u16);
            let color = if rng.random_bool(0.5) { Color::Black } else { Color::White };
            let mut next = position.clone();
            // Stones that would end the game are left out: puzzles start from running games.
            if next.play_as(color, cell).is_ok() && next.outcome().is_none() {
                position = next;
            }
        }
        position
    }

    #[test]
    fn vcf_agrees_with_a_plain_search_on_random_positions() {
        let mut rng = SmallRng::seed_from_u64(12);
        let stop = not_stopped();
        let (mut wins, mut losses) = (0, 0);
        for round in 0..120 {
            let exact = round % 2 == 1;
            let stones = rng.random_range(14..34);
            let position = random_position(&mut rng, 9, 9, exact, stones);
            let attacker = if rng.random_bool(0.5) { Color::Black } else { Color::White };
            let depth = 3;
            let options = VcfOptions { max_nodes: u64::MAX, max_attacker_moves: depth, shortest_line: round % 4 < 2 };
            let result = solve_vcf(&position, attacker, &options, &stop);
            let mut attacker_first = position.clone();
            attacker_first.give_turn_to(attacker).unwrap();
            let expected = naive_vcf(&attacker_first, attacker, depth);
            match result.outcome {
                VcfOutcome::Win(line) => {
                    assert!(expected, "solver claims a win the plain search denies:\n{}", position.board_text());
                    verify_vcf_line(&position, attacker, &line).unwrap();
                    wins += 1;
                }
                VcfOutcome::NotFound => {
                    assert!(!expected, "solver misses a win:\n{}\n{attacker}", position.board_text());
                    losses += 1;
                }
                VcfOutcome::Unknown => panic!("no limits were set"),
            }
        }
        assert!(wins >= 15 && losses >= 15, "{wins} wins, {losses} losses");
    }

    #[test]
    fn the_defences_of_a_threat_are_every_cell_that_stops_it() {
        // Brute force over every empty cell: the defences found within the threat cells' four
        // lines must be exactly the cells that leave the attacker no open four, double four or
        // five, followed by the defender's other fours.
        let mut rng = SmallRng::seed_from_u64(21);
        let stop = not_stopped();
        let mut threats_seen = 0;
        for round in 0..600 {
            let stones = rng.random_range(8..40);
            let position = random_position(&mut rng, 15, 15, round % 2 == 1, stones);
            let attacker = if rng.random_bool(0.5) { Color::Black } else { Color::White };
            let board = ThreatBoard::new(&position);
            let defender = attacker.opponent();
            if board.winning_four_points(attacker).is_empty()
                || !board.five_points(attacker).is_empty()
                || !board.five_points(defender).is_empty()
            {
                continue;
            }
            threats_seen += 1;
            let mut copy = board.clone();
            let mut search = ThreatSearch::new(&mut copy, attacker, Mode::Threats, u64::MAX, &stop);
            let found = search.three_defences();
            let mut expected: Vec<Cell> = (0..15 * 15)
                .map(|index| Cell(index as u16))
                .filter(|&cell| {
                    if !board.is_empty(cell) {
                        return false;
                    }
                    let mut after = board.clone();
                    after.play(defender, cell);
                    after.winning_four_points(attacker).is_empty() && after.five_points(attacker).is_empty()
                })
                .collect();
            let counter_fours: Vec<Cell> =
                board.four_points(defender).iter().filter(|cell| !expected.contains(cell)).collect();
            expected.extend(counter_fours);
            assert_eq!(found, expected, "\n{}\n{attacker}", position.board_text());
        }
        assert!(threats_seen >= 50, "only {threats_seen} positions with a threat");
    }

    #[test]
    fn a_block_that_makes_a_defender_four_must_be_answered() {
        // Black's four-three: H8 makes a four (row 8) and an open three (column H); the forced
        // block J8 is harmless, then an open four on column H wins.
        let mut rows = vec!["..............."; 15];
        rows[4] = "...............";
        rows[5] = ".......X.......";
        rows[6] = ".......X.......";
        rows[7] = "...OXXX........";
        let position = position_from(&rows, false, Color::Black);
        let result = solve_vcf(&position, Color::Black, &VcfOptions::vcf(), &not_stopped());
        let VcfOutcome::Win(line) = result.outcome else { panic!("{result:?}") };
        verify_vcf_line(&position, Color::Black, &line).unwrap();
        assert_eq!(position.format_move(line[0]), "H8");
        assert_eq!(position.format_move(line[1]), "J8");
        // With White stones on J9..J11, the block J8 makes a White open four: Black's four-three
        // no longer wins, and nothing else does.
        rows[4] = "........O......";
        rows[5] = ".......XO......";
        rows[6] = ".......XO......";
        let position = position_from(&rows, false, Color::Black);
        assert_eq!(
            solve_vcf(&position, Color::Black, &VcfOptions::vcf(), &not_stopped()).outcome,
            VcfOutcome::NotFound
        );
        let mut black_first = position.clone();
        black_first.give_turn_to(Color::Black).unwrap();
        assert!(!naive_vcf(&black_first, Color::Black, 4));
    }

    #[test]
    fn sample_puzzles_are_solved_with_lines_that_replay() {
        let (puzzles, problems) = parse_vcf_puzzles_tsv(SAMPLE);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(puzzles.len(), 33);
        for shortest_line in [false, true] {
            let options = VcfOptions { shortest_line, ..VcfOptions::vcf() };
            let report = solve_vcf_puzzles(&puzzles, &options, &not_stopped());
            assert_eq!(report.failures, Vec::<(String, String)>::new());
            assert_eq!(report.solved, 33);
        }
        // Puzzle 37 has a five (an overline, which freestyle counts) on offer at once.
        let immediate = puzzles.iter().find(|puzzle| puzzle.id == "37").unwrap();
        let result = solve_vcf(&immediate.position, Color::Black, &VcfOptions::vcf(), &not_stopped());
        assert!(matches!(result.outcome, VcfOutcome::Win(ref line) if line.len() == 1));
        assert_eq!(
            immediate_win(&immediate.position),
            Some(match result.outcome {
                VcfOutcome::Win(line) => line[0],
                _ => unreachable!(),
            })
        );
    }

    #[test]
    fn a_vcf_on_a_lent_board_finds_what_solve_vcf_finds_and_leaves_the_board_as_it_was() {
        let (puzzles, _) = parse_vcf_puzzles_tsv(SAMPLE);
        let stop = not_stopped();
        let mut wins = 0;
        for puzzle in &puzzles {
            let mut board = ThreatBoard::new(&puzzle.position);
            let before = board.threat_snapshot();
            for attacker in [Color::Black, Color::White] {
                // Stopped by the node limit, and finished.
                for max_nodes in [20, 2_000_000] {
                    let options = VcfOptions { max_nodes, ..VcfOptions::vcf() };
                    let lent = solve_vcf_on(&mut board, attacker, &options, &stop);
                    assert_eq!(lent, solve_vcf(&puzzle.position, attacker, &options, &stop), "puzzle {}", puzzle.id);
                    assert!(before == board.threat_snapshot(), "puzzle {}", puzzle.id);
                    wins += usize::from(matches!(lent.outcome, VcfOutcome::Win(_)));
                }
            }
        }
        assert!(wins >= 33, "{wins}");
    }

    #[test]
    fn puzzle_files_are_read_and_bad_lines_reported() {
        let json = r#"{"puzzles": [
            {"side": 1, "size": 15, "stones": "G12H12G11H10"},
            {"side": 1, "size": 15, "stones": "G12H12Z99"},
            {"side": 1, "size": 13, "stones": "H8"}
        ]}"#;
        let (puzzles, problems) = parse_vcf_puzzles_json(json);
        assert_eq!(puzzles.len(), 1);
        assert_eq!(problems.len(), 2);
        let position = &puzzles[0].position;
        // G12 is column 7 (A..O, I counted), row 12.
        assert_eq!(position.stone_at(position.cell(6, 11)), Some(Color::Black));
        assert_eq!(position.stone_at(position.cell(7, 9)), Some(Color::White));
        assert_eq!(position.to_move(), Color::Black);
        let tsv = "header\n1\tB\tH8,H8\t\t\tsame_as_renju\t\n2\tB\tH8\t\t\tnone\t\n3\tX\n";
        let (puzzles, problems) = parse_vcf_puzzles_tsv(tsv);
        assert!(puzzles.is_empty());
        assert_eq!(problems.len(), 3, "{problems:?}");
    }

    #[test]
    fn the_replay_rejects_lines_that_do_not_force() {
        let (puzzles, _) = parse_vcf_puzzles_tsv(SAMPLE);
        let puzzle = &puzzles[0];
        let VcfOutcome::Win(line) =
            solve_vcf(&puzzle.position, Color::Black, &VcfOptions::vcf(), &not_stopped()).outcome
        else {
            panic!("puzzle 1 has a VCF");
        };
        assert!(line.len() >= 3);
        assert!(verify_vcf_line(&puzzle.position, Color::Black, &line[..line.len() - 2]).is_err());
        let mut wrong_block = line.clone();
        let mut moves = Vec::new();
        puzzle.position.legal_moves(&mut moves);
        wrong_block[1] = *moves.iter().find(|&&cell| !line.contains(&cell)).unwrap();
        assert!(verify_vcf_line(&puzzle.position, Color::Black, &wrong_block).is_err());
        assert!(verify_vcf_line(&puzzle.position, Color::White, &line).is_err());
    }

    #[test]
    fn limits_and_the_stop_flag_give_unknown() {
        let (puzzles, _) = parse_vcf_puzzles_tsv(SAMPLE);
        let position = &puzzles[0].position;
        let tight = VcfOptions { max_nodes: 3, ..VcfOptions::vcf() };
        let result = solve_vcf(position, Color::Black, &tight, &not_stopped());
        assert_eq!(result.outcome, VcfOutcome::Unknown);
        let stopped = AtomicBool::new(true);
        assert_eq!(solve_vcf(position, Color::Black, &VcfOptions::vcf(), &stopped).outcome, VcfOutcome::Unknown);
        assert_eq!(solve_vct(position, Color::Black, &VcfOptions::vct(), &stopped).outcome, VcfOutcome::Unknown);
    }

    #[test]
    fn exact_five_does_not_count_an_overline() {
        let mut rows = vec!["..............."; 15];
        rows[13] = "XXXX.X.........";
        rows[14] = "OO.O.O.O.......";
        for exact in [false, true] {
            let position = position_from(&rows, exact, Color::Black);
            let expected = (!exact).then(|| position.cell(4, 1));
            assert_eq!(expected.map(|cell| position.format_move(cell)), (!exact).then(|| "E2".to_string()));
            assert_eq!(immediate_win(&position), expected);
            let result = solve_vcf(&position, Color::Black, &VcfOptions::vcf(), &not_stopped());
            if exact {
                assert_eq!(result.outcome, VcfOutcome::NotFound);
            } else {
                assert_eq!(result.outcome, VcfOutcome::Win(vec![position.cell(4, 1)]));
                verify_vcf_line(&position, Color::Black, &[position.cell(4, 1)]).unwrap();
            }
        }
    }

    #[test]
    fn must_block_names_the_block_of_a_four_and_of_an_open_three() {
        let mut rows = vec!["..............."; 15];
        rows[7] = ".....OOO.......";
        rows[0] = "X...X...X......";
        let position = position_from(&rows, false, Color::Black);
        assert_eq!(immediate_win(&position), None);
        let mut blocks = must_block(&position).unwrap();
        blocks.sort();
        assert_eq!(blocks, vec![position.cell(4, 7), position.cell(8, 7)]);
        rows[7] = "....XOOOO......";
        let position = position_from(&rows, false, Color::Black);
        assert_eq!(must_block(&position), Some(vec![position.cell(9, 7)]));
        // With a four of its own, the side to move may also answer the three by that four.
        rows[7] = ".....OOO.......";
        rows[0] = "XXX............";
        let position = position_from(&rows, false, Color::Black);
        let blocks = must_block(&position).unwrap();
        assert!(blocks.contains(&position.cell(3, 14)) && blocks.contains(&position.cell(4, 7)));
        let mut quiet_rows = vec!["..............."; 15];
        quiet_rows[7] = ".......X.......";
        quiet_rows[8] = "......O........";
        let quiet = position_from(&quiet_rows, false, Color::White);
        assert_eq!(must_block(&quiet), None);
    }

    /// Whether the VCT `solve_vct` finds holds against every reply, not only the defences it
    /// chose to search: after its first move, each legal reply must leave the attacker a VCT
    /// one move shorter.
    fn assert_vct_holds_against_every_reply(position: &Mnk, attacker: Color, depth: u32) -> usize {
        let stop = not_stopped();
        let options = VcfOptions { max_nodes: 2_000_000, max_attacker_moves: depth, shortest_line: true };
        let VcfOutcome::Win(line) = solve_vct(position, attacker, &options, &stop).outcome else {
            return 0;
        };
        let mut after = position.clone();
        after.give_turn_to(attacker).unwrap();
        after.play(line[0]).unwrap();
        if after.outcome().is_some() {
            return 1;
        }
        let mut replies = Vec::new();
        after.legal_moves(&mut replies);
        let shorter = VcfOptions { max_nodes: 2_000_000, max_attacker_moves: depth - 1, shortest_line: true };
        for reply in replies {
            let mut next = after.clone();
            next.play_unchecked(reply);
            assert_eq!(next.outcome(), None, "the defender wins with {reply:?}:\n{}", after.board_text());
            let result = solve_vct(&next, attacker, &shorter, &stop);
            assert!(
                matches!(result.outcome, VcfOutcome::Win(_)),
                "no VCT after {} {}:\n{}",
                next.format_move(line[0]),
                next.format_move(reply),
                next.board_text()
            );
        }
        1
    }

    #[test]
    fn a_double_three_is_a_vct_but_no_vcf() {
        let mut rows = vec!["..............."; 15];
        rows[14] = "O.............O";
        rows[7] = ".....XX........";
        rows[8] = "...............";
        rows[9] = ".......X.......";
        rows[10] = ".......X.......";
        rows[0] = "O.............O";
        let position = position_from(&rows, false, Color::Black);
        let stop = not_stopped();
        assert_eq!(solve_vcf(&position, Color::Black, &VcfOptions::vcf(), &stop).outcome, VcfOutcome::NotFound);
        let result = solve_vct(&position, Color::Black, &VcfOptions::vct(), &stop);
        assert!(matches!(result.outcome, VcfOutcome::Win(_)), "{result:?}");
        assert_eq!(assert_vct_holds_against_every_reply(&position, Color::Black, 3), 1);
        // White, with no threats at all, has nothing.
        assert_eq!(solve_vct(&position, Color::White, &VcfOptions::vct(), &stop).outcome, VcfOutcome::NotFound);
    }

    #[test]
    fn vct_wins_hold_against_every_reply_on_random_positions() {
        let mut rng = SmallRng::seed_from_u64(13);
        let (mut checked, mut without_vcf) = (0, 0);
        for round in 0..120 {
            let exact = round % 2 == 1;
            let stones = rng.random_range(10..24);
            let position = random_position(&mut rng, 9, 9, exact, stones);
            let attacker = if rng.random_bool(0.5) { Color::Black } else { Color::White };
            let found = assert_vct_holds_against_every_reply(&position, attacker, 3);
            checked += found;
            let vcf = solve_vcf(&position, attacker, &VcfOptions::vcf(), &not_stopped());
            if found == 1 && vcf.outcome == VcfOutcome::NotFound {
                without_vcf += 1;
            }
        }
        println!("{checked} VCTs checked against every reply, {without_vcf} of them with no VCF");
        assert!(checked >= 30 && without_vcf >= 10, "only {checked} VCTs found, {without_vcf} without a VCF");
    }

    #[test]
    fn the_proof_number_vct_agrees_with_the_depth_first_one_on_random_positions() {
        // Both search the same moves to the same depth, so without a node limit they must agree
        // on every position; and the proof-number search's first move must hold against every
        // reply (each leaves a VCT one attacker move shorter).
        let mut rng = SmallRng::seed_from_u64(17);
        let stop = not_stopped();
        let (mut wins, mut without_vcf) = (0, 0);
        for round in 0..160 {
            let stones = rng.random_range(10..26);
            let position = random_position(&mut rng, 9, 9, round % 2 == 1, stones);
            let attacker = if rng.random_bool(0.5) { Color::Black } else { Color::White };
            let depth = 3 + round % 2;
            let mut board = ThreatBoard::new(&position);
            let depth_first = ThreatSearch::new(&mut board, attacker, Mode::Threats, u64::MAX, &stop)
                .iterative_deepening(depth, true);
            let proof_number =
                ThreatSearch::new(&mut board, attacker, Mode::Threats, u64::MAX, &stop).proof_number_search(depth);
            assert_eq!(
                matches!(proof_number, VcfOutcome::Win(_)),
                matches!(depth_first, VcfOutcome::Win(_)),
                "{proof_number:?} against {depth_first:?}:\n{}\n{attacker}",
                position.board_text()
            );
            let VcfOutcome::Win(line) = proof_number else {
                assert_eq!(depth_first, VcfOutcome::NotFound);
                continue;
            };
            wins += 1;
            if solve_vcf(&position, attacker, &VcfOptions::vcf(), &stop).outcome == VcfOutcome::NotFound {
                without_vcf += 1;
            }
            let mut after = position.clone();
            after.give_turn_to(attacker).unwrap();
            after.play(line[0]).unwrap();
            if after.outcome().is_some() {
                continue;
            }
            let mut replies = Vec::new();
            after.legal_moves(&mut replies);
            for reply in replies {
                let mut next = after.clone();
                next.play_unchecked(reply);
                let shorter = ThreatSearch::new(&mut ThreatBoard::new(&next), attacker, Mode::Threats, u64::MAX, &stop)
                    .iterative_deepening(depth - 1, true);
                assert!(matches!(shorter, VcfOutcome::Win(_)), "no VCT after {reply:?}:\n{}", next.board_text());
            }
        }
        assert!(wins >= 25 && without_vcf >= 8, "only {wins} VCTs, {without_vcf} without a VCF");
    }

    /// The whole puzzle set from the shared data directory (absent on a fresh clone):
    /// `cargo test --release --lib gomoku_vcf::tests::all_504_puzzles -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn all_504_puzzles() {
        let directory = "/work/shared/data/gomoku";
        let tsv = std::fs::read_to_string(format!("{directory}/black_vcf_504_solutions.tsv")).unwrap();
        let json = std::fs::read_to_string(format!("{directory}/lfz084_black_first_VCF_puzzle.json")).unwrap();
        let (puzzles, problems) = parse_vcf_puzzles_tsv(&tsv);
        let (from_json, json_problems) = parse_vcf_puzzles_json(&json);
        assert!(problems.is_empty() && json_problems.is_empty(), "{problems:?} {json_problems:?}");
        assert_eq!(puzzles.len(), 504);
        assert_eq!(from_json.len(), 504);
        for (a, b) in puzzles.iter().zip(&from_json) {
            assert_eq!(a.position, b.position, "puzzle {}", a.id);
        }
        for shortest_line in [false, true] {
            let options = VcfOptions { shortest_line, ..VcfOptions::vcf() };
            let report = solve_vcf_puzzles(&puzzles, &options, &not_stopped());
            println!(
                "VCF puzzles (shortest_line {shortest_line}): {} solved of {}, {} nodes, {} attacker moves, \
                 solver time {:.3} s",
                report.solved,
                report.puzzles,
                report.nodes,
                report.attacker_moves,
                report.solve_time.as_secs_f64()
            );
            for (id, why) in &report.failures {
                println!("puzzle {id}: {why}");
            }
            assert_eq!(report.solved, 504);
        }
        // VCT finds them too (a VCF is a VCT); its lines are not VCF lines, so no replay here.
        let started = Instant::now();
        let (mut wins, mut nodes) = (0, 0);
        for puzzle in &puzzles {
            let result = solve_vct(&puzzle.position, puzzle.attacker, &VcfOptions::vct(), &not_stopped());
            wins += usize::from(matches!(result.outcome, VcfOutcome::Win(_)));
            nodes += result.nodes;
        }
        println!("VCT on the same puzzles: {wins} wins, {nodes} nodes, {:.3} s", started.elapsed().as_secs_f64());
        assert_eq!(wins, 504);
    }
}
