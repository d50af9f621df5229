//! Gomoku alpha-beta search: principal variation search under iterative deepening with a
//! transposition table (kept from move to move by [`search_gomoku_keeping`]), the pattern
//! evaluation of [`crate::knowledge::gomoku_eval`] (its trained position value at the leaves,
//! averaged over the leaf and the position before it, its hand-set cell scores for the order of
//! forced moves), the learned move order of [`crate::knowledge::gomoku_order`] in quiet
//! positions (freestyle), and Gomoku's forced-move rules at every node, as classical engines
//! (Rapfi's classical mode among them) search:
//!
//! - the side to move makes five when it can (a win);
//! - against the opponent's four it may only block (two fours: lost);
//! - its own open four or double four wins in three plies;
//! - against the opponent's open three (any cell where the opponent would make an open four or
//!   a double four) it may only play its own fours or a cell after which the opponent has no
//!   such cell left (none: lost);
//! - with two or more plies left below the root, a VCF of its own (a short threat search)
//!   wins, and against one of the opponent's it tries only the cells of that line, those that
//!   turn its forced replies in the line into fours of its own, and its own fours;
//! - otherwise it tries the empty cells within two cells of a stone, best scored first (a
//!   cell's score: what a stone there makes for either side, by the learned order where there
//!   is one), only the best few below the root (on the principal variation all of them, when
//!   the best few all lose by force).
//!
//! Only the block of a four is free of depth (a four and its block count one ply); the answers
//! to an open three cost a ply like any move but are never reduced, and late quiet moves are
//! searched shallower first (late move reductions). At the horizon an open three is left to
//! the quiescence, as a quiet position is. A quiet null-window node one or two plies from the
//! horizon whose evaluation lies far outside the window is cut without its moves (reverse
//! futility pruning and razoring).
//!
//! At the leaves a quiescence search follows the forcing moves: blocks of the opponent's four
//! and a few plies of the side to move's own fours (a short VCF), so a leaf is never scored in
//! the middle of a four. Facing an open three there, the side to move stands on the evaluation
//! (its threat steps count the opponent's open three) or plays its own fours. Proven results
//! carry mate scores ([`MATE`] less the plies to the five).
//!
//! The search runs on one thread and is deterministic for a node or depth limit; time limits and
//! the stop flag are checked every [`NODES_PER_CHECK`] nodes (well under a millisecond).

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::games::Color;
use crate::games::Game;
use crate::games::mnk::gomoku_threats::{CellSet, ThreatBoard, is_five_in_a_row};
use crate::games::mnk::{Cell, Mnk};
use crate::knowledge::gomoku_eval::PatternEvaluation;
use crate::knowledge::gomoku_order::{OrderTables, embedded_order_tables};
use crate::search::deepening::{Heartbeat, LimitWatch, next_iteration_fits};
use crate::solvers::gomoku_vcf::{VcfOptions, VcfOutcome, line_defences, solve_vcf_on};

/// The score of a five made at the root; a five `n` plies later scores `MATE - n`.
pub const MATE: i32 = 30_000;

/// Scores beyond this are proven wins (or, negated, losses).
pub const MATE_BOUND: i32 = MATE - 1_000;

/// Beyond every score.
const INFINITY: i32 = MATE + 1;

/// Evaluations are clamped inside this, far from the mate scores.
const MAX_EVALUATION: i32 = 20_000;

/// The score of a side all of whose searched moves lose by force when the search left some of
/// its quiet moves out: below every evaluation, but no proof, since a move left out may hold.
const UNPROVEN_LOSS: i32 = -(MAX_EVALUATION + 1);

/// Nodes between two looks at the clock and the stop flag.
pub const NODES_PER_CHECK: u64 = 1024;

/// The transposition table holds 2^TABLE_BITS entries of 16 bytes (16 MiB).
const TABLE_BITS: u32 = 20;

/// Moves tried at a node one ply below the root, and deeper: the best-scored candidates only.
/// Gomoku's good moves are almost always among the cells its patterns rate highly; the root
/// tries every candidate.
const FIRST_PLY_WIDTH: usize = 20;
const DEEPER_WIDTH: usize = 12;

/// Late move reductions: at a quiet node with at least `LMR_MIN_DEPTH` plies left, the moves
/// after the first `LMR_FULL_MOVES` are searched `1` ply shallower (`2` from the
/// `LMR_DEEPER_FROM`th on) with a null window, and again at full depth only when they beat
/// alpha. The move order puts the pattern-rated best first, so the late ones rarely matter.
const LMR_MIN_DEPTH: u32 = 3;
const LMR_FULL_MOVES: usize = 3;
const LMR_DEEPER_FROM: usize = 8;

/// Shallow pruning of quiet null-window nodes, as chess engines do. With at most
/// `FUTILITY_DEPTH` plies left, an evaluation `FUTILITY_MARGIN` a ply above beta cuts at once
/// (reverse futility: a quiet position that good is rarely lost within a ply or two that the
/// quiescence would not see). With `RAZOR_DEPTH` ply left, an evaluation `RAZOR_MARGIN` below
/// alpha asks the quiescence search only, and cuts when it agrees. The depths and margins were
/// chosen by self-play matches (see `weights/README.md`).
const FUTILITY_DEPTH: u32 = 2;
const FUTILITY_MARGIN: i32 = 100;
const RAZOR_DEPTH: u32 = 1;
const RAZOR_MARGIN: i32 = 200;

/// Null-move pruning, as chess engines and Rapfi do: at a quiet null-window node (no four or
/// open three of the opponent to answer, and no VCF found for either side by the in-tree
/// checks, which such a node runs) with at least `NULL_MOVE_MIN_DEPTH` plies left whose
/// evaluation reaches beta, the side to move passes and the opponent, moving twice, is
/// searched `NULL_MOVE_REDUCTION` plies shallower besides the pass; when even so it stays
/// below beta, the node cuts. Not below another pass. In 5 s a move against Rapfi it searched
/// about a ply deeper in the median (see `weights/README.md`).
const NULL_MOVE_MIN_DEPTH: u32 = 3;
const NULL_MOVE_REDUCTION: u32 = 3;

/// The side to move's own fours the quiescence search follows at a leaf (each answered by the
/// forced block): a short VCF. Two beat three in self-play, and one did not beat two (see
/// `weights/README.md`): the root's threat search and the forced-move rules find the longer
/// ones, and a leaf's long VCF costs nodes the main search needs.
const QUIESCENCE_FOURS: u32 = 2;

/// Own fours tried at each quiescence node, the best-scored first.
const QUIESCENCE_FOUR_WIDTH: usize = 4;

/// A move's ordering score weighs what it makes for the side to move (attack) against what it
/// takes from the opponent (defence) in these proportions: 2 : 1 beat 3 : 2 in self-play, and
/// 1 : 1 lost to it (see `weights/README.md`).
const ATTACK_WEIGHT: i32 = 2;
const DEFENCE_WEIGHT: i32 = 1;

/// The deepest iteration without a depth limit.
const DEFAULT_MAX_DEPTH: u32 = 64;

/// Threat searches inside the tree: at a quiet node with at least `VCF_CHECK_DEPTH` plies left
/// (below the root, whose moves the root's own threat checks narrow), a VCF of the side to move
/// within `VCF_CHECK_NODES` nodes wins at once, and one of the opponent's leaves only the moves
/// that may stop it (see [`MoveKind::VcfDefence`]). The quiescence search follows only a short
/// VCF, so without these a long one is seen only as deep as the search reaches.
const VCF_CHECK_DEPTH: u32 = 2;
const VCF_CHECK_NODES: u64 = 100;

/// What ends a search.
pub struct GomokuLimits<'a> {
    /// The search stops here whatever it is doing.
    pub max_time: Option<Duration>,
    /// No new iteration starts when less than half of it is predicted to fall before this (see
    /// [`next_iteration_fits`]).
    pub target_time: Option<Duration>,
    pub max_nodes: Option<u64>,
    /// The deepest iteration; 0 for no limit.
    pub max_depth: u32,
    /// Set from another thread to end the search with the best move found so far.
    pub stop: &'a AtomicBool,
    /// Called whenever the limits are looked at (analyses only).
    pub heartbeat: Option<Heartbeat<'a>>,
    /// The root moves to search, when a threat search has ruled the others out (none of them
    /// a candidate of the root: every candidate is searched).
    pub root_moves: Option<Vec<Cell>>,
}

