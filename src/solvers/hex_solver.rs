//! An exact Hex solver: depth-first proof-number search (Nagai's df-pn with the 1+ε
//! threshold trick) over a transposition table, with move pruning from Hex theory.
//!
//! Every position is first *filled in* ([`super::hex_ice`]): dead cells and captured pairs get
//! stones, which keeps the game value, shrinks the move set and lets H-search see longer chains.
//! The transposition table is keyed by the filled position. A proof for P of a filled position
//! becomes one of the unfilled position by adding the cells P captured (dead cells never matter).
//!
//! Every node is then evaluated statically, for the side to move P against the opponent O:
//!
//! 0. P wins (O wins) if fill-in has joined P's (O's) edges.
//! 1. P wins at once if one stone joins P's two edges.
//! 2. P loses if O has two such winning cells.
//! 3. Virtual connections from H-search ([`super::hex_vc`]) decide the game: P wins if P has a
//!    full connection between its edges, or a semi one (playing its key); P loses if O has a
//!    full one.
//! 4. The *must-play region*: when O has semi connections between its edges, P must play in
//!    the intersection of their carriers (and on O's winning cell if O has one), or O plays a
//!    key and wins. An empty region is a loss.
//! 5. *Vulnerable* cells leave the region: a cell c where O has an answer k (the *killer*)
//!    after which P's stone on c is dead ([`InferiorCells::killer`]). If P wins at all, P wins
//!    with a move that is not vulnerable. Suppose every winning move of P in S were vulnerable;
//!    take one, c with killer k. P wins after c and O's answer k; c is then dead, so P also
//!    wins T = S + O stones on c and k, with P to move. A move winning T wins S (T only has
//!    more O stones), so it is vulnerable in S too, and deadness survives added stones, so
//!    the step repeats from T (when the killer is taken already, c alone becomes O's). Each
//!    step adds O stones to a position P wins, until P wins a full board holding only S's P
//!    stones: P had already connected in S. The killers join the proof set, since the argument
//!    needs them empty.
//!
//! H-search is bounded, so it misses some connections, but every connection it reports is
//! real, so the pruning is sound.
//!
//! As in Benzene's df-pn, a node is evaluated only when the search first enters it: a child
//! never entered counts as (1, 1), and once evaluated its disproof number starts at |must-play
//! region|, which steers the search to forcing moves. A node orders its moves by the current
//! through each cell in both players' circuits ([`crate::solvers::hex_resistance`]) and looks
//! only at the first few unsolved ones (progressive widening, [`WIDENING_SHARE`]); a move
//! proven to lose makes room for the next. Most children are never evaluated, which is where
//! the time goes (two H-searches each).
//!
//! A child's H-searches start from its parent's (MoHex's incremental build): the solver keeps
//! each evaluated node's connections for both players ([`SNAPSHOT_BYTES`] at most), and the
//! child takes over those its new stones leave standing, combining again only what those
//! stones change ([`VcEngine::edge_connections_after`]).
//!
//! Every solved node also gets a *proof set*: empty cells outside which the winner never needs
//! to play (for a static win, the carrier of the connection; for a search win, the winning
//! child's set plus the move; for a loss, the union over the refuted moves plus the
//! opponent's semis behind the must-play region). When a move is proven to lose, every move
//! outside its proof set loses too (the winner's strategy ignores those cells, and the loser's
//! stone there is worth no more than the one it replaces), so the node's moves shrink to that
//! set — Benzene's proof-set narrowing of the must-play region.
//!
//! Boards up to 128 cells (11x11) are solved on `u128` bitboards; larger ones are refused.

use crate::games::hex::{Cell, Hex, HexMove};
use crate::games::{Color, Game};
use crate::solvers::hex_ice::InferiorCells;
use crate::solvers::hex_resistance::Resistance;
use crate::solvers::hex_vc::{BoardGeometry, EdgeConnections, VcEngine, VcLimits, VcSnapshot, iterate};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Limits of one solve.
#[derive(Clone, Copy, Debug)]
pub struct SolveOptions<'a> {
    /// Stop with [`SolveValue::Unknown`] after this many node expansions.
    pub node_limit: u64,
    /// Stop with [`SolveValue::Unknown`] soon after this flag becomes true (polled at every
    /// node).
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
    let Some(geometry) = BoardGeometry::of(position) else {
        return SolveResult { value: SolveValue::Unknown, nodes: 0 };
    };
    let root = State { stones: geometry.stones_of(position), to_move: position.to_move() };
    let empty = root.empty(&geometry);
    let mut solver = Solver::new(geometry, options);
    let value = match solver.solve_root(root) {
        // Won before any move (fill-in joined the edges): every empty cell wins.
        SolveValue::Win(HexMove::Cell(Cell(NO_CELL))) => {
            SolveValue::Win(HexMove::Cell(Cell(empty.trailing_zeros() as u16)))
        }
        value => value,
    };
    SolveResult { value, nodes: solver.nodes }
}

