//! Monte Carlo tree search with UCT, MCTS-solver proofs, tree parallelism with virtual loss,
//! and a tree kept between moves.
//!
//! [`Search`] is the engine API: it never prints. Its methods say whether they block and
//! whether they stop a running search; the session owns one `Search` per game and calls it from
//! its control thread.

pub mod deepening;
pub mod gomoku_alphabeta;
pub mod reversi_alphabeta;
pub mod reversi_probcut;
pub mod tree;

use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::games::{Color, Game, Outcome, Prior};
use tree::{Arena, ArenaBlock, Bounds, BoundsTable, LOSS, NO_NODE, Proof, WIN};

/// RAVE's equivalence parameter: the visits at which a child's own mean and its
/// all-moves-as-first mean weigh the same in Silver's minimum-error schedule
/// `beta = n_amaf / (n + n_amaf + n * n_amaf / RAVE_EQUIVALENCE)`.
pub const RAVE_EQUIVALENCE: f64 = 1_000.0;

/// With RAVE, the UCT exploration term is scaled down by this factor: the all-moves-as-first
/// statistics already spread the playouts over the plausible moves. Tuned by Hex 11x11
/// self-play at 0.5 s a move (in units of the `exploration` parameter at the old factor 0.25):
/// 0.5 against 1, 17-3; 0.25 against 0.5, 58-42 over 100 games; so 0.25 x 0.25.
pub const RAVE_EXPLORATION_FACTOR: f64 = 0.0625;

/// Playouts a leaf gets from its own position before the search expands it (the root is always
/// expanded). See step 4 of `Search::playout`.
pub const EXPAND_AFTER_VISITS: u32 = 4;

/// At most this many plies left (by `Game::plies_left_bound`), leaves are expanded at their
/// first revisit: such a tree (at most 9! lines) is there to be solved, which takes fewer
/// playouts when every node's children exist early, and it cannot fill the memory cap.
pub const SMALL_TREE_PLIES: usize = 9;

/// At most this many plies left, a node is solved by alpha-beta at its first visit instead of
/// a playout: at most 6! = 720 lines, and the proof then reaches the search at once instead of
/// after the many playouts needed to prove every line of a subtree (misère tic-tac-toe's
/// losing first moves mislead random playouts but are proven this way in 20,000 visits).
pub const SOLVE_AT_PLIES: usize = 6;

/// Helper threads add their playouts to the shared count this many at a time (the calling
/// thread, which watches the limits, too, but adds each of its own at once when it searches
/// alone, so one thread stops at exactly its visit limit).
const PLAYOUT_COUNT_BATCH: u64 = 16;

/// With several threads, each writes the statistics it holds back (see [`HeldBack`]) after
/// this many of its playouts at least, and at most [`MAX_HELD_BACK_PLAYOUTS`]: in between, as
/// many as keep what all threads hold back under 1/[`HELD_BACK_SHARE`] of the root's visits.
/// Each write dirties the cache lines of whole rows of children (RAVE touches half of them),
/// which every other thread's next selection there must fetch again; rarer writes in a long
/// search cost the tree nothing it would notice.
const HELD_BACK_PLAYOUTS: u32 = 16;
const MAX_HELD_BACK_PLAYOUTS: u32 = 256;
const HELD_BACK_SHARE: u32 = 16;

/// A node is hot, and the statistics of its children are held back ([`HeldBack`]) wherever it
/// is, once it has this many visits for every playout the other threads may hold back (at
/// most an eighth of its visits are then unseen by a thread), and at least
/// [`MIN_HOT_NODE_VISITS`].
const HOT_NODE_VISITS_PER_HELD_PLAYOUT: u32 = 8;
const MIN_HOT_NODE_VISITS: u32 = 1024;

/// Search settings a user can change with `param_search`.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchParams {
    /// UCT exploration constant (rewards lie in [0, 1]).
    pub exploration: f64,
    /// Worker threads; 1 gives deterministic results for a fixed seed. More than the machine's
    /// cores run only with `force_threads`: threads that wait for a core make a move overrun
    /// its time (the thread that watches the clock waits too).
    pub threads: usize,
    /// Runs all `threads` even beyond the machine's cores.
    pub force_threads: bool,
    /// Upper bound on the tree's memory.
    pub max_memory_mb: usize,
    /// RAVE statistics in move selection, for games that support them (`Game::SUPPORTS_RAVE`).
    pub rave: bool,
    /// Game knowledge as priors of new nodes (`Game::move_priors`).
    pub priors: bool,
    /// Gomoku: with `priors`, the learned line-pattern priors (`weights/gomoku.patterns`) in
    /// place of the hand-set threat priors. Off by default: they scored 32-28 in 60 games at
    /// 1 s a move against the hand-set ones, no significant gain (see `weights/README.md`).
    pub pattern_priors: bool,
    /// Exact solvers and proofs from game knowledge: the solver's move before a search and
    /// `Game::proven_outcome` (and the expansion proof) inside it. Off, ponder plays by search alone.
    pub solver: bool,
    /// `genmove` may resign a game proven lost (by the exact solver or the search). Front ends
    /// whose protocol has no resignation (the course referee's) turn it off: ponder then plays
    /// the most resisting move it finds.
    pub resign: bool,
    /// With `resign`, `genmove` also resigns when the best move's win rate after the search is
    /// below this (and the move had [`RESIGN_MIN_VISITS`]); 0, the default, resigns only
    /// proven losses.
    pub resign_threshold: f64,
    /// Games with an evaluation and an alpha-beta search (Reversi, Gomoku) play `genmove` by
    /// it; off, they play by MCTS like the other games.
    pub alpha_beta: bool,
    /// The deepest iteration of the alpha-beta search, in plies (NBoard's `set depth`); 0 is
    /// no limit but time.
    pub max_depth: u32,
    /// Visits at which a tree node gets the game's threat search (see [`ThreatHook`]; the root
    /// gets it at once); 0 turns the in-tree threat search off. Only with `solver`.
    pub threat_visits: u32,
    /// The node budget of one node's threat search, shared among its searches.
    pub threat_nodes: u64,
    /// Threat-search nodes a search may spend per playout it has run (on top of one node's
    /// `threat_nodes`), so the playout rate never collapses: a node that reaches its
    /// threshold while the budget is spent is searched later, when it passes again with
    /// budget left.
    pub threat_nodes_per_playout: u64,
    /// Visits at which a tree node gets the game's node knowledge (Hex: inferior cells, the
    /// must-play region and virtual-connection proofs, MoHex's knowledge threshold); 0 turns
    /// it off. Only with `solver`.
    pub knowledge_visits: u32,
    /// The budget of one node's knowledge (Hex: about microseconds of H-search work).
    pub knowledge_nodes: u64,
    /// Knowledge work a search may spend per playout it has run, on top of one node's
    /// `knowledge_nodes` (as `threat_nodes_per_playout` does for threat searches).
    pub knowledge_nodes_per_playout: u64,
    /// Playouts by the game's trained playout policy where it has one (Hex: cells drawn in
    /// proportion to their pattern weights, as MoHex 2.0's playouts draw them); off, the
    /// default, its plain playouts. On Hex 11x11 the learned patterns made the playouts
    /// slower and no better (see `weights/README.md`).
    pub pattern_playouts: bool,
    /// Progressive bias: a child's selection score gains this times its move probability
    /// ([`Prior::policy`], from a trained move model) over the square root of its visits plus
    /// one, as MoHex 2.0 does; 0 turns it off.
    pub progressive_bias: f64,
    /// The probability mass that each of the opponent's answers named by the node knowledge
    /// ([`NodeThreats::replies`]) gains among the moves after the move it answers, before
    /// those moves' probabilities are scaled back to sum to what they summed to (MoHex's
    /// "VCM gamma"); it then steers selection through the progressive bias. 0 turns it off.
    pub reply_bonus: f64,
    /// Playouts below a node whose knowledge filled in cells ([`NodeThreats::fill_in`]) start
    /// with those stones on the board (from the deepest such node of the descent), as MoHex's
    /// playouts do below its knowledge nodes.
    pub playout_fill_in: bool,
}

impl SearchParams {
    /// The threads a search runs: `threads`, at most the machine's cores unless forced.
    pub fn running_threads(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
        if self.force_threads { self.threads.max(1) } else { self.threads.clamp(1, cores) }
    }
}

/// Visits the best move needs before a value below `resign_threshold` counts.
pub const RESIGN_MIN_VISITS: u32 = 500;

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            exploration: 1.0,
            threads: 1,
            force_threads: false,
            max_memory_mb: 1024,
            rave: true,
            priors: true,
            pattern_priors: false,
            solver: true,
            resign: true,
            resign_threshold: 0.0,
            alpha_beta: true,
            max_depth: 0,
            threat_visits: DEFAULT_THREAT_VISITS,
            threat_nodes: DEFAULT_THREAT_NODES,
            threat_nodes_per_playout: DEFAULT_THREAT_NODES_PER_PLAYOUT,
            knowledge_visits: DEFAULT_KNOWLEDGE_VISITS,
            knowledge_nodes: DEFAULT_KNOWLEDGE_NODES,
            knowledge_nodes_per_playout: DEFAULT_KNOWLEDGE_NODES_PER_PLAYOUT,
            progressive_bias: DEFAULT_PROGRESSIVE_BIAS,
            reply_bonus: DEFAULT_REPLY_BONUS,
            playout_fill_in: false,
            pattern_playouts: false,
        }
    }
}

/// The default of [`SearchParams::threat_visits`].
pub const DEFAULT_THREAT_VISITS: u32 = 64;

/// The default of [`SearchParams::progressive_bias`]: MoHex 2.0's constant. On Hex 11x11 at
/// 0.5 s a move it beat no bias 41-17 in self-play (SPRT, +153 Elo); against MoHex 2.0 at 2 s a
/// move it scored 5-15 where no bias scored 4-16, and 5 (43-32 against it in self-play, not
/// decided) 4-16 (see `weights/README.md`).
pub const DEFAULT_PROGRESSIVE_BIAS: f64 = 2.47;

/// The default of [`SearchParams::reply_bonus`]: an answer that keeps a connection gets at least
/// half the probability among its node's moves.
pub const DEFAULT_REPLY_BONUS: f64 = 1.0;

/// The default of [`SearchParams::knowledge_visits`] (MoHex's default threshold).
pub const DEFAULT_KNOWLEDGE_VISITS: u32 = 256;

/// The default of [`SearchParams::knowledge_nodes`]: 16 ms of H-search on 11x11 Hex, where
/// most nodes finish well within it. Against MoHex 2.0 at 2 s a move, 16,000 with 32 a playout
/// scored 22-38 where 4,000 with 16 scored 9-31, then 6-14 and 5-15 in 40 more games: 33-67
/// in 100 (see `weights/README.md`).
pub const DEFAULT_KNOWLEDGE_NODES: u64 = 16_000;

/// The default of [`SearchParams::knowledge_nodes_per_playout`]: an 11x11 Hex playout costs
/// 15-30 microseconds, so the knowledge may take up to about half the search's time.
pub const DEFAULT_KNOWLEDGE_NODES_PER_PLAYOUT: u64 = 32;

/// The default of [`SearchParams::threat_nodes`].
pub const DEFAULT_THREAT_NODES: u64 = 4_000;

/// The default of [`SearchParams::threat_nodes_per_playout`]: a threat-search node costs some
/// 5 microseconds (measured in a Gomoku midgame, small searches included), a Gomoku playout
/// 20 to 40, so in a midgame full of threats the playout rate may fall to about a third; in
/// quiet positions the threat searches cost little. Matches at 1 s/move against the search
/// without them: 4 scored 17-23, 16 scored 26-14.
pub const DEFAULT_THREAT_NODES_PER_PLAYOUT: u64 = 16;

/// What a game's threat search found at a tree node, for the side to move there. Every move
/// named must be a legal move of the node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeThreats<M> {
    /// A move that wins by force (the first move of a proven forcing line).
    pub winning_move: Option<M>,
    /// Moves proven to lose: the opponent still wins by force after each.
    pub losing_moves: Vec<M>,
    /// When the opponent threatens a forced win: the moves that may refute it. The search then
    /// tries the other moves only once none of these is worth searching (all proven lost).
    pub defences: Option<Vec<M>>,
    /// Answers of the opponent to some of the node's moves (Hex: the keys that restore a
    /// connection the move breaks), which the search favours among the moved-to child's own
    /// moves by [`SearchParams::reply_bonus`].
    pub replies: Vec<(M, Vec<M>)>,
    /// Stones that do not change the node's value (Hex: dead and captured cells), which
    /// playouts below the node start with ([`Game::fill_in`]) where
    /// [`SearchParams::playout_fill_in`] is on.
    pub fill_in: Vec<(M, Color)>,
    /// Threat-search nodes it took (what the search's threat budget counts).
    pub nodes: u64,
}