impl<'a> GomokuLimits<'a> {
    /// A search to `max_depth` plies and no other limit than `stop`: the same result on every
    /// machine.
    pub fn to_depth(max_depth: u32, stop: &'a AtomicBool) -> GomokuLimits<'a> {
        GomokuLimits {
            max_time: None,
            target_time: None,
            max_nodes: None,
            max_depth,
            stop,
            root_moves: None,
            heartbeat: None,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GomokuResult {
    pub best_move: Cell,
    /// The move's score for the side to move: evaluation units, or a mate score (see
    /// [`MATE_BOUND`]).
    pub score: i32,
    /// The deepest iteration completed (0: decided by the forced-move rules, or only a partial
    /// first iteration).
    pub depth: u32,
    pub nodes: u64,
    /// The expected line, starting with `best_move`.
    pub pv: Vec<Cell>,
    /// The other root moves not proven lost, in the order of the last iteration's scores (the
    /// others' scores are bounds, so the order past the first few is rough): what to play
    /// instead if a check finds `best_move` loses by force.
    pub alternatives: Vec<Cell>,
    /// Where the nodes went.
    pub census: NodeCensus,
}

/// Where a search's nodes went (the debug log gives it with every move): the main tree's
/// nodes, the quiescence's and the in-tree threat searches', which together are the search's
/// nodes; and of the main tree's nodes that searched their moves, why those were the moves.
/// In the tactical middle games lost to Rapfi, where the search reached only 6 to 10 plies,
/// the answers to open threes outnumbered the quiet nodes by twenty to a hundred and thirty
/// times, three quarters or more of them at the horizon, which now leaves them to the
/// quiescence (see `weights/README.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeCensus {
    pub tree: u64,
    pub quiescence: u64,
    /// The nodes of the VCF searches at quiet nodes (see [`VCF_CHECK_DEPTH`]).
    pub threat_checks: u64,
    /// Tree nodes that searched quiet candidates.
    pub quiet: u64,
    /// Tree nodes that searched the answers to an open three.
    pub three_answers: u64,
    /// Tree nodes that searched the answers to a VCF.
    pub vcf_answers: u64,
    /// Quiet nodes that tried a pass ([`NULL_MOVE_MIN_DEPTH`]), and those it cut.
    pub null_moves: u64,
    pub null_move_cuts: u64,
}

impl std::fmt::Display for NodeCensus {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{} tree, {} quiescence and {} threat-check nodes; tree nodes searching quiet moves {}, answers to an open \
             three {}, answers to a VCF {}; passes tried {}, cut {}",
            self.tree,
            self.quiescence,
            self.threat_checks,
            self.quiet,
            self.three_answers,
            self.vcf_answers,
            self.null_moves,
            self.null_move_cuts
        )
    }
}

impl GomokuResult {
    /// Whether the score is a proven win (`Some(true)`) or loss (`Some(false)`).
    pub fn proven(&self) -> Option<bool> {
        (self.score.abs() >= MATE_BOUND).then_some(self.score > 0)
    }
}

/// Searches `position` for the side to move within `limits`; `None` when the game is over or
/// is not five in a row. Blocks until a limit is reached or the stop flag is set.
pub fn search_gomoku(position: &Mnk, limits: &GomokuLimits) -> Option<GomokuResult> {
    search_gomoku_keeping(position, limits, &mut GomokuTable::new())
}

/// The transposition table of a game's searches, kept from move to move (and through
/// pondering): the positions after the expected replies are already in it.
pub struct GomokuTable {
    entries: Vec<Entry>,
}

impl GomokuTable {
    /// An empty table for a new game.
    pub fn new() -> GomokuTable {
        GomokuTable { entries: vec![Entry::default(); 1 << TABLE_BITS] }
    }

    /// The move an earlier search of this game proved wins `position` for the side to move,
    /// if the table still holds that proof (such as the position after the reply its line
    /// expected).
    pub fn proven_win(&self, position: &Mnk) -> Option<Cell> {
        let key = ThreatBoard::new(position).zobrist(position.to_move());
        let entry = self.entries[table_slot(key)];
        let proves_win = entry.score >= MATE_BOUND && matches!(entry.bound, Bound::Exact | Bound::Lower);
        (entry.key == key && entry.best != NO_MOVE && proves_win).then_some(Cell(entry.best))
    }
}

impl Default for GomokuTable {
    fn default() -> Self {
        GomokuTable::new()
    }
}

/// [`search_gomoku`] with `table` kept from the game's earlier searches (and left holding this
/// one's entries). Every entry is a finished search of its position (an aborted node is never
/// stored), so a kept entry orders moves and cuts subtrees as a fresh one would; one from a
/// deeper earlier search can give a node the deeper score.
pub fn search_gomoku_keeping(position: &Mnk, limits: &GomokuLimits, table: &mut GomokuTable) -> Option<GomokuResult> {
    if position.outcome().is_some() || !is_five_in_a_row(position) {
        return None;
    }
    let mut searcher = Searcher::new(position, limits, std::mem::take(&mut table.entries));
    let result = searcher.iterative_deepening(limits);
    table.entries = searcher.table;
    Some(result)
}

/// Root moves an analysis scores at most: the best-ordered candidates, or forced answers.
/// Scoring each exactly costs a full-window search, and a viewer reads the first few lines.
pub const ANALYSIS_WIDTH: usize = 10;

/// One root move as [`analyze_gomoku`] scores it: its line from the root and its exact score
/// at the depth reported (as [`GomokuResult::score`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GomokuLine {
    pub pv: Vec<Cell>,
    pub score: i32,
}

/// Analysis (`lz-analyze`, `kata-analyze`): the best-ordered [`ANALYSIS_WIDTH`] root moves,
/// each scored with a full window at every depth (so each score is exact for its depth, not a
/// bound), best first. `report` gets each completed depth's lines with the depth and the nodes
/// searched so far; a root the forced-move rules decide gets one line at depth 0. `false` when
/// the game is over or is not five in a row. Blocks until a limit, the stop flag, or every line
/// proven.
pub fn analyze_gomoku(position: &Mnk, limits: &GomokuLimits, report: &mut dyn FnMut(&[GomokuLine], u32, u64)) -> bool {
    if position.outcome().is_some() || !is_five_in_a_row(position) {
        return false;
    }
    Searcher::new(position, limits, GomokuTable::new().entries).analyze(limits, report);
    true
}

/// What the forced-move rules leave at a node.
enum NodeMoves {
    /// The result is known without a search: the score, and the move to play for it.
    Decided(i32, Cell),
    /// The moves to search, best first, what made them the node's moves, and whether they are
    /// all the moves that matter (false when the quiet candidates were cut to the node's
    /// width).
    Search { moves: Vec<Cell>, kind: MoveKind, complete: bool },
}

/// Why a node's moves are what they are, which decides what they cost.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MoveKind {
    /// The best-scored candidates of a quiet position: each costs a ply, late ones are reduced,
    /// and at the horizon the quiescence search takes over.
    Quiet,
    /// The one block of the opponent's four: it costs no ply, so a four and its block count as
    /// one.
    FourBlock,
    /// The answers to the opponent's open three (own fours, cells that leave it none): never
    /// reduced, but each costs a ply. (Free, they let a chain of threes deepen the search
    /// without end: depth-4 searches of 400,000 nodes.) At the horizon the quiescence takes
    /// over: searched there, with every own four followed by its block and the same three
    /// again, such nodes outnumbered the quiet ones many times in tactical middle games (see
    /// [`NodeCensus`]).
    ThreeDefence,
    /// The answers to the opponent's VCF at a quiet node: the cells of its line, the cells that
    /// turn our replies in it into fours of our own, and our own fours. They cost a ply and
    /// late ones are reduced, as quiet moves are (unreduced, a VCF
    /// that survives most of its line's cells made whole subtrees of unreduced nodes: with
    /// checks from three plies left, 27.6 million nodes to depth 11 on a probe position against
    /// 3.0 million reduced). A loss among them is no proof: a move elsewhere may arm a
    /// counter-four that breaks the line.
    VcfDefence,
}

/// The bound a table score holds.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    score: i32,
    best: u16,
    depth: u8,
    bound: Bound,
}

impl Entry {
    /// Whether the entry proves a win or a loss: a mate score on the side its bound holds.
    fn proves_result(&self) -> bool {
        match self.bound {
            Bound::Exact => self.score.abs() >= MATE_BOUND,
            Bound::Lower => self.score >= MATE_BOUND,
            Bound::Upper => self.score <= -MATE_BOUND,
        }
    }
}

const NO_MOVE: u16 = u16::MAX;

struct Searcher<'a> {
    board: ThreatBoard,
    evaluation: PatternEvaluation,
    /// Per cell: stones within two cells (both ways), so candidates are cells with a count.
    near: Vec<u8>,
    to_move: Color,
    table: Vec<Entry>,
    nodes: u64,
    /// The node count at which [`Self::count_node`] next looks at the limits.
    next_check: u64,
    watch: LimitWatch<'a>,
    aborted: bool,
    /// What the root's moves are (forced answers are never reduced).
    root_kind: MoveKind,
    /// Quiet candidates a node searches: within the first ply, and deeper.
    widths: [usize; 2],
    /// The learned move order (freestyle, when its weights decode), else the hand-set one.
    order: Option<&'static OrderTables>,
    /// Where this search's nodes went so far.
    census: NodeCensus,
    /// Whether null-move pruning is on ([`NULL_MOVE_MIN_DEPTH`]; off in tests that compare).
    null_move_pruning: bool,
    /// A pass is being searched: no second one below it.
    below_pass: bool,
}

/// The table entry of the position with zobrist `key`.
fn table_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - TABLE_BITS)) as usize
}