/// A solver position: stones per colour and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct State {
    stones: [u128; 2],
    to_move: Color,
}

impl State {
    fn empty(&self, geometry: &BoardGeometry) -> u128 {
        geometry.all() & !(self.stones[0] | self.stones[1])
    }

    fn play(&self, cell: usize) -> State {
        let mut next = *self;
        next.stones[self.to_move.index()] |= 1 << cell;
        next.to_move = self.to_move.opponent();
        next
    }
}

/// The static verdict on a position, for the side to move. Each verdict comes with a *proof
/// set* (see [`Entry::proof_set`]).
enum Evaluation {
    /// Wins, for example with this cell.
    Win {
        cell: usize,
        proof_set: u128,
    },
    Loss {
        proof_set: u128,
    },
    /// Unknown; the side to move need only consider `region`: a move outside it loses because
    /// of the opponent's connections inside `proof_set`.
    MustPlay {
        region: u128,
        proof_set: u128,
    },
}

/// The winning cell of a node won without a move (fill-in joined the mover's edges).
const NO_CELL: u16 = u8::MAX as u16;

/// Proof and disproof numbers are capped at this "infinity".
const INFINITY: u32 = u32::MAX / 4;

/// A transposition-table entry: numbers for the side to move, and the moves still to consider.
#[derive(Clone, Copy, Debug)]
struct Entry {
    proof: u32,
    disproof: u32,
    /// The moves still to consider: the must-play region, narrowed as moves are proven to lose.
    moves: u128,
    /// For a solved node, a set of empty cells such that the winner still wins if the loser
    /// owned every other empty cell (the winner's strategy only uses these). For an unsolved
    /// one, the same for the moves dropped so far: every dropped move loses even if the side
    /// to move owned every empty cell outside this set. A move outside the proof set of a
    /// losing move therefore loses as well (monotonicity: the winner's strategy never needed
    /// that cell, and the first loser stone only moved elsewhere).
    proof_set: u128,
    /// The winning cell of a node won for the side to move.
    winning_cell: u8,
}

/// Keeps the table below this many entries by dropping unproven ones.
const TABLE_LIMIT: usize = 4_000_000;

/// Progressive widening (Benzene's df-pn): a node's proof number and its choice of child look
/// only at its best `1 + ⌈share · n⌉` unsolved children of n, in score order; its disproof
/// number still counts them all. A child proven lost drops out and lets the next one in.
/// Benzene uses 0.25; on the 49 7x7 openings here 0.25 took 211 s, 0.35 171 s, 0.5 184 s. With
/// H-searches started from the parent's (2026-11-30, a slower machine, two runs side by side)
/// 0.28 took 276 s, 0.35 241-254 s and 0.45 297 s.
const WIDENING_SHARE: f32 = 0.35;

/// The H-search results kept for positions whose children may be evaluated, so that a child's
/// search starts from its parent's (about this many bytes at most; past it the store starts
/// afresh).
const SNAPSHOT_BYTES: usize = 256 << 20;

/// Per colour (by [`Color::index`]), the H-search of one position, to start its children's
/// searches from.
type Snapshots = [VcSnapshot; 2];

struct Solver<'a> {
    engine: VcEngine,
    /// The H-search results of evaluated positions with moves to try ([`SNAPSHOT_BYTES`]).
    snapshots: FxHashMap<State, Snapshots>,
    snapshot_bytes: usize,
    /// The position whose child [`Solver::search`] enters next.
    parent: Option<State>,
    /// H-searches started from a parent's connections, and from scratch.
    searches_from_parent: u64,
    searches_from_scratch: u64,
    ice: InferiorCells,
    resistance: Resistance,
    /// Scratch for [`Resistance::cell_scores`].
    cell_scores: Vec<f64>,
    options: &'a SolveOptions<'a>,
    table: FxHashMap<State, Entry>,
    nodes: u64,
    aborted: bool,
}