impl<M> Default for NodeThreats<M> {
    /// Nothing found.
    fn default() -> Self {
        NodeThreats {
            winning_move: None,
            losing_moves: Vec::new(),
            defences: None,
            replies: Vec::new(),
            fill_in: Vec::new(),
            nodes: 0,
        }
    }
}

/// A game's threat search at a tree node (Gomoku: VCF and VCT for both sides): the position
/// and a node budget in, what it proved out. Must be deterministic for a given position and
/// budget (the search stays reproducible) and sound in what it proves.
pub type ThreatHook<G> = fn(&G, u64) -> NodeThreats<<G as Game>::Move>;

/// Priors of a node's moves from knowledge above the rules module (trained weights), in the
/// form of [`Game::move_priors`]. Must be deterministic.
pub type PriorHook<G> = fn(&G, &[<G as Game>::Move], &mut [Prior]);

/// A playout with knowledge above the rules module (trained weights), in the form of
/// [`Game::playout`], which it replaces. Must be deterministic for a given random generator.
pub type PlayoutHook<G> = fn(&mut G, &mut SmallRng) -> Outcome;

/// A game's search at busy tree nodes (see [`ThreatHook`]) with the parameter that says at
/// how many visits a node gets it: Gomoku's threat search at `threat_visits`, Hex's knowledge
/// at `knowledge_visits`.
pub struct NodeSearch<G: Game> {
    pub search: ThreatHook<G>,
    /// The visit threshold (0: off) read from the search's parameters.
    pub visits: fn(&SearchParams) -> u32,
    /// Its budget, read from the search's parameters.
    pub budget: fn(&SearchParams) -> NodeSearchBudget,
}

/// What a [`NodeSearch`] may spend: `per_node` on one node, and in all no more than
/// `per_node` plus `per_playout` for every playout the search has run, so the playout rate
/// never collapses (a node that reaches its threshold while the budget is spent is searched
/// later, when it passes again with budget left).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeSearchBudget {
    pub per_node: u64,
    pub per_playout: u64,
}

// Derived `Clone` would ask `G: Clone`; the fields are function pointers.
impl<G: Game> Clone for NodeSearch<G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Game> Copy for NodeSearch<G> {}

impl<G: Game> NodeSearch<G> {
    /// A threat search run at [`SearchParams::threat_visits`].
    pub fn threats(search: ThreatHook<G>) -> NodeSearch<G> {
        NodeSearch {
            search,
            visits: |params| params.threat_visits,
            budget: |params| NodeSearchBudget {
                per_node: params.threat_nodes,
                per_playout: params.threat_nodes_per_playout,
            },
        }
    }

    /// Node knowledge computed at [`SearchParams::knowledge_visits`].
    pub fn knowledge(search: ThreatHook<G>) -> NodeSearch<G> {
        NodeSearch {
            search,
            visits: |params| params.knowledge_visits,
            budget: |params| NodeSearchBudget {
                per_node: params.knowledge_nodes,
                per_playout: params.knowledge_nodes_per_playout,
            },
        }
    }
}

/// When a search stops: whichever limit comes first. Visits count the playouts of this search
/// (reused visits excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    pub max_visits: Option<u64>,
    /// The hard time limit: the search stops there whatever happens.
    pub max_time: Option<Duration>,
    /// The time the move should take (a clock's share): the search stops there unless its
    /// choice is unstable (see [`Search::wants_more_time`]), then at `max_time` at the latest.
    pub target_time: Option<Duration>,
    /// Stop as soon as the most visited root move can no longer be overtaken within the limits
    /// (for `genmove`; analysis wants the whole budget).
    pub stop_when_decided: bool,
    /// The value the side to move expected from its last search: a best move whose value has
    /// fallen well below it earns the search more time.
    pub expected_value: Option<f64>,
}

/// The best move's value may fall this far below the expected value before the search takes
/// more than its target time.
pub const VALUE_DROP_FOR_MORE_TIME: f64 = 0.05;

/// Below this ratio of visits between the second and the first root move, the choice counts as
/// settled at the target time.
pub const SETTLED_VISIT_RATIO: f64 = 0.75;

/// One root move's statistics, for analysis output and move choice.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveStats<M> {
    pub mv: M,
    pub visits: u32,
    /// Mean reward of the side to move at the root after this move, in [0, 1].
    pub value: f64,
    pub proof: Proof,
    /// The proven range of its value, from the side to move at the root.
    pub bounds: Bounds,
    /// Most-visited continuation after `mv`, `mv` first.
    pub pv: Vec<M>,
    /// The move model's probability of `mv` ([`Prior::policy`]); 0 without a model.
    pub policy: f32,
}

/// The result of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The move to play; `None` when the root has no legal move.
    pub best_move: Option<M>,
    /// Root moves, best first.
    pub moves: Vec<MoveStats<M>>,
    /// Playouts run by this search.
    pub playouts: u64,
    /// Visits the root had before this search began (kept from earlier searches).
    pub reused_visits: u64,
    /// What the search proved about the root, from the side to move's view.
    pub root_proof: RootProof,
    pub elapsed: Duration,
}

/// The game-theoretic value of the root as far as the search proved it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootProof {
    Unknown,
    Win,
    Loss,
    Draw,
}

impl RootProof {
    /// The exact win rate of the side to move that the proof stands for; `None` while unknown.
    pub fn value(self) -> Option<f64> {
        match self {
            RootProof::Unknown => None,
            RootProof::Win => Some(1.0),
            RootProof::Loss => Some(0.0),
            RootProof::Draw => Some(0.5),
        }
    }

    /// The proof as a note after a search summary: empty while unknown, else " (proven win)"
    /// and so on.
    pub fn summary_note(self) -> &'static str {
        match self {
            RootProof::Unknown => "",
            RootProof::Win => " (proven win)",
            RootProof::Loss => " (proven loss)",
            RootProof::Draw => " (proven draw)",
        }
    }
}

/// Size and reuse figures for `ponder-stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    pub nodes: u64,
    pub root_visits: u64,
    pub reused_visits: u64,
    pub memory_bytes: u64,
    pub capacity_nodes: u64,
}

/// A search tree over positions of `G`, kept between moves.
pub struct Search<G: Game> {
    params: SearchParams,
    arena: Arena<G::Move>,
    root: u32,
    /// The position the tree's root stands for; `None` before the first search.
    root_position: Option<G>,
    last_reused_visits: u64,
    /// Moves proven to lose at the next search's root (game knowledge), marked lost there.
    root_losing_moves: Vec<G::Move>,
    /// Proven bounds by position, for transpositions; kept as long as the tree's rules are.
    proven: BoundsTable,
    /// The current search's expansion threshold (see [`SMALL_TREE_PLIES`]).
    expand_after: u32,
    /// Whether the current search runs several threads: they then allocate from blocks and
    /// hold back the statistics near the root and at hot nodes (one thread writes everything at
    /// once, as it always has).
    shared: bool,
    /// The threads of the search under way.
    running_threads: u32,
    /// Proofs from knowledge above the rules (Hex: virtual connections from the solvers'
    /// H-search), asked with [`Game::proven_outcome`] when a node is first visited.
    expansion_proof: Option<fn(&G) -> Option<Outcome>>,
    /// The game's threat search or knowledge at nodes with enough visits.
    threat_hook: Option<NodeSearch<G>>,
    /// Priors from trained knowledge in place of [`Game::move_priors`] (Hex: learned patterns).
    prior_hook: Option<PriorHook<G>>,
    /// Whether the parameters let the prior hook replace the game's priors (always, unless the
    /// game ties it to a parameter: Gomoku's `pattern_priors`).
    prior_hook_enabled: fn(&SearchParams) -> bool,
    /// The playout from trained knowledge, used where `pattern_playouts` is on.
    playout_hook: Option<PlayoutHook<G>>,
    /// Threat-search nodes the current search has spent, and the root's visits when it began
    /// (see [`NodeSearchBudget`]).
    /// On a cache line of its own: the fields beside it are read in every playout.
    threat_nodes_spent: CacheLine<AtomicU64>,
    threat_start_visits: u32,
    /// No threat search starts after this (a threat search cannot be interrupted: near a time
    /// limit it would make the move late).
    threat_deadline: Option<Instant>,
    /// Answers from node knowledge ([`NodeThreats::replies`]) to moves whose nodes were not yet
    /// expanded, by the moved-to position's key, until the expansion applies them (the node
    /// carries a mark meanwhile). Bounded by [`MAX_PENDING_REPLIES`].
    pending_replies: Mutex<FxHashMap<u64, Vec<G::Move>>>,
    /// The fill-in of nodes whose knowledge found one ([`NodeThreats::fill_in`]), by position
    /// key; the node carries a mark. Bounded by [`MAX_FILL_INS`].
    fill_ins: RwLock<FxHashMap<u64, FillInStones<G>>>,
}

/// The stones of one node's fill-in, shared by the workers whose playouts start from it.
type FillInStones<G> = Arc<[(<G as Game>::Move, Color)]>;

/// A search's progress reports: the interval and what receives each report.
type Progress<'a, M> = (Duration, &'a mut dyn FnMut(&SearchResult<M>));

/// At most this many fill-ins are kept ([`Search::fill_ins`]); past it, they are dropped and
/// the playouts below those nodes start from the plain position again.
const MAX_FILL_INS: usize = 1 << 16;

/// At most this many nodes wait for answers ([`Search::pending_replies`]); past it, the waiting
/// ones are dropped (they only order moves).
const MAX_PENDING_REPLIES: usize = 1 << 16;

/// Threat searches stop starting this long before a search's time limit (one takes up to some
/// tens of milliseconds).
const THREAT_TIME_MARGIN: Duration = Duration::from_millis(60);

/// Per-worker scratch space, reused across playouts.
struct Worker<G: Game> {
    rng: SmallRng,
    /// The nodes of the descent, each with its mover and its position's key in the bounds
    /// table.
    path: Vec<(u32, Color, u64)>,
    /// For each node of the path that chose a child: whether this worker holds back its
    /// children's statistics (then the child took no virtual loss).
    children_held: Vec<bool>,
    /// The root's visits as this worker saw them in its last descent.
    root_visits_seen: u32,
    moves: Vec<G::Move>,
    priors: Vec<Prior>,
    block: ArenaBlock,
    held_back: HeldBack,
    fill_in: FillInCache<G>,
}

/// A worker's view of the fill-ins ([`Search::fill_ins`]): the key of the deepest node with
/// one in the current descent, and the fill-ins it has read, so that most playouts take no
/// lock.
struct FillInCache<G: Game> {
    key: Option<u64>,
    known: FxHashMap<u64, FillInStones<G>>,
}

/// The statistics near the root and at hot nodes that a worker writes in batches when several
/// threads search: the visits of the children of nodes above [`HELD_BACK_DEPTH`] or with
/// `Search::hot_visits` visits, and their RAVE updates. Nearly every playout passes there:
/// written at once, those cache lines move between the cores at every playout of
/// every thread, and every thread's next selection there must fetch them again. The worker's
/// own selection adds what it holds back, so it sees its own playouts at once and the other
/// threads' a batch late (the tree keeps what they held back out of its virtual losses too).
#[derive(Default)]
struct HeldBack {
    playouts: u32,
    root_visits: u32,
    root_half_points: u64,
    /// Per node (the first `nodes_in_use` entries): its index, and what is held back for each
    /// of its children, by the child's offset. The vectors are reused from batch to batch.
    children: Vec<(u32, Vec<HeldStats>)>,
    nodes_in_use: usize,
    /// Where each node's entry is in `children` (hot nodes make long lists).
    entry_of: FxHashMap<u32, usize>,
}

/// One child's held-back statistics.
#[derive(Clone, Copy, Default)]
struct HeldStats {
    visits: u32,
    half_points: u32,
    amaf_playouts: u32,
    amaf_half_points: u32,
}

impl HeldBack {
    /// What is held back for the children of `node`, if anything.
    fn children_of(&self, node: u32) -> Option<&[HeldStats]> {
        self.entry_of.get(&node).map(|&entry| &self.children[entry].1[..])
    }

