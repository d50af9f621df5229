//! Virtual connections in Hex: Anshelevich's H-search, as Benzene and MoHex use it.
//!
//! A *virtual connection* (VC) for player P between two ends x and y (P stone groups, P's
//! edges, or empty cells taken as if P held them) with *carrier* C (a set of empty cells) is a
//! local strategy inside C that joins x and y:
//!
//! * a **full** connection holds even when the opponent moves first (P answers every intrusion
//!   into C inside C);
//! * a **semi** connection holds when P moves first; its *key* is P's first move.
//!
//! H-search builds them bottom-up from adjacency, closing under two rules:
//!
//! * **AND**: full(x, z, C1) and full(z, y, C2) with C1 ∩ C2 = ∅ and x, y outside the other
//!   carrier give full(x, y, C1 ∪ C2) when z is P's (a group or an edge), and semi(x, y, C1 ∪ C2
//!   ∪ {z}) with key z when z is empty;
//! * **OR**: semis between x and y whose carriers have an empty common intersection give
//!   full(x, y, union): whatever the opponent plays misses one of them, and P plays its key.
//!
//! The bridge (two semis through the two common neighbours of two cells), the second-row edge
//! template and the ziggurat (template IIIa) all come out of these two rules. The search is
//! bounded (connections kept per pair, semis combined per OR) and therefore incomplete, but every
//! connection it reports is real, which is what the solver's pruning needs.
//!
//! Uses for play and proof: a full connection between P's two edges means P has won; a semi
//! between them means P wins if P is to move (with the key); and when the opponent holds semis
//! between its edges, the side to move must play inside the intersection of their carriers (the
//! *must-play region*), or the opponent plays a key and wins.
//!
//! Sets of cells are `u128` bitboards (bit i = cell index i), so boards up to 128 cells (11x11)
//! are handled; [`must_play`] and [`decided`] answer `None` on larger boards.

use crate::games::hex::{Bitboard, Cell, Hex, NEIGHBOUR_OFFSETS};
use crate::games::{Color, Game, Outcome};
use crate::solvers::hex_edge_patterns::{self, PlacedPattern};

/// The largest number of cells the VC engine handles.
pub const MAX_VC_CELLS: usize = 128;

/// Board shape and precomputed masks for one board size (at most [`MAX_VC_CELLS`] cells).
#[derive(Clone, Debug)]
pub struct BoardGeometry {
    width: usize,
    height: usize,
    all: u128,
    /// Per colour: (first edge row or column, second edge row or column).
    edges: [(u128, u128); 2],
    /// Per cell: on-board neighbours.
    adjacent: Vec<u128>,
}

impl BoardGeometry {
    /// The geometry of a `width` x `height` board, or `None` when it has more than
    /// [`MAX_VC_CELLS`] cells (or none).
    pub fn new(width: usize, height: usize) -> Option<BoardGeometry> {
        let cells = width * height;
        if cells == 0 || cells > MAX_VC_CELLS {
            return None;
        }
        let all = if cells == 128 { u128::MAX } else { (1u128 << cells) - 1 };
        let on_board = |c: i32, r: i32| c >= 0 && r >= 0 && (c as usize) < width && (r as usize) < height;
        let index = |c: i32, r: i32| r as usize * width + c as usize;
        let mut adjacent = vec![0u128; cells];
        let (mut top, mut bottom, mut left, mut right) = (0u128, 0u128, 0u128, 0u128);
        for (cell, neighbours) in adjacent.iter_mut().enumerate() {
            let (c, r) = ((cell % width) as i32, (cell / width) as i32);
            for &(dc, dr) in &NEIGHBOUR_OFFSETS {
                if on_board(c + dc, r + dr) {
                    *neighbours |= 1 << index(c + dc, r + dr);
                }
            }
            let bit = 1u128 << cell;
            if r == 0 {
                top |= bit;
            }
            if r as usize == height - 1 {
                bottom |= bit;
            }
            if c == 0 {
                left |= bit;
            }
            if c as usize == width - 1 {
                right |= bit;
            }
        }
        Some(BoardGeometry { width, height, all, edges: [(top, bottom), (left, right)], adjacent })
    }

    /// The geometry of `position`'s board, or `None` when it is too large.
    pub fn of(position: &Hex) -> Option<BoardGeometry> {
        BoardGeometry::new(position.width(), position.height())
    }

    /// Board width.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Board height.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.adjacent.len()
    }

    /// Every cell of the board.
    pub fn all(&self) -> u128 {
        self.all
    }

    /// `color`'s two edge rows (Black: top, bottom) or columns (White: left, right).
    pub fn edges(&self, color: Color) -> (u128, u128) {
        self.edges[color.index()]
    }

    /// The on-board neighbours of cell index `cell`.
    pub fn adjacent(&self, cell: usize) -> u128 {
        self.adjacent[cell]
    }

    /// Every cell next to a cell of `set`.
    pub fn neighbours_of(&self, set: u128) -> u128 {
        let mut out = 0;
        let mut rest = set;
        while rest != 0 {
            out |= self.adjacent[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        out
    }

    /// The cells of `own` joined to `seed` through `own`.
    pub fn flood(&self, seed: u128, own: u128) -> u128 {
        let mut group = seed & own;
        let mut frontier = group;
        while frontier != 0 {
            let grown = self.neighbours_of(frontier) & own & !group;
            group |= grown;
            frontier = grown;
        }
        group
    }

    /// Whether `color`'s stones `own` join its two edges.
    pub fn connected(&self, color: Color, own: u128) -> bool {
        let (first, second) = self.edges(color);
        self.flood(first, own) & second != 0
    }

    /// Empty cells where one `color` stone joins `color`'s two edges, given `color`'s stones
    /// `own`.
    pub fn winning_cells(&self, color: Color, own: u128, empty: u128) -> u128 {
        let (first, second) = self.edges(color);
        let first_group = self.flood(first, own);
        let second_group = self.flood(second, own);
        let first_reach = (self.neighbours_of(first_group) | first) & empty;
        let second_reach = (self.neighbours_of(second_group) | second) & empty;
        first_reach & second_reach
    }

    /// The stones of `position` as `u128` sets, indexed by [`Color::index`].
    pub fn stones_of(&self, position: &Hex) -> [u128; 2] {
        let mut stones = [0u128; 2];
        for color in [Color::Black, Color::White] {
            for index in position.stones(color).iter() {
                stones[color.index()] |= 1 << index;
            }
        }
        stones
    }
}

/// Bounds of one H-search. Larger bounds find more connections and cost more time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcLimits {
    /// Full connections kept per pair of ends (at most [`FULL_CAPACITY`]).
    pub fulls_per_pair: usize,
    /// Semi connections kept per pair of ends (at most [`SEMI_CAPACITY`]).
    pub semis_per_pair: usize,
    /// At most this many semis are combined by one application of the OR rule.
    pub semis_per_or: usize,
}

/// Upper bound of [`VcLimits::fulls_per_pair`].
pub const FULL_CAPACITY: usize = 16;
/// Upper bound of [`VcLimits::semis_per_pair`].
pub const SEMI_CAPACITY: usize = 32;

impl Default for VcLimits {
    /// Bounds tuned for proof search on boards up to 8x8.
    fn default() -> VcLimits {
        VcLimits { fulls_per_pair: 8, semis_per_pair: 16, semis_per_or: 4 }
    }
}

/// One end of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcEnd {
    /// The first (0) or second (1) edge of the player, with the player's stones joined to it.
    Edge(u8),
    /// A group of the player's stones not touching an edge (its stones).
    Group(u128),
    /// An empty cell (cell index), taken as if the player held it.
    Cell(usize),
}

/// The kind of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcKind {
    /// Holds with the opponent to move.
    Full,
    /// A semi connection with its key (cell index).
    Semi(usize),
}

/// One connection found by H-search, for inspection and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connection {
    /// The two ends (the lower node first: edges, then groups, then cells).
    pub ends: (VcEnd, VcEnd),
    pub kind: VcKind,
    /// The empty cells of the strategy (including a semi's key).
    pub carrier: u128,
}

/// What H-search found between one player's two edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EdgeConnections {
    /// The carrier of a full connection between the edges: the player has won.
    pub full: Option<u128>,
    /// A semi connection between the edges as (carrier, key): the player wins if on move.
    pub semi: Option<(u128, usize)>,
    /// The intersection of all semi carriers found between the edges (`None` when there are
    /// none): the opponent, to move, must play there.
    pub semi_intersection: Option<u128>,
    /// The union of the same semi carriers (0 when there are none): the cells the player's
    /// answers to moves outside the intersection use.
    pub semi_union: u128,
}

/// A graph node of H-search: an edge (with the stones joined to it), a group or an empty cell.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The player's stones of this node (none for an empty cell).
    stones: u128,
    /// The empty cells next to the node (for an edge: its empty edge cells too).
    liberties: u128,
    /// The node's own cell as a carrier bit when it is an empty cell, else 0: a connection
    /// may not use one of its ends in its carrier.
    cell_bit: u128,
}

/// What a connection claims besides joining its two ends. [`CLEAN`]: nothing, it joins them.
/// Otherwise it comes from a ladder to a target cell (an edge pattern with a target), which
/// joins its start to the target *or to the ladder's edge*: the connection joins its ends, or
/// its *side* end (the one on the ladder start's side) reaches that edge. Such a claim is
/// exactly a connection once the other end is that edge, and worthless when the side end is;
/// between the two edges every connection is therefore clean. Encoded as
/// `TAINTED | edge << 8 | side`, edge and side being node numbers.
type Taint = u16;
const CLEAN: Taint = 0;
const TAINTED: Taint = 0x8000;

fn tainted(edge: u8, side: u8) -> Taint {
    TAINTED | (edge as Taint) << 8 | side as Taint
}

fn taint_edge(taint: Taint) -> u8 {
    (taint >> 8 & 0x7f) as u8
}

fn taint_side(taint: Taint) -> u8 {
    (taint & 0xff) as u8
}