impl<'a> Solver<'a> {
    fn new(geometry: BoardGeometry, options: &'a SolveOptions<'a>) -> Solver<'a> {
        Solver {
            ice: InferiorCells::new(&geometry),
            resistance: Resistance::new(&geometry),
            cell_scores: vec![0.0; geometry.cells()],
            engine: VcEngine::new(geometry, VcLimits::default()),
            snapshots: FxHashMap::default(),
            snapshot_bytes: 0,
            parent: None,
            searches_from_parent: 0,
            searches_from_scratch: 0,
            options,
            table: FxHashMap::default(),
            nodes: 0,
            aborted: false,
        }
    }

    /// Steps 1 to 4 of the module docs; `parent`: the position `state` was entered from.
    fn evaluate(&mut self, state: &State, parent: Option<State>) -> Evaluation {
        let geometry = self.engine.geometry();
        let me = state.to_move;
        let opponent = me.opponent();
        let own = state.stones[me.index()];
        let theirs = state.stones[opponent.index()];
        let empty = state.empty(geometry);
        // 0. Fill-in may have joined a player's edges.
        if geometry.connected(me, own) {
            return Evaluation::Win { cell: NO_CELL as usize, proof_set: 0 };
        }
        if geometry.connected(opponent, theirs) {
            return Evaluation::Loss { proof_set: 0 };
        }
        // 1. Win in one.
        let wins = geometry.winning_cells(me, own, empty);
        if wins != 0 {
            let cell = wins.trailing_zeros() as usize;
            return Evaluation::Win { cell, proof_set: 1 << cell };
        }
        // 2. The opponent's wins in one: two are a loss, one must be blocked.
        let threats = geometry.winning_cells(opponent, theirs, empty);
        if threats.count_ones() >= 2 {
            return Evaluation::Loss { proof_set: threats };
        }
        // 3. Our edge-to-edge connections: a full one wins with any move (an extra own stone
        //    never hurts), a semi one with its key.
        let mine = self.edge_connections(parent, me, own, empty, true);
        if let Some(carrier) = mine.full {
            let cell = if carrier != 0 { carrier } else { empty }.trailing_zeros() as usize;
            if cell >= 128 || empty >> cell & 1 == 0 {
                return Evaluation::Win { cell: NO_CELL as usize, proof_set: carrier };
            }
            return Evaluation::Win { cell, proof_set: carrier | 1 << cell };
        }
        if let Some((carrier, key)) = mine.semi {
            return Evaluation::Win { cell: key, proof_set: carrier };
        }
        // 4. The opponent's: a full one loses, semis restrict our moves.
        let mine_snapshot = self.engine.snapshot();
        let their = self.edge_connections(parent, opponent, theirs, empty, false);
        if let Some(carrier) = their.full {
            return Evaluation::Loss { proof_set: carrier };
        }
        let their_snapshot = self.engine.snapshot();
        let mut region = their.semi_intersection.unwrap_or(empty);
        if threats != 0 {
            region &= threats;
        }
        let mut proof_set = their.semi_union | threats;
        // 5. Vulnerable moves (a killer answer leaves the stone dead) need no trying; the
        //    killers join the proof set, as the argument needs them empty.
        for cell in iterate(region) {
            if let Some(killer) = self.ice.killer(cell, me, &state.stones, empty) {
                region &= !(1 << cell);
                proof_set |= 1 << killer;
            }
        }
        if region == 0 {
            return Evaluation::Loss { proof_set };
        }
        let snapshots = match me {
            Color::Black => [mine_snapshot, their_snapshot],
            Color::White => [their_snapshot, mine_snapshot],
        };
        self.keep_snapshots(*state, snapshots);
        Evaluation::MustPlay { region, proof_set }
    }

    /// H-search for `color` in the position with `own` stones and `empty` cells, started
    /// from `parent`'s when it was kept (as MoHex's incremental build), else from scratch.
    fn edge_connections(
        &mut self,
        parent: Option<State>,
        color: Color,
        own: u128,
        empty: u128,
        stop_at_semi: bool,
    ) -> EdgeConnections {
        let kept = parent.and_then(|parent| self.snapshots.get(&parent)).map(|kept| &kept[color.index()]);
        match kept {
            Some(snapshot) => {
                self.searches_from_parent += 1;
                self.engine.edge_connections_after(snapshot, own, empty, stop_at_semi)
            }
            None => {
                self.searches_from_scratch += 1;
                self.engine.edge_connections(color, own, empty, stop_at_semi)
            }
        }
    }

    /// Keeps `state`'s H-search results for its children, within [`SNAPSHOT_BYTES`].
    fn keep_snapshots(&mut self, state: State, snapshots: Snapshots) {
        let bytes: usize = snapshots.iter().map(VcSnapshot::bytes).sum();
        if self.snapshot_bytes + bytes > SNAPSHOT_BYTES {
            self.snapshots.clear();
            self.snapshot_bytes = 0;
        }
        self.snapshot_bytes += bytes;
        if let Some(replaced) = self.snapshots.insert(state, snapshots) {
            self.snapshot_bytes -= replaced.iter().map(VcSnapshot::bytes).sum::<usize>();
        }
    }

    /// `state` after fill-in (the table key) and the cells captured per colour on the way,
    /// which a proof for the capturer must add to the filled position's proof set. `changed`:
    /// the cells played since `state` was last filled in (every cell for a fresh position), near
    /// which alone fill-in can find something ([`InferiorCells::fill_in_after`]).
    fn normalize(&self, state: &State, changed: u128) -> (State, [u128; 2]) {
        let mut filled = *state;
        let empty = state.empty(self.engine.geometry());
        let fill = self.ice.fill_in_after(&mut filled.stones, empty, changed);
        (filled, fill.captured)
    }

    /// The table entry for `state` (a filled position), evaluating and storing it when new.
    fn entry(&mut self, state: &State) -> Entry {
        self.entry_from(state, None)
    }

    /// [`Solver::entry`] for `state` entered from `parent`, whose H-search the evaluation may
    /// start from.
    fn entry_from(&mut self, state: &State, parent: Option<State>) -> Entry {
        if let Some(entry) = self.table.get(state) {
            return *entry;
        }
        self.nodes += 1;
        let entry = match self.evaluate(state, parent) {
            Evaluation::Win { cell, proof_set } => {
                Entry { proof: 0, disproof: INFINITY, moves: 0, proof_set, winning_cell: cell as u8 }
            }
            Evaluation::Loss { proof_set } => {
                Entry { proof: INFINITY, disproof: 0, moves: 0, proof_set, winning_cell: 0 }
            }
            Evaluation::MustPlay { region, proof_set } => {
                Entry { proof: 1, disproof: region.count_ones(), moves: region, proof_set, winning_cell: 0 }
            }
        };
        if self.table.len() >= TABLE_LIMIT {
            self.table.retain(|_, e| e.proof == 0 || e.disproof == 0);
        }
        self.table.insert(*state, entry);
        entry
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.options.node_limit || self.stop_flag_raised() {
            self.aborted = true;
        }
        self.aborted
    }

    /// Whether the caller raised the stop flag (then the search is aborted). Read at every
    /// call: a node costs one or two H-searches, milliseconds on an 11x11 board, so reading it
    /// only every few thousand nodes let `# interrupt` wait for seconds, while one relaxed load
    /// per node costs nothing measurable.
    fn stop_flag_raised(&mut self) -> bool {
        let raised = self.options.stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
        self.aborted |= raised;
        raised
    }

    fn solve_root(&mut self, root: State) -> SolveValue {
        let (root, _) = self.normalize(&root, u128::MAX);
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
        let cell = entry.winning_cell as usize;
        SolveValue::Win(HexMove::Cell(Cell(cell as u16)))
    }

    /// df-pn's multiple-iterative-deepening step: expands below `state` until its proof number
    /// reaches `proof_limit` or its disproof number reaches `disproof_limit`.
    fn search(&mut self, state: &State, proof_limit: u32, disproof_limit: u32) {
        // 1. The node's moves (its children), the most promising first: the cells that carry
        //    the most current of both players' circuits (Benzene's order).
        let parent = self.parent.take();
        let mut entry = self.entry_from(state, parent);
        if entry.proof == 0 || entry.disproof == 0 {
            return;
        }
        self.resistance.cell_scores(self.engine.geometry(), &state.stones, &mut self.cell_scores);
        let mut children: Vec<Child> = Vec::with_capacity(entry.moves.count_ones() as usize);
        for cell in iterate(entry.moves) {
            let (child, captured) = self.normalize(&state.play(cell), 1 << cell);
            children.push(Child { state: child, cell, captured, score: self.cell_scores[cell], numbers: (1, 1) });
        }
        // Stable: equal scores keep the cells' order.
        children.sort_by(|a, b| b.score.total_cmp(&a.score));
        let me = state.to_move.index();
        let opponent = state.to_move.opponent().index();
        loop {
            // 2. Each child's numbers: (1, 1) when never searched (or dropped from a full table),
            //    as in Benzene's df-pn, for most children never are (module docs). A child lost
            //    by the opponent solves the node; a child won by the opponent drops every move
            //    outside its proof set.
            for child in &mut children {
                if entry.moves >> child.cell & 1 == 0 {
                    continue;
                }
                let Some(&child_entry) = self.table.get(&child.state) else {
                    child.numbers = (1, 1);
                    continue;
                };
                child.numbers = (child_entry.proof, child_entry.disproof);
                if child_entry.disproof == 0 {
                    entry.proof = 0;
                    entry.disproof = INFINITY;
                    entry.proof_set = child_entry.proof_set | child.captured[me] | 1 << child.cell;
                    entry.winning_cell = child.cell as u8;
                    self.table.insert(*state, entry);
                    return;
                }
                if child_entry.proof == 0 {
                    let child_proof = child_entry.proof_set | child.captured[opponent];
                    entry.moves &= child_proof;
                    entry.proof_set |= child_proof | 1 << child.cell;
                }
            }
            children.retain(|child| entry.moves >> child.cell & 1 != 0);
            // 3. A child's proof number adds to our disproof number; the smallest disproof
            //    number among the children in the window is our proof number.
            let window = if children.len() < 2 {
                children.len()
            } else {
                1 + (children.len() as f32 * WIDENING_SHARE).ceil() as usize
            };
            let mut disproof = 0u32;
            let mut best = 0;
            let mut best_disproof = INFINITY; // our proof number
            let mut second_disproof = INFINITY;
            for (i, &Child { numbers: (child_proof, child_disproof), .. }) in children.iter().enumerate() {
                disproof = disproof.saturating_add(child_proof).min(INFINITY);
                if i >= window {
                    continue;
                }
                if child_disproof < best_disproof {
                    second_disproof = best_disproof;
                    best_disproof = child_disproof;
                    best = i;
                } else if child_disproof < second_disproof {
                    second_disproof = child_disproof;
                }
            }
            let proof = best_disproof;
            if children.is_empty() {
                // Every move loses.
                entry.moves = 0;
                disproof = 0;
            }
            // 4. Store; return when a limit is reached or the node is solved.
            entry.proof = proof;
            entry.disproof = disproof;
            self.table.insert(*state, entry);
            if proof >= proof_limit || disproof >= disproof_limit || self.out_of_budget() {
                return;
            }
            // 5. Descend into the most proving child with thresholds that return control as
            //    soon as another child becomes better (1 + ε trick on the sibling bound).
            let best_proof = children[best].numbers.0;
            let child_disproof_limit =
                proof_limit.min(second_disproof.saturating_add(second_disproof / 4).saturating_add(1));
            let child_proof_limit =
                disproof_limit.saturating_sub(disproof).saturating_add(best_proof).min(INFINITY - 1);
            let child = children[best].state;
            self.parent = Some(*state);
            self.search(&child, child_proof_limit, child_disproof_limit.min(INFINITY - 1));
            // The child's search may have dropped our entry from a full table; ours is the
            // authority (it only narrows soundly).
        }
    }
}