    /// What is held back for the children of `node`, which has `child_count`; an entry is made
    /// when there is none.
    fn children_of_mut(&mut self, node: u32, child_count: usize) -> &mut [HeldStats] {
        let position = match self.entry_of.get(&node) {
            Some(&position) => position,
            None => {
                if self.nodes_in_use == self.children.len() {
                    self.children.push((node, Vec::new()));
                }
                let entry = &mut self.children[self.nodes_in_use];
                entry.0 = node;
                entry.1.clear();
                self.entry_of.insert(node, self.nodes_in_use);
                self.nodes_in_use += 1;
                self.nodes_in_use - 1
            }
        };
        // A node expanded by another thread since this batch first saw it has children now.
        let held = &mut self.children[position].1;
        if held.len() < child_count {
            held.resize(child_count, HeldStats::default());
        }
        held
    }
}

/// A value alone on its cache line (128 bytes: two lines, as adjacent-line prefetchers pair
/// them), so writes to its neighbours never take it from the cores that read it.
#[repr(align(128))]
struct CacheLine<T>(T);

/// With several threads, the statistics of nodes at a smaller depth than this (the root is at
/// depth 0) are held back ([`HeldBack`]): there all threads meet, however narrow the tree.
const HELD_BACK_DEPTH: usize = 3;

impl<G: Game> Search<G> {
    /// An empty search with the given settings.
    pub fn new(params: SearchParams) -> Search<G> {
        let arena = Self::new_arena(&params);
        let proven = Self::new_bounds_table(&params);
        Search {
            params,
            arena,
            root: NO_NODE,
            root_position: None,
            last_reused_visits: 0,
            root_losing_moves: Vec::new(),
            proven,
            expand_after: EXPAND_AFTER_VISITS,
            shared: false,
            running_threads: 1,
            expansion_proof: None,
            threat_hook: None,
            prior_hook: None,
            prior_hook_enabled: |_| true,
            playout_hook: None,
            threat_nodes_spent: CacheLine(AtomicU64::new(0)),
            threat_start_visits: 0,
            pending_replies: Mutex::new(FxHashMap::default()),
            fill_ins: RwLock::new(FxHashMap::default()),
            threat_deadline: None,
        }
    }

    /// The game's threat search or node knowledge, run once at the root and at every node
    /// that reaches the hook's visit threshold (with `solver` on); `None` turns it off. Nodes
    /// already searched keep what it found.
    pub fn set_threat_hook(&mut self, hook: Option<NodeSearch<G>>) {
        self.threat_hook = hook;
    }

    /// Whether the current search may start another node search within `budget`.
    fn threat_budget_left(&self, budget: NodeSearchBudget) -> bool {
        let playouts = self.arena.get(self.root).visits().saturating_sub(self.threat_start_visits) as u64;
        self.threat_nodes_spent.0.load(Ordering::Relaxed) <= budget.per_node + playouts * budget.per_playout
    }

    /// Runs the threat hook on an expanded node and records what it proved: a winning move's
    /// child is proven won (the descent then takes it, and the proof climbs from there), losing
    /// moves' children proven lost, and the children outside a defence set marked so that
    /// selection passes them by while a defence is worth searching.
    fn search_threats(&self, hook: ThreatHook<G>, per_node: u64, node_index: u32, position: &G) {
        let threats = hook(position, per_node);
        self.threat_nodes_spent.0.fetch_add(threats.nodes, Ordering::Relaxed);
        let node = self.arena.get(node_index);
        for child in node.children() {
            let child_node = self.arena.get(child);
            let mv = child_node.mv().expect("a child has a move");
            if threats.winning_move == Some(mv) {
                child_node.narrow_bounds(Bounds::exact(WIN));
            } else if threats.losing_moves.contains(&mv) {
                child_node.narrow_bounds(Bounds::exact(LOSS));
            }
            if threats.defences.as_ref().is_some_and(|defences| !defences.contains(&mv)) {
                child_node.mark_outside_defences();
            }
        }
        if threats.defences.is_some() {
            node.restrict_to_defences();
        }
        if self.params.playout_fill_in && !threats.fill_in.is_empty() {
            {
                let mut fill_ins = self.fill_ins.write().unwrap_or_else(|poisoned| poisoned.into_inner());
                if fill_ins.len() >= MAX_FILL_INS {
                    fill_ins.clear();
                }
                fill_ins.insert(position_key(position), threats.fill_in.as_slice().into());
            }
            node.mark_fill_in();
        }
        if self.params.reply_bonus > 0.0 {
            for (mv, answers) in &threats.replies {
                if let Some(child) = node.children().find(|&child| self.arena.get(child).mv() == Some(*mv)) {
                    self.favour_replies_below(child, position, *mv, answers);
                }
            }
        }
    }

    /// Favours `answers` among the moves of `child` (reached from `position` by `mv`): at once
    /// when its children exist, else when they come (see [`Search::pending_replies`]).
    fn favour_replies_below(&self, child: u32, position: &G, mv: G::Move, answers: &[G::Move]) {
        let child_node = self.arena.get(child);
        if !child_node.is_expanded() {
            let mut child_position = position.clone();
            child_position.play_unchecked(mv);
            let child_key = position_key(&child_position);
            {
                let mut pending = self.pending_replies.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                if pending.len() >= MAX_PENDING_REPLIES {
                    pending.clear();
                }
                pending.insert(child_key, answers.to_vec());
            }
            child_node.mark_replies_pending();
            // An expansion that finished meanwhile may not have seen the mark; whoever clears
            // the mark applies the answers.
            if !(child_node.is_expanded() && child_node.take_replies_pending()) {
                return;
            }
            let mut pending = self.pending_replies.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            pending.remove(&child_key);
        }
        self.favour_replies(child, answers);
    }

    /// Applies the answers waiting for `node_index` (of `position`), if any, once its children
    /// exist.
    fn apply_pending_replies(&self, node_index: u32, position: &G) {
        if !self.arena.get(node_index).take_replies_pending() {
            return;
        }
        let answers = {
            let mut pending = self.pending_replies.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            pending.remove(&position_key(position))
        };
        if let Some(answers) = answers {
            self.favour_replies(node_index, &answers);
        }
    }

    /// Moves probability to the children of `node_index` whose moves are in `answers`: each
    /// gains [`SearchParams::reply_bonus`] times the children's total probability, and all are
    /// scaled back to that total (with no probabilities yet, the total counts as 1).
    fn favour_replies(&self, node_index: u32, answers: &[G::Move]) {
        let node = self.arena.get(node_index);
        let is_answer = |child: u32| self.arena.get(child).mv().is_some_and(|mv| answers.contains(&mv));
        let answered = node.children().filter(|&child| is_answer(child)).count();
        if answered == 0 {
            return;
        }
        let total: f64 = node.children().map(|child| f64::from(self.arena.get(child).policy())).sum();
        let total = if total > 0.0 { total } else { 1.0 };
        let bonus = self.params.reply_bonus * total;
        let scale = 1.0 / (1.0 + self.params.reply_bonus * answered as f64);
        for child in node.children() {
            let child_node = self.arena.get(child);
            let gain = if is_answer(child) { bonus } else { 0.0 };
            child_node.set_policy(((f64::from(child_node.policy()) + gain) * scale) as f32);
        }
    }

    /// The game's playout from trained knowledge (see [`PlayoutHook`]), which replaces
    /// [`Game::playout`] while [`SearchParams::pattern_playouts`] is on; `None`: the game's own.
    pub fn set_playout_hook(&mut self, hook: Option<PlayoutHook<G>>) {
        self.playout_hook = hook;
    }

    /// A playout from `position`, by the playout hook where it is on, after the fill-in of the
    /// deepest node of the descent that has one ([`FillInCache::key`]), if any.
    fn play_out(&self, position: &mut G, rng: &mut SmallRng, fill_cache: &mut FillInCache<G>) -> Outcome {
        if let Some(key) = fill_cache.key {
            let stones = match fill_cache.known.get(&key) {
                Some(stones) => Some(stones.clone()),
                None => {
                    let fill_ins = self.fill_ins.read().unwrap_or_else(|poisoned| poisoned.into_inner());
                    let stones = fill_ins.get(&key).cloned();
                    if let Some(stones) = &stones {
                        // As bounded as the map it copies.
                        if fill_cache.known.len() >= MAX_FILL_INS {
                            fill_cache.known.clear();
                        }
                        fill_cache.known.insert(key, stones.clone());
                    }
                    stones
                }
            };
            if let Some(stones) = stones {
                position.fill_in(&stones);
            }
        }
        match self.playout_hook {
            Some(hook) if self.params.pattern_playouts => hook(position, rng),
            _ => position.playout(rng),
        }
    }

    /// Sets the priors of new nodes in place of [`Game::move_priors`] (with `priors` on);
    /// `None` goes back to the game's own.
    pub fn set_prior_hook(&mut self, hook: Option<PriorHook<G>>) {
        self.prior_hook = hook;
    }

    /// Ties the prior hook to a parameter: it replaces the game's priors only where `enabled`
    /// says so for the search's parameters (by default always).
    pub fn set_prior_hook_switch(&mut self, enabled: fn(&SearchParams) -> bool) {
        self.prior_hook_enabled = enabled;
    }

    /// Sets the proof asked at a node's first visit besides [`Game::proven_outcome`], for
    /// knowledge that the rules module may not hold (it needs a solver). Only sound answers.
    pub fn set_expansion_proof(&mut self, proof: Option<fn(&G) -> Option<Outcome>>) {
        self.expansion_proof = proof;
    }

    /// What the game's own knowledge, then the expansion proof, prove about `position`.
    fn knowledge_proof(&self, position: &G) -> Option<Outcome> {
        position.proven_outcome().or_else(|| self.expansion_proof.and_then(|prove| prove(position)))
    }

    /// Moves of the next search's root position proven to lose (for example by a connection
    /// the opponent completes whatever else is played): the search marks them lost and never
    /// plays them while another move remains. Every search takes the list set last.
    pub fn set_root_losing_moves(&mut self, moves: Vec<G::Move>) {
        self.root_losing_moves = moves;
    }

    /// Marks the root's children whose moves are in [`Self::set_root_losing_moves`]'s list as
    /// lost for their mover (no-op before the root is expanded; `expand` does it then).
    fn mark_root_losing_moves(&self, node_index: u32) {
        if self.root_losing_moves.is_empty() {
            return;
        }
        for child in self.arena.get(node_index).children() {
            let child_node = self.arena.get(child);
            if child_node.mv().is_some_and(|mv| self.root_losing_moves.contains(&mv)) {
                child_node.set_proof(Proof::MoverLoses);
            }
        }
    }

    /// A bounds table of about 1/128 of the memory cap (8 bytes a slot).
    fn new_bounds_table(params: &SearchParams) -> BoundsTable {
        let slots = (params.max_memory_mb.max(1) * 1024 * 1024 / 128 / 8).max(1);
        BoundsTable::new(slots.ilog2().clamp(10, 24))
    }

    fn new_arena(params: &SearchParams) -> Arena<G::Move> {
        let bytes = params.max_memory_mb.max(1) * 1024 * 1024;
        Arena::with_capacity(bytes / Arena::<G::Move>::node_size())
    }

    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// Changes the settings. A new memory cap drops the tree. Does not block.
    pub fn set_params(&mut self, params: SearchParams) {
        let drop_tree = params.max_memory_mb != self.params.max_memory_mb;
        self.params = params;
        if drop_tree {
            self.clear();
        }
    }

    /// Forgets the whole tree. Does not block.
    pub fn clear(&mut self) {
        self.arena = Self::new_arena(&self.params);
        self.root = NO_NODE;
        self.root_position = None;
        self.last_reused_visits = 0;
        self.proven = Self::new_bounds_table(&self.params);
    }

    /// Size and reuse figures of the kept tree.
    pub fn stats(&self) -> TreeStats {
        TreeStats {
            nodes: self.arena.len() as u64,
            root_visits: if self.root == NO_NODE { 0 } else { self.arena.get(self.root).visits() as u64 },
            reused_visits: self.last_reused_visits,
            memory_bytes: self.arena.memory_bytes() as u64,
            capacity_nodes: self.arena.capacity() as u64,
        }
    }