/// A mate score stored in the table counts from the node, not from the root.
fn score_to_table(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_table(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// What the move loop of a node needs to know about it.
#[derive(Clone, Copy)]
struct MoveStep {
    kind: MoveKind,
    depth: u32,
    child_depth: u32,
    ply: u32,
    beta: i32,
}

/// How many plies shallower the `index`th move of a node with `depth` plies left is first
/// searched (see [`LMR_MIN_DEPTH`]); only quiet moves and the answers to a VCF are reduced.
fn late_move_reduction(kind: MoveKind, depth: u32, index: usize) -> u32 {
    if !matches!(kind, MoveKind::Quiet | MoveKind::VcfDefence) || depth < LMR_MIN_DEPTH || index < LMR_FULL_MOVES {
        0
    } else if index >= LMR_DEEPER_FROM {
        2
    } else {
        1
    }
}

/// The hand-set order's score of the empty `cell` with `to_move` to move: what a stone there
/// makes for the side to move and what it takes from the opponent.
pub fn hand_set_move_score(evaluation: &PatternEvaluation, to_move: Color, cell: Cell) -> i32 {
    ATTACK_WEIGHT * evaluation.cell_score(to_move, cell)
        + DEFENCE_WEIGHT * evaluation.cell_score(to_move.opponent(), cell)
}

/// The win for the side to move when its five falls `plies` plies after the node at `ply`.
fn win_in(ply: u32, plies: u32) -> i32 {
    MATE - (ply + plies) as i32
}

impl<'a> Searcher<'a> {
    fn new(position: &Mnk, limits: &GomokuLimits<'a>, table: Vec<Entry>) -> Searcher<'a> {
        let board = ThreatBoard::new(position);
        let evaluation = PatternEvaluation::new(&board);
        let order = if board.exact_five() { None } else { embedded_order_tables() };
        let cells = board.width() * board.height();
        let mut searcher = Searcher {
            board,
            evaluation,
            near: vec![0; cells],
            to_move: position.to_move(),
            table,
            nodes: 0,
            next_check: NODES_PER_CHECK,
            watch: LimitWatch::start(limits.max_time, limits.max_nodes, limits.stop, limits.heartbeat),
            aborted: false,
            root_kind: MoveKind::Quiet,
            widths: [FIRST_PLY_WIDTH, DEEPER_WIDTH],
            order,
            census: NodeCensus::default(),
            null_move_pruning: true,
            below_pass: false,
        };
        for index in 0..cells {
            if !searcher.board.is_empty(Cell(index as u16)) {
                searcher.count_near(Cell(index as u16), true);
            }
        }
        searcher
    }

    fn count_near(&mut self, cell: Cell, adding: bool) {
        let (column, row) = self.board.coordinates(cell);
        let (width, height) = (self.board.width(), self.board.height());
        for y in row.saturating_sub(2)..(row + 3).min(height) {
            for x in column.saturating_sub(2)..(column + 3).min(width) {
                let near = &mut self.near[y * width + x];
                if adding {
                    *near += 1;
                } else {
                    *near -= 1;
                }
            }
        }
    }

    fn play(&mut self, cell: Cell) {
        self.board.play(self.to_move, cell);
        self.evaluation.play(&self.board, cell);
        self.count_near(cell, true);
        self.to_move = self.to_move.opponent();
    }

    /// Takes back `cell`, the last move played.
    fn undo(&mut self, cell: Cell) {
        self.board.undo();
        self.evaluation.undo();
        self.count_near(cell, false);
        self.to_move = self.to_move.opponent();
    }

    fn check_limits(&mut self) {
        self.aborted = self.watch.reached(self.nodes);
    }

    /// Counts a node and looks at the limits now and then; true when the search must end.
    fn count_node(&mut self) -> bool {
        self.nodes += 1;
        // The in-tree threat searches add their nodes in bulk, so the count can step over a
        // multiple of the interval: the next look is due at a count, not at a multiple.
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + NODES_PER_CHECK;
            self.check_limits();
        }
        self.aborted
    }

    /// How good `cell` looks for the side to move: what it makes for itself and what it takes
    /// from the opponent (the hand-set order of forced moves: fours, defences).
    fn move_score(&self, cell: Cell) -> i32 {
        hand_set_move_score(&self.evaluation, self.to_move, cell)
    }

    /// How good `cell` looks in a quiet position: by the learned order where there is one (it
    /// was fitted to quiet positions only), else as [`Self::move_score`].
    fn quiet_move_score(&self, cell: Cell) -> i32 {
        match self.order {
            Some(order) => order.cell_score(&self.board, &self.evaluation, self.to_move, cell),
            None => self.move_score(cell),
        }
    }

    /// `cells` sorted by move score, best first (ties by cell index, so the order is the same
    /// on every run).
    fn sorted(&self, cells: impl Iterator<Item = Cell>) -> Vec<Cell> {
        self.best_sorted(cells, usize::MAX, Self::move_score).0
    }

    /// The `width` best of `cells` by `score`, best first, in the order [`Self::sorted`]
    /// gives them, and how many cells there were. Below the root a quiet node keeps a dozen
    /// of its candidates: selecting them first and sorting only those cut the ordering from a
    /// tenth of the search's time to under 3% (perf, 12-ply search of the bench position).
    fn best_sorted(
        &self,
        cells: impl Iterator<Item = Cell>,
        width: usize,
        score: fn(&Self, Cell) -> i32,
    ) -> (Vec<Cell>, usize) {
        let mut scored: Vec<(i32, Cell)> = cells.map(|cell| (score(self, cell), cell)).collect();
        let count = scored.len();
        // Scores and cells together order the cells totally: the same cells come first
        // whichever way they are picked.
        let key = |&(score, cell): &(i32, Cell)| (-score, cell.0);
        if count > width {
            scored.select_nth_unstable_by_key(width, key);
            scored.truncate(width);
        }
        scored.sort_unstable_by_key(key);
        (scored.into_iter().map(|(_, cell)| cell).collect(), count)
    }

    /// The evaluation of the node for the side to move: the mean of the trained value of the
    /// position and that of the position before the last move, seen from the same side (at the
    /// root, which has no move before it in the search, the value alone). A stone changes the
    /// shapes around it at once, while what it is worth shows only over the next moves, so the
    /// value of one position swings with whoever moved last; the mean of two consecutive ones
    /// swings less (Rapfi's classical evaluator averages its pattern sum the same way). Against
    /// Rapfi it scored better than the value alone (see `weights/README.md`).
    fn position_value(&self) -> i32 {
        let now = self.evaluation.position_value(self.to_move);
        let value = match self.evaluation.previous_value(self.to_move) {
            Some(before) => (now - before) / 2,
            None => now,
        };
        value.clamp(-MAX_EVALUATION, MAX_EVALUATION)
    }

    /// The forced-move rules at a node `ply` plies from the root (see the module doc), then the
    /// candidate moves, `width` at most (a width of 0 at the horizon, where only the kind
    /// matters, skips scoring and sorting them).
    fn node_moves(&mut self, ply: u32, width: usize, vcf_checks: bool) -> NodeMoves {
        let (side, opponent) = (self.to_move, self.to_move.opponent());
        // 1. A five wins now.
        if let Some(five) = self.board.five_points(side).first() {
            return NodeMoves::Decided(win_in(ply, 0), five);
        }
        // 2. The opponent's four must be blocked; two cannot be.
        let threats = *self.board.five_points(opponent);
        if let Some(block) = threats.first() {
            if threats.len() > 1 {
                return NodeMoves::Decided(-win_in(ply, 1), block);
            }
            return NodeMoves::Search { moves: vec![block], kind: MoveKind::FourBlock, complete: true };
        }
        // 3. Our open four (or double four) wins: the opponent has no five to answer with.
        if let Some(four) = self.board.winning_four_points(side).first() {
            return NodeMoves::Decided(win_in(ply, 2), four);
        }
        // 4. Against the opponent's open three: our fours, or a cell that leaves it none.
        let opponent_wins = *self.board.winning_four_points(opponent);
        if !opponent_wins.is_empty() {
            let mut defences = CellSet::new();
            let own_fours = *self.board.four_points(side);
            for cell in self.board.four_points(opponent).union(&opponent_wins).iter() {
                if own_fours.contains(cell) {
                    continue;
                }
                // The threats are the board's alone: the evaluation need not follow.
                self.board.play(side, cell);
                let stopped = self.board.winning_four_points(opponent).is_empty();
                self.board.undo();
                if stopped {
                    defences.insert(cell);
                }
            }
            let moves = self.sorted(defences.union(&own_fours).iter());
            return match moves.first() {
                Some(_) => NodeMoves::Search { moves, kind: MoveKind::ThreeDefence, complete: true },
                None => NodeMoves::Decided(-win_in(ply, 3), opponent_wins.first().expect("not empty")),
            };
        }
        // 5. A quiet position: cells near the stones, best first (none at the horizon, where
        //    the quiescence search takes over and only the kind matters).
        if width == 0 {
            return NodeMoves::Search { moves: Vec::new(), kind: MoveKind::Quiet, complete: false };
        }
        if vcf_checks && let Some(decided) = self.vcf_checks(ply) {
            return decided;
        }
        let cells = self.board.width() * self.board.height();
        let candidates = (0..cells)
            .map(|index| Cell(index as u16))
            .filter(|&cell| self.near[cell.0 as usize] > 0 && self.board.is_empty(cell));
        let (mut moves, count) = self.best_sorted(candidates, width, Self::quiet_move_score);
        if moves.is_empty() {
            // An empty board: the centre (or any empty cell on a full-looking tiny board).
            let centre = self.board.cell(self.board.width() / 2, self.board.height() / 2);
            let first = (0..cells).map(|index| Cell(index as u16)).find(|&cell| self.board.is_empty(cell));
            match first {
                Some(_) if self.board.is_empty(centre) => moves.push(centre),
                Some(cell) => moves.push(cell),
                None => return NodeMoves::Decided(0, centre),
            }
        }
        NodeMoves::Search { moves, kind: MoveKind::Quiet, complete: count <= width }
    }

    /// The in-tree threat searches of a quiet node (see [`VCF_CHECK_DEPTH`]): a win by our VCF,
    /// or the answers to the opponent's; `None` when neither side has a VCF found within the
    /// nodes. Their nodes count as the search's.
    fn vcf_checks(&mut self, ply: u32) -> Option<NodeMoves> {
        let (side, opponent) = (self.to_move, self.to_move.opponent());
        let options = VcfOptions { max_nodes: VCF_CHECK_NODES, ..VcfOptions::vcf() };
        let ours = solve_vcf_on(&mut self.board, side, &options, self.watch.stop_flag());
        self.nodes += ours.nodes;
        self.census.threat_checks += ours.nodes;
        if let VcfOutcome::Win(line) = ours.outcome {
            // The line ends with the five, or with a four the opponent cannot block twice.
            return Some(NodeMoves::Decided(win_in(ply, line.len() as u32 + 1), line[0]));
        }
        let theirs = solve_vcf_on(&mut self.board, opponent, &options, self.watch.stop_flag());
        self.nodes += theirs.nodes;
        self.census.threat_checks += theirs.nodes;
        let VcfOutcome::Win(line) = theirs.outcome else { return None };
        // Our fours, the line's cells, and the cells that turn our replies in it into fours of
        // ours (a counter-four the line's windows do not show).
        let mut answers = *self.board.four_points(side);
        for cell in line_defences(&mut self.board, side, &line) {
            answers.insert(cell);
        }
        let moves = self.sorted(answers.iter());
        Some(NodeMoves::Search { moves, kind: MoveKind::VcfDefence, complete: false })
    }

    /// Deepens one ply at a time until a limit or a proof, keeping the best move of the last
    /// completed iteration (or of an interrupted one, where its first move was searched in full).
    fn iterative_deepening(&mut self, limits: &GomokuLimits) -> GomokuResult {
        let started = self.watch.started();
        // 1. The root's forced-move rules may decide at once.
        let mut root = match self.node_moves(0, usize::MAX, false) {
            NodeMoves::Decided(score, mv) => {
                return GomokuResult {
                    best_move: mv,
                    score,
                    depth: 0,
                    nodes: self.nodes,
                    pv: vec![mv],
                    alternatives: Vec::new(),
                    census: self.census,
                };
            }
            NodeMoves::Search { moves, kind, .. } => {
                self.root_kind = kind;
                let moves = self.allowed_root_moves(moves, kind, limits.root_moves.as_deref());
                moves.into_iter().map(|cell| (cell, 0)).collect::<Vec<(Cell, i32)>>()
            }
        };
        let mut best = root[0];
        let mut completed_depth = 0;
        let mut iteration_times = Vec::new();
        let max_depth = if limits.max_depth == 0 { DEFAULT_MAX_DEPTH } else { limits.max_depth };
        for depth in 1..=max_depth {
            // 2. One iteration: PVS over the root moves, best first.
            self.check_limits();
            if self.aborted {
                break;
            }
            let iteration_started = Instant::now();
            let (iteration_best, searched) = self.search_root(depth, &mut root);
            if self.aborted {
                if let Some(found) = iteration_best.filter(|_| searched > 0) {
                    best = found;
                }
                break;
            }
            best = iteration_best.expect("a completed iteration searched every move");
            completed_depth = depth;
            iteration_times.push(iteration_started.elapsed());
            // A stable sort keeps the earlier (better ordered) of equal moves first.
            root.sort_by_key(|&(_, score)| -score);
            // 3. Stop at a proof, or when the next iteration would not end in time.
            if best.1.abs() >= MATE_BOUND {
                break;
            }
            // An iteration that the hard limit cuts short is not lost: its first root move was
            // searched in full, and a later one that beat it replaced it. So one starts when
            // half of it is predicted to fall before the target, whatever the hard limit.
            if limits
                .target_time
                .is_some_and(|target| !next_iteration_fits(&iteration_times, started.elapsed(), target))
            {
                break;
            }
        }
        let pv = self.principal_variation(best.0, completed_depth.max(1));
        let alternatives = root
            .iter()
            .filter(|&&(cell, score)| cell != best.0 && score > -MATE_BOUND)
            .map(|&(cell, _)| cell)
            .collect();
        GomokuResult {
            best_move: best.0,
            score: best.1,
            depth: completed_depth,
            nodes: self.nodes,
            pv,
            alternatives,
            census: self.census,
        }
    }

    /// The root's `moves` (of `kind`) that `allowed` lets through, best-ordered first; in a
    /// quiet position the allowed empty cells the order left out follow (a defence may lie
    /// farther from the stones than the candidates). All of `moves` when nothing is allowed.
    fn allowed_root_moves(&self, moves: Vec<Cell>, kind: MoveKind, allowed: Option<&[Cell]>) -> Vec<Cell> {
        let Some(allowed) = allowed else { return moves };
        let mut kept: Vec<Cell> = moves.iter().copied().filter(|cell| allowed.contains(cell)).collect();
        if kind == MoveKind::Quiet {
            let left_out: Vec<Cell> =
                allowed.iter().copied().filter(|&cell| self.board.is_empty(cell) && !kept.contains(&cell)).collect();
            kept.extend(self.best_sorted(left_out.into_iter(), usize::MAX, Self::quiet_move_score).0);
        }
        if kept.is_empty() { moves } else { kept }
    }

    /// [`analyze_gomoku`]'s deepening.
    fn analyze(&mut self, limits: &GomokuLimits, report: &mut dyn FnMut(&[GomokuLine], u32, u64)) {
        let mut moves = match self.node_moves(0, ANALYSIS_WIDTH, false) {
            NodeMoves::Decided(score, mv) => return report(&[GomokuLine { pv: vec![mv], score }], 0, self.nodes),
            NodeMoves::Search { moves, kind, .. } => {
                self.root_kind = kind;
                moves
            }
        };
        moves.truncate(ANALYSIS_WIDTH);
        let max_depth = if limits.max_depth == 0 { DEFAULT_MAX_DEPTH } else { limits.max_depth };
        for depth in 1..=max_depth {
            let mut lines = Vec::with_capacity(moves.len());
            for &mv in &moves {
                self.play(mv);
                let score = -self.negamax(depth - 1, 1, -INFINITY, INFINITY);
                self.undo(mv);
                if self.aborted {
                    return;
                }
                lines.push(GomokuLine { pv: self.principal_variation(mv, depth), score });
            }
            // Best first; a stable sort keeps the move order among equals.
            lines.sort_by_key(|line| -line.score);
            report(&lines, depth, self.nodes);
            if lines.iter().all(|line| line.score.abs() >= MATE_BOUND) {
                return;
            }
        }
    }

    /// One root iteration: the best (move, score) so far and how many moves were searched in
    /// full. Each move's score is kept for the next iteration's order: exact for the best, an
    /// upper bound for the others.
    fn search_root(&mut self, depth: u32, root: &mut [(Cell, i32)]) -> (Option<(Cell, i32)>, usize) {
        let mut best: Option<(Cell, i32)> = None;
        let mut alpha = -INFINITY;
        for (searched, entry) in root.iter_mut().enumerate() {
            self.play(entry.0);
            let score = if searched == 0 {
                -self.negamax(depth - 1, 1, -INFINITY, INFINITY)
            } else {
                let reduction = late_move_reduction(self.root_kind, depth, searched);
                let probe = self.null_window_probe(depth - 1, reduction, 1, alpha);
                if probe > alpha && !self.aborted { -self.negamax(depth - 1, 1, -INFINITY, -alpha) } else { probe }
            };
            self.undo(entry.0);
            if self.aborted {
                return (best, searched);
            }
            entry.1 = score;
            if score > alpha {
                alpha = score;
                best = Some((entry.0, score));
            }
        }
        (best, root.len())
    }

    /// The score of the child just played (at `ply`, `depth` plies to search) with a null
    /// window at `alpha`: first `reduction` plies shallower, then at full depth if that beat
    /// alpha. Negated for the parent.
    fn null_window_probe(&mut self, depth: u32, reduction: u32, ply: u32, alpha: i32) -> i32 {
        let probe = -self.negamax(depth - reduction, ply, -alpha - 1, -alpha);
        if probe > alpha && reduction > 0 && !self.aborted {
            -self.negamax(depth, ply, -alpha - 1, -alpha)
        } else {
            probe
        }
    }

    /// Fail-soft negamax with PVS: the score of the node `ply` plies from the root searched
    /// `depth` more plies (blocks of fours not counted), exact inside (`alpha`, `beta`) and a
    /// bound outside.
    fn negamax(&mut self, depth: u32, ply: u32, mut alpha: i32, beta: i32) -> i32 {
        self.census.tree += 1;
        if self.count_node() {
            return 0;
        }
        // 1. The table: a cutoff from a deep enough entry (before the moves are generated,
        //    which costs more than the rest of a node).
        let key = self.board.zobrist(self.to_move);
        let slot = table_slot(key);
        let entry = self.table[slot];
        let known = entry.key == key;
        // A principal-variation node does not take an unproven loss from the table: it widens
        // such a node (step 4).
        let principal = beta - alpha > 1;
        if known && u32::from(entry.depth) >= depth {
            let score = score_from_table(entry.score, ply);
            let cuts = match entry.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if cuts && !(principal && score.abs() == -UNPROVEN_LOSS) {
                return score;
            }
        }
        // 2. The forced-move rules; a horizon reached in a quiet position or facing an open
        //    three goes to the quiescence; the table's move first.
        let width = if depth == 0 { 0 } else { self.widths[usize::from(ply > 1)] };
        let (mut moves, kind, mut complete) = match self.node_moves(ply, width, depth >= VCF_CHECK_DEPTH && ply > 0) {
            NodeMoves::Decided(score, _) => return score,
            NodeMoves::Search { moves, kind, complete } => (moves, kind, complete),
        };
        if depth == 0 && matches!(kind, MoveKind::Quiet | MoveKind::ThreeDefence) {
            return self.quiescence(ply, QUIESCENCE_FOURS, alpha, beta);
        }
        if kind == MoveKind::Quiet
            && let Some(score) = self.shallow_cut(depth, ply, alpha, beta)
        {
            return score;
        }
        if kind == MoveKind::Quiet
            && let Some(score) = self.null_move_cut(depth, ply, alpha, beta)
        {
            return score;
        }
        if known
            && entry.best != NO_MOVE
            && let Some(at) = moves.iter().position(|cell| cell.0 == entry.best)
        {
            moves[..=at].rotate_right(1);
        }
        // 3. PVS over the moves, late quiet ones reduced first.
        match kind {
            MoveKind::Quiet => self.census.quiet += 1,
            MoveKind::FourBlock => {}
            MoveKind::ThreeDefence => self.census.three_answers += 1,
            MoveKind::VcfDefence => self.census.vcf_answers += 1,
        }
        let child_depth = if kind == MoveKind::FourBlock { depth } else { depth.saturating_sub(1) };
        let original_alpha = alpha;
        let mut best = (-INFINITY, moves[0]);
        let step = MoveStep { kind, depth, child_depth, ply, beta };
        if self.search_moves(&moves, 0, &step, &mut alpha, &mut best) {
            return 0;
        }
        // 4. When every one of the best-ordered quiet moves loses by force at a node of the
        //    principal variation, the rest are searched too: the defence may be a cell the
        //    order rates low (in games lost to Rapfi the search took such a line for a win and
        //    played into it). Only principal-variation nodes widen: the root's score comes
        //    from them, and they are few. Elsewhere such a loss is no proof.
        if !complete
            && best.0 <= -MATE_BOUND
            && principal
            && alpha < beta
            && let NodeMoves::Search { moves: all, complete: all_complete, .. } =
                self.node_moves(ply, usize::MAX, false)
        {
            let rest: Vec<Cell> = all.into_iter().filter(|cell| !moves.contains(cell)).collect();
            if self.search_moves(&rest, moves.len(), &step, &mut alpha, &mut best) {
                return 0;
            }
            complete = all_complete;
        }
        let (mut best_score, best_move) = best;
        if !complete && best_score <= -MATE_BOUND {
            best_score = UNPROVEN_LOSS;
        }
        // 5. Store the result with its bound.
        let bound = if best_score <= original_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let fresh = Entry {
            key,
            score: score_to_table(best_score, ply),
            best: best_move.0,
            depth: depth.min(u32::from(u8::MAX)) as u8,
            bound,
        };
        // A proof of another position stays: it holds for the rest of the game, and a later
        // move may need it (a win an earlier search proved is searched among the defences).
        let kept = self.table[slot];
        if kept.key == key || !kept.proves_result() || fresh.proves_result() {
            self.table[slot] = fresh;
        }
        best_score
    }

    /// PVS over `moves` (the node's moves from index `first` on) at the node `step` describes,
    /// raising `alpha` and `best` (score, move); true when the search was aborted.
    fn search_moves(
        &mut self,
        moves: &[Cell],
        first: usize,
        step: &MoveStep,
        alpha: &mut i32,
        best: &mut (i32, Cell),
    ) -> bool {
        let MoveStep { kind, depth, child_depth, ply, beta } = *step;
        for (index, &cell) in (first..).zip(moves) {
            self.play(cell);
            let score = if index == 0 {
                -self.negamax(child_depth, ply + 1, -beta, -*alpha)
            } else {
                let reduction = late_move_reduction(kind, depth, index);
                let probe = self.null_window_probe(child_depth, reduction, ply + 1, *alpha);
                if probe > *alpha && probe < beta && !self.aborted {
                    -self.negamax(child_depth, ply + 1, -beta, -*alpha)
                } else {
                    probe
                }
            };
            self.undo(cell);
            if self.aborted {
                return true;
            }
            if score > best.0 {
                *best = (score, cell);
            }
            if score > *alpha {
                *alpha = score;
            }
            if *alpha >= beta {
                break;
            }
        }
        false
    }

    /// Null-move pruning at a quiet node (see [`NULL_MOVE_MIN_DEPTH`]): the score to return
    /// without searching the moves, if the opponent moving twice stays below beta.
    fn null_move_cut(&mut self, depth: u32, ply: u32, alpha: i32, beta: i32) -> Option<i32> {
        if !self.null_move_pruning
            || self.below_pass
            || ply == 0
            || beta - alpha != 1
            || beta.abs() >= MATE_BOUND
            || depth < NULL_MOVE_MIN_DEPTH
            || self.position_value() < beta
        {
            return None;
        }
        self.census.null_moves += 1;
        self.evaluation.pass();
        self.to_move = self.to_move.opponent();
        self.below_pass = true;
        let score = -self.negamax(depth.saturating_sub(1 + NULL_MOVE_REDUCTION), ply + 1, -beta, -beta + 1);
        self.below_pass = false;
        self.to_move = self.to_move.opponent();
        self.evaluation.undo();
        if self.aborted {
            return Some(0);
        }
        // A mate found after a pass is no proof: the pass is not a move.
        (score >= beta && score < MATE_BOUND).then(|| {
            self.census.null_move_cuts += 1;
            beta
        })
    }

    /// Shallow pruning at a quiet null-window node (see [`FUTILITY_DEPTH`]): the score to
    /// return without searching the moves, if any.
    fn shallow_cut(&mut self, depth: u32, ply: u32, alpha: i32, beta: i32) -> Option<i32> {
        if beta - alpha != 1 || beta.abs() >= MATE_BOUND || depth > FUTILITY_DEPTH.max(RAZOR_DEPTH) {
            return None;
        }
        let value = self.position_value();
        if depth <= FUTILITY_DEPTH && value - FUTILITY_MARGIN * depth as i32 >= beta {
            return Some(value);
        }
        if depth <= RAZOR_DEPTH && value + RAZOR_MARGIN <= alpha {
            let score = self.quiescence(ply, QUIESCENCE_FOURS, alpha, beta);
            if score <= alpha {
                return Some(score);
            }
        }
        None
    }

    /// The leaf search: forced blocks, the evaluation as a stand-pat score, and up to `fours`
    /// more of the side to move's own fours.
    fn quiescence(&mut self, ply: u32, fours: u32, mut alpha: i32, beta: i32) -> i32 {
        self.census.quiescence += 1;
        if self.count_node() {
            return 0;
        }
        // 1. The forced-move rules: a decided node, or the block of a four.
        let (side, opponent) = (self.to_move, self.to_move.opponent());
        if !self.board.five_points(side).is_empty() {
            return win_in(ply, 0);
        }
        let threats = *self.board.five_points(opponent);
        if let Some(block) = threats.first() {
            if threats.len() > 1 {
                return -win_in(ply, 1);
            }
            self.play(block);
            let score = -self.quiescence(ply + 1, fours, -beta, -alpha);
            self.undo(block);
            return score;
        }
        if !self.board.winning_four_points(side).is_empty() {
            return win_in(ply, 2);
        }
        // 2. Stand pat: the side to move may always play a quiet move instead of a four.
        let stand_pat = self.position_value();
        if stand_pat >= beta || fours == 0 {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        // 3. Our fours, each answered by the forced block.
        let mut best = stand_pat;
        let mut candidates = self.sorted(self.board.four_points(side).iter());
        candidates.truncate(QUIESCENCE_FOUR_WIDTH);
        for cell in candidates {
            self.play(cell);
            let score = -self.quiescence(ply + 1, fours - 1, -beta, -alpha);
            self.undo(cell);
            if self.aborted {
                return 0;
            }
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The expected line from the root: `first`, then the table's best moves while they are
    /// legal, `length` plies at most (a short line past the search's depth is still shown).
    fn principal_variation(&mut self, first: Cell, length: u32) -> Vec<Cell> {
        let mut line = vec![first];
        self.play(first);
        while line.len() < length as usize + 1 {
            let entry = self.table[table_slot(self.board.zobrist(self.to_move))];
            if entry.key != self.board.zobrist(self.to_move) || entry.best == NO_MOVE {
                break;
            }
            let cell = Cell(entry.best);
            // The search never plays a five (a five point decides its node), so a line of table
            // moves never runs past the end of the game.
            if (cell.0 as usize) >= self.near.len() || !self.board.is_empty(cell) {
                break;
            }
            line.push(cell);
            self.play(cell);
        }
        for &cell in line.iter().rev() {
            self.undo(cell);
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mnk::MnkConfig;
    use crate::games::{Game, GameConfig};
    use crate::knowledge::gomoku_order::{embedded_order, order_features};
    use crate::solvers::gomoku_tactics::tests::COUNTER_FOUR_GAME;
    use crate::solvers::gomoku_vcf::counter_four_cells;
    use std::sync::atomic::Ordering;

    /// The position after `moves` (GTP vertices, Black first) on a 15x15 board.
    fn gomoku(moves: &[&str]) -> Mnk {
        gomoku_with(MnkConfig::gomoku(), moves)
    }

    fn gomoku_with(config: MnkConfig, moves: &[&str]) -> Mnk {
        let mut position = Mnk::new(&config);
        for text in moves {
            let mv = position.parse_move(text).unwrap();
            position.play(mv).unwrap();
        }
        position
    }

    fn cell(position: &Mnk, text: &str) -> Cell {
        position.parse_move(text).unwrap()
    }

    fn search(position: &Mnk, depth: u32) -> GomokuResult {
        let never = AtomicBool::new(false);
        search_gomoku(position, &GomokuLimits::to_depth(depth, &never)).unwrap()
    }

    #[test]
    fn makes_five_in_one() {
        // Black H8-L8 (four, White blocked G8): Black to move completes at M8.
        let position = gomoku(&["H8", "G8", "J8", "A1", "K8", "A3", "L8", "A5"]);
        let result = search(&position, 4);
        assert_eq!(result.best_move, cell(&position, "M8"));
        assert_eq!(result.proven(), Some(true));
    }

    #[test]
    fn a_loss_among_cut_quiet_moves_proves_nothing() {
        // A middle game from self-play. With one quiet candidate a node, the search used to
        // take a loss of the one move searched as the node's, and so called the root proven
        // (checked: it did); searched past the width, another move holds there. Such a loss
        // is now no proof.
        let position = gomoku(&["L7", "F9", "K5", "E8", "K8", "G10", "D7", "K7"]);
        let narrow = search_with_widths(&position, 5, [1, 1]);
        assert_eq!(narrow.proven(), None, "score {} pv {:?}", narrow.score, narrow.pv);
        assert_eq!(search(&position, 5).proven(), None);
        // A proof through forced moves only still counts: Black's open four.
        let open_four = gomoku(&["F8", "F10", "G8", "G10", "H8", "H10"]);
        assert_eq!(search_with_widths(&open_four, 4, [1, 1]).proven(), Some(true));
    }

    #[test]
    fn a_principal_variation_node_whose_best_moves_lose_searches_the_rest() {
        // A game ponder (Black) lost to Rapfi, after 16 stones. There the search of a 5 s move
        // (12 plies deep) took the position for won: its line ended in a White node whose
        // best-ordered moves all lost, scored "lost, unproven", beyond every evaluation. Rapfi
        // defended, and Black lost. With one or two quiet candidates a node the same happens
        // at depth 6 (checked: the old search scored 20001 at depths 6 to 9). On the principal
        // variation such a node now searches its other moves too, one holds, and the root
        // gets an evaluation.
        let position =
            gomoku(&["J7", "K9", "J9", "J8", "H7", "G7", "H6", "K8", "H8", "H5", "K6", "G9", "J6", "G6", "G8", "K5"]);
        for widths in [[1, 1], [2, 2]] {
            let narrow = search_with_widths(&position, 6, widths);
            assert!(
                narrow.score.abs() <= MAX_EVALUATION,
                "widths {widths:?}: score {} pv {:?}",
                narrow.score,
                narrow.pv
            );
        }
    }

    /// The search of `position` to `depth` with `widths` quiet candidates a node.
    fn search_with_widths(position: &Mnk, depth: u32, widths: [usize; 2]) -> GomokuResult {
        let never = AtomicBool::new(false);
        let limits = GomokuLimits::to_depth(depth, &never);
        let mut searcher = Searcher::new(position, &limits, GomokuTable::new().entries);
        searcher.widths = widths;
        searcher.iterative_deepening(&limits)
    }

    #[test]
    fn shallow_cuts_need_a_quiet_null_window_node_near_the_horizon_and_a_margin() {
        // A quiet middle game: no four or open three on the board.
        let position = gomoku(&["H8", "J9", "J7", "G9", "H10", "K8"]);
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(&position, &GomokuLimits::to_depth(4, &stop), vec![Entry::default(); 1 << 10]);
        assert!(matches!(searcher.node_moves(2, DEEPER_WIDTH, false), NodeMoves::Search { kind: MoveKind::Quiet, .. }));
        let value = searcher.position_value();
        // Reverse futility: the margin grows with the plies left.
        let window = |beta: i32| (beta - 1, beta);
        let (alpha, beta) = window(value - FUTILITY_MARGIN);
        assert_eq!(searcher.shallow_cut(1, 2, alpha, beta), Some(value));
        assert_eq!(searcher.shallow_cut(2, 2, alpha, beta), None, "two plies need twice the margin");
        let (alpha, beta) = window(value - 2 * FUTILITY_MARGIN);
        assert_eq!(searcher.shallow_cut(2, 2, alpha, beta), Some(value));
        assert_eq!(searcher.shallow_cut(3, 2, alpha, beta), None, "too far from the horizon");
        assert_eq!(searcher.shallow_cut(1, 2, alpha - 5, beta), None, "not a null window");
        // Razoring: far below alpha the quiescence decides, and agrees here.
        let (alpha, beta) = window(value + RAZOR_MARGIN + 1_000);
        let razored = searcher.shallow_cut(1, 2, alpha, beta).expect("the quiescence finds nothing better");
        assert!(razored <= alpha);
        assert_eq!(searcher.shallow_cut(2, 2, alpha, beta), None, "razoring is one ply from the horizon only");
        // Near alpha neither applies.
        let (alpha, beta) = window(value);
        assert_eq!(searcher.shallow_cut(1, 2, alpha, beta), None);
    }

    #[test]
    fn a_pass_cuts_only_a_quiet_null_window_node_far_enough_from_the_horizon() {
        // The quiet middle game of the shallow cuts: no four or open three on the board.
        let position = gomoku(&["H8", "J9", "J7", "G9", "H10", "K8"]);
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(&position, &GomokuLimits::to_depth(8, &stop), GomokuTable::new().entries);
        let value = searcher.position_value();
        let window = |beta: i32| (beta - 1, beta);
        // Far above beta, the opponent moving twice does not reach it: the node cuts at beta,
        // and the position, the side to move and the evaluation are as before.
        let (alpha, beta) = window(value - 1_000);
        assert_eq!(searcher.null_move_cut(4, 2, alpha, beta), Some(beta));
        assert_eq!((searcher.to_move, searcher.position_value()), (position.to_move(), value));
        assert_eq!(searcher.census.null_move_cuts, 1);
        assert_eq!(searcher.null_move_cut(NULL_MOVE_MIN_DEPTH - 1, 2, alpha, beta), None, "too near the horizon");
        assert_eq!(searcher.null_move_cut(4, 0, alpha, beta), None, "the root always searches its moves");
        assert_eq!(searcher.null_move_cut(4, 2, alpha - 5, beta), None, "not a null window");
        let (alpha, beta) = window(value + 1);
        assert_eq!(searcher.null_move_cut(4, 2, alpha, beta), None, "an evaluation below beta");
        searcher.below_pass = true;
        assert_eq!(searcher.null_move_cut(4, 2, value - 1_001, value - 1_000), None, "no pass below a pass");
        // Only the first call searched a pass, and it cut.
        assert_eq!((searcher.census.null_moves, searcher.census.null_move_cuts), (1, 1));
    }

    #[test]
    fn passes_save_nodes_at_the_same_depth() {
        // A middle game where both sides have threats: the same depth in fewer nodes.
        let position = gomoku(&["H8", "J9", "H9", "H10", "H7", "H6", "G8", "J8"]);
        let never = AtomicBool::new(false);
        let limits = GomokuLimits::to_depth(8, &never);
        let with = Searcher::new(&position, &limits, GomokuTable::new().entries).iterative_deepening(&limits);
        let mut searcher = Searcher::new(&position, &limits, GomokuTable::new().entries);
        searcher.null_move_pruning = false;
        let without = searcher.iterative_deepening(&limits);
        assert!(with.census.null_move_cuts > 0, "{}", with.census);
        assert_eq!(without.census.null_moves, 0, "{}", without.census);
        assert!(with.nodes < without.nodes, "{} nodes with passes, {} without", with.nodes, without.nodes);
    }

    #[test]
    fn below_the_root_the_evaluation_is_the_mean_of_two_consecutive_values() {
        let position = gomoku(&["H8", "J9", "J7", "G9", "H10", "K8"]);
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(&position, &GomokuLimits::to_depth(4, &stop), vec![Entry::default(); 1 << 10]);
        // Each side's value, from an evaluation built afresh on the board.
        let fresh_value =
            |searcher: &Searcher, color: Color| PatternEvaluation::new(&searcher.board).position_value(color);
        let (black, white) = (Color::Black, Color::White);
        let root_value = fresh_value(&searcher, black);
        assert_eq!(searcher.position_value(), root_value, "the root has no move before it");
        searcher.play(cell(&position, "G7"));
        let after_black = fresh_value(&searcher, white);
        assert_eq!(searcher.position_value(), (after_black - root_value) / 2);
        searcher.play(cell(&position, "K10"));
        assert_eq!(searcher.position_value(), (fresh_value(&searcher, black) - after_black) / 2);
        assert_ne!(searcher.position_value(), fresh_value(&searcher, black), "the mean is not the value alone here");
        searcher.undo(cell(&position, "K10"));
        searcher.undo(cell(&position, "G7"));
        assert_eq!(searcher.position_value(), root_value);
    }

    #[test]
    fn blocks_the_opponents_four() {
        // White to move; Black's H8-L8 four is blocked at G8: White must take M8.
        let position = gomoku(&["H8", "G8", "J8", "C3", "K8", "D3", "L8"]);
        let result = search(&position, 4);
        assert_eq!(result.best_move, cell(&position, "M8"));
    }

    #[test]
    fn blocks_an_open_three_or_makes_a_four() {
        // Black's open three H8 J8 K8 with White to move and no White threats: White's answer
        // must leave Black no open four.
        let position = gomoku(&["H8", "A1", "J8", "A15", "K8"]);
        let result = search(&position, 3);
        let defences: Vec<Cell> = ["G8", "L8", "F8", "M8"].iter().map(|text| cell(&position, text)).collect();
        assert!(defences.contains(&result.best_move), "{:?}", result);
    }

    /// A position set up from (column, row) stones, zero-based from the bottom left.
    fn set_up(black: &[(usize, usize)], white: &[(usize, usize)], to_move: Color) -> Mnk {
        let config = MnkConfig::gomoku();
        let empty = Mnk::new(&config);
        let stones: Vec<(Color, Cell)> = black
            .iter()
            .map(|&(x, y)| (Color::Black, empty.cell(x, y)))
            .chain(white.iter().map(|&(x, y)| (Color::White, empty.cell(x, y))))
            .collect();
        Mnk::set_up(&config, &stones, to_move).unwrap()
    }

    #[test]
    fn finds_a_short_vcf_win() {
        // Black to move has no double four at once, but a four on row 7 at (6,7) (White's
        // block at (7,7) forced) leaves (6,6) making fours in column 6 and row 6 together.
        let black = [(3, 7), (4, 7), (5, 7), (6, 8), (6, 9), (7, 6), (8, 6), (9, 6)];
        let white = [(2, 7), (6, 10), (10, 6), (0, 14), (2, 14), (4, 14), (8, 14)];
        let position = set_up(&black, &white, Color::Black);
        let board = ThreatBoard::new(&position);
        assert!(board.winning_four_points(Color::Black).is_empty(), "no win in one four");
        let result = search(&position, 3);
        // (6,7) and (6,6) win so, and so does (7,7): a four on row 7 whose block (6,7) leaves
        // it an open three on the diagonal (8,6) (7,7) (6,8). Each is a four.
        let wins = [position.cell(6, 7), position.cell(6, 6), position.cell(7, 7)];
        assert!(wins.contains(&result.best_move), "{result:?}");
        assert!(board.four_points(Color::Black).contains(result.best_move));
        assert_eq!(result.proven(), Some(true));
        // Four plies after the root: four, block, double four, block, five.
        assert_eq!(result.score, MATE - 4);
        // With the closed three of row 7 alone the fours lead nowhere: no proof.
        let position = set_up(&black[..3], &white, Color::Black);
        assert_eq!(search(&position, 3).proven(), None);
    }

    #[test]
    fn a_quiet_node_inside_the_tree_wins_by_its_vcf_and_answers_the_opponents() {
        use crate::solvers::gomoku_vcf::solve_vcf;
        // `finds_a_short_vcf_win`'s position: Black has a VCF of two fours and neither side an
        // open three, so its nodes are quiet.
        let black = [(3, 7), (4, 7), (5, 7), (6, 8), (6, 9), (7, 6), (8, 6), (9, 6)];
        let white = [(2, 7), (6, 10), (10, 6), (0, 14), (2, 14), (4, 14), (8, 14)];
        let stop = AtomicBool::new(false);
        let limits = GomokuLimits::to_depth(4, &stop);
        // Black to move wins at once, two plies to its four's five and two more.
        let position = set_up(&black, &white, Color::Black);
        let mut searcher = Searcher::new(&position, &limits, vec![Entry::default(); 1 << 10]);
        let before = searcher.board.threat_snapshot();
        assert!(matches!(searcher.node_moves(1, DEEPER_WIDTH, false), NodeMoves::Search { kind: MoveKind::Quiet, .. }));
        match searcher.node_moves(1, DEEPER_WIDTH, true) {
            NodeMoves::Decided(score, mv) => {
                assert!(score >= MATE_BOUND, "{score}");
                assert!(searcher.board.four_points(Color::Black).contains(mv));
            }
            NodeMoves::Search { .. } => panic!("Black's VCF not found"),
        }
        assert!(searcher.nodes > 0, "the VCF's nodes count");
        assert!(before == searcher.board.threat_snapshot(), "the board is restored");
        // White to move: only the cells of Black's line, White's fours (on row 14) and the
        // cells that make White's replies in the line fours.
        let position = set_up(&black, &white, Color::White);
        let VcfOutcome::Win(line) = solve_vcf(&position, Color::Black, &VcfOptions::vcf(), &stop).outcome else {
            panic!("Black has a VCF");
        };
        let mut searcher = Searcher::new(&position, &limits, vec![Entry::default(); 1 << 10]);
        let white_fours: Vec<Cell> = searcher.board.four_points(Color::White).iter().collect();
        assert!(!white_fours.is_empty());
        let counter_fours = counter_four_cells(&mut searcher.board, Color::White, &line);
        match searcher.node_moves(1, DEEPER_WIDTH, true) {
            NodeMoves::Search { moves, kind, complete } => {
                assert!(kind == MoveKind::VcfDefence && !complete, "answers to a VCF prove nothing");
                let mut expected: Vec<Cell> = line.iter().chain(&white_fours).chain(&counter_fours).copied().collect();
                expected.sort();
                expected.dedup();
                let mut moves = moves;
                moves.sort();
                assert_eq!(moves, expected);
            }
            NodeMoves::Decided(..) => panic!("White has moves"),
        }
        // Without its second three Black has no VCF: a quiet node as before.
        let position = set_up(&black[..5], &white, Color::White);
        let mut searcher = Searcher::new(&position, &limits, vec![Entry::default(); 1 << 10]);
        assert!(matches!(searcher.node_moves(1, DEEPER_WIDTH, true), NodeMoves::Search { kind: MoveKind::Quiet, .. }));
    }

    #[test]
    fn inside_the_tree_a_counter_four_answers_a_vcf() {
        // White to move against Black's VCFs (see `COUNTER_FOUR_GAME`): G12 stops them by
        // turning White's forced D9 into a four, and the tree's answers include it. Asked for
        // Black the move before, the search (5 s) rated E12 92% with G12 left out and 5% with it.
        let position = gomoku(&COUNTER_FOUR_GAME);
        let g12 = cell(&position, "G12");
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(&position, &GomokuLimits::to_depth(4, &stop), vec![Entry::default(); 1 << 10]);
        let before = searcher.board.threat_snapshot();
        match searcher.node_moves(1, DEEPER_WIDTH, true) {
            NodeMoves::Search { moves, kind, .. } => {
                assert!(kind == MoveKind::VcfDefence, "Black's VCF found");
                assert!(
                    moves.contains(&g12),
                    "{:?}",
                    moves.iter().map(|&mv| position.format_move(mv)).collect::<Vec<_>>()
                );
            }
            NodeMoves::Decided(..) => panic!("White has moves"),
        }
        assert!(before == searcher.board.threat_snapshot(), "the board is restored");
    }

    #[test]
    fn never_plays_an_occupied_cell_and_is_deterministic_under_a_node_limit() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let empty = Mnk::new(&MnkConfig::gomoku());
        let never = AtomicBool::new(false);
        for _ in 0..12 {
            let position = crate::games::testing::random_running_position(&empty, &mut rng, 20);
            let limits = GomokuLimits { max_nodes: Some(3_000), ..GomokuLimits::to_depth(0, &never) };
            let first = search_gomoku(&position, &limits).unwrap();
            let second = search_gomoku(&position, &limits).unwrap();
            assert_eq!(first, second);
            assert!(position.is_legal(first.best_move), "{first:?}");
            let mut line = position.clone();
            for &mv in &first.pv {
                assert!(line.is_legal(mv), "{:?} in {first:?}", mv);
                line.play(mv).unwrap();
            }
        }
    }

    #[test]
    fn the_census_accounts_for_every_node() {
        // A middle game where both sides can make threes: every kind of node shows up.
        let position = gomoku(&["H8", "J9", "H9", "H10", "H7", "H6", "G8", "J8"]);
        let result = search(&position, 6);
        let census = result.census;
        assert_eq!(census.tree + census.quiescence + census.threat_checks, result.nodes, "{census}");
        assert!(census.quiet > 0 && census.three_answers > 0 && census.threat_checks > 0, "{census}");
        assert!(census.quiet + census.three_answers + census.vcf_answers <= census.tree, "{census}");
    }

    #[test]
    fn the_horizon_leaves_open_threes_to_the_quiescence() {
        // Black can make open threes in many ways, and at depth 1 each is answered at the
        // horizon: by the quiescence (standing on the evaluation or playing a four), not by a
        // tree node that searches the answers. One ply deeper the tree answers them.
        let position = gomoku(&["H8", "J9", "H9", "H10", "H7", "H6", "G8", "J8"]);
        let shallow = search(&position, 1).census;
        assert_eq!(shallow.three_answers, 0, "{shallow}");
        assert!(shallow.quiescence > 0, "{shallow}");
        let deeper = search(&position, 2).census;
        assert!(deeper.three_answers > 0, "{deeper}");
    }

    #[test]
    fn a_kept_table_saves_nodes_over_a_game() {
        // A game played by depth-4 searches with a kept table; every position searched afresh
        // as well. The kept entries of the moves before cut the searches of the moves after.
        let never = AtomicBool::new(false);
        let mut position = gomoku(&["H8", "J9", "G9", "H10"]);
        let mut table = GomokuTable::new();
        let (mut fresh_nodes, mut kept_nodes) = (0, 0);
        for _ in 0..10 {
            let fresh = search(&position, 4);
            let kept = search_gomoku_keeping(&position, &GomokuLimits::to_depth(4, &never), &mut table).unwrap();
            assert!(position.is_legal(kept.best_move));
            // Kept entries may prove a result sooner (the search stops at a proof), never the
            // opposite one.
            if let (Some(fresh_win), Some(kept_win)) = (fresh.proven(), kept.proven()) {
                assert_eq!(fresh_win, kept_win);
            }
            fresh_nodes += fresh.nodes;
            kept_nodes += kept.nodes;
            position.play(kept.best_move).unwrap();
            if position.outcome().is_some() {
                break;
            }
        }
        assert!(kept_nodes < fresh_nodes, "kept {kept_nodes} nodes, fresh {fresh_nodes}");
    }

    #[test]
    fn only_late_quiet_moves_are_reduced() {
        for kind in [MoveKind::FourBlock, MoveKind::ThreeDefence] {
            assert_eq!(late_move_reduction(kind, 10, 15), 0);
        }
        // The answers to a VCF, like quiet moves.
        assert_eq!(late_move_reduction(MoveKind::VcfDefence, LMR_MIN_DEPTH, LMR_DEEPER_FROM), 2);
        assert_eq!(late_move_reduction(MoveKind::Quiet, LMR_MIN_DEPTH - 1, 15), 0);
        assert_eq!(late_move_reduction(MoveKind::Quiet, LMR_MIN_DEPTH, LMR_FULL_MOVES - 1), 0);
        assert_eq!(late_move_reduction(MoveKind::Quiet, LMR_MIN_DEPTH, LMR_FULL_MOVES), 1);
        assert_eq!(late_move_reduction(MoveKind::Quiet, LMR_MIN_DEPTH, LMR_DEEPER_FROM), 2);
    }

    #[test]
    fn answers_to_open_threes_cost_a_ply() {
        // A middle game of open and closed threes (from a self-play game). When the answers to
        // an open three were free of depth, the chains of threes made a depth-4 search take
        // 414,456 nodes; now a depth-6 search takes a small part of that, and finds no proof
        // (neither side has a forced win here).
        let position = gomoku(&["G6", "K6", "G7", "K7", "G8", "G5", "J8", "H5"]);
        let result = search(&position, 6);
        assert_eq!(result.depth, 6);
        assert_eq!(result.proven(), None);
        assert!(result.nodes < 100_000, "{result:?}");
    }

    #[test]
    fn analysis_scores_the_best_ordered_moves_at_every_depth() {
        let position = gomoku(&["G6", "K6", "G7", "K7", "G8", "G5", "J8", "H5"]);
        let never = AtomicBool::new(false);
        let analysed = || {
            let mut depths = Vec::new();
            assert!(analyze_gomoku(&position, &GomokuLimits::to_depth(5, &never), &mut |lines, depth, nodes| {
                depths.push((lines.to_vec(), depth, nodes));
            }));
            depths
        };
        let depths = analysed();
        assert_eq!(depths.iter().map(|(_, depth, _)| *depth).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
        let first_moves: Vec<Cell> = depths[0].0.iter().map(|line| line.pv[0]).collect();
        assert_eq!(first_moves.len(), ANALYSIS_WIDTH);
        for (lines, depth, _) in &depths {
            // The same moves at every depth, best first, each line legal from the root.
            let mut moves: Vec<Cell> = lines.iter().map(|line| line.pv[0]).collect();
            moves.sort_by_key(|cell| cell.0);
            let mut expected = first_moves.clone();
            expected.sort_by_key(|cell| cell.0);
            assert_eq!(moves, expected, "depth {depth}");
            assert!(lines.windows(2).all(|pair| pair[0].score >= pair[1].score), "depth {depth}: {lines:?}");
            for line in lines {
                let mut walked = position.clone();
                for &mv in &line.pv {
                    assert!(walked.is_legal(mv), "{line:?}");
                    walked.play(mv).unwrap();
                }
            }
        }
        assert!(depths.windows(2).all(|pair| pair[0].2 < pair[1].2), "the nodes grow");
        assert_eq!(analysed(), depths, "the same lines again");
        // The search's own choice at that depth is among the analysed moves, and the two agree
        // on whether the position is proven.
        let best = &depths[4].0[0];
        let result = search(&position, 5);
        assert!(first_moves.contains(&result.best_move), "{result:?}");
        assert_eq!(best.score.abs() >= MATE_BOUND, result.proven().is_some());
    }

    #[test]
    fn analysis_of_a_decided_root_is_one_line() {
        // White to move must block Black's four at M8: one line, at depth 0.
        let position = gomoku(&["H8", "G8", "J8", "C3", "K8", "D3", "L8"]);
        let never = AtomicBool::new(false);
        let mut reported = Vec::new();
        analyze_gomoku(&position, &GomokuLimits::to_depth(4, &never), &mut |lines, depth, _| {
            reported.push((lines.to_vec(), depth));
        });
        assert_eq!(reported.len(), 4);
        assert!(reported.iter().all(|(lines, _)| lines.len() == 1 && lines[0].pv[0] == cell(&position, "M8")));
        // Black to move with its open four: a proven win at once.
        let position = gomoku(&["H8", "A1", "J8", "A3", "K8", "A5", "L8", "A7"]);
        let mut reported = Vec::new();
        analyze_gomoku(&position, &GomokuLimits::to_depth(4, &never), &mut |lines, depth, _| {
            reported.push((lines.to_vec(), depth));
        });
        assert_eq!(reported.len(), 1);
        assert_eq!(reported[0].1, 0);
        assert_eq!(reported[0].0[0].score, MATE);
        // A finished game has no analysis.
        let over = gomoku(&["H8", "A1", "J8", "A3", "K8", "A5", "L8", "A7", "M8"]);
        assert!(!analyze_gomoku(&over, &GomokuLimits::to_depth(4, &never), &mut |_, _, _| panic!("no lines")));
    }

    #[test]
    fn honours_the_stop_flag() {
        let position = gomoku(&["H8", "J9", "J8", "G8", "H9", "H10"]);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let searching = scope.spawn(|| {
                let started = Instant::now();
                let result = search_gomoku(&position, &GomokuLimits::to_depth(0, &stop)).unwrap();
                (result, started.elapsed())
            });
            std::thread::sleep(Duration::from_millis(200));
            let stopped = Instant::now();
            stop.store(true, Ordering::Relaxed);
            let (result, _) = searching.join().unwrap();
            assert!(stopped.elapsed() < Duration::from_millis(50), "took {:?} to stop", stopped.elapsed());
            assert!(position.is_legal(result.best_move));
            assert!(result.depth >= 1);
        });
    }

    #[test]
    fn exact_five_does_not_count_an_overline() {
        // Black D8 E8 F8 G8 _ J8, C8 White's, Black to move: H8 makes six, a win in freestyle
        // only.
        let moves = ["D8", "A1", "E8", "A3", "F8", "A5", "G8", "C8", "J8", "A7"];
        let freestyle = gomoku(&moves);
        let result = search(&freestyle, 2);
        assert_eq!(result.best_move, cell(&freestyle, "H8"));
        assert_eq!(result.proven(), Some(true));
        let mut config = MnkConfig::gomoku();
        config.set_param("exact_five", "1").unwrap();
        let exact = gomoku_with(config, &moves);
        let result = search(&exact, 2);
        assert_ne!(result.proven(), Some(true), "{result:?}");
    }

    #[test]
    fn freestyle_orders_quiet_moves_by_the_learned_weights_and_exact_five_by_the_hand_set_scores() {
        let never = AtomicBool::new(false);
        let limits = GomokuLimits::to_depth(1, &never);
        let moves = ["H8", "J9", "H9", "H10", "G8"];
        let freestyle = Searcher::new(&gomoku(&moves), &limits, Vec::new());
        assert!(freestyle.order.is_some(), "the embedded order decodes");
        let weights = embedded_order().unwrap();
        // The scores are the learned weights' own, not the hand-set ones.
        let cells: Vec<Cell> = (0..225)
            .map(|i| Cell(i as u16))
            .filter(|&c| freestyle.near[c.0 as usize] > 0 && freestyle.board.is_empty(c))
            .collect();
        assert!(cells.iter().all(|&c| freestyle.quiet_move_score(c)
            == weights.score(&order_features(&freestyle.board, &freestyle.evaluation, freestyle.to_move, c))));
        assert!(cells.iter().any(
            |&c| freestyle.quiet_move_score(c) != hand_set_move_score(&freestyle.evaluation, freestyle.to_move, c)
        ));
        let mut config = MnkConfig::gomoku();
        config.set_param("exact_five", "1").unwrap();
        let exact = Searcher::new(&gomoku_with(config, &moves), &limits, Vec::new());
        assert!(exact.order.is_none());
        assert!(
            cells
                .iter()
                .all(|&c| exact.quiet_move_score(c) == hand_set_move_score(&exact.evaluation, exact.to_move, c))
        );
    }
}