/// A child of a node being searched: its filled position, the move, the cells fill-in captured
/// per colour, the move's score (see [`Resistance::cell_scores`]), and its proof and disproof
/// numbers as last read from the table.
struct Child {
    state: State,
    cell: usize,
    captured: [u128; 2],
    score: f64,
    numbers: (u32, u32),
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

/// The data lines of a first-move outcome CSV (`board,cell,winner,...`): each line's number
/// (from 1) and its comma-separated fields, trimmed; blank lines, `#` comments and the `board,`
/// header line are skipped.
pub fn outcome_lines(csv_text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    csv_text.lines().enumerate().filter_map(|(index, raw)| {
        let line = raw.trim();
        let data = !(line.is_empty() || line.starts_with('#') || line.starts_with("board,"));
        data.then(|| (index + 1, line.split(',').map(str::trim).collect()))
    })
}

/// Solves every line of a first-move outcome CSV (`board,cell,winner,...`, `#` comments and a
/// header line allowed; see `../shared/data/hex/README.md`) whose board is in `boards` (e.g.
/// `["6x6"]`): Black plays the cell, then the position is solved with White to move. Malformed
/// lines are reported in [`FirstMoveCheck::error`], never a panic.
pub fn check_first_move_outcomes(csv_text: &str, boards: &[&str], options: &SolveOptions) -> Vec<FirstMoveCheck> {
    check_first_move_outcomes_with(csv_text, boards, options, |_| {})
}

/// [`check_first_move_outcomes`], calling `on_check` with each check as soon as it is done
/// (for progress output in batch runs).
pub fn check_first_move_outcomes_with(
    csv_text: &str,
    boards: &[&str],
    options: &SolveOptions,
    mut on_check: impl FnMut(&FirstMoveCheck),
) -> Vec<FirstMoveCheck> {
    let mut checks = Vec::new();
    for (number, fields) in outcome_lines(csv_text) {
        let mut check = FirstMoveCheck {
            line: number,
            label: fields.iter().take(2).copied().collect::<Vec<_>>().join(" "),
            expected: None,
            found: None,
            nodes: 0,
            seconds: 0.0,
            error: None,
        };
        if fields.len() < 3 {
            check.error = Some("expected board,cell,winner".to_string());
            on_check(&check);
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
        on_check(&check);
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
    use crate::games::GameConfig;
    use crate::games::hex::HexConfig;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    /// Whether the side to move wins, by plain minimax.
    fn minimax(position: &Hex, memo: &mut FxHashMap<u64, i32>) -> bool {
        crate::games::testing::minimax_value(position, memo) > 0
    }

    fn random_position(rng: &mut SmallRng, width: usize, height: usize, stones: usize) -> Hex {
        let config = HexConfig::with_size(width, height).unwrap();
        crate::games::testing::random_running_position(&Hex::new(&config), rng, stones)
    }

    fn check_against_minimax(position: &Hex, memo: &mut FxHashMap<u64, i32>) {
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

    /// All 36 known 6x6 first-move outcomes (tests/data/hex/README.md): about 23,000 nodes in
    /// all, a few seconds in release mode.
    #[test]
    fn known_6x6_first_move_outcomes() {
        let text = include_str!("../../tests/data/hex/first-move-outcomes-6x6.csv");
        let checks = check_first_move_outcomes(text, &["6x6"], &SolveOptions::default());
        assert_eq!(checks.len(), 36);
        for check in checks {
            assert_eq!(check.error, None);
            assert_eq!(check.found, check.expected, "line {} {}", check.line, check.label);
        }
    }

    /// The 7x7 first moves proven in under 2,000 nodes each (both winners); most others need
    /// 4,000 to about 300,000, too many for a unit test: `.ci/run` checks all 49 with
    /// `ponder solve --game hex tests/data/hex/first-move-outcomes-7x7.csv`.
    #[test]
    fn quick_7x7_first_move_outcomes() {
        let quick = ["d1", "f1", "f2", "c5"];
        let text = include_str!("../../tests/data/hex/first-move-outcomes-7x7.csv");
        let lines: String = text
            .lines()
            .filter(|line| line.split(',').nth(1).is_some_and(|cell| quick.contains(&cell)))
            .map(|line| format!("{line}\n"))
            .collect();
        let checks = check_first_move_outcomes(&lines, &["7x7"], &SolveOptions::default());
        assert_eq!(checks.len(), quick.len());
        for check in checks {
            assert_eq!(check.error, None);
            assert_eq!(check.found, check.expected, "line {} {}", check.line, check.label);
        }
    }

    #[test]
    fn children_start_their_h_searches_from_their_parents() {
        let position = first_move_position("6x6", "f3").unwrap();
        let geometry = BoardGeometry::of(&position).unwrap();
        let options = SolveOptions::default();
        let mut solver = Solver::new(geometry.clone(), &options);
        let root = State { stones: geometry.stones_of(&position), to_move: position.to_move() };
        assert!(matches!(solver.solve_root(root), SolveValue::Win(_) | SolveValue::Loss));
        let (from_parent, from_scratch) = (solver.searches_from_parent, solver.searches_from_scratch);
        assert!(solver.nodes > 100, "{} nodes", solver.nodes);
        assert!(from_parent > 2 * from_scratch, "{from_parent} searches from a parent's, {from_scratch} from scratch");
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