    /// Makes the tree's root stand for `position`, keeping the subtree of a matching earlier
    /// position: the old root itself or a node up to two moves below it, matched by position
    /// (hash and equality of the replayed position), not by history, so a GUI that replays the
    /// same moves after `clear_board` finds its tree again. Anything else starts a fresh tree.
    /// Returns the visits kept. Blocks for the copy (proportional to the kept subtree).
    pub fn advance_root(&mut self, position: &G) -> u64 {
        let found = self.root_position.as_ref().and_then(|old| self.find_descendant(old, position, 2));
        let kept = match found {
            Some(node) => {
                if node != self.root {
                    self.root = self.arena.retain_subtree(node);
                }
                let root = self.arena.get(self.root);
                // A node proven by game knowledge was never expanded: as a root it must be, so
                // the search finds the move behind the proof (finished games prove themselves
                // again at once).
                if !root.is_expanded() {
                    root.set_proof(Proof::Unknown);
                }
                self.mark_root_losing_moves(self.root);
                self.arena.get(self.root).visits() as u64
            }
            None => self.reset_to(),
        };
        self.root_position = Some(position.clone());
        self.last_reused_visits = kept;
        kept
    }

    fn reset_to(&mut self) -> u64 {
        self.pending_replies.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()).clear();
        self.fill_ins.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()).clear();
        self.arena = Self::new_arena(&self.params);
        self.root = self.arena.allocate_root().expect("a fresh arena has room for a root");
        0
    }

    /// The root statistics of the kept tree when its root stands for `position`, without
    /// searching (for `ponder-pv` and move values after a search). Does not block.
    pub fn kept_result(&self, position: &G) -> Option<SearchResult<G::Move>> {
        let root = self.root_position.as_ref()?;
        let same = root.hash() == position.hash() && root.to_move() == position.to_move();
        (same && self.arena.get(self.root).is_expanded()).then(|| self.result(position, 0, 0, Instant::now()))
    }

    /// The node up to `depth` moves below the root whose position equals `target`.
    fn find_descendant(&self, from: &G, target: &G, depth: u32) -> Option<u32> {
        let mut frontier = vec![(self.root, from.clone())];
        for level in 0..=depth {
            let mut next = Vec::new();
            for (node, position) in frontier {
                if position.hash() == target.hash() && position.to_move() == target.to_move() {
                    return Some(node);
                }
                if level == depth {
                    continue;
                }
                for child in self.arena.get(node).children() {
                    let mv = self.arena.get(child).mv().expect("a child has a move");
                    let mut child_position = position.clone();
                    child_position.play_unchecked(mv);
                    next.push((child, child_position));
                }
            }
            frontier = next;
        }
        None
    }

    /// Searches `position` until a limit is reached, `stop` is set, or the root is proven.
    /// Blocks until then; runs `params.threads` workers. Seeds the workers from `seed`, so one
    /// thread and a visit limit give the same result every time. `on_progress` is called from
    /// the calling thread about every `progress_interval` (analysis output) and must not block
    /// for long.
    pub fn run(
        &mut self,
        position: &G,
        limits: Limits,
        stop: &AtomicBool,
        seed: u64,
        progress: Option<Progress<'_, G::Move>>,
    ) -> SearchResult<G::Move> {
        let started = Instant::now();
        let reused_visits = self.advance_root(position);
        self.threat_nodes_spent.0.store(0, Ordering::Relaxed);
        self.threat_start_visits = self.arena.get(self.root).visits();
        let time_limit = match (limits.target_time, limits.max_time) {
            (Some(target), Some(max)) => Some(target.min(max)),
            (target, max) => target.or(max),
        };
        self.threat_deadline = time_limit.map(|limit| started + limit.saturating_sub(THREAT_TIME_MARGIN));
        let small_tree = position.plies_left_bound().is_some_and(|plies| plies <= SMALL_TREE_PLIES);
        self.expand_after = if small_tree { 1 } else { EXPAND_AFTER_VISITS };
        // Each on a cache line of its own: the helpers read `finished` after every playout, and
        // a counter written beside it would take the line from them each time.
        let playouts = CacheLine(AtomicU64::new(0));
        let threads = self.params.running_threads();
        self.shared = threads > 1;
        self.running_threads = threads as u32;
        let finished = CacheLine(AtomicBool::new(false));
        let this = &*self;
        std::thread::scope(|scope| {
            let mut helpers = Vec::with_capacity(threads - 1);
            for thread_index in 1..threads {
                let playouts = &playouts;
                let finished = &finished;
                helpers.push(scope.spawn(move || {
                    let mut worker = this.worker(seed, thread_index);
                    // Counted in batches: one shared counter bumped by every thread after every
                    // playout is a cache line all cores fight over.
                    let mut unreported = 0;
                    while !finished.0.load(Ordering::Relaxed) {
                        this.playout(position, &mut worker);
                        unreported += 1;
                        if unreported == PLAYOUT_COUNT_BATCH {
                            playouts.0.fetch_add(unreported, Ordering::Relaxed);
                            unreported = 0;
                        }
                    }
                    this.write_held_back(&mut worker.held_back);
                    playouts.0.fetch_add(unreported, Ordering::Relaxed);
                }));
            }
            // The calling thread is worker 0: it also watches the limits, so one thread needs
            // no second OS thread and stays deterministic.
            let mut worker = this.worker(seed, 0);
            let mut progress = progress;
            let mut next_report = progress.as_ref().map(|(interval, _)| started + *interval);
            // Worker 0 counts its own playouts in batches too; the total it checks adds those
            // it has not reported yet.
            let mut unreported = 0;
            for iteration in 0u64.. {
                let done = playouts.0.load(Ordering::Relaxed) + unreported;
                // One playout always runs, so the root is expanded and has a move to report.
                if done > 0
                    && (stop.load(Ordering::Relaxed)
                        || limits.max_visits.is_some_and(|max| done >= max)
                        || this.arena.get(this.root).proof() != Proof::Unknown
                        || (iteration % 16 == 0 && limits.max_time.is_some_and(|max| started.elapsed() >= max))
                        || (iteration % 256 == 0
                            && limits.target_time.is_some_and(|target| started.elapsed() >= target)
                            && !this.wants_more_time(&limits))
                        || (limits.stop_when_decided
                            && iteration % 256 == 255
                            && this.is_decided(&limits, done, started)))
                {
                    break;
                }
                this.playout(position, &mut worker);
                unreported += 1;
                if unreported == PLAYOUT_COUNT_BATCH || threads == 1 {
                    playouts.0.fetch_add(unreported, Ordering::Relaxed);
                    unreported = 0;
                }
                if let (Some(at), Some((interval, callback))) = (next_report, progress.as_mut())
                    && Instant::now() >= at
                {
                    let done = playouts.0.load(Ordering::Relaxed) + unreported;
                    callback(&this.result(position, done, reused_visits, started));
                    next_report = Some(Instant::now() + *interval);
                }
            }
            playouts.0.fetch_add(unreported, Ordering::Relaxed);
            finished.0.store(true, Ordering::Relaxed);
            this.write_held_back(&mut worker.held_back);
            // Joined explicitly, so every helper has exited (not just finished its closure)
            // when the search returns.
            for helper in helpers {
                let _ = helper.join();
            }
            // A last report, so analysis always shows the final state of a search.
            if let Some((_, callback)) = progress.as_mut() {
                callback(&this.result(position, playouts.0.load(Ordering::Relaxed), reused_visits, started));
            }
        });
        log::debug!("threat search: {} nodes", self.threat_nodes_spent.0.load(Ordering::Relaxed));
        self.result(position, playouts.0.load(Ordering::Relaxed), reused_visits, started)
    }

    /// Whether the most visited root move stays ahead whatever the playouts still allowed do:
    /// the remaining ones are estimated from the limits and the speed so far.
    fn is_decided(&self, limits: &Limits, done: u64, started: Instant) -> bool {
        let elapsed = started.elapsed().as_secs_f64().max(1e-6);
        let by_visits = limits.max_visits.map(|max| max.saturating_sub(done) as f64);
        // The target, not the hard limit: a settled choice gets no extension.
        let time = limits.target_time.or(limits.max_time);
        let by_time = time.map(|max| (max.as_secs_f64() - elapsed).max(0.0) * done as f64 / elapsed);
        let remaining = match (by_visits, by_time) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return false,
        };
        let mut first = 0u32;
        let mut second = 0u32;
        for child in self.arena.get(self.root).children() {
            let visits = self.arena.get(child).visits();
            if visits > first {
                second = first;
                first = visits;
            } else if visits > second {
                second = visits;
            }
        }
        (first - second) as f64 > remaining
    }

    /// Whether a search at its target time should go on towards its hard limit: the two most
    /// visited root moves are close (the choice may still change), or the best move's value has
    /// dropped below what the last search expected (trouble the search is still working out).
    /// A proven root needs nothing more.
    fn wants_more_time(&self, limits: &Limits) -> bool {
        let root = self.arena.get(self.root);
        if root.proof() != Proof::Unknown {
            return false;
        }
        let (mut first, mut second) = (None::<u32>, 0u32);
        for child in root.children() {
            let visits = self.arena.get(child).visits();
            match first {
                Some(best) if visits <= self.arena.get(best).visits() => second = second.max(visits),
                Some(best) => {
                    second = self.arena.get(best).visits();
                    first = Some(child);
                }
                None => first = Some(child),
            }
        }
        let Some(best) = first.map(|child| self.arena.get(child)) else { return false };
        let close = second as f64 >= SETTLED_VISIT_RATIO * best.visits() as f64;
        let dropped =
            limits.expected_value.is_some_and(|expected| best.mean_value() < expected - VALUE_DROP_FOR_MORE_TIME);
        close || dropped
    }

    fn worker(&self, seed: u64, thread_index: usize) -> Worker<G> {
        Worker {
            rng: SmallRng::seed_from_u64(seed ^ (thread_index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            path: Vec::new(),
            children_held: Vec::new(),
            root_visits_seen: 0,
            moves: Vec::new(),
            priors: Vec::new(),
            block: ArenaBlock::default(),
            held_back: HeldBack::default(),
            fill_in: FillInCache { key: None, known: FxHashMap::default() },
        }
    }

    /// One playout: descend by UCT to a leaf, expand or simulate, back up the result and any
    /// proof.
    fn playout(&self, root_position: &G, worker: &mut Worker<G>) {
        let mut position = root_position.clone();
        worker.path.clear();
        worker.children_held.clear();
        worker.path.push((self.root, position.to_move().opponent(), position_key(&position)));
        let mut node_index = self.root;
        worker.fill_in.key = None;
        // 1. Descend while the node is expanded, adding virtual loss on the way.
        let outcome = loop {
            let node = self.arena.get(node_index);
            let &(_, mover, key) = worker.path.last().expect("the path holds the root");
            if self.params.playout_fill_in && node.has_fill_in() {
                worker.fill_in.key = Some(key);
            }
            let depth = worker.path.len() - 1;
            // The visits this worker sees: the tree's and its own held back.
            let visits = node.visits() + self.held_back_visits(worker, depth);
            if depth == 0 {
                worker.root_visits_seen = visits;
            }
            if let Some(outcome) = outcome_of(node.proof(), mover) {
                break outcome;
            }
            // 2. A finished game proves its node.
            if let Some(outcome) = position.outcome() {
                node.set_proof(proof_for_mover(outcome, mover));
                break outcome;
            }
            // 3. A node seen for the first time gets a playout, unless game knowledge proves its
            //    position (asked once, at this first visit; proofs are kept with the node). The
            //    root is always expanded and never proven by knowledge, so a proven root always
            //    has its winning move in the tree.
            if visits == 0 && node_index != self.root {
                if self.params.solver
                    && let Some(outcome) = self.knowledge_proof(&position)
                {
                    let proof = proof_for_mover(outcome, mover);
                    node.set_proof(proof);
                    self.proven.insert(key, proof.bounds());
                    break outcome;
                }
                // A tiny subtree is solved outright.
                if position.plies_left_bound().is_some_and(|plies| plies <= SOLVE_AT_PLIES) {
                    let outcome = solve_small(&position);
                    let proof = proof_for_mover(outcome, mover);
                    node.set_proof(proof);
                    self.proven.insert(key, proof.bounds());
                    break outcome;
                }
                // A transposition may already be (partly) proven.
                if let Some(bounds) = self.proven.get(key) {
                    node.narrow_bounds(bounds);
                    if let Some(outcome) = outcome_of(node.proof(), mover) {
                        break outcome;
                    }
                }
                break self.play_out(&mut position, &mut worker.rng, &mut worker.fill_in);
            }
            // 4. A leaf is expanded once it has had a few playouts of its own: with priors the
            //    favoured child is revisited at once, and expanding at its second visit would
            //    allocate a whole row of children per playout and fill the memory cap within
            //    seconds on big boards.
            if !node.is_expanded() && node_index != self.root && visits < self.expand_after {
                break self.play_out(&mut position, &mut worker.rng, &mut worker.fill_in);
            }
            if !node.is_expanded() && !self.expand(node_index, &position, worker) {
                break self.play_out(&mut position, &mut worker.rng, &mut worker.fill_in);
            }
            // 5. The game's threat search, once per node (whichever thread claims it runs it;
            //    the others go on meanwhile): at the root, and at nodes the search keeps
            //    coming back to.
            if let Some(hook) = self.threat_hook
                && self.params.solver
                && let threshold = (hook.visits)(&self.params)
                && threshold > 0
                && (node_index == self.root || visits >= threshold)
                && !node.threat_search_claimed()
                && let budget = (hook.budget)(&self.params)
                && self.threat_budget_left(budget)
                && self.threat_deadline.is_none_or(|deadline| Instant::now() < deadline)
                && node.claim_threat_search()
            {
                self.search_threats(hook.search, budget.per_node, node_index, &position);
            }
            // Near the root and at hot nodes, every thread passes: their children's statistics
            // are held back there.
            let children_held_back = self.shared && (depth + 1 < HELD_BACK_DEPTH || visits >= self.hot_visits());
            worker.children_held.push(children_held_back);
            let held_back = if children_held_back { worker.held_back.children_of(node_index) } else { None };
            let child = self.select_child(node_index, visits, held_back);
            let child_node = self.arena.get(child);
            if !children_held_back {
                child_node.add_virtual_loss();
            }
            let to_move = position.to_move();
            position.play_unchecked(child_node.mv().expect("a child has a move"));
            worker.path.push((child, to_move, position_key(&position)));
            node_index = child;
        };
        // 6. Back up the reward, each node from its mover's view (held back near the root when
        //    several threads search; only the other nodes took a virtual loss).
        for (depth, &(node_index, mover, _)) in worker.path.iter().enumerate() {
            let reward = (outcome.reward_for(mover) * 2.0) as u64;
            let held = self.shared && (depth == 0 || worker.children_held[depth - 1]);
            if !held {
                self.arena.get(node_index).record_visit(reward, depth > 0);
            } else if depth == 0 {
                worker.held_back.root_visits += 1;
                worker.held_back.root_half_points += reward;
            } else {
                let parent = worker.path[depth - 1].0;
                let children = self.arena.get(parent).children();
                let offset = (node_index - children.start) as usize;
                let held = &mut worker.held_back.children_of_mut(parent, children.len())[offset];
                held.visits += 1;
                held.half_points += reward as u32;
            }
        }
        // 7. RAVE: the position is now the playout's final one (or the tree's last position when
        //    a proof or a full arena ended the descent early; its empty cells count for nobody).
        //    At every node of the path, each child whose cell ended up with the child's mover
        //    gets an all-moves-as-first update.
        if G::SUPPORTS_RAVE && self.params.rave {
            // RAVE games alternate strictly, so the children's mover is the node's mover's
            // opponent.
            for (depth, &(node_index, mover, _)) in worker.path.iter().enumerate() {
                let child_mover = mover.opponent();
                let reward = (outcome.reward_for(child_mover) * 2.0) as u32;
                let children = self.arena.get(node_index).children();
                let children_held = worker.children_held.get(depth).copied().unwrap_or(false);
                let mut held_back = children_held.then(|| worker.held_back.children_of_mut(node_index, children.len()));
                for (offset, child) in children.enumerate() {
                    let child_node = self.arena.get(child);
                    if position.amaf_owner(child_node.mv().expect("a child has a move")) == Some(child_mover) {
                        match held_back.as_mut() {
                            Some(held_back) => {
                                held_back[offset].amaf_playouts += 1;
                                held_back[offset].amaf_half_points += reward;
                            }
                            None => child_node.record_amaf(1, reward),
                        }
                    }
                }
            }
        }
        // 8. Narrow the value bounds upwards as far as they change (a node's bounds follow from
        //    its children's alone, so an unchanged node changes none of its ancestors).
        //    Every narrowed node's bounds go into the table for its transpositions.
        if let Some(&(leaf, _, key)) = worker.path.last() {
            self.proven.insert(key, self.arena.get(leaf).bounds());
        }
        for &(node_index, _, key) in worker.path.iter().rev().skip(1) {
            match self.bounds_from_children(node_index) {
                Some(bounds) if self.arena.get(node_index).narrow_bounds(bounds) => {
                    self.proven.insert(key, self.arena.get(node_index).bounds());
                }
                _ => break,
            }
        }
        if self.shared {
            worker.held_back.playouts += 1;
            if worker.held_back.playouts >= self.held_back_batch(worker.root_visits_seen) {
                self.write_held_back(&mut worker.held_back);
            }
        }
    }

    /// Visits from which a node's children's statistics are held back when threads share the
    /// tree (see [`HOT_NODE_VISITS_PER_HELD_PLAYOUT`]).
    fn hot_visits(&self) -> u32 {
        (self.running_threads * HELD_BACK_PLAYOUTS * HOT_NODE_VISITS_PER_HELD_PLAYOUT).max(MIN_HOT_NODE_VISITS)
    }

    /// Playouts a worker holds back before writing them, when the root has `root_visits`.
    fn held_back_batch(&self, root_visits: u32) -> u32 {
        (root_visits / (self.running_threads * HELD_BACK_SHARE)).clamp(HELD_BACK_PLAYOUTS, MAX_HELD_BACK_PLAYOUTS)
    }

    /// The visits `worker` holds back for the node at `depth` of its path.
    fn held_back_visits(&self, worker: &Worker<G>, depth: usize) -> u32 {
        if !self.shared {
            return 0;
        }
        if depth == 0 {
            return worker.held_back.root_visits;
        }
        if !worker.children_held[depth - 1] {
            return 0;
        }
        let (parent, node) = (worker.path[depth - 1].0, worker.path[depth].0);
        let offset = (node - self.arena.get(parent).children().start) as usize;
        worker.held_back.children_of(parent).and_then(|held| held.get(offset)).map_or(0, |held| held.visits)
    }

    /// Writes a worker's held-back statistics into the tree.
    fn write_held_back(&self, held_back: &mut HeldBack) {
        if held_back.root_visits > 0 {
            self.arena.get(self.root).record_visits(held_back.root_visits, held_back.root_half_points);
        }
        for (node, held) in &held_back.children[..held_back.nodes_in_use] {
            for (child, held) in self.arena.get(*node).children().zip(held) {
                let child = self.arena.get(child);
                if held.visits > 0 {
                    child.record_visits(held.visits, held.half_points as u64);
                }
                if held.amaf_playouts > 0 {
                    child.record_amaf(held.amaf_playouts, held.amaf_half_points);
                }
            }
        }
        held_back.nodes_in_use = 0;
        held_back.entry_of.clear();
        held_back.playouts = 0;
        held_back.root_visits = 0;
        held_back.root_half_points = 0;
    }

    /// Creates the children of a leaf in a random order (ties in selection then break randomly
    /// but reproducibly). False when another thread is expanding it or the arena is full.
    fn expand(&self, node_index: u32, position: &G, worker: &mut Worker<G>) -> bool {
        let node = self.arena.get(node_index);
        if !node.try_begin_expansion() {
            return node.is_expanded();
        }
        worker.moves.clear();
        position.legal_moves(&mut worker.moves);
        shuffle(&mut worker.moves, &mut worker.rng);
        let allocated = if self.shared {
            self.arena.allocate_from(&mut worker.block, worker.moves.iter().copied())
        } else {
            self.arena.allocate(worker.moves.iter().copied())
        };
        match allocated {
            Some(first) => {
                if self.params.priors {
                    worker.priors.clear();
                    worker.priors.resize(worker.moves.len(), Prior::NONE);
                    match self.prior_hook.filter(|_| (self.prior_hook_enabled)(&self.params)) {
                        Some(priors) => priors(position, &worker.moves, &mut worker.priors),
                        None => position.move_priors(&worker.moves, &mut worker.priors),
                    }
                    for (offset, prior) in worker.priors.iter().enumerate() {
                        let child = self.arena.get(first + offset as u32);
                        if prior.visits > 0 {
                            child.set_prior(prior.visits, prior.value);
                        }
                        if prior.policy > 0.0 {
                            child.set_policy(prior.policy);
                        }
                    }
                }
                // In a small tree transpositions abound: children already proven elsewhere
                // start with their bounds, so a node can be proven without visiting them.
                if self.expand_after == 1 {
                    for (offset, &mv) in worker.moves.iter().enumerate() {
                        let mut child_position = position.clone();
                        child_position.play_unchecked(mv);
                        if let Some(bounds) = self.proven.get(position_key(&child_position)) {
                            self.arena.get(first + offset as u32).narrow_bounds(bounds);
                        }
                    }
                }
                node.finish_expansion(first, worker.moves.len() as u32);
                if node_index == self.root {
                    self.mark_root_losing_moves(node_index);
                }
                self.apply_pending_replies(node_index, position);
                true
            }
            None => {
                node.abandon_expansion();
                false
            }
        }
    }

    /// UCT choice among the children of an expanded node: a proven win is taken at once, and a
    /// child that cannot beat what another child already secures (its optimistic bound at most
    /// the best pessimistic one) is skipped while anything else remains (score-bounded MCTS). A
    /// child's statistics are its real visits (plus virtual losses) and its prior's
    /// pseudo-visits together; with RAVE their mean is blended with the child's
    /// all-moves-as-first mean (Silver's minimum-error weight); the mean is then clamped into
    /// the child's proven range. A child with neither visits nor prior nor RAVE statistics comes
    /// before any other. `visits` are the node's own as this worker sees them, and `held_back`
    /// what the worker holds back for the children (see [`HeldBack`]). When the threat search
    /// restricted the node to the defences of an opponent's threat, the children outside them
    /// compete only once no defence scores as worth searching (every one proven useless).
    fn select_child(&self, node_index: u32, visits: u32, held_back: Option<&[HeldStats]>) -> u32 {
        let node = self.arena.get(node_index);
        let children = node.children();
        let secured = children.clone().map(|child| self.arena.get(child).bounds().pessimistic).max().unwrap_or(LOSS);
        let parent_visits = (visits + node.virtual_loss()).max(1) as f64;
        let log_parent = parent_visits.ln();
        let rave = G::SUPPORTS_RAVE && self.params.rave;
        let exploration =
            if rave { self.params.exploration * RAVE_EXPLORATION_FACTOR } else { self.params.exploration };
        let mut best = children.start;
        let mut best_score = f64::NEG_INFINITY;
        let (mut best_outside, mut best_outside_score) = (NO_NODE, f64::NEG_INFINITY);
        let defences_only = node.defences_only();
        let children_start = children.start;
        for child in children {
            let child_node = self.arena.get(child);
            let held =
                held_back.and_then(|held| held.get((child - children_start) as usize)).copied().unwrap_or_default();
            let bounds = child_node.bounds();
            let score = if bounds.pessimistic == WIN {
                return child;
            } else if bounds.optimistic <= secured {
                // Useless unless nothing else is left (then the node is solved, and the
                // descent only gets here while another thread is proving it).
                -1.0 + bounds.pessimistic as f64 * 0.25
            } else {
                let (prior_visits, prior_half_points) = child_node.prior();
                let (real_visits, virtual_losses) = child_node.visit_counts();
                let visits = (real_visits + held.visits + virtual_losses + prior_visits) as f64;
                let (amaf_visits, amaf_half_points) = if rave {
                    let (playouts, half_points) = child_node.amaf();
                    (playouts + held.amaf_playouts, half_points + held.amaf_half_points)
                } else {
                    (0, 0)
                };
                if visits == 0.0 && amaf_visits == 0 {
                    f64::INFINITY
                } else {
                    let mean = if visits == 0.0 {
                        amaf_half_points as f64 / (2.0 * amaf_visits as f64)
                    } else {
                        let half_points =
                            (child_node.half_points() + held.half_points as u64 + prior_half_points as u64) as f64;
                        // (1 - beta) * mean + beta * amaf_mean with Silver's beta, over one
                        // common denominator: one division instead of three (selection runs over
                        // every child of every node on the path, a hundred and more in Hex).
                        let (amaf_visits, amaf_half_points) = (amaf_visits as f64, amaf_half_points as f64);
                        let amaf_weight = amaf_visits * (1.0 / RAVE_EQUIVALENCE);
                        ((1.0 + amaf_weight) * half_points + amaf_half_points)
                            / (2.0 * (visits + amaf_visits + visits * amaf_weight))
                    };
                    let mean = mean.clamp(bounds.pessimistic as f64 / 2.0, bounds.optimistic as f64 / 2.0);
                    // The bias fades with the child's visits as this worker sees them (its
                    // held-back ones and those under way included), not with pseudo-visits.
                    // Games without a move model pay no square root per child.
                    let policy = child_node.policy();
                    let bias = if policy > 0.0 {
                        self.params.progressive_bias * f64::from(policy)
                            / f64::from(real_visits + held.visits + virtual_losses + 1).sqrt()
                    } else {
                        0.0
                    };
                    mean + exploration * (log_parent / visits.max(1.0)).sqrt() + bias
                }
            };
            if defences_only && child_node.is_outside_defences() {
                if score > best_outside_score {
                    best_outside_score = score;
                    best_outside = child;
                }
            } else if score > best_score {
                best_score = score;
                best = child;
            }
        }
        // Useless children score below 0, every other child at least 0.
        if best_outside != NO_NODE && best_score < 0.0 && best_outside_score > best_score { best_outside } else { best }
    }

    /// What the children prove about a node's value from its mover's view: the mover is sure of
    /// what is left after the opponent's best hope, and can hope for what is left after the
    /// opponent's surest move. `None` before the node is expanded.
    fn bounds_from_children(&self, node_index: u32) -> Option<Bounds> {
        let children = self.arena.get(node_index).children();
        if children.is_empty() {
            return None;
        }
        let (mut best_optimistic, mut best_pessimistic) = (LOSS, LOSS);
        for child in children {
            let bounds = self.arena.get(child).bounds();
            best_optimistic = best_optimistic.max(bounds.optimistic);
            best_pessimistic = best_pessimistic.max(bounds.pessimistic);
        }
        Some(Bounds { pessimistic: WIN - best_optimistic, optimistic: WIN - best_pessimistic })
    }

    /// Root statistics and the move to play.
    fn result(&self, position: &G, playouts: u64, reused_visits: u64, started: Instant) -> SearchResult<G::Move> {
        let root = self.arena.get(self.root);
        let mut moves: Vec<MoveStats<G::Move>> = root
            .children()
            .map(|child| {
                let node = self.arena.get(child);
                let mv = node.mv().expect("a child has a move");
                MoveStats {
                    mv,
                    visits: node.visits(),
                    value: node.mean_value(),
                    proof: node.proof(),
                    bounds: node.bounds(),
                    pv: self.principal_variation(child),
                    policy: node.policy(),
                }
            })
            .collect();
        // Best first: proven wins, then the moves that can still reach what the best of them
        // secures, by visits; the moves that cannot (proven losses among them) last.
        let secured = moves.iter().map(|stats| stats.bounds.pessimistic).max().unwrap_or(LOSS);
        let rank = |stats: &MoveStats<G::Move>| {
            if stats.bounds.pessimistic == WIN {
                0
            } else if stats.bounds.optimistic < secured
                || (stats.bounds.optimistic == secured && (stats.bounds.pessimistic < secured || secured == LOSS))
            {
                2
            } else {
                1
            }
        };
        moves.sort_by(|a, b| rank(a).cmp(&rank(b)).then(b.visits.cmp(&a.visits)).then(b.value.total_cmp(&a.value)));
        let root_proof = match root.proof() {
            Proof::Unknown => RootProof::Unknown,
            Proof::MoverWins => RootProof::Loss,
            Proof::MoverLoses => RootProof::Win,
            Proof::Draw => RootProof::Draw,
        };
        // A secured result is never left for a move whose playouts promise less: in a solved
        // root that is any move short of proof, elsewhere an unproven move scoring below it.
        let keeps_secured = |stats: &MoveStats<G::Move>| {
            stats.bounds.pessimistic >= secured
                || (root_proof == RootProof::Unknown && stats.value >= secured as f64 / 2.0)
        };
        let best_move = match moves.first() {
            Some(first) if secured > LOSS && !keeps_secured(first) => {
                moves.iter().find(|stats| stats.bounds.pessimistic == secured).map(|stats| stats.mv)
            }
            first => first.map(|stats| stats.mv),
        };
        let best_move = best_move.or_else(|| {
            // An unexpanded root (no playout ran): any legal move.
            let mut legal = Vec::new();
            position.legal_moves(&mut legal);
            legal.first().copied()
        });
        SearchResult { best_move, moves, playouts, reused_visits, root_proof, elapsed: started.elapsed() }
    }

    fn principal_variation(&self, from: u32) -> Vec<G::Move> {
        let mut pv = Vec::new();
        let mut node_index = from;
        loop {
            let node = self.arena.get(node_index);
            pv.push(node.mv().expect("a child has a move"));
            let best = node.children().max_by_key(|&child| {
                let child_node = self.arena.get(child);
                (child_node.proof() == Proof::MoverWins, child_node.visits())
            });
            match best {
                Some(child) if self.arena.get(child).visits() > 0 && pv.len() < 32 => node_index = child,
                _ => return pv,
            }
        }
    }
}

/// The outcome of `position` with perfect play, by alpha-beta over the whole remaining tree:
/// only for positions a few plies from the end (see [`SOLVE_AT_PLIES`]).
fn solve_small<G: Game>(position: &G) -> Outcome {
    /// The value for the side to move: 1 win, 0 draw, -1 loss.
    fn negamax<G: Game>(position: &G, mut alpha: i8, beta: i8) -> i8 {
        if let Some(outcome) = position.outcome() {
            return match outcome {
                Outcome::Draw => 0,
                Outcome::Win(winner) if winner == position.to_move() => 1,
                Outcome::Win(_) => -1,
            };
        }
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut best = -1;
        for mv in moves {
            let mut child = position.clone();
            child.play_unchecked(mv);
            best = best.max(-negamax(&child, -beta, -alpha));
            alpha = alpha.max(best);
            if alpha >= beta {
                break;
            }
        }
        best
    }
    let me = position.to_move();
    match negamax(position, -1, 1) {
        1 => Outcome::Win(me),
        0 => Outcome::Draw,
        _ => Outcome::Win(me.opponent()),
    }
}

/// The key of `position` in the bounds table: its hash, told apart by the side to move.
fn position_key<G: Game>(position: &G) -> u64 {
    match position.to_move() {
        Color::Black => position.hash(),
        Color::White => position.hash() ^ 0x5851_F42D_4C95_7F2D,
    }
}

/// The outcome a proof stands for, given the node's mover; `None` for `Unknown`.
fn outcome_of(proof: Proof, mover: Color) -> Option<Outcome> {
    match proof {
        Proof::Unknown => None,
        Proof::MoverWins => Some(Outcome::Win(mover)),
        Proof::MoverLoses => Some(Outcome::Win(mover.opponent())),
        Proof::Draw => Some(Outcome::Draw),
    }
}

/// The proof a finished or knowledge-proven `outcome` gives a node whose mover is `mover`.
fn proof_for_mover(outcome: Outcome, mover: Color) -> Proof {
    match outcome {
        Outcome::Draw => Proof::Draw,
        Outcome::Win(winner) if winner == mover => Proof::MoverWins,
        Outcome::Win(_) => Proof::MoverLoses,
    }
}

/// Fisher-Yates shuffle with our RNG.
fn shuffle<T>(items: &mut [T], rng: &mut SmallRng) {
    use rand::Rng;
    for i in (1..items.len()).rev() {
        items.swap(i, rng.random_range(0..=i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::GameConfig;
    use crate::games::mnk::{Mnk, MnkConfig};
    use rustc_hash::FxHashMap;

    fn minimax(position: &Mnk, cache: &mut FxHashMap<u64, i32>) -> i32 {
        crate::games::testing::minimax_value(position, cache)
    }

    fn every_position(position: &Mnk, seen: &mut FxHashMap<u64, Mnk>) {
        if seen.insert(position.hash(), position.clone()).is_some() || position.outcome().is_some() {
            return;
        }
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        for mv in moves {
            let mut child = position.clone();
            child.play_unchecked(mv);
            every_position(&child, seen);
        }
    }

    fn check_every_position_keeps_its_value(config: &MnkConfig) {
        let mut positions = FxHashMap::default();
        every_position(&Mnk::new(config), &mut positions);
        let mut cache = FxHashMap::default();
        // 20,000 visits a move is what the issue asks to be perfect with (score bounds prove
        // draws and prune what cannot beat them; the bounds table shares proofs between
        // transpositions).
        let limits = Limits { max_visits: Some(20_000), ..Limits::default() };
        let stop = AtomicBool::new(false);
        let mut search = Search::new(SearchParams { max_memory_mb: 64, ..SearchParams::default() });
        let mut checked = 0;
        for position in positions.values().filter(|p| p.outcome().is_none()) {
            let value = minimax(position, &mut cache);
            search.clear();
            let result = search.run(position, limits, &stop, 7, None);
            let mv = result.best_move.expect("a running game has a move");
            let mut after = position.clone();
            after.play(mv).unwrap();
            assert_eq!(
                -minimax(&after, &mut cache),
                value,
                "{}\nplayed {}",
                position.board_text(),
                position.format_move(mv)
            );
            checked += 1;
        }
        // 5,478 reachable positions, 958 of them finished (a classical count).
        assert_eq!(checked, 5_478 - 958);
    }

    #[test]
    fn tictactoe_is_solved_a_draw_well_within_20000_visits_and_then_answered_at_once() {
        for misere in [false, true] {
            let mut config = MnkConfig::tictactoe();
            config.set_param("misere", if misere { "1" } else { "0" }).unwrap();
            let position = Mnk::new(&config);
            let stop = AtomicBool::new(false);
            let limits = Limits { max_visits: Some(20_000), ..Limits::default() };
            let mut search = Search::new(SearchParams { max_memory_mb: 16, ..SearchParams::default() });
            let first = search.run(&position, limits, &stop, 5, None);
            assert_eq!(first.root_proof, RootProof::Draw, "misère {misere}");
            assert!(first.playouts < 20_000, "misère {misere}: {} playouts", first.playouts);
            // Misère's only drawing first move is the centre.
            if misere {
                assert_eq!(first.best_move, Some(position.parse_move("b2").unwrap()));
            }
            let again = search.run(&position, limits, &stop, 6, None);
            assert_eq!((again.root_proof, again.playouts), (RootProof::Draw, 1));
        }
    }

    /// Plays `games` games of tic-tac-toe (or misère) between the search at 20,000 visits a move
    /// (its tree kept from move to move) and a uniformly random player; the search's results.
    fn against_random_players(misere: bool, games: u64) -> [u32; 3] {
        use rand::Rng;
        let mut config = MnkConfig::tictactoe();
        config.set_param("misere", if misere { "1" } else { "0" }).unwrap();
        let stop = AtomicBool::new(false);
        let limits = Limits { max_visits: Some(20_000), ..Limits::default() };
        let mut results = [0; 3];
        for game in 0..games {
            let mut rng = SmallRng::seed_from_u64(game);
            let mut search = Search::new(SearchParams { max_memory_mb: 16, ..SearchParams::default() });
            let ours = if game % 2 == 0 { Color::Black } else { Color::White };
            let mut position = Mnk::new(&config);
            while position.outcome().is_none() {
                let mv = if position.to_move() == ours {
                    search.run(&position, limits, &stop, game, None).best_move.unwrap()
                } else {
                    let mut moves = Vec::new();
                    position.legal_moves(&mut moves);
                    moves[rng.random_range(0..moves.len())]
                };
                position.play(mv).unwrap();
            }
            match position.outcome().unwrap() {
                Outcome::Win(winner) if winner == ours => results[0] += 1,
                Outcome::Draw => results[1] += 1,
                Outcome::Win(_) => results[2] += 1,
            }
        }
        results
    }

    #[test]
    fn tictactoe_never_loses_to_random_players() {
        for misere in [false, true] {
            let [wins, draws, losses] = against_random_players(misere, 200);
            assert_eq!(losses, 0, "misère {misere}: {wins} wins, {draws} draws");
            // A random player errs often enough that perfect play wins many games.
            assert!(wins > 50, "misère {misere}: {wins} wins, {draws} draws");
        }
    }

    #[test]
    fn threads_beyond_the_cores_run_only_when_forced() {
        let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
        let asked = SearchParams { threads: cores + 7, ..SearchParams::default() };
        assert_eq!(asked.running_threads(), cores);
        assert_eq!(SearchParams { force_threads: true, ..asked.clone() }.running_threads(), cores + 7);
        assert_eq!(SearchParams { threads: 0, ..asked }.running_threads(), 1);
    }

    /// Walks the tree under `node`: no virtual loss is left, children never have more visits
    /// than their parent, and no child has more RAVE playouts than its parent has visits (each
    /// playout through a node updates a child at most once). Returns the nodes seen.
    fn check_statistics<G: Game>(search: &Search<G>, node: u32) -> u64 {
        let arena = &search.arena;
        let (visits, virtual_losses) = arena.get(node).visit_counts();
        assert_eq!(virtual_losses, 0, "a finished search leaves no visit under way");
        let children = arena.get(node).children();
        let child_visits: u64 = children.clone().map(|child| arena.get(child).visits() as u64).sum();
        assert!(child_visits <= visits as u64);
        let mut nodes = 1;
        for child in children {
            assert!(arena.get(child).amaf().0 <= visits);
            nodes += check_statistics(search, child);
        }
        nodes
    }

    #[test]
    fn parallel_searches_account_for_every_playout() {
        // Four threads with RAVE: the root's statistics written in batches and the children
        // cut from each worker's arena block must add up to what one writer leaves.
        let mut config = crate::games::hex::HexConfig::default();
        config.set_size(8, 8).unwrap();
        let position = crate::games::hex::Hex::new(&config);
        let params = SearchParams {
            threads: 4,
            force_threads: true,
            solver: false,
            max_memory_mb: 64,
            ..SearchParams::default()
        };
        let mut search = Search::new(params);
        let stop = AtomicBool::new(false);
        let limits = Limits { max_visits: Some(30_000), ..Limits::default() };
        let result = search.run(&position, limits, &stop, 5, None);
        let root = search.arena.get(search.root);
        assert!(result.playouts >= 30_000);
        assert_eq!(root.visits() as u64, result.playouts, "every playout counted once at the root");
        let root_amaf: u64 = root.children().map(|child| search.arena.get(child).amaf().0 as u64).sum();
        assert!(root_amaf > result.playouts, "the root's children got their RAVE playouts");
        assert!(check_statistics(&search, search.root) > 1_000);
    }

    #[test]
    fn parallel_searches_hold_back_hot_nodes_deep_in_a_narrow_tree() {
        // Connect Four's tree is narrow and deep: its principal line has nodes past the fixed
        // held-back depth with thousands of visits, whose children every thread holds back.
        // Descent and backup must agree on which nodes those are, or virtual losses stay.
        let position = crate::games::connect4::Connect4::new(&crate::games::connect4::Connect4Config::default());
        let params = SearchParams { threads: 4, force_threads: true, max_memory_mb: 64, ..SearchParams::default() };
        let mut search = Search::new(params);
        let limits = Limits { max_visits: Some(200_000), ..Limits::default() };
        let result = search.run(&position, limits, &AtomicBool::new(false), 3, None);
        assert_eq!(search.arena.get(search.root).visits() as u64, result.playouts);
        let mut node = search.root;
        let mut depth = 0;
        while let Some(child) = search.arena.get(node).children().max_by_key(|&c| search.arena.get(c).visits()) {
            if search.arena.get(child).visits() < search.hot_visits() {
                break;
            }
            (node, depth) = (child, depth + 1);
        }
        assert!(depth > HELD_BACK_DEPTH, "hot nodes only to depth {depth}");
        check_statistics(&search, search.root);
    }

    #[test]
    fn parallel_searches_prove_misere_tictactoe_a_draw_through_the_centre() {
        // The nodes near the root, whose statistics the threads hold back, are where this proof
        // is decided: every first move but the centre loses.
        let mut config = MnkConfig::tictactoe();
        config.set_param("misere", "1").unwrap();
        let position = Mnk::new(&config);
        for seed in 0..4 {
            let params = SearchParams { threads: 4, force_threads: true, max_memory_mb: 16, ..SearchParams::default() };
            let mut search = Search::new(params);
            let limits = Limits { max_visits: Some(50_000), ..Limits::default() };
            let result = search.run(&position, limits, &AtomicBool::new(false), seed, None);
            assert_eq!(result.root_proof, RootProof::Draw, "seed {seed}");
            assert_eq!(result.best_move, Some(position.parse_move("b2").unwrap()), "seed {seed}");
            assert_eq!(search.arena.get(search.root).visits() as u64, result.playouts);
            check_statistics(&search, search.root);
        }
    }

    #[test]
    fn a_falling_value_asks_for_more_time_and_a_proven_root_does_not() {
        let position = Mnk::new(&MnkConfig::gomoku());
        let stop = AtomicBool::new(false);
        let mut search = Search::new(SearchParams { max_memory_mb: 64, ..SearchParams::default() });
        let limits = Limits { max_visits: Some(3_000), ..Limits::default() };
        let result = search.run(&position, limits, &stop, 9, None);
        let best_value = result.moves[0].value;
        let hoped = Limits { expected_value: Some(best_value + 2.0 * VALUE_DROP_FOR_MORE_TIME), ..limits };
        assert!(search.wants_more_time(&hoped));
        // A solved root needs no time at all, whatever was expected.
        let ttt = Mnk::new(&MnkConfig::tictactoe());
        let mut solved = Search::new(SearchParams { max_memory_mb: 16, ..SearchParams::default() });
        solved.run(&ttt, Limits { max_visits: Some(20_000), ..Limits::default() }, &stop, 9, None);
        assert!(!solved.wants_more_time(&Limits { expected_value: Some(1.0), ..Limits::default() }));
    }

    #[test]
    fn tictactoe_moves_never_change_the_value() {
        check_every_position_keeps_its_value(&MnkConfig::tictactoe());
    }

    #[test]
    fn misere_tictactoe_moves_never_change_the_value() {
        let mut config = MnkConfig::tictactoe();
        config.set_param("misere", "1").unwrap();
        check_every_position_keeps_its_value(&config);
    }

    #[test]
    fn root_losing_moves_are_never_played_fresh_or_kept() {
        // Tic-tac-toe's centre draws like every opening; declared lost, it is never chosen, and
        // the declaration also reaches a root whose tree is kept from the last search.
        let position = Mnk::new(&MnkConfig::tictactoe());
        let centre = position.parse_move("b2").unwrap();
        let stop = AtomicBool::new(false);
        let limits = Limits { max_visits: Some(2_000), ..Limits::default() };
        let mut search = Search::new(SearchParams { max_memory_mb: 16, ..SearchParams::default() });
        let free = search.run(&position, limits, &stop, 3, None);
        assert_eq!(free.root_proof, RootProof::Draw);
        search.set_root_losing_moves(vec![centre]);
        let kept = search.run(&position, limits, &stop, 3, None);
        assert_ne!(kept.best_move, Some(centre));
        search.clear();
        let fresh = search.run(&position, limits, &stop, 3, None);
        assert_ne!(fresh.best_move, Some(centre));
        let centre_stats = fresh.moves.iter().find(|stats| stats.mv == centre).expect("b2 is a root move");
        assert!(centre_stats.visits <= 1, "{centre_stats:?}");
    }

    #[test]
    fn one_thread_with_a_seed_is_deterministic() {
        let position = Mnk::new(&MnkConfig::gomoku());
        let limits = Limits { max_visits: Some(3_000), ..Limits::default() };
        let stop = AtomicBool::new(false);
        let run = || {
            let mut search = Search::new(SearchParams { max_memory_mb: 64, ..SearchParams::default() });
            let result = search.run(&position, limits, &stop, 42, None);
            (result.best_move, result.moves.iter().map(|m| (m.mv, m.visits)).collect::<Vec<_>>())
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn the_tree_is_found_again_after_two_moves() {
        let mut position = Mnk::new(&MnkConfig::gomoku());
        let stop = AtomicBool::new(false);
        let mut search = Search::new(SearchParams { max_memory_mb: 64, ..SearchParams::default() });
        let limits = Limits { max_visits: Some(20_000), ..Limits::default() };
        let first = search.run(&position, limits, &stop, 1, None);
        let reply = first.moves[0].pv.get(1).copied().expect("the best move has a reply");
        position.play(first.best_move.unwrap()).unwrap();
        position.play(reply).unwrap();
        let kept = search.advance_root(&position);
        assert!(kept > 0, "the subtree after the expected reply is kept");
        // A position three moves away starts afresh.
        let mut elsewhere = Mnk::new(&MnkConfig::gomoku());
        elsewhere.play(elsewhere.parse_move("A1").unwrap()).unwrap();
        elsewhere.play(elsewhere.parse_move("A2").unwrap()).unwrap();
        elsewhere.play(elsewhere.parse_move("A3").unwrap()).unwrap();
        assert_eq!(search.advance_root(&elsewhere), 0);
    }

    /// Every expanded node has at least as many visits as its children together, and every
    /// child's move is legal in its parent's position.
    fn check_tree(search: &Search<Mnk>, node: u32, position: &Mnk) -> u64 {
        let arena = &search.arena;
        let mut nodes = 1;
        let children = arena.get(node).children();
        let child_visits: u64 = children.clone().map(|c| arena.get(c).visits() as u64).sum();
        assert!(child_visits <= arena.get(node).visits() as u64);
        for child in children {
            let mv = arena.get(child).mv().unwrap();
            assert!(position.is_legal(mv));
            let mut next = position.clone();
            next.play_unchecked(mv);
            nodes += check_tree(search, child, &next);
        }
        nodes
    }

    #[test]
    fn a_whole_game_with_tree_reuse_keeps_the_tree_consistent() {
        let mut config = MnkConfig::gomoku();
        config.set_size(9, 9).unwrap();
        let mut position = Mnk::new(&config);
        let stop = AtomicBool::new(false);
        let mut search = Search::new(SearchParams { max_memory_mb: 16, threads: 2, ..SearchParams::default() });
        let limits = Limits { max_visits: Some(3_000), ..Limits::default() };
        let mut reused_total = 0;
        while position.outcome().is_none() {
            let result = search.run(&position, limits, &stop, 5, None);
            reused_total += result.reused_visits;
            position.play(result.best_move.unwrap()).unwrap();
            search.advance_root(&position);
            // Every arena node is reachable after compaction, but for the slots a child range
            // left empty at the end of a chunk (it never straddles two).
            let nodes = check_tree(&search, search.root, &position);
            let arena_nodes = search.stats().nodes;
            assert!(nodes <= arena_nodes && arena_nodes - nodes <= arena_nodes / 65_536 * 81, "{nodes} {arena_nodes}");
        }
        assert!(reused_total > 0);
    }

    /// Tic-tac-toe with test knowledge: a prior of `prior` for the move `favourite` (and a
    /// neutral one for every other move), and, when `proofs`, the exact value as a knowledge
    /// proof of every position with at most four empty cells.
    #[derive(Clone, Debug, PartialEq)]
    struct Knowing {
        inner: Mnk,
        favourite: Option<(u16, Prior)>,
        proofs: bool,
    }

    impl Game for Knowing {
        type Move = crate::games::mnk::Cell;
        type Config = MnkConfig;

        fn new(config: &MnkConfig) -> Knowing {
            Knowing { inner: Mnk::new(config), favourite: None, proofs: false }
        }
        fn to_move(&self) -> Color {
            self.inner.to_move()
        }
        fn legal_moves(&self, out: &mut Vec<Self::Move>) {
            self.inner.legal_moves(out)
        }
        fn is_legal(&self, mv: Self::Move) -> bool {
            self.inner.is_legal(mv)
        }
        fn play_unchecked(&mut self, mv: Self::Move) {
            self.inner.play_unchecked(mv)
        }
        fn outcome(&self) -> Option<Outcome> {
            self.inner.outcome()
        }
        fn hash(&self) -> u64 {
            self.inner.hash()
        }
        fn parse_move(&self, text: &str) -> Result<Self::Move, crate::games::MoveError> {
            self.inner.parse_move(text)
        }
        fn format_move(&self, mv: Self::Move) -> String {
            self.inner.format_move(mv)
        }
        fn board_text(&self) -> String {
            self.inner.board_text()
        }
        fn move_priors(&self, moves: &[Self::Move], priors: &mut [Prior]) {
            if let Some((favourite, prior)) = self.favourite {
                for (mv, slot) in moves.iter().zip(priors.iter_mut()) {
                    *slot = if mv.0 == favourite { prior } else { Prior::new(prior.visits, 0.5) };
                }
            }
        }
        fn proven_outcome(&self) -> Option<Outcome> {
            let mut moves = Vec::new();
            self.inner.legal_moves(&mut moves);
            if !self.proofs || moves.len() > 4 {
                return None;
            }
            let value = minimax(&self.inner, &mut FxHashMap::default());
            let me = self.inner.to_move();
            Some(match value {
                1 => Outcome::Win(me),
                -1 => Outcome::Win(me.opponent()),
                _ => Outcome::Draw,
            })
        }
        const SUPPORTS_RAVE: bool = true;
        fn amaf_owner(&self, mv: Self::Move) -> Option<Color> {
            self.inner.amaf_owner(mv)
        }
        /// Counts the stones it is given (tic-tac-toe has nothing to fill).
        fn fill_in(&mut self, stones: &[(Self::Move, Color)]) {
            STONES_FILLED_IN.fetch_add(stones.len() as u64, Ordering::Relaxed);
        }
    }

    /// The stones [`Knowing::fill_in`] was given, in all tests (only one test's knowledge has
    /// any).
    static STONES_FILLED_IN: AtomicU64 = AtomicU64::new(0);

    #[test]
    fn priors_steer_the_first_visits_and_are_not_reported() {
        let mut position = Knowing::new(&MnkConfig::tictactoe());
        let corner = position.parse_move("a1").unwrap().0;
        position.favourite = Some((corner, Prior::new(30, 0.9)));
        let limits = Limits { max_visits: Some(40), ..Limits::default() };
        let stop = AtomicBool::new(false);
        let visits_of_corner = |priors: bool| {
            let params = SearchParams { max_memory_mb: 16, priors, rave: false, ..SearchParams::default() };
            let result = Search::new(params).run(&position, limits, &stop, 3, None);
            let total: u32 = result.moves.iter().map(|m| m.visits).sum();
            assert!(total as u64 <= result.playouts, "reported visits are real playouts");
            result.moves.iter().find(|m| m.mv.0 == corner).unwrap().visits
        };
        // Without priors the nine moves share the first playouts about evenly; with a 0.9 prior
        // at 30 pseudo-visits against 0.5 for the rest, a1 takes most of them.
        assert!(visits_of_corner(false) <= 10);
        assert!(visits_of_corner(true) >= 20);
    }

    /// The playout hook replaces the game's playout while `pattern_playouts` is on, and only
    /// then: a hook that calls every playout a draw leaves every root move at exactly 0.5.
    #[test]
    fn the_playout_hook_replaces_the_games_playout_when_switched_on() {
        let position = Mnk::new(&MnkConfig::tictactoe());
        let stop = AtomicBool::new(false);
        let limits = Limits { max_visits: Some(60), ..Limits::default() };
        let values = |pattern_playouts: bool| {
            let params = SearchParams {
                max_memory_mb: 16,
                priors: false,
                solver: false,
                pattern_playouts,
                ..SearchParams::default()
            };
            let mut search = Search::new(params);
            search.set_playout_hook(Some(|_: &mut Mnk, _: &mut SmallRng| Outcome::Draw));
            search.run(&position, limits, &stop, 5, None).moves.iter().map(|stats| stats.value).collect::<Vec<_>>()
        };
        assert!(values(true).iter().all(|&value| value == 0.5), "{:?}", values(true));
        assert!(values(false).iter().any(|&value| value != 0.5), "{:?}", values(false));
    }

    #[test]
    fn progressive_bias_steers_visits_to_the_likely_move() {
        // a1 has all the move model's probability and no pseudo-visits: only the progressive
        // bias can favour it.
        let mut position = Knowing::new(&MnkConfig::tictactoe());
        let corner = position.parse_move("a1").unwrap().0;
        position.favourite = Some((corner, Prior::NONE.with_policy(1.0)));
        let limits = Limits { max_visits: Some(40), ..Limits::default() };
        let stop = AtomicBool::new(false);
        let corner_and_most_other_visits = |progressive_bias: f64| {
            let params = SearchParams { max_memory_mb: 16, rave: false, progressive_bias, ..SearchParams::default() };
            let result = Search::new(params).run(&position, limits, &stop, 3, None);
            let corner_visits = result.moves.iter().find(|m| m.mv.0 == corner).unwrap().visits;
            let most_other = result.moves.iter().filter(|m| m.mv.0 != corner).map(|m| m.visits).max().unwrap();
            (corner_visits, most_other)
        };
        // Without the bias the nine moves share the 40 playouts about evenly (UCT's exploration
        // at 1 keeps them spread); with it a1 takes several times its share and leads.
        let (unbiased, _) = corner_and_most_other_visits(0.0);
        let (biased, most_other) = corner_and_most_other_visits(3.0);
        assert!(unbiased <= 6, "{unbiased}");
        assert!(biased >= 3 * unbiased && biased > 2 * most_other, "{biased} against {unbiased}, others {most_other}");
    }

    #[test]
    fn knowledge_proofs_propagate_to_the_true_value() {
        // Values by minimax (independent of the search): after a1 a2 (an edge reply to a corner)
        // the first player wins; after a1 b2 c3 the second player holds the draw.
        let stop = AtomicBool::new(false);
        let limits = Limits { max_visits: Some(200_000), ..Limits::default() };
        for moves in [&["a1", "a2"][..], &["a1", "b2", "c3"], &["b2", "a1", "c1", "a3"], &["a1", "b1", "b2"]] {
            let mut position = Knowing::new(&MnkConfig::tictactoe());
            position.proofs = true;
            for text in moves {
                position.play(position.parse_move(text).unwrap()).unwrap();
            }
            let expected = match minimax(&position.inner, &mut FxHashMap::default()) {
                1 => RootProof::Win,
                -1 => RootProof::Loss,
                _ => RootProof::Draw,
            };
            let with = Search::new(SearchParams { max_memory_mb: 16, ..SearchParams::default() })
                .run(&position, limits, &stop, 11, None);
            let without = Search::new(SearchParams { max_memory_mb: 16, solver: false, ..SearchParams::default() })
                .run(&position, limits, &stop, 11, None);
            assert_eq!(
                with.root_proof,
                expected,
                "{moves:?} {:?}",
                with.moves.iter().map(|m| (m.visits, m.value, m.proof)).collect::<Vec<_>>()
            );
            // Without knowledge a draw may stay unproven within the limit, but never mis-proven.
            assert!([expected, RootProof::Unknown].contains(&without.root_proof), "{moves:?}");
            assert!(with.playouts < without.playouts, "{moves:?}: {} {}", with.playouts, without.playouts);
            let mut after = position.inner.clone();
            after.play(with.best_move.unwrap()).unwrap();
            assert_eq!(
                -minimax(&after, &mut FxHashMap::default()),
                minimax(&position.inner, &mut FxHashMap::default())
            );
        }
    }

    #[test]
    fn rave_runs_are_deterministic_and_change_the_search() {
        use crate::games::nogo::{NoGo, NoGoConfig};
        let mut config = NoGoConfig::default();
        config.set_size(7, 7).unwrap();
        let position = NoGo::new(&config);
        let limits = Limits { max_visits: Some(2_000), ..Limits::default() };
        let stop = AtomicBool::new(false);
        let run = |rave: bool| {
            let mut search = Search::new(SearchParams { max_memory_mb: 16, rave, ..SearchParams::default() });
            let result = search.run(&position, limits, &stop, 42, None);
            (result.best_move, result.moves.iter().map(|m| (m.mv, m.visits)).collect::<Vec<_>>())
        };
        let (on, off) = (run(true), run(false));
        assert_eq!(on, run(true));
        assert_eq!(off, run(false));
        assert_ne!(on, off);
    }

    #[test]
    fn a_full_arena_stops_growth_but_not_the_search() {
        let position = Mnk::new(&MnkConfig::gomoku());
        let stop = AtomicBool::new(false);
        let mut search = Search::new(SearchParams { max_memory_mb: 1, ..SearchParams::default() });
        let capacity = search.stats().capacity_nodes;
        let result = search.run(&position, Limits { max_visits: Some(100_000), ..Limits::default() }, &stop, 3, None);
        assert_eq!(result.playouts, 100_000);
        assert!(search.stats().nodes <= capacity);
    }

    /// Knowledge that answers every move with the first empty cell after it.
    fn answer_with_the_first_empty_cell(position: &Mnk, _budget: u64) -> NodeThreats<crate::games::mnk::Cell> {
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut replies = Vec::new();
        for &mv in &moves {
            let mut after = position.clone();
            after.play_unchecked(mv);
            let mut answers = Vec::new();
            after.legal_moves(&mut answers);
            replies.push((mv, answers.into_iter().take(1).collect()));
        }
        NodeThreats { replies, nodes: 1, ..NodeThreats::default() }
    }

    /// Every node whose knowledge named answers passes them to its moves' children, whether a
    /// child was expanded before the knowledge came (at once) or after (when it is): the answer
    /// then holds `reply_bonus / (1 + reply_bonus)` of the probability (the moves had none, so
    /// their total counts as 1) and the other moves none.
    #[test]
    fn answers_from_node_knowledge_get_their_share_of_the_probability() {
        let position = Mnk::new(&MnkConfig::tictactoe());
        let stop = AtomicBool::new(false);
        let params =
            SearchParams { max_memory_mb: 16, knowledge_visits: 30, reply_bonus: 3.0, ..SearchParams::default() };
        let mut search = Search::new(params);
        search.set_threat_hook(Some(NodeSearch::knowledge(answer_with_the_first_empty_cell)));
        search.run(&position, Limits { max_visits: Some(3_000), ..Limits::default() }, &stop, 3, None);
        let arena = &search.arena;
        let mut checked = 0;
        let mut stack = vec![search.root];
        while let Some(index) = stack.pop() {
            let node = arena.get(index);
            stack.extend(node.children());
            if !node.threat_search_claimed() {
                continue;
            }
            for child in node.children().filter(|&child| arena.get(child).is_expanded()) {
                // The children are in shuffled order; the answer is the lowest cell.
                let grandchildren = arena.get(child).children();
                let cell = |index: u32| arena.get(index).mv().expect("a child has a move").0;
                let answer = grandchildren.clone().map(cell).min();
                for grandchild in grandchildren {
                    let expected = if Some(cell(grandchild)) == answer { 0.75 } else { 0.0 };
                    let policy = arena.get(grandchild).policy();
                    assert!((policy - expected).abs() < 1e-3, "{policy} where {expected} was due");
                }
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} children checked");
    }

    /// Knowledge that fills in one stone (the first empty cell, for the side to move).
    fn fill_the_first_empty_cell(position: &Knowing, _budget: u64) -> NodeThreats<crate::games::mnk::Cell> {
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let fill_in = moves.first().map(|&mv| (mv, position.to_move())).into_iter().collect();
        NodeThreats { fill_in, nodes: 1, ..NodeThreats::default() }
    }

    /// With `playout_fill_in`, every playout below a node with knowledge starts from its
    /// fill-in (the root gets knowledge at once, so every playout after the first passes one);
    /// without it, none does.
    #[test]
    fn playouts_below_knowledge_start_from_its_fill_in() {
        let position = Knowing::new(&MnkConfig::tictactoe());
        let stop = AtomicBool::new(false);
        let stones_filled_in = |playout_fill_in: bool| {
            let params =
                SearchParams { max_memory_mb: 16, playout_fill_in, knowledge_visits: 20, ..SearchParams::default() };
            let mut search = Search::new(params);
            search.set_threat_hook(Some(NodeSearch::knowledge(fill_the_first_empty_cell)));
            let before = STONES_FILLED_IN.load(Ordering::Relaxed);
            let result = search.run(&position, Limits { max_visits: Some(500), ..Limits::default() }, &stop, 3, None);
            (STONES_FILLED_IN.load(Ordering::Relaxed) - before, result.playouts)
        };
        let (filled, playouts) = stones_filled_in(true);
        // Proven nodes end some descents before a playout.
        assert!(filled > playouts / 2 && filled < playouts, "{filled} stones in {playouts} playouts");
        assert_eq!(stones_filled_in(false).0, 0);
    }
}