/// The taint of a connection between `a` and `b`, simplified: `None` when it claims nothing
/// (the side end is the ladder's edge itself), clean when the other end is that edge.
fn normalized(a: u8, b: u8, taint: Taint) -> Option<Taint> {
    if taint == CLEAN {
        return Some(CLEAN);
    }
    let (edge, side) = (taint_edge(taint), taint_side(taint));
    let other = if side == a { b } else { a };
    if side == edge {
        None
    } else if other == edge {
        Some(CLEAN)
    } else {
        Some(taint)
    }
}

/// The taint of the AND of connection(end, middle) tainted `first` and connection(middle,
/// other) tainted `second`, as a claim about (end, other); `None` when both are tainted (two
/// ladders in one chain are not followed).
fn and_taint(end: u8, other: u8, first: Taint, second: Taint) -> Option<Taint> {
    match (first, second) {
        (CLEAN, CLEAN) => Some(CLEAN),
        // "end–middle, or the side reaches the edge" then "middle–other": when the side is
        // the middle, the other end reaches the edge through it.
        (first, CLEAN) => Some(tainted(taint_edge(first), if taint_side(first) == end { end } else { other })),
        (CLEAN, second) => Some(tainted(taint_edge(second), if taint_side(second) == other { other } else { end })),
        _ => None,
    }
}

/// Whether a known connection tainted `known` makes one tainted `new` with a superset of its
/// carrier useless.
fn covers(known: Taint, new: Taint) -> bool {
    known == CLEAN || known == new
}

/// The connections of one pair of nodes.
#[derive(Clone, Copy)]
struct PairConnections {
    ends: (u8, u8),
    full_count: u8,
    semi_count: u8,
    fulls: [u128; FULL_CAPACITY],
    full_taints: [Taint; FULL_CAPACITY],
    semis: [u128; SEMI_CAPACITY],
    semi_taints: [Taint; SEMI_CAPACITY],
    keys: [u8; SEMI_CAPACITY],
}

/// What one H-search found, detached from its engine ([`VcEngine::snapshot`]), so that the
/// search of a later position can start from it ([`VcEngine::edge_connections_after`]).
#[derive(Clone, Debug)]
pub struct VcSnapshot {
    color: Color,
    own: u128,
    empty: u128,
    /// Per node of the search: its stones, or its cell as a bit.
    node_cells: Vec<u128>,
    /// Every pair's fulls and semis as (end, end, carrier, [key,] taint), ends being nodes.
    fulls: Vec<(u8, u8, u128, Taint)>,
    semis: Vec<(u8, u8, u128, u8, Taint)>,
    /// Fulls the search had not combined by the AND rule when it stopped.
    pending: Vec<(u8, u8, u128, Taint)>,
}

impl VcSnapshot {
    /// The two ends of every full and semi, as the snapshot's nodes.
    fn connection_ends(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        self.fulls.iter().map(|&(a, b, ..)| (a, b)).chain(self.semis.iter().map(|&(a, b, ..)| (a, b)))
    }

    /// About how many bytes the snapshot holds (for callers that bound a store of them).
    pub fn bytes(&self) -> usize {
        let entry = 32;
        std::mem::size_of::<VcSnapshot>()
            + 16 * self.node_cells.len()
            + entry * (self.fulls.len() + self.semis.len() + self.pending.len())
    }
}

/// Nodes 0 and 1 are the player's first and second edge.
const FIRST_EDGE: u8 = 0;
const SECOND_EDGE: u8 = 1;
/// No pair slot.
const NO_SLOT: u32 = u32::MAX;

/// A reusable H-search: buffers live across searches so that a solver pays no allocation per
/// position.
pub struct VcEngine {
    geometry: BoardGeometry,
    limits: VcLimits,
    nodes: Vec<Node>,
    /// Node of each cell (empty cell or group), `u8::MAX` for the opponent's stones.
    node_of_cell: Vec<u8>,
    /// `pair_slot[a * node_count + b]`: index into `pairs`, or [`NO_SLOT`].
    pair_slot: Vec<u32>,
    pairs: Vec<PairConnections>,
    /// Per node: the nodes it has at least one full connection with, and the pair's slot.
    full_partners: Vec<Vec<(u8, u32)>>,
    /// New full connections whose AND combinations are still to be made.
    queue: Vec<(u8, u8, u128, Taint)>,
    /// Stop as soon as the edges are fully connected.
    stop_at_edge_full: bool,
    /// Stop as soon as the edges are semi-connected.
    stop_at_edge_semi: bool,
    /// Set when a stop condition is met.
    stop_found: bool,
    or_scratch: Vec<(u128, Taint)>,
    or_unions: Vec<u128>,
    or_candidates: Vec<u128>,
    /// Work done since the engine was made (AND-rule partners tried, semis compared): a
    /// count that tracks the time spent without reading a clock.
    work: u64,
    /// A search stops once `work` passes this (see [`VcEngine::set_work_limit`]).
    work_limit: u64,
    /// Full connections offered by the greedy union since the engine was made (for tests).
    greedy_unions: u64,
    /// Per colour, the edge patterns placed on this board by stone cell, when the engine
    /// starts from them ([`VcEngine::use_edge_patterns`]).
    edge_patterns: Option<[Vec<Vec<PlacedPattern>>; 2]>,
    /// The last search's player, stones and empty cells, and how much of its queue it worked
    /// through (for [`VcEngine::snapshot`]).
    last_search: (Color, u128, u128),
    queue_done: usize,
    /// Per pair slot index, scratch of [`VcEngine::take_over`]: the parent's pair whose
    /// connections it took over, [`NO_ORIGIN`] or [`MERGED_ORIGINS`].
    pair_origins: Vec<u16>,
}

/// See [`VcEngine::pair_origins`].
const NO_ORIGIN: u16 = u16::MAX;
const MERGED_ORIGINS: u16 = u16::MAX - 1;

impl VcEngine {
    /// An engine for boards of `geometry`'s shape.
    pub fn new(geometry: BoardGeometry, limits: VcLimits) -> VcEngine {
        let limits = VcLimits {
            fulls_per_pair: limits.fulls_per_pair.clamp(1, FULL_CAPACITY),
            semis_per_pair: limits.semis_per_pair.clamp(1, SEMI_CAPACITY),
            semis_per_or: limits.semis_per_or.max(2),
        };
        let node_limit = geometry.cells() + 2;
        VcEngine {
            node_of_cell: vec![u8::MAX; geometry.cells()],
            pair_slot: vec![NO_SLOT; node_limit * node_limit],
            full_partners: vec![Vec::new(); node_limit],
            geometry,
            limits,
            nodes: Vec::new(),
            pairs: Vec::new(),
            queue: Vec::new(),
            stop_at_edge_full: false,
            stop_at_edge_semi: false,
            stop_found: false,
            or_scratch: Vec::new(),
            or_unions: Vec::new(),
            or_candidates: Vec::new(),
            work: 0,
            work_limit: u64::MAX,
            greedy_unions: 0,
            edge_patterns: None,
            last_search: (Color::Black, 0, 0),
            queue_done: 0,
            pair_origins: vec![NO_ORIGIN; node_limit * node_limit],
        }
    }

    /// Makes every later search start from the proven edge patterns
    /// ([`super::hex_edge_patterns`]) as well as adjacency: a stone or empty cell on the second
    /// to fourth row joined to its edge, alone or by a ladder to an escape stone, or a
    /// second-row cell joined to an empty target along its row unless it reaches the edge first,
    /// wherever the pattern's carrier holds none of the opponent's stones.
    pub fn use_edge_patterns(&mut self) {
        if self.edge_patterns.is_none() {
            let geometry = &self.geometry;
            self.edge_patterns =
                Some([Color::Black, Color::White].map(|color| hex_edge_patterns::placements(geometry, color)));
        }
    }

    /// Stops every later search once the engine's total work passes `limit`. What a search
    /// cut short found still holds: its connections are real, and the intersection of fewer
    /// semis is a larger must-play region, so it only knows less.
    pub fn set_work_limit(&mut self, limit: u64) {
        self.work_limit = limit;
    }

    /// The work done since the engine was made (see [`VcEngine::set_work_limit`]).
    pub fn work(&self) -> u64 {
        self.work
    }

    /// The board shape.
    pub fn geometry(&self) -> &BoardGeometry {
        &self.geometry
    }

    /// Runs H-search for `color`, whose stones are `own`, with `empty` the empty cells, and
    /// returns what joins `color`'s two edges. The search stops early once the edges are fully
    /// connected, and with `stop_at_semi` once they are semi-connected (enough when `color` is
    /// to move). The caller must make sure `color` has not already connected its edges.
    pub fn edge_connections(&mut self, color: Color, own: u128, empty: u128, stop_at_semi: bool) -> EdgeConnections {
        self.stop_at_edge_full = true;
        self.stop_at_edge_semi = stop_at_semi;
        self.run(color, own, empty);
        self.edge_result()
    }

    /// What the last search found, detached from the engine, for [`VcEngine::edge_connections_after`].
    pub fn snapshot(&self) -> VcSnapshot {
        let (color, own, empty) = self.last_search;
        let mut snapshot = VcSnapshot {
            color,
            own,
            empty,
            node_cells: self.nodes.iter().map(|node| node.stones | node.cell_bit).collect(),
            fulls: Vec::new(),
            semis: Vec::new(),
            pending: self.queue[self.queue_done.min(self.queue.len())..].to_vec(),
        };
        for pair in &self.pairs {
            let (a, b) = pair.ends;
            for i in 0..pair.full_count as usize {
                snapshot.fulls.push((a, b, pair.fulls[i], pair.full_taints[i]));
            }
            for i in 0..pair.semi_count as usize {
                snapshot.semis.push((a, b, pair.semis[i], pair.keys[i], pair.semi_taints[i]));
            }
        }
        snapshot
    }

    /// [`VcEngine::edge_connections`] for `parent`'s player in a position that has the stones
    /// of `parent`'s and more (MoHex builds its connections incrementally the same way): the
    /// search starts from `parent`'s connections. A connection whose carrier or key the
    /// opponent has since taken is dropped; every other one still holds (the player's own
    /// stones never hurt: their cells leave the carrier, and a semi whose key the player took
    /// is full). Only combinations the new stones can make are tried again: those through a
    /// node that gained stones, and those of a connection whose carrier shrank. A position
    /// that does not extend `parent` is searched from scratch.
    ///
    /// The result can differ from a search from scratch: the bounds per pair keep what the
    /// parent's search met first. Every connection reported still holds.
    pub fn edge_connections_after(
        &mut self,
        parent: &VcSnapshot,
        own: u128,
        empty: u128,
        stop_at_semi: bool,
    ) -> EdgeConnections {
        let color = parent.color;
        if parent.own & !own != 0 || empty & !parent.empty != 0 {
            return self.edge_connections(color, own, empty, stop_at_semi);
        }
        self.stop_at_edge_full = true;
        self.stop_at_edge_semi = stop_at_semi;
        self.build_nodes(color, own, empty);
        self.take_over(parent, own, empty);
        if !self.stop_found {
            self.add_base_connections(color, own, empty);
        }
        if !self.stop_found {
            self.close();
        }
        self.edge_result()
    }

    /// Adds `parent`'s connections that still hold to the freshly built nodes (see
    /// [`VcEngine::edge_connections_after`]).
    fn take_over(&mut self, parent: &VcSnapshot, own: u128, empty: u128) {
        let new_stones = own & !parent.own;
        let usable = own | empty;
        // The node each parent node became (none where the opponent took its cell).
        let node_map: Vec<Option<u8>> = parent
            .node_cells
            .iter()
            .enumerate()
            .map(|(index, &cells)| match index as u8 {
                FIRST_EDGE | SECOND_EDGE => Some(index as u8),
                _ => {
                    let cell = (cells & usable).trailing_zeros() as usize;
                    (cells & usable != 0).then(|| self.node_of_cell[cell]).filter(|&node| node != u8::MAX)
                }
            })
            .collect();
        let grew = |engine: &VcEngine, node: u8| engine.nodes[node as usize].stones & new_stones != 0;
        let map_taint = |taint: Taint| -> Option<Taint> {
            if taint == CLEAN {
                return Some(CLEAN);
            }
            let side = node_map.get(taint_side(taint) as usize).copied().flatten()?;
            Some(tainted(taint_edge(taint), side))
        };
        let ends = |a: u8, b: u8| -> Option<(u8, u8)> {
            let (a, b) = (node_map[a as usize]?, node_map[b as usize]?);
            (a != b).then_some((a, b))
        };
        // Which pairs now join connections of several of the parent's pairs (through a node
        // that gained stones): only there can the parent's connections dominate or combine
        // with one another in new ways.
        let mut origins = std::mem::take(&mut self.pair_origins);
        for (a, b) in parent.connection_ends() {
            if let Some((child_a, child_b)) = ends(a, b) {
                let origin = (a as u16) << 8 | b as u16;
                let index = self.slot_index(child_a, child_b);
                origins[index] = match origins[index] {
                    NO_ORIGIN => origin,
                    known if known == origin => origin,
                    _ => MERGED_ORIGINS,
                };
            }
        }
        let merged = |engine: &VcEngine, a: u8, b: u8| origins[engine.slot_index(a, b)] == MERGED_ORIGINS;
        // 1. Fulls. One of a pair that did not merge, with the same carrier, is recorded as it
        //    is: the dominance among the pair's connections is as it was. It is queued for the
        //    AND rule only when one of its ends gained stones (a new middle). The others go
        //    through the usual rules.
        for &(a, b, carrier, taint) in &parent.fulls {
            let (Some((a, b)), Some(taint)) = (ends(a, b), map_taint(taint)) else { continue };
            if carrier & !usable != 0 {
                continue;
            }
            if carrier & new_stones != 0 || merged(self, a, b) {
                self.add_full(a, b, carrier & empty, taint);
            } else if let Some(taint) = normalized(a, b, taint) {
                self.take_over_full(a, b, carrier, taint);
                if grew(self, a) || grew(self, b) {
                    self.queue.push((a, b, carrier, taint));
                }
            }
            if self.stop_found {
                break;
            }
        }
        // The fulls the parent's search had not combined yet are queued as they are.
        for &(a, b, carrier, taint) in &parent.pending {
            let (Some((a, b)), Some(taint)) = (ends(a, b), map_taint(taint)) else { continue };
            if carrier & !usable == 0
                && let Some(taint) = normalized(a, b, taint)
            {
                self.queue.push((a, b, carrier & empty, taint));
            }
        }
        // 2. Semis: full where the player took the key. Those recorded as they are first
        //    (the parent's search combined them by the OR rule); then those whose carrier
        //    shrank or whose pair merged, through the OR rule with all the pair's semis.
        'semis: for changed in [false, true] {
            for &(a, b, carrier, key, taint) in &parent.semis {
                if self.stop_found {
                    break 'semis;
                }
                let (Some((a, b)), Some(taint)) = (ends(a, b), map_taint(taint)) else { continue };
                if carrier & !usable != 0 || changed != (carrier & new_stones != 0 || merged(self, a, b)) {
                    continue;
                }
                if new_stones >> key & 1 != 0 {
                    self.add_full(a, b, carrier & empty, taint);
                } else if changed {
                    self.add_semi(a, b, carrier & empty, key, taint);
                } else if let Some(taint) = normalized(a, b, taint) {
                    self.take_over_semi(a, b, carrier, key, taint);
                }
            }
        }
        for (a, b) in parent.connection_ends() {
            if let Some((child_a, child_b)) = ends(a, b) {
                origins[self.slot_index(child_a, child_b)] = NO_ORIGIN;
            }
        }
        self.pair_origins = origins;
    }

    /// Records a full taken over unchanged from an earlier search: its ends and carrier are
    /// as they were, so it neither dominates nor is dominated by the others taken over with
    /// it, and its AND combinations were made.
    fn take_over_full(&mut self, a: u8, b: u8, carrier: u128, taint: Taint) {
        let slot = self.pair_mut(a, b);
        let pair = &mut self.pairs[slot];
        let count = pair.full_count as usize;
        pair.fulls[count] = carrier;
        pair.full_taints[count] = taint;
        pair.full_count += 1;
        if count == 0 {
            self.full_partners[a as usize].push((b, slot as u32));
            self.full_partners[b as usize].push((a, slot as u32));
        }
        if (a.min(b), a.max(b)) == (FIRST_EDGE, SECOND_EDGE) && self.stop_at_edge_full {
            self.stop_found = true;
        }
    }

    /// Records a semi taken over unchanged (see [`VcEngine::take_over_full`]; the OR rule
    /// combined it with the others).
    fn take_over_semi(&mut self, a: u8, b: u8, carrier: u128, key: u8, taint: Taint) {
        let slot = self.pair_mut(a, b);
        let pair = &mut self.pairs[slot];
        let count = pair.semi_count as usize;
        pair.semis[count] = carrier;
        pair.semi_taints[count] = taint;
        pair.keys[count] = key;
        pair.semi_count += 1;
        if (a.min(b), a.max(b)) == (FIRST_EDGE, SECOND_EDGE) && self.stop_at_edge_semi {
            self.stop_found = true;
        }
    }

    /// Runs the whole H-search (no early stop) and lists every connection found, for
    /// inspection and tests.
    pub fn all_connections(&mut self, color: Color, own: u128, empty: u128) -> Vec<Connection> {
        self.stop_at_edge_full = false;
        self.stop_at_edge_semi = false;
        self.run(color, own, empty);
        self.connections()
    }

    /// The clean connections the last search found.
    fn connections(&self) -> Vec<Connection> {
        let end = |node: u8| -> VcEnd {
            let node_data = self.nodes[node as usize];
            match node {
                FIRST_EDGE | SECOND_EDGE => VcEnd::Edge(node),
                _ if node_data.cell_bit != 0 => VcEnd::Cell(node_data.cell_bit.trailing_zeros() as usize),
                _ => VcEnd::Group(node_data.stones),
            }
        };
        let mut out = Vec::new();
        for pair in &self.pairs {
            let ends = (end(pair.ends.0), end(pair.ends.1));
            for i in 0..pair.full_count as usize {
                if pair.full_taints[i] == CLEAN {
                    out.push(Connection { ends, kind: VcKind::Full, carrier: pair.fulls[i] });
                }
            }
            for i in 0..pair.semi_count as usize {
                if pair.semi_taints[i] == CLEAN {
                    let kind = VcKind::Semi(pair.keys[i] as usize);
                    out.push(Connection { ends, kind, carrier: pair.semis[i] });
                }
            }
        }
        out
    }

    /// After a search for a player, the answers that keep its connections against each of the
    /// opponent's `probes` (MoHex's virtual-connection maintenance): where a probe lies in
    /// every full carrier found between two of the player's stone groups or edges, it breaks
    /// that connection as far as the search knows, and the key of each semi between the same
    /// two ends whose carrier avoids the probe makes it full again. Pairs `(probe, answers)`
    /// in increasing probe order, only for probes with answers. Cut-short searches name fewer
    /// connections, so some answers may not be needed: the answers are for move ordering, not
    /// proofs.
    pub fn connection_replies(&self, probes: u128) -> Vec<(usize, u128)> {
        let mut answers = vec![0u128; self.geometry.cells()];
        let is_stone_end = |node: u8| self.nodes[node as usize].cell_bit == 0;
        for pair in &self.pairs {
            if pair.full_count == 0 || !is_stone_end(pair.ends.0) || !is_stone_end(pair.ends.1) {
                continue;
            }
            let breaking = (0..pair.full_count as usize)
                .filter(|&i| pair.full_taints[i] == CLEAN)
                .fold(probes, |set, i| set & pair.fulls[i]);
            if breaking == 0 {
                continue;
            }
            let semis = pair.semis.iter().zip(&pair.keys).zip(&pair.semi_taints).take(pair.semi_count as usize);
            for ((&carrier, &key), _) in semis.filter(|&(_, &taint)| taint == CLEAN) {
                for probe in iterate(breaking & !carrier) {
                    answers[probe] |= 1 << key;
                }
            }
        }
        answers.into_iter().enumerate().filter(|&(_, cells)| cells != 0).collect()
    }

    fn edge_result(&self) -> EdgeConnections {
        let slot = self.pair_slot[self.slot_index(FIRST_EDGE, SECOND_EDGE)];
        if slot == NO_SLOT {
            return EdgeConnections::default();
        }
        let pair = &self.pairs[slot as usize];
        let full = (pair.full_count > 0).then(|| pair.fulls[0]);
        let semis = &pair.semis[..pair.semi_count as usize];
        let semi = semis.first().map(|&carrier| (carrier, pair.keys[0] as usize));
        let semi_intersection = semis.iter().copied().reduce(|a, b| a & b);
        let semi_union = semis.iter().fold(0, |union, &carrier| union | carrier);
        EdgeConnections { full, semi, semi_intersection, semi_union }
    }

    fn slot_index(&self, a: u8, b: u8) -> usize {
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        low as usize * (self.geometry.cells() + 2) + high as usize
    }

    /// The pair record of `a` and `b`, created empty when missing.
    fn pair_mut(&mut self, a: u8, b: u8) -> usize {
        let index = self.slot_index(a, b);
        if self.pair_slot[index] == NO_SLOT {
            self.pair_slot[index] = self.pairs.len() as u32;
            self.pairs.push(PairConnections {
                ends: (a.min(b), a.max(b)),
                full_count: 0,
                semi_count: 0,
                fulls: [0; FULL_CAPACITY],
                full_taints: [CLEAN; FULL_CAPACITY],
                semis: [0; SEMI_CAPACITY],
                semi_taints: [CLEAN; SEMI_CAPACITY],
                keys: [0; SEMI_CAPACITY],
            });
        }
        self.pair_slot[index] as usize
    }

    /// Clears the previous search and builds the nodes and the adjacency (base) connections.
    fn reset(&mut self, color: Color, own: u128, empty: u128) {
        self.build_nodes(color, own, empty);
        self.add_base_connections(color, own, empty);
    }

    /// Clears the previous search and builds the nodes: the two edges with the groups touching
    /// them, the other groups, then the empty cells.
    fn build_nodes(&mut self, color: Color, own: u128, empty: u128) {
        for pair in &self.pairs {
            let index = self.slot_index(pair.ends.0, pair.ends.1);
            self.pair_slot[index] = NO_SLOT;
        }
        self.pairs.clear();
        for partners in &mut self.full_partners {
            partners.clear();
        }
        self.queue.clear();
        self.nodes.clear();
        self.node_of_cell.fill(u8::MAX);
        self.stop_found = false;
        let geometry = &self.geometry;
        // 1. Edge nodes absorb the groups touching them.
        let (first, second) = geometry.edges(color);
        for edge in [first, second] {
            let stones = geometry.flood(edge, own);
            let liberties = (geometry.neighbours_of(stones) | edge) & empty;
            self.nodes.push(Node { stones, liberties, cell_bit: 0 });
        }
        for cell in iterate(self.nodes[0].stones) {
            self.node_of_cell[cell] = FIRST_EDGE;
        }
        for cell in iterate(self.nodes[1].stones) {
            self.node_of_cell[cell] = SECOND_EDGE;
        }
        // 2. The other groups, then the empty cells.
        let mut rest = own & !self.nodes[0].stones & !self.nodes[1].stones;
        while rest != 0 {
            let stones = geometry.flood(rest & rest.wrapping_neg(), own);
            rest &= !stones;
            let id = self.nodes.len() as u8;
            for cell in iterate(stones) {
                self.node_of_cell[cell] = id;
            }
            self.nodes.push(Node { stones, liberties: geometry.neighbours_of(stones) & empty, cell_bit: 0 });
        }
        for cell in iterate(empty) {
            self.node_of_cell[cell] = self.nodes.len() as u8;
            self.nodes.push(Node { stones: 0, liberties: geometry.adjacent[cell] & empty, cell_bit: 1 << cell });
        }
        self.last_search = (color, own, empty);
        self.queue_done = 0;
    }

    /// The connections every search starts from: adjacency, and the edge patterns when the
    /// engine uses them.
    fn add_base_connections(&mut self, color: Color, own: u128, empty: u128) {
        // 3. Adjacent nodes are fully connected with an empty carrier.
        for node in 0..self.nodes.len() {
            let Node { liberties, cell_bit, .. } = self.nodes[node];
            for cell in iterate(liberties) {
                let other = self.node_of_cell[cell];
                // Each pair of empty cells once; a stone node with each of its liberties.
                if cell_bit == 0 || (other as usize) > node {
                    self.add_full(node as u8, other, 0, CLEAN);
                }
            }
        }
        // 4. Stones and empty cells joined to an edge by a proven pattern whose cells are free
        //    (an empty cell as if the player held it, like every cell node), and to the empty
        //    target of a short ladder (a connection tainted by the ladder's edge, see [`Taint`]).
        if let Some(edge_patterns) = self.edge_patterns.take() {
            for stone in iterate(own | empty) {
                let node = self.node_of_cell[stone];
                for placed in &edge_patterns[color.index()][stone] {
                    let edge = if placed.edge == 0 { FIRST_EDGE } else { SECOND_EDGE };
                    // The player's own stones in the carrier only help.
                    if node == edge || placed.carrier & !(empty | own) != 0 {
                        continue;
                    }
                    match (placed.escape, placed.target) {
                        (Some(escape), _) if own >> escape & 1 == 0 => {}
                        // A ladder to an empty target joins the start to it, or to the edge.
                        (_, Some(target)) if empty >> target & 1 != 0 => {
                            let target_node = self.node_of_cell[target];
                            self.add_full(node, target_node, placed.carrier & empty, tainted(edge, node));
                        }
                        (_, Some(_)) => {}
                        _ => self.add_full(node, edge, placed.carrier & empty, CLEAN),
                    }
                }
            }
            self.edge_patterns = Some(edge_patterns);
        }
    }

    fn run(&mut self, color: Color, own: u128, empty: u128) {
        self.reset(color, own, empty);
        self.close();
    }

    /// Applies the AND rule to every queued full (and to those it adds) until the queue is
    /// empty, a stop condition is met or the work limit is passed.
    fn close(&mut self) {
        let mut next = 0;
        while next < self.queue.len() && !self.stop_found && self.work <= self.work_limit {
            let (x, y, carrier, taint) = self.queue[next];
            next += 1;
            self.and_rule(x, y, carrier, taint);
            self.and_rule(y, x, carrier, taint);
        }
        self.queue_done = next;
    }

    /// Combines the new full(end, middle, carrier) with every full(middle, other).
    fn and_rule(&mut self, end: u8, middle: u8, carrier: u128, taint: Taint) {
        // No AND over an edge (as in Benzene's default): it would join every pair of cells
        // near the edge and multiply the work for little gain.
        if middle == FIRST_EDGE || middle == SECOND_EDGE {
            return;
        }
        let end_bit = self.nodes[end as usize].cell_bit;
        let middle_bit = self.nodes[middle as usize].cell_bit;
        let partner_count = self.full_partners[middle as usize].len();
        self.work += partner_count as u64 + 1;
        for partner_index in 0..partner_count {
            let (other, slot) = self.full_partners[middle as usize][partner_index];
            if other == end {
                continue;
            }
            let other_bit = self.nodes[other as usize].cell_bit;
            if carrier & other_bit != 0 {
                continue;
            }
            // By index: adding connections below may move `self.pairs`, never this pair's
            // fulls (end != middle).
            let slot = slot as usize;
            for i in 0..self.pairs[slot].full_count as usize {
                let other_carrier = self.pairs[slot].fulls[i];
                if other_carrier & carrier != 0 || other_carrier & end_bit != 0 {
                    continue;
                }
                let Some(joined_taint) = and_taint(end, other, taint, self.pairs[slot].full_taints[i]) else {
                    continue;
                };
                if middle_bit == 0 {
                    self.add_full(end, other, carrier | other_carrier, joined_taint);
                } else {
                    let key = middle_bit.trailing_zeros() as u8;
                    self.add_semi(end, other, carrier | other_carrier | middle_bit, key, joined_taint);
                }
                if self.stop_found {
                    return;
                }
            }
        }
    }

    /// Records full(a, b, carrier) unless a known full's carrier is a subset of it; drops the
    /// known fulls it improves on.
    fn add_full(&mut self, a: u8, b: u8, carrier: u128, taint: Taint) {
        let Some(taint) = normalized(a, b, taint) else { return };
        let limit = self.limits.fulls_per_pair;
        let slot = self.pair_mut(a, b);
        let pair = &mut self.pairs[slot];
        let count = pair.full_count as usize;
        if (0..count).any(|i| pair.fulls[i] & !carrier == 0 && covers(pair.full_taints[i], taint)) {
            return;
        }
        let mut kept = 0;
        for i in 0..count {
            if carrier & !pair.fulls[i] != 0 || !covers(taint, pair.full_taints[i]) {
                pair.fulls[kept] = pair.fulls[i];
                pair.full_taints[kept] = pair.full_taints[i];
                kept += 1;
            }
        }
        // Past the soft limit a full is kept if it narrows what the known ones share (an
        // intrusion there no longer breaks them all), up to the capacity; otherwise it takes
        // the place of the largest known one if it is smaller (the queue does not find the
        // smallest carriers first, and the small ones combine best).
        if kept >= FULL_CAPACITY || kept >= limit && !narrows(&pair.fulls[..kept], carrier) {
            pair.full_count = kept as u8;
            let largest = (0..kept).max_by_key(|&i| pair.fulls[i].count_ones()).unwrap_or(0);
            if kept == 0 || pair.fulls[largest].count_ones() <= carrier.count_ones() {
                return;
            }
            pair.fulls[largest] = carrier;
            pair.full_taints[largest] = taint;
        } else {
            pair.fulls[kept] = carrier;
            pair.full_taints[kept] = taint;
            pair.full_count = kept as u8 + 1;
        }
        // Semis no smaller than this full are useless now.
        let mut semis_kept = 0;
        for i in 0..pair.semi_count as usize {
            if carrier & !pair.semis[i] != 0 || !covers(taint, pair.semi_taints[i]) {
                pair.semis[semis_kept] = pair.semis[i];
                pair.semi_taints[semis_kept] = pair.semi_taints[i];
                pair.keys[semis_kept] = pair.keys[i];
                semis_kept += 1;
            }
        }
        pair.semi_count = semis_kept as u8;
        if count == 0 {
            self.full_partners[a as usize].push((b, slot as u32));
            self.full_partners[b as usize].push((a, slot as u32));
        }
        self.queue.push((a, b, carrier, taint));
        if (a.min(b), a.max(b)) == (FIRST_EDGE, SECOND_EDGE) && self.stop_at_edge_full {
            self.stop_found = true;
        }
    }

    /// Records semi(a, b, carrier, key) (key: a cell index) and applies the OR rule with the known semis of the pair.
    fn add_semi(&mut self, a: u8, b: u8, carrier: u128, key: u8, taint: Taint) {
        let Some(taint) = normalized(a, b, taint) else { return };
        let limits = self.limits;
        let slot = self.pair_mut(a, b);
        let pair = &mut self.pairs[slot];
        let count = pair.semi_count as usize;
        self.work += count as u64 + 1;
        if (0..pair.full_count as usize).any(|i| pair.fulls[i] & !carrier == 0 && covers(pair.full_taints[i], taint))
            || (0..count).any(|i| pair.semis[i] & !carrier == 0 && covers(pair.semi_taints[i], taint))
        {
            return;
        }
        // 1. OR rule: subsets of the known semis that, with the new one, have an empty
        //    intersection. Each combination must shrink the intersection, which keeps the
        //    enumeration small. Tainted semis combine only with clean ones and those of the
        //    same taint, and make the full tainted.
        self.or_scratch.clear();
        for group in self.taint_groups(slot, taint) {
            self.or_candidates.clear();
            let pair = &self.pairs[slot];
            for i in 0..count {
                if covers(pair.semi_taints[i], group) {
                    self.or_candidates.push(pair.semis[i]);
                }
            }
            self.or_unions.clear();
            or_combinations(&self.or_candidates, 0, carrier, carrier, 1, limits.semis_per_or, &mut self.or_unions);
            self.or_scratch.extend(self.or_unions.iter().map(|&union| (union, group)));
        }
        self.work += self.or_scratch.len() as u64;
        // 2. Store the semi, dropping the known ones it improves on.
        let pair = &mut self.pairs[slot];
        let mut kept = 0;
        for i in 0..count {
            if carrier & !pair.semis[i] != 0 || !covers(taint, pair.semi_taints[i]) {
                pair.semis[kept] = pair.semis[i];
                pair.semi_taints[kept] = pair.semi_taints[i];
                pair.keys[kept] = pair.keys[i];
                kept += 1;
            }
        }
        // The edge pair keeps every semi it can: each one may shrink the must-play region.
        let semi_limit =
            if (a.min(b), a.max(b)) == (FIRST_EDGE, SECOND_EDGE) { SEMI_CAPACITY } else { limits.semis_per_pair };
        if kept < semi_limit || kept < SEMI_CAPACITY && narrows(&pair.semis[..kept], carrier) {
            pair.semis[kept] = carrier;
            pair.semi_taints[kept] = taint;
            pair.keys[kept] = key;
            kept += 1;
        }
        pair.semi_count = kept as u8;
        if (a.min(b), a.max(b)) == (FIRST_EDGE, SECOND_EDGE) && self.stop_at_edge_semi {
            self.stop_found = true;
            return;
        }
        // 3. When no combination of a few semis closes the intersection, Benzene's greedy union
        //    of all of them may.
        if self.or_scratch.is_empty() && kept > limits.semis_per_or {
            for group in self.taint_groups(slot, taint) {
                let pair = &self.pairs[slot];
                self.or_candidates.clear();
                self.or_candidates
                    .extend((0..kept).filter(|&i| covers(pair.semi_taints[i], group)).map(|i| pair.semis[i]));
                if let Some(union) = greedy_union(&self.or_candidates) {
                    self.greedy_unions += 1;
                    self.or_scratch.push((union, group));
                }
            }
        }
        for i in 0..self.or_scratch.len() {
            let (full, full_taint) = self.or_scratch[i];
            self.add_full(a, b, full, full_taint);
            if self.stop_found {
                return;
            }
        }
    }
}

impl VcEngine {
    /// The taints under which the OR rule combines a new semi tainted `taint` with the semis
    /// of `slot`: its own when tainted; otherwise clean, then each taint among the known semis
    /// (a combination in such a group may use only clean semis, and is then marked tainted
    /// all the same, which claims less).
    fn taint_groups(&self, slot: usize, taint: Taint) -> TaintGroups {
        let mut groups = TaintGroups { taints: [taint; SEMI_CAPACITY + 1], len: 1 };
        if taint == CLEAN {
            let pair = &self.pairs[slot];
            for &known in &pair.semi_taints[..pair.semi_count as usize] {
                if !groups.taints[..groups.len].contains(&known) {
                    groups.taints[groups.len] = known;
                    groups.len += 1;
                }
            }
        }
        groups
    }
}

/// The taint groups of [`VcEngine::taint_groups`], without allocating.
struct TaintGroups {
    taints: [Taint; SEMI_CAPACITY + 1],
    len: usize,
}

impl IntoIterator for TaintGroups {
    type Item = Taint;
    type IntoIter = std::iter::Take<std::array::IntoIter<Taint, { SEMI_CAPACITY + 1 }>>;
    fn into_iter(self) -> Self::IntoIter {
        self.taints.into_iter().take(self.len)
    }
}

/// Appends to `out` the unions of `carrier`-containing sets of semis (with `intersection` and
/// `union` so far, `used` of them) whose intersection is empty, using at most `max_used` semis.
fn or_combinations(
    semis: &[u128],
    start: usize,
    intersection: u128,
    union: u128,
    used: usize,
    max_used: usize,
    out: &mut Vec<u128>,
) {
    for i in start..semis.len() {
        let narrowed = intersection & semis[i];
        if narrowed == intersection {
            continue;
        }
        if narrowed == 0 {
            out.push(union | semis[i]);
        } else if used + 1 < max_used {
            or_combinations(semis, i + 1, narrowed, union | semis[i], used + 1, max_used, out);
        }
    }
}

/// Whether `carrier` leaves out a cell that every one of `kept` holds: an intrusion there no
/// longer breaks them all. Asked only past a pair's soft limit.
fn narrows(kept: &[u128], carrier: u128) -> bool {
    let shared = kept.iter().fold(u128::MAX, |shared, &known| shared & known);
    shared & carrier != shared
}

/// The greedy union of `semis` (Benzene's): the semis from the smallest carrier up, each taken
/// when it narrows the intersection of those taken; their union when that intersection ends
/// empty, a full connection by the OR rule with any number of semis.
fn greedy_union(semis: &[u128]) -> Option<u128> {
    let mut order: [(u32, u128); SEMI_CAPACITY] = [(0, 0); SEMI_CAPACITY];
    for (slot, &semi) in order.iter_mut().zip(semis) {
        *slot = (semi.count_ones(), semi);
    }
    let order = &mut order[..semis.len()];
    order.sort_unstable();
    let (mut intersection, mut union) = (u128::MAX, 0);
    for &(_, semi) in order.iter() {
        if intersection & semi != intersection {
            intersection &= semi;
            union |= semi;
            if intersection == 0 {
                return Some(union);
            }
        }
    }
    None
}

/// The cell indices of `set`, in increasing order.
pub(crate) fn iterate(set: u128) -> impl Iterator<Item = usize> {
    let mut rest = set;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let cell = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        Some(cell)
    })
}

/// The cells of a `u128` set as a [`Bitboard`].
fn to_bitboard(set: u128) -> Bitboard {
    let mut board = Bitboard::default();
    for cell in iterate(set) {
        board.insert(cell);
    }
    board
}

/// What H-search says about the game in `position`, with default limits: `Some((winner,
/// move))` when a player has a full connection between its edges (or has already connected
/// them), or the side to move has a semi connection between its edges. The move is the side
/// to move's winning move when the winner is on move (the semi's key; any cell of the carrier
/// for a full), else `None`. `None` when nothing is decided or the board has more than
/// [`MAX_VC_CELLS`] cells.
pub fn decided(position: &Hex) -> Option<(Color, Option<Cell>)> {
    if let Some(Outcome::Win(winner)) = position.outcome() {
        return Some((winner, None));
    }
    let me = position.to_move();
    match verdict_of(position)? {
        EdgeVerdict::MoverWins(cell) => Some((me, Some(Cell(cell as u16)))),
        EdgeVerdict::OpponentConnected => Some((me.opponent(), None)),
        EdgeVerdict::MustPlay(_) | EdgeVerdict::Open => None,
    }
}

/// What H-search says about the edges for the side to move, best news first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeVerdict {
    /// The side to move wins by playing this cell: the key of a semi connection between its
    /// edges, or a cell of a full one's carrier (any empty cell when the carrier is empty).
    MoverWins(usize),
    /// The opponent has a full connection between its edges: every move loses.
    OpponentConnected,
    /// Every move outside this set loses: the intersection of the carriers of the opponent's
    /// semi connections between its edges (empty: every move loses).
    MustPlay(u128),
    /// Nothing found.
    Open,
}

/// The H-search verdict for `me` to move, with `stones` per colour and `empty` cells: `me`'s
/// edges first (stopping at a semi), then the opponent's. Neither player may have joined its
/// edges already.
pub fn edge_verdict(engine: &mut VcEngine, me: Color, stones: &[u128; 2], empty: u128) -> EdgeVerdict {
    let mine = engine.edge_connections(me, stones[me.index()], empty, true);
    if let Some(carrier) = mine.full {
        let cells = if carrier != 0 { carrier } else { empty };
        return EdgeVerdict::MoverWins(cells.trailing_zeros() as usize);
    }
    if let Some((_, key)) = mine.semi {
        return EdgeVerdict::MoverWins(key);
    }
    let opponent = me.opponent();
    let theirs = engine.edge_connections(opponent, stones[opponent.index()], empty, false);
    if theirs.full.is_some() {
        return EdgeVerdict::OpponentConnected;
    }
    theirs.semi_intersection.map_or(EdgeVerdict::Open, EdgeVerdict::MustPlay)
}

/// [`edge_verdict`] for a running position with default limits; `None` when the board is too
/// large.
fn verdict_of(position: &Hex) -> Option<EdgeVerdict> {
    let geometry = BoardGeometry::of(position)?;
    let stones = geometry.stones_of(position);
    let empty = geometry.all() & !(stones[0] | stones[1]);
    let mut engine = VcEngine::new(geometry, VcLimits::default());
    Some(edge_verdict(&mut engine, position.to_move(), &stones, empty))
}

/// The cells the side to move must play in, or lose at once: the intersection of the carriers
/// of the opponent's semi connections between its edges (default limits). `None` when H-search
/// finds no such semi (no restriction), when the game is over or decided by a full connection,
/// or when the board is too large. An empty set means every move loses.
pub fn must_play(position: &Hex) -> Option<Bitboard> {
    if position.outcome().is_some() {
        return None;
    }
    let geometry = BoardGeometry::of(position)?;
    let stones = geometry.stones_of(position);
    let empty = geometry.all() & !(stones[0] | stones[1]);
    let opponent = position.to_move().opponent();
    let mut engine = VcEngine::new(geometry, VcLimits::default());
    let theirs = engine.edge_connections(opponent, stones[opponent.index()], empty, false);
    if theirs.full.is_some() {
        return None;
    }
    theirs.semi_intersection.map(to_bitboard)
}

/// Proofs are looked for only when at most this many cells are empty: the cost of the two
/// H-searches grows steeply with the empty cells (on random 11x11 positions about one playout's
/// time at 15 empty cells, ten at 20, a hundred at 30; see `vc_proof_cost` in the tests), and
/// the search asks at every expansion.
pub const PROOF_MAX_EMPTIES: usize = 16;

/// A proof from virtual connections, which the search asks for when it first visits a node
/// (the `expansion_proof` of Hex's solver hooks): the side to move wins when
/// H-search finds it a full or semi connection between its edges; it loses when the opponent
/// has a full one, or semis whose carriers have no common cell (every move leaves one intact).
/// Only asked with at most [`PROOF_MAX_EMPTIES`] empty cells and on boards the VC engine
/// handles.
pub fn expansion_proof(position: &Hex) -> Option<Outcome> {
    let cells = position.width() * position.height();
    if position.outcome().is_some() || cells > MAX_VC_CELLS || cells - position.stone_count() > PROOF_MAX_EMPTIES {
        return None;
    }
    vc_outcome(position)
}

/// The H-search verdict of [`expansion_proof`], without the size limits.
pub fn vc_outcome(position: &Hex) -> Option<Outcome> {
    let me = position.to_move();
    match verdict_of(position)? {
        EdgeVerdict::MoverWins(_) => Some(Outcome::Win(me)),
        EdgeVerdict::OpponentConnected | EdgeVerdict::MustPlay(0) => Some(Outcome::Win(me.opponent())),
        EdgeVerdict::MustPlay(_) | EdgeVerdict::Open => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::GameConfig;
    use crate::games::hex::{HexConfig, HexMove};
    use rand::SeedableRng;
    use rand::rngs::SmallRng;
    use rustc_hash::FxHashMap;

    /// The connection game of one claimed connection, played out exhaustively: the owner's
    /// stones and the two ends stay, both players may only play inside the carrier, and the
    /// owner wins when the ends are joined (the player's edges count as one stone each, as in
    /// H-search).
    struct ConnectionGame<'a> {
        geometry: &'a BoardGeometry,
        color: Color,
        /// The owner's stones, plus the ends that are empty cells.
        stones: u128,
        from: u128,
        to: u128,
        carrier: u128,
        memo: FxHashMap<(u128, u128), bool>,
    }

    impl ConnectionGame<'_> {
        fn joined(&self, played: u128) -> bool {
            let stones = self.stones | played;
            let (first, second) = self.geometry.edges(self.color);
            let mut reach = self.geometry.flood(self.from, stones);
            loop {
                let mut grown = reach;
                for edge in [first, second] {
                    if reach & edge != 0 {
                        grown |= edge & stones;
                    }
                }
                let grown = self.geometry.flood(grown, stones);
                if grown == reach {
                    return reach & self.to != 0;
                }
                reach = grown;
            }
        }

        /// Whether the owner wins with `owner`'s and `opponent`'s carrier cells played, the
        /// opponent to move (the owner answers at once in the recursion).
        fn owner_wins_opponent_to_move(&mut self, owner: u128, opponent: u128) -> bool {
            if self.joined(owner) {
                return true;
            }
            if let Some(&known) = self.memo.get(&(owner, opponent)) {
                return known;
            }
            let free = self.carrier & !owner & !opponent;
            let wins = iterate(free).all(|intrusion| {
                let opponent = opponent | 1 << intrusion;
                let free = free & !(1 << intrusion);
                self.joined(owner)
                    || iterate(free).any(|answer| self.owner_wins_opponent_to_move(owner | 1 << answer, opponent))
            });
            // With a free carrier the opponent's `all` is vacuous only when nothing is left,
            // and then the ends are not joined.
            let wins = wins && free != 0;
            self.memo.insert((owner, opponent), wins);
            wins
        }
    }

    fn end_cells(geometry: &BoardGeometry, color: Color, end: VcEnd) -> (u128, u128) {
        let (first, second) = geometry.edges(color);
        match end {
            VcEnd::Edge(0) => (first, 0),
            VcEnd::Edge(_) => (second, 0),
            VcEnd::Group(stones) => (stones, 0),
            VcEnd::Cell(cell) => (1 << cell, 1 << cell),
        }
    }

    fn random_position(rng: &mut SmallRng, width: usize, height: usize, stones: usize) -> Hex {
        let config = HexConfig::with_size(width, height).unwrap();
        crate::games::testing::random_running_position(&Hex::new(&config), rng, stones)
    }

    /// Whether `connection`, found for `color` with `own` stones and `empty` cells, holds by
    /// playing out its carrier; `None` when the carrier is too large to play out. Panics when
    /// the carrier is not empty cells away from the ends.
    fn check_connection(
        geometry: &BoardGeometry,
        color: Color,
        own: u128,
        empty: u128,
        connection: &Connection,
    ) -> Option<bool> {
        let (from, from_extra) = end_cells(geometry, color, connection.ends.0);
        let (to, to_extra) = end_cells(geometry, color, connection.ends.1);
        let carrier = connection.carrier;
        assert_eq!(carrier & !empty, 0, "{connection:?}");
        assert_eq!(carrier & (from_extra | to_extra), 0, "{connection:?}");
        if carrier.count_ones() > 12 {
            return None;
        }
        let mut game = ConnectionGame {
            geometry,
            color,
            stones: own | from_extra | to_extra,
            from,
            to,
            carrier,
            memo: FxHashMap::default(),
        };
        Some(match connection.kind {
            VcKind::Full => game.owner_wins_opponent_to_move(0, 0),
            VcKind::Semi(key) => {
                assert_ne!(carrier >> key & 1, 0);
                game.owner_wins_opponent_to_move(1 << key, 0)
            }
        })
    }

    #[test]
    fn every_claimed_connection_holds_by_brute_force() {
        let mut rng = SmallRng::seed_from_u64(23);
        let (mut fulls, mut semis, mut greedy_unions) = (0, 0, 0);
        for (width, height) in [(3, 3), (4, 3), (3, 4), (4, 4), (5, 3)] {
            for stones in 0..7 {
                for _ in 0..4 {
                    let position = random_position(&mut rng, width, height, stones);
                    let geometry = BoardGeometry::of(&position).unwrap();
                    let board_stones = geometry.stones_of(&position);
                    let empty = geometry.all() & !(board_stones[0] | board_stones[1]);
                    for color in [Color::Black, Color::White] {
                        let own = board_stones[color.index()];
                        // Few semis a pair and OR combinations of two, so that the greedy
                        // union of more semis is exercised on these small boards.
                        let limits = if stones % 2 == 0 {
                            VcLimits::default()
                        } else {
                            VcLimits { semis_per_pair: 8, semis_per_or: 2, ..VcLimits::default() }
                        };
                        let mut engine = VcEngine::new(geometry.clone(), limits);
                        let connections = engine.all_connections(color, own, empty);
                        greedy_unions += engine.greedy_unions;
                        for connection in connections {
                            match check_connection(&geometry, color, own, empty, &connection) {
                                Some(true) if connection.kind == VcKind::Full => fulls += 1,
                                Some(true) => semis += 1,
                                Some(false) => panic!("{color:?} {connection:?} fails in\n{}", position.board_text()),
                                None => {}
                            }
                        }
                    }
                }
            }
        }
        assert!(fulls > 5000 && semis > 2000, "{fulls} fulls, {semis} semis checked");
        assert!(greedy_unions > 50, "{greedy_unions} greedy unions");
    }

    #[test]
    fn connections_taken_over_from_an_earlier_search_hold_by_brute_force() {
        use rand::Rng;
        let mut rng = SmallRng::seed_from_u64(29);
        let (mut checked, mut taken_over_work, mut scratch_work) = (0, 0, 0);
        for (width, height) in [(4, 4), (5, 4), (4, 5), (5, 5)] {
            for stones in 0..6 {
                for _ in 0..4 {
                    let position = random_position(&mut rng, width, height, stones);
                    let geometry = BoardGeometry::of(&position).unwrap();
                    let parent = geometry.stones_of(&position);
                    let parent_empty = geometry.all() & !(parent[0] | parent[1]);
                    // One to three more stones of either colour, as a move and fill-in add them.
                    let mut child = parent;
                    for _ in 0..rng.random_range(1..=3) {
                        let empty: Vec<usize> = iterate(geometry.all() & !(child[0] | child[1])).collect();
                        if let Some(&cell) = empty.get(rng.random_range(0..empty.len().max(1))) {
                            child[rng.random_range(0..2)] |= 1 << cell;
                        }
                    }
                    let empty = geometry.all() & !(child[0] | child[1]);
                    for color in [Color::Black, Color::White] {
                        let own = child[color.index()];
                        if geometry.connected(color, own) {
                            continue;
                        }
                        let mut engine = VcEngine::new(geometry.clone(), VcLimits::default());
                        engine.all_connections(color, parent[color.index()], parent_empty);
                        let snapshot = engine.snapshot();
                        let before = engine.work();
                        engine.edge_connections_after(&snapshot, own, empty, false);
                        taken_over_work += engine.work() - before;
                        for connection in engine.connections() {
                            let holds = check_connection(&geometry, color, own, empty, &connection);
                            assert_ne!(
                                holds,
                                Some(false),
                                "{color:?} {connection:?} fails after\n{}",
                                position.board_text()
                            );
                            checked += u32::from(holds.is_some());
                        }
                        let mut fresh = VcEngine::new(geometry.clone(), VcLimits::default());
                        fresh.edge_connections(color, own, empty, false);
                        scratch_work += fresh.work();
                    }
                }
            }
        }
        assert!(checked > 3000, "{checked} connections checked");
        // What the earlier search combined is not combined again.
        assert!(taken_over_work < scratch_work, "work {taken_over_work} taken over, {scratch_work} from scratch");
    }

    #[test]
    fn every_placed_edge_pattern_holds_by_brute_force() {
        // On a 9x9 board with nothing but the pattern's stones, each placement with a small
        // carrier joins its stone to its edge against any intrusion: the symmetries that map
        // the edge frame onto the four edges are right.
        let geometry = BoardGeometry::new(9, 9).unwrap();
        let mut checked = [0usize; 4];
        for color in [Color::Black, Color::White] {
            let (first, second) = geometry.edges(color);
            for placed in hex_edge_patterns::placements(&geometry, color).into_iter().flatten() {
                if placed.carrier.count_ones() > 10 {
                    continue;
                }
                // A ladder's target is taken as the player's and counts as the edge.
                let escape = placed.escape.or(placed.target).map_or(0, |cell| 1u128 << cell);
                let target = placed.target.map_or(0, |cell| 1u128 << cell);
                let edge = if placed.edge == 0 { first } else { second };
                let mut game = ConnectionGame {
                    geometry: &geometry,
                    color,
                    stones: 1 << placed.stone | escape,
                    from: 1 << placed.stone,
                    to: edge | target,
                    carrier: placed.carrier,
                    memo: FxHashMap::default(),
                };
                assert!(game.owner_wins_opponent_to_move(0, 0), "{color:?} {placed:?}");
                checked[color.index() * 2 + placed.edge as usize] += 1;
            }
        }
        assert!(checked.iter().all(|&count| count > 100), "{checked:?}");
    }

    #[test]
    fn taints_follow_the_ladder_through_and_chains() {
        let (edge, start, target, other) = (SECOND_EDGE, 5, 7, 9);
        let ladder = tainted(edge, start);
        // The ladder start–target, then target–other: "start–other, or start reaches the edge".
        assert_eq!(and_taint(start, other, ladder, CLEAN), Some(tainted(edge, start)));
        // other–start, then the ladder from start: the side is still the start's, now `other`.
        assert_eq!(and_taint(other, target, CLEAN, ladder), Some(tainted(edge, other)));
        // other–target, then the ladder read from its target: the side is the start, the far end.
        assert_eq!(and_taint(other, start, CLEAN, tainted(edge, start)), Some(tainted(edge, start)));
        assert_eq!(and_taint(start, other, ladder, ladder), None);
        // A claim whose other end is the ladder's edge is a plain connection; one whose side is
        // the edge claims nothing.
        assert_eq!(normalized(start, edge, ladder), Some(CLEAN));
        assert_eq!(normalized(edge, other, tainted(edge, edge)), None);
        assert_eq!(normalized(start, other, ladder), Some(ladder));
        assert!(covers(CLEAN, ladder) && covers(ladder, ladder) && !covers(ladder, CLEAN));
    }

    #[test]
    fn edge_verdicts_with_ladder_targets_agree_with_minimax() {
        // Random positions on boards where the second-row ladders to a target fit: every full
        // connection between a player's edges that H-search finds with the edge patterns (the
        // ladders' tainted connections among them) holds with the opponent to move, and every
        // semi one with the player to move.
        let mut rng = SmallRng::seed_from_u64(41);
        let (mut checked, mut gained) = (0, 0);
        for (width, height) in [(5, 4), (4, 5), (5, 5), (6, 4)] {
            let geometry = BoardGeometry::new(width, height).unwrap();
            let mut plain = VcEngine::new(geometry.clone(), VcLimits::default());
            let mut engine = VcEngine::new(geometry.clone(), VcLimits::default());
            engine.use_edge_patterns();
            let mut memo = FxHashMap::default();
            // At most 10 empty cells, so that minimax stays quick.
            for stones in width * height - 10..width * height - 2 {
                for _ in 0..150 {
                    let position = random_position(&mut rng, width, height, stones);
                    if position.outcome().is_some() {
                        continue;
                    }
                    let mover = position.to_move();
                    let mover_wins = minimax(&position, &mut memo);
                    let board = geometry.stones_of(&position);
                    let empty = geometry.all() & !(board[0] | board[1]);
                    for color in [Color::Black, Color::White] {
                        let own = board[color.index()];
                        let found = engine.edge_connections(color, own, empty, false);
                        let before = plain.edge_connections(color, own, empty, false);
                        let wins_if_opponent_moves = if color == mover { mover_wins } else { !mover_wins };
                        if found.full.is_some() {
                            assert!(wins_if_opponent_moves, "{color:?} full\n{}", position.board_text());
                            checked += 1;
                            gained += usize::from(before.full.is_none());
                        } else if color == mover && found.semi.is_some() {
                            assert!(mover_wins, "{color:?} semi\n{}", position.board_text());
                            checked += 1;
                            gained += usize::from(before.semi.is_none() && before.full.is_none());
                        }
                    }
                }
            }
        }
        assert!(checked > 1000 && gained > 0, "{checked} checked, {gained} found only with the patterns");
    }

    #[test]
    fn edge_patterns_join_edges_that_h_search_alone_does_not() {
        // A position of a game against MoHex (tests/data/hex/mohex-vc-wins.txt, fi-a game 16,
        // after 19 stones), where MoHex's connections join Black's edges: with the edge
        // patterns H-search finds that full connection too, without them it does not.
        let mut position = Hex::new(&HexConfig::with_size(11, 11).unwrap());
        for name in "i2 i3 k2 j4 i4 j3 i5 g4 e5 b10 f6 d9 e9 f7 h7 h6 i6 f3 h4".split_whitespace() {
            position.play(position.parse_move(name).unwrap()).unwrap();
        }
        let geometry = BoardGeometry::of(&position).unwrap();
        let stones = geometry.stones_of(&position);
        let empty = geometry.all() & !(stones[0] | stones[1]);
        let mut engine = VcEngine::new(geometry.clone(), VcLimits::default());
        assert_eq!(engine.edge_connections(Color::Black, stones[0], empty, false).full, None);
        engine.use_edge_patterns();
        let full = engine.edge_connections(Color::Black, stones[0], empty, false).full;
        assert!(full.is_some_and(|carrier| carrier & !empty == 0), "{full:?}");
    }

    #[test]
    fn the_greedy_union_closes_what_no_four_semis_close() {
        // Five semis over five cells, each missing one: any four share a cell, all five none.
        let semis: Vec<u128> = (0..5).map(|missing| 0b11111 & !(1u128 << missing)).collect();
        assert_eq!(greedy_union(&semis), Some(0b11111));
        assert_eq!(greedy_union(&semis[..4]), None);
        let mut combinations = Vec::new();
        or_combinations(&semis[1..], 0, semis[0], semis[0], 1, 4, &mut combinations);
        assert!(combinations.is_empty(), "{combinations:?}");
        // Smallest first; a semi that does not narrow the intersection (0b10011 after 0b0011)
        // is passed over and stays out of the union.
        assert_eq!(greedy_union(&[0b101100, 0b10011, 0b0011]), Some(0b101111));
        assert_eq!(greedy_union(&[0b0011, 0b0111, 0b1110]), None);
    }

    #[test]
    fn past_the_soft_limit_only_connections_that_narrow_the_shared_cells_are_kept() {
        let geometry = BoardGeometry::new(11, 11).unwrap();
        let limits = VcLimits { fulls_per_pair: 2, semis_per_pair: 2, semis_per_or: 4 };
        let mut engine = VcEngine::new(geometry.clone(), limits);
        engine.reset(Color::Black, 0, geometry.all());
        // Nodes 2 + cell: two cells far apart, with no connection between them yet.
        let (a, b) = (2 + 60, 2 + 120);
        let count = |engine: &mut VcEngine| {
            let slot = engine.pair_mut(a, b);
            (engine.pairs[slot].full_count, engine.pairs[slot].semi_count)
        };
        // Fulls: cell 0 is shared by the first two; a third through cell 0 again is refused, one
        // that avoids it is kept.
        engine.add_full(a, b, 0b0011, CLEAN);
        engine.add_full(a, b, 0b0101, CLEAN);
        engine.add_full(a, b, 0b1001, CLEAN);
        assert_eq!(count(&mut engine).0, 2);
        engine.add_full(a, b, 0b110000, CLEAN);
        assert_eq!(count(&mut engine).0, 3);
        // At the soft limit a smaller full that does not narrow them takes the largest one's place.
        let mut small_first = VcEngine::new(geometry.clone(), limits);
        small_first.reset(Color::Black, 0, geometry.all());
        small_first.add_full(a, b, 0b000111, CLEAN);
        small_first.add_full(a, b, 0b111001, CLEAN);
        small_first.add_full(a, b, 0b1000001, CLEAN);
        let slot = small_first.pair_mut(a, b);
        let pair = &small_first.pairs[slot];
        assert_eq!(&pair.fulls[..pair.full_count as usize], &[0b000111, 0b1000001]);
        // A larger one that does not narrow them is still refused.
        small_first.add_full(a, b, 0b11110001, CLEAN);
        let pair = &small_first.pairs[slot];
        assert_eq!(&pair.fulls[..pair.full_count as usize], &[0b000111, 0b1000001]);
        // Semis (keys outside the fulls' cells) likewise.
        engine.add_semi(a, b, 0b1 << 10 | 0b11 << 20, 10, CLEAN);
        engine.add_semi(a, b, 0b1 << 11 | 0b101 << 20, 11, CLEAN);
        engine.add_semi(a, b, 0b1 << 12 | 0b1001 << 20, 12, CLEAN);
        assert_eq!(count(&mut engine).1, 2);
        engine.add_semi(a, b, 0b1 << 13 | 0b110 << 20, 13, CLEAN);
        assert_eq!(count(&mut engine).1, 3);
    }

    /// Whether the side to move wins, by plain minimax.
    fn minimax(position: &Hex, memo: &mut FxHashMap<u64, i32>) -> bool {
        crate::games::testing::minimax_value(position, memo) > 0
    }

    #[test]
    fn decided_and_must_play_agree_with_minimax() {
        let mut rng = SmallRng::seed_from_u64(29);
        let (mut decided_count, mut restricted_count) = (0, 0);
        for (width, height) in [(3, 3), (4, 4), (4, 3), (5, 4)] {
            let mut memo = FxHashMap::default();
            let min_stones = if width * height > 16 { 8 } else { 0 };
            for stones in min_stones..width * height {
                for _ in 0..6 {
                    let position = random_position(&mut rng, width, height, stones);
                    let me = position.to_move();
                    let mover_wins = minimax(&position, &mut memo);
                    if let Some((winner, mv)) = decided(&position) {
                        decided_count += 1;
                        assert_eq!(winner == me, mover_wins, "{winner:?}\n{}", position.board_text());
                        if winner == me {
                            let mut child = position.clone();
                            child.play(HexMove::Cell(mv.unwrap())).unwrap();
                            assert!(!minimax(&child, &mut memo), "{mv:?}\n{}", position.board_text());
                        }
                    }
                    if let Some(region) = must_play(&position) {
                        restricted_count += 1;
                        let mut moves = Vec::new();
                        position.legal_moves(&mut moves);
                        for mv in moves {
                            let HexMove::Cell(cell) = mv else { continue };
                            if !region.contains(cell.0 as usize) {
                                let mut child = position.clone();
                                child.play(mv).unwrap();
                                assert!(
                                    minimax(&child, &mut memo),
                                    "{mv:?} outside {region:?}\n{}",
                                    position.board_text()
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(decided_count > 100 && restricted_count > 30, "{decided_count} decided, {restricted_count} restricted");
    }

    #[test]
    fn finds_the_bridge_the_edge_templates_and_the_ziggurat() {
        let config = HexConfig::with_size(5, 5).unwrap();
        let at = |text: &str| match Hex::new(&config).parse_move(text).unwrap() {
            HexMove::Cell(cell) => cell,
            HexMove::Swap => unreachable!(),
        };
        // A lone stone on the third row reaches each edge through a ziggurat (8 empty cells,
        // the smallest carrier), so the centre of 5x5 is fully connected, White to move.
        let mut centre = Hex::from_stones(&config, &[at("c3")], &[]).unwrap();
        centre.give_turn_to(Color::White).unwrap();
        assert_eq!(decided(&centre), Some((Color::Black, None)));
        let geometry = BoardGeometry::of(&centre).unwrap();
        let stones = geometry.stones_of(&centre);
        let empty = geometry.all() & !stones[0];
        let mut engine = VcEngine::new(geometry, VcLimits::default());
        let connections = engine.all_connections(Color::Black, stones[0], empty);
        let smallest_to_top = connections
            .iter()
            .filter(|c| c.kind == VcKind::Full && c.ends == (VcEnd::Edge(0), VcEnd::Group(stones[0])))
            .map(|c| c.carrier.count_ones())
            .min();
        assert_eq!(smallest_to_top, Some(8));
        // Two stones a bridge apart: carrier = their two common neighbours.
        let bridge = [at("b2"), at("c3")].map(|cell| 1u128 << cell.0);
        let bridged = Hex::from_stones(&config, &[at("b2"), at("c3")], &[]).unwrap();
        let stones = engine.geometry().stones_of(&bridged);
        let empty = engine.geometry().all() & !stones[0];
        let connections = engine.all_connections(Color::Black, stones[0], empty);
        let common = 1u128 << at("c2").0 | 1u128 << at("b3").0;
        assert!(connections.iter().any(|c| c.kind == VcKind::Full
            && c.ends == (VcEnd::Group(bridge[0]), VcEnd::Group(bridge[1]))
            && c.carrier == common));
        // Second-row edge template: b2 joins the top through b1 and c1.
        assert!(connections.iter().any(|c| c.kind == VcKind::Full
            && c.ends == (VcEnd::Edge(0), VcEnd::Group(bridge[0]))
            && c.carrier == (1u128 << at("b1").0 | 1u128 << at("c1").0)));
        // Blocked by White on c2, the bridge is only a semi connection with key b3.
        let mut cut = Hex::from_stones(&config, &[at("b2"), at("c3")], &[at("c2")]).unwrap();
        cut.give_turn_to(Color::Black).unwrap();
        let stones = engine.geometry().stones_of(&cut);
        let empty = engine.geometry().all() & !(stones[0] | stones[1]);
        let connections = engine.all_connections(Color::Black, stones[0], empty);
        assert!(connections.iter().any(|c| c.kind == VcKind::Semi(at("b3").0 as usize)
            && c.ends == (VcEnd::Group(bridge[0]), VcEnd::Group(bridge[1]))));
        assert!(
            !connections
                .iter()
                .any(|c| c.kind == VcKind::Full && c.ends == (VcEnd::Group(bridge[0]), VcEnd::Group(bridge[1])))
        );
    }

    #[test]
    fn large_boards_and_finished_games_are_not_analysed() {
        let big = Hex::new(&HexConfig::with_size(12, 11).unwrap());
        assert_eq!(decided(&big), None);
        assert_eq!(must_play(&big), None);
        let mut config = HexConfig::default();
        config.set_size(2, 2).unwrap();
        let mut won = Hex::new(&config);
        for text in ["a1", "b1", "a2"] {
            won.play(won.parse_move(text).unwrap()).unwrap();
        }
        assert_eq!(decided(&won), Some((Color::Black, None)));
        assert_eq!(must_play(&won), None);
    }

    #[test]
    fn vc_proofs_agree_with_minimax() {
        let mut rng = SmallRng::seed_from_u64(7);
        let (mut wins, mut losses) = (0, 0);
        for (size, min_stones) in [(3, 0), (4, 6), (5, 15)] {
            // Hashes do not include the board size: one memo per size.
            let mut memo = FxHashMap::default();
            let start = Hex::new(&HexConfig::with_size(size, size).unwrap());
            for _ in 0..120 {
                let stones = rand::Rng::random_range(&mut rng, min_stones..size * size - 1);
                let position = crate::games::testing::random_running_position(&start, &mut rng, stones);
                let Some(Outcome::Win(winner)) = vc_outcome(&position) else {
                    continue;
                };
                let value = crate::games::testing::minimax_value(&position, &mut memo);
                if winner == position.to_move() {
                    assert_eq!(value, 1, "claimed win:\n{}", position.board_text());
                    wins += 1;
                } else {
                    assert_eq!(value, -1, "claimed loss:\n{}", position.board_text());
                    losses += 1;
                }
                assert_eq!(expansion_proof(&position), Some(Outcome::Win(winner)), "few empties, small board");
            }
        }
        assert!(wins > 50 && losses > 20, "{wins} wins, {losses} losses");
    }

    #[test]
    fn proofs_wait_for_few_empty_cells() {
        // Black's straight column of bridges wins on 11x11, but with too many empty cells the
        // hook does not run H-search.
        let chain = ["f1", "e3", "d5", "c7", "b9", "a11"];
        let mut position = crate::games::testing::hex_position(11, 11, &chain, &["k1"]);
        position.give_turn_to(Color::Black).unwrap();
        assert_eq!(vc_outcome(&position), Some(Outcome::Win(Color::Black)));
        assert_eq!(expansion_proof(&position), None);
    }

    /// Cost of one H-search verdict on random 11x11 and 9x9 positions by empty cells. Run with
    /// `cargo test --release --lib solvers::hex_vc::tests::vc_proof_cost -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn vc_proof_cost() {
        let mut rng = SmallRng::seed_from_u64(3);
        for size in [11, 9, 7] {
            let start = Hex::new(&HexConfig::with_size(size, size).unwrap());
            for empties in [100, 80, 60, 50, 40, 30, 25, 20, 15, 10] {
                if empties >= size * size {
                    continue;
                }
                let samples = 100;
                let positions: Vec<Hex> = (0..samples)
                    .map(|_| crate::games::testing::random_running_position(&start, &mut rng, size * size - empties))
                    .collect();
                let mut proven = 0;
                let started = std::time::Instant::now();
                for position in &positions {
                    if vc_outcome(position).is_some() {
                        proven += 1;
                    }
                }
                let micros = started.elapsed().as_secs_f64() * 1e6 / samples as f64;
                println!("{size}x{size}, {empties} empty: {micros:.0} us per call, {proven}/{samples} proven");
            }
        }
    }
}
