//! The search tree: nodes in a chunked arena, addressed by `u32` indices, shared between worker
//! threads without locks.
//!
//! Every statistic is an atomic. A node's children are one contiguous range of the arena,
//! allocated by a bump pointer and published by a release store of the range; the move stored in
//! each child is written once (`OnceLock`) before that store. So readers never see a half-built
//! child, and no `unsafe` is needed.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering};

/// The index of "no node".
pub const NO_NODE: u32 = u32::MAX;

const CHUNK_BITS: u32 = 16;
const CHUNK_LEN: usize = 1 << CHUNK_BITS;
const CHUNK_MASK: u32 = (1 << CHUNK_BITS) - 1;

/// What is proven about a node, from the view of the player who made the move into it (the
/// "mover"): its exact value, when its bounds have met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    Unknown,
    MoverWins,
    MoverLoses,
    Draw,
}

/// A game-theoretic value from the mover's view, as a bound: loss 0, draw 1, win 2.
pub type Value = u8;
pub const LOSS: Value = 0;
pub const DRAW: Value = 1;
pub const WIN: Value = 2;

/// The proven range of a node's value from its mover's view (score-bounded MCTS, Cazenave and
/// Saffidine 2010): `pessimistic` is what the mover is sure to get, `optimistic` the most it can
/// hope for. They meet when the node is solved. A draw can be proven this way, and a move that
/// cannot beat what a sibling already secures is known to be useless before it is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub pessimistic: Value,
    pub optimistic: Value,
}

impl Bounds {
    /// Nothing known.
    pub const OPEN: Bounds = Bounds { pessimistic: LOSS, optimistic: WIN };

    /// The exact value `value`.
    pub const fn exact(value: Value) -> Bounds {
        Bounds { pessimistic: value, optimistic: value }
    }

    pub fn is_solved(self) -> bool {
        self.pessimistic == self.optimistic
    }

    /// The exact value as a proof, `Unknown` while the bounds are apart.
    pub fn proof(self) -> Proof {
        match (self.pessimistic, self.optimistic) {
            (WIN, WIN) => Proof::MoverWins,
            (LOSS, LOSS) => Proof::MoverLoses,
            (DRAW, DRAW) => Proof::Draw,
            _ => Proof::Unknown,
        }
    }

    /// The same range seen by the other player.
    pub fn flipped(self) -> Bounds {
        Bounds { pessimistic: WIN - self.optimistic, optimistic: WIN - self.pessimistic }
    }

    pub(crate) fn pack(self) -> u8 {
        self.pessimistic | (self.optimistic << 2)
    }

    fn unpack(bits: u8) -> Bounds {
        Bounds { pessimistic: bits & 3, optimistic: bits >> 2 }
    }
}

impl Proof {
    /// The bounds of a proven value (open for `Unknown`).
    pub fn bounds(self) -> Bounds {
        match self {
            Proof::Unknown => Bounds::OPEN,
            Proof::MoverWins => Bounds::exact(WIN),
            Proof::MoverLoses => Bounds::exact(LOSS),
            Proof::Draw => Bounds::exact(DRAW),
        }
    }

    /// The same fact seen by the other player.
    pub fn flipped(self) -> Proof {
        match self {
            Proof::MoverWins => Proof::MoverLoses,
            Proof::MoverLoses => Proof::MoverWins,
            other => other,
        }
    }
}

const LEAF: u8 = 0;
const EXPANDING: u8 = 1;
const EXPANDED: u8 = 2;

/// A thread has claimed (and so runs, or has run) the game's threat search on the node.
const THREATS_CLAIMED: u8 = 1;
/// The threat search restricted the node's children to the defences of an opponent's threat.
const DEFENCES_ONLY: u8 = 2;
/// The node's move is outside its parent's defence set (see [`DEFENCES_ONLY`]).
const OUTSIDE_DEFENCES: u8 = 4;
/// Answers to the node's move wait for the node's expansion (see [`Node::mark_replies_pending`]).
const REPLIES_PENDING: u8 = 8;
/// The node's knowledge filled in cells that playouts below it start with.
const HAS_FILL_IN: u8 = 16;

/// One completed visit in [`Node`]'s packed visit word.
const ONE_VISIT: u64 = 1 << 32;

/// The largest prior a node keeps, in pseudo-visits: the half points then fit a `u16`.
pub const MAX_PRIOR_VISITS: u32 = 16_000;

/// A node's move probability is kept in steps of 1/`POLICY_UNIT`.
const POLICY_UNIT: f32 = 65_535.0;

/// One tree node: the move that leads to it and the statistics of the position after it.
///
/// Visits and half points count real playouts only. Game knowledge enters as a prior (pseudo-
/// visits at a value, written once before the node is published) that only selection adds in,
/// so reported visits, move choice and the early stop see real playouts. RAVE (all moves as
/// first) statistics are kept apart too.
#[derive(Debug)]
pub struct Node<M> {
    mv: OnceLock<M>,
    /// Completed visits in the upper 32 bits, visits under way (virtual losses) in the lower:
    /// selection reads both with one load, and a finished visit turns its virtual loss into a
    /// visit with one atomic add instead of two (these words are what the threads fight over
    /// near the root).
    visits_and_virtual_losses: AtomicU64,
    /// Sum of the mover's rewards, in half points (win 2, draw 1, loss 0): exact integers.
    half_points: AtomicU64,
    /// Playouts below the parent in which the mover played this node's cell, and the mover's
    /// half points in them (RAVE).
    amaf_visits: AtomicU32,
    amaf_half_points: AtomicU32,
    prior_visits: AtomicU16,
    prior_half_points: AtomicU16,
    /// The move model's probability of this node's move, in 1/[`POLICY_UNIT`] (progressive bias).
    policy: AtomicU16,
    /// [`Bounds`], packed: pessimistic in bits 0-1, optimistic in bits 2-3.
    bounds: AtomicU8,
    state: AtomicU8,
    /// Threat-search marks ([`THREATS_CLAIMED`], [`DEFENCES_ONLY`], [`OUTSIDE_DEFENCES`],
    /// [`REPLIES_PENDING`], [`HAS_FILL_IN`]).
    threat_marks: AtomicU8,
    first_child: AtomicU32,
    child_count: AtomicU32,
}

impl<M> Default for Node<M> {
    fn default() -> Self {
        Node {
            mv: OnceLock::new(),
            visits_and_virtual_losses: AtomicU64::new(0),
            half_points: AtomicU64::new(0),
            amaf_visits: AtomicU32::new(0),
            amaf_half_points: AtomicU32::new(0),
            prior_visits: AtomicU16::new(0),
            prior_half_points: AtomicU16::new(0),
            policy: AtomicU16::new(0),
            bounds: AtomicU8::new(Bounds::OPEN.pack()),
            state: AtomicU8::new(LEAF),
            threat_marks: AtomicU8::new(0),
            first_child: AtomicU32::new(NO_NODE),
            child_count: AtomicU32::new(0),
        }
    }
}

impl<M: Copy> Node<M> {
    /// The move into this node; `None` for a root.
    pub fn mv(&self) -> Option<M> {
        self.mv.get().copied()
    }

    /// Completed visits.
    pub fn visits(&self) -> u32 {
        self.visit_counts().0
    }

    /// Visits under way (virtual losses).
    pub fn virtual_loss(&self) -> u32 {
        self.visit_counts().1
    }

    /// Completed visits and visits under way, read together.
    pub fn visit_counts(&self) -> (u32, u32) {
        let word = self.visits_and_virtual_losses.load(Ordering::Relaxed);
        ((word >> 32) as u32, word as u32)
    }

    /// Mean reward of the mover in [0, 1]; 0.5 before any visit.
    pub fn mean_value(&self) -> f64 {
        let visits = self.visits();
        if visits == 0 { 0.5 } else { self.half_points.load(Ordering::Relaxed) as f64 / (2.0 * visits as f64) }
    }

    /// Half-point sum, for selection arithmetic.
    pub fn half_points(&self) -> u64 {
        self.half_points.load(Ordering::Relaxed)
    }

    /// The prior as (pseudo-visits, half points); (0, 0) when there is none.
    pub fn prior(&self) -> (u32, u32) {
        (self.prior_visits.load(Ordering::Relaxed) as u32, self.prior_half_points.load(Ordering::Relaxed) as u32)
    }

    /// Sets the prior: `visits` pseudo-visits (at most [`MAX_PRIOR_VISITS`]) at the mover's mean
    /// reward `value` in [0, 1]. Only for a node not yet published (before its parent's
    /// `finish_expansion`, whose release store makes it visible).
    pub fn set_prior(&self, visits: u32, value: f32) {
        let visits = visits.min(MAX_PRIOR_VISITS);
        let half_points = (2.0 * value.clamp(0.0, 1.0) as f64 * visits as f64).round() as u16;
        self.prior_visits.store(visits as u16, Ordering::Relaxed);
        self.prior_half_points.store(half_points, Ordering::Relaxed);
    }

    /// The move model's probability of this node's move (0 without a model).
    pub fn policy(&self) -> f32 {
        f32::from(self.policy.load(Ordering::Relaxed)) * (1.0 / POLICY_UNIT)
    }

    /// Sets the move model's probability of this node's move, within [0, 1]. Only for a node not
    /// yet published, as [`Node::set_prior`].
    pub fn set_policy(&self, probability: f32) {
        self.policy.store((probability.clamp(0.0, 1.0) * POLICY_UNIT).round() as u16, Ordering::Relaxed);
    }

    /// RAVE statistics as (visits, half points).
    pub fn amaf(&self) -> (u32, u32) {
        (self.amaf_visits.load(Ordering::Relaxed), self.amaf_half_points.load(Ordering::Relaxed))
    }

    /// Records `playouts` playouts in which this node's mover played its cell, with the mover's
    /// rewards in them summed in half points.
    ///
    /// A plain load and store, not a locked add: a playout updates about half the children of
    /// every node on its path (60 in Hex 11x11), and with several threads each locked add
    /// waits for a line the others write (one thread measured no faster either way). Two threads
    /// that update one child at once may lose one update; for a heuristic mean that costs
    /// nothing measurable, and one thread loses none (its searches stay reproducible).
    pub fn record_amaf(&self, playouts: u32, half_points: u32) {
        let (visits, points) = self.amaf();
        self.amaf_half_points.store(points.wrapping_add(half_points), Ordering::Relaxed);
        self.amaf_visits.store(visits.wrapping_add(playouts), Ordering::Relaxed);
    }

    /// The exact value, when proven.
    pub fn proof(&self) -> Proof {
        self.bounds().proof()
    }

    pub fn bounds(&self) -> Bounds {
        Bounds::unpack(self.bounds.load(Ordering::Acquire))
    }

    /// Sets the exact value (`Unknown` reopens the bounds: a root proven by game knowledge must
    /// be searched again to find its move).
    pub fn set_proof(&self, proof: Proof) {
        self.bounds.store(proof.bounds().pack(), Ordering::Release);
    }

    /// Narrows the bounds to their intersection with `bounds` (bounds only ever narrow, so
    /// threads that narrow them at once never undo each other); true when they changed.
    pub fn narrow_bounds(&self, bounds: Bounds) -> bool {
        let update = |bits: u8| {
            let old = Bounds::unpack(bits);
            let new = Bounds {
                pessimistic: old.pessimistic.max(bounds.pessimistic),
                optimistic: old.optimistic.min(bounds.optimistic),
            };
            // Conflicting facts cannot happen in a sound search; keep the old ones if they do.
            (new != old && new.pessimistic <= new.optimistic).then(|| new.pack())
        };
        self.bounds.fetch_update(Ordering::AcqRel, Ordering::Acquire, update).is_ok()
    }

    /// Claims the node's threat search for the calling thread: true for the first caller
    /// only, so the search runs once per node however many threads pass.
    pub fn claim_threat_search(&self) -> bool {
        self.threat_marks.fetch_or(THREATS_CLAIMED, Ordering::AcqRel) & THREATS_CLAIMED == 0
    }

    /// Whether a thread has claimed the node's threat search.
    pub fn threat_search_claimed(&self) -> bool {
        self.threat_marks.load(Ordering::Acquire) & THREATS_CLAIMED != 0
    }

    /// Restricts the node's children to the defences of an opponent's threat: those marked
    /// [`Node::mark_outside_defences`] (marked first) are searched only when no other child is
    /// worth it.
    pub fn restrict_to_defences(&self) {
        self.threat_marks.fetch_or(DEFENCES_ONLY, Ordering::Release);
    }

    /// Whether the children are restricted to a defence set.
    pub fn defences_only(&self) -> bool {
        self.threat_marks.load(Ordering::Acquire) & DEFENCES_ONLY != 0
    }

    /// Marks the node's move as outside its parent's defence set.
    pub fn mark_outside_defences(&self) {
        self.threat_marks.fetch_or(OUTSIDE_DEFENCES, Ordering::Relaxed);
    }

    /// Whether the node's move is outside its parent's defence set.
    pub fn is_outside_defences(&self) -> bool {
        self.threat_marks.load(Ordering::Relaxed) & OUTSIDE_DEFENCES != 0
    }

    /// Marks that answers to the node's move (its parent's knowledge) are kept aside until the
    /// node's children exist. Sequentially consistent with [`Node::is_expanded`]'s publication,
    /// so that of a marking thread and an expanding one at least one sees the other.
    pub fn mark_replies_pending(&self) {
        self.threat_marks.fetch_or(REPLIES_PENDING, Ordering::SeqCst);
    }

    /// Clears the mark of [`Node::mark_replies_pending`]: true for the one caller that found it
    /// set, which then applies the answers.
    pub fn take_replies_pending(&self) -> bool {
        self.threat_marks.fetch_and(!REPLIES_PENDING, Ordering::SeqCst) & REPLIES_PENDING != 0
    }

    /// Marks that the node's knowledge filled in cells (kept beside the tree).
    pub fn mark_fill_in(&self) {
        self.threat_marks.fetch_or(HAS_FILL_IN, Ordering::Release);
    }

    /// Whether the node's knowledge filled in cells.
    pub fn has_fill_in(&self) -> bool {
        self.threat_marks.load(Ordering::Relaxed) & HAS_FILL_IN != 0
    }

    /// The children as an index range, empty until the node is expanded.
    pub fn children(&self) -> std::ops::Range<u32> {
        if self.state.load(Ordering::Acquire) != EXPANDED {
            return 0..0;
        }
        let first = self.first_child.load(Ordering::Relaxed);
        first..first + self.child_count.load(Ordering::Relaxed)
    }

    pub fn is_expanded(&self) -> bool {
        self.state.load(Ordering::Acquire) == EXPANDED
    }

    /// Claims the right to expand this node; false when it is expanded or another thread is at it.
    pub fn try_begin_expansion(&self) -> bool {
        self.state.compare_exchange(LEAF, EXPANDING, Ordering::AcqRel, Ordering::Relaxed).is_ok()
    }

    /// Gives up a claimed expansion (the arena was full); the node stays a leaf.
    pub fn abandon_expansion(&self) {
        self.state.store(LEAF, Ordering::Release);
    }

    /// Publishes the children written at `first..first + count`.
    pub fn finish_expansion(&self, first: u32, count: u32) {
        self.first_child.store(first, Ordering::Relaxed);
        self.child_count.store(count, Ordering::Relaxed);
        self.state.store(EXPANDED, Ordering::Release);
    }

    pub fn add_virtual_loss(&self) {
        self.visits_and_virtual_losses.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a finished visit: the reward in half points replaces one virtual loss when
    /// `had_virtual_loss`.
    pub fn record_visit(&self, half_points: u64, had_virtual_loss: bool) {
        self.half_points.fetch_add(half_points, Ordering::Relaxed);
        // The virtual loss being taken back was added by this visit, so the lower half never
        // borrows from the upper.
        let change = if had_virtual_loss { ONE_VISIT - 1 } else { ONE_VISIT };
        self.visits_and_virtual_losses.fetch_add(change, Ordering::Relaxed);
    }

    /// Records `visits` finished visits that took no virtual loss, their rewards summed in half
    /// points (a worker's batch for the root).
    pub fn record_visits(&self, visits: u32, half_points: u64) {
        self.half_points.fetch_add(half_points, Ordering::Relaxed);
        self.visits_and_virtual_losses.fetch_add((visits as u64) << 32, Ordering::Relaxed);
    }
}

/// Nodes a worker takes from the arena at once when several threads search (see
/// [`Arena::allocate_from`]).
pub const BLOCK_LEN: u32 = 4096;

/// A worker's own unused stretch of the arena.
#[derive(Debug, Default)]
pub struct ArenaBlock {
    next: u32,
    end: u32,
}

/// One chunk of an [`Arena`], allocated on first use.
type Chunk<M> = OnceLock<Box<[Node<M>]>>;

/// A bump-allocated, chunked node store with a fixed capacity.
#[derive(Debug)]
pub struct Arena<M> {
    chunks: Box<[Chunk<M>]>,
    len: AtomicU32,
    capacity: u32,
}

impl<M: Copy> Arena<M> {
    /// An empty arena holding at most `capacity` nodes (at least one chunk's worth).
    pub fn with_capacity(capacity: usize) -> Arena<M> {
        // Whole chunks only, so the memory held never exceeds what `capacity` nodes take.
        let capacity = (capacity.clamp(CHUNK_LEN, (u32::MAX - 1) as usize) / CHUNK_LEN * CHUNK_LEN) as u32;
        let chunk_count = (capacity as usize).div_ceil(CHUNK_LEN);
        Arena { chunks: (0..chunk_count).map(|_| OnceLock::new()).collect(), len: AtomicU32::new(0), capacity }
    }

    /// The bytes one node takes.
    pub const fn node_size() -> usize {
        std::mem::size_of::<Node<M>>()
    }

    /// Nodes allocated so far.
    pub fn len(&self) -> u32 {
        self.len.load(Ordering::Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Bytes held by the allocated chunks.
    pub fn memory_bytes(&self) -> usize {
        self.chunks.iter().filter(|chunk| chunk.get().is_some()).count() * CHUNK_LEN * Self::node_size()
    }

    /// Reserves `count` contiguous fresh nodes; `None` when full. A range never straddles two
    /// chunks, so the nodes of a range sit side by side.
    fn reserve(&self, count: u32) -> Option<u32> {
        assert!(count as usize <= CHUNK_LEN, "a node cannot have more than {CHUNK_LEN} children");
        let mut current = self.len.load(Ordering::Relaxed);
        let start = loop {
            let mut start = current;
            if (start & CHUNK_MASK) + count > CHUNK_LEN as u32 {
                start = (start | CHUNK_MASK) + 1;
            }
            let end = start.checked_add(count)?;
            if end > self.capacity {
                return None;
            }
            match self.len.compare_exchange_weak(current, end, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break start,
                Err(actual) => current = actual,
            }
        };
        let chunk = (start >> CHUNK_BITS) as usize;
        self.chunks[chunk].get_or_init(Self::fresh_chunk);
        // Past half a chunk, the thread that gets here first builds the next chunk: threads
        // that reach a chunk nobody has built wait for whoever builds it (a few megabytes of
        // fresh pages), and with several threads creating nodes that happened at every chunk.
        if (start & CHUNK_MASK) >= CHUNK_LEN as u32 / 2
            && let Some(next) = self.chunks.get(chunk + 1)
            && next.get().is_none()
        {
            next.get_or_init(Self::fresh_chunk);
        }
        Some(start)
    }

    fn fresh_chunk() -> Box<[Node<M>]> {
        (0..CHUNK_LEN).map(|_| Node::default()).collect()
    }

    /// Allocates one fresh node per move, contiguous, and returns the first index; `None` when
    /// the arena is full. The moves are set before the caller can publish the range.
    pub fn allocate(&self, moves: impl ExactSizeIterator<Item = M>) -> Option<u32> {
        let start = self.reserve(moves.len() as u32)?;
        self.set_moves(start, moves);
        Some(start)
    }

    /// Like [`Arena::allocate`], but the range is cut from the worker's `block`, which takes
    /// [`BLOCK_LEN`] nodes from the arena when it runs short: threads that expand at once then
    /// do not all bump the one shared length, a cache line every expansion would fight over.
    /// Near the capacity the block takes only what the range needs.
    pub fn allocate_from(&self, block: &mut ArenaBlock, moves: impl ExactSizeIterator<Item = M>) -> Option<u32> {
        let count = moves.len() as u32;
        if block.end - block.next < count {
            let wanted = BLOCK_LEN.max(count);
            let (start, len) = match self.reserve(wanted) {
                Some(start) => (start, wanted),
                None => (self.reserve(count)?, count),
            };
            *block = ArenaBlock { next: start, end: start + len };
        }
        let start = block.next;
        block.next += count;
        self.set_moves(start, moves);
        Some(start)
    }

    fn set_moves(&self, start: u32, moves: impl ExactSizeIterator<Item = M>) {
        for (offset, mv) in moves.enumerate() {
            let _ = self.get(start + offset as u32).mv.set(mv);
        }
    }

    /// Allocates one root node, which has no move.
    pub fn allocate_root(&self) -> Option<u32> {
        self.reserve(1)
    }

    /// The node at `index`.
    ///
    /// # Panics
    /// When `index` was never allocated.
    pub fn get(&self, index: u32) -> &Node<M> {
        let chunk = self.chunks[(index >> CHUNK_BITS) as usize].get().expect("node index not allocated");
        &chunk[(index & CHUNK_MASK) as usize]
    }

    fn node_mut(&mut self, index: u32) -> &mut Node<M> {
        let chunk = self.chunks[(index >> CHUNK_BITS) as usize].get_mut().expect("node index not allocated");
        &mut chunk[(index & CHUNK_MASK) as usize]
    }

    /// Keeps only the subtree under `root`, compacted to the front of the arena in place, and
    /// returns the root's new index. Statistics and proofs are kept. Needs `&mut self`: no search
    /// may run. Memory never grows: every kept range slides down (ranges are disjoint and moved
    /// in index order, so a range's new place lies at or below its old one and never reaches a
    /// range still to move, wherever a parent lies; with workers' blocks children can lie below
    /// their parent), freed slots are reset for reuse, and chunks past the end are released.
    pub fn retain_subtree(&mut self, root: u32) -> u32 {
        // 1. The kept ranges: the root alone, then every expanded node's children.
        let mut ranges = vec![(root, 1u32)];
        let mut stack = vec![root];
        while let Some(index) = stack.pop() {
            let children = self.get(index).children();
            if !children.is_empty() {
                ranges.push((children.start, children.end - children.start));
                stack.extend(children);
            }
        }
        ranges.sort_unstable();
        // 2. Slide each range down, never across a chunk boundary.
        let mut moved_to = Vec::with_capacity(ranges.len());
        let mut next = 0u32;
        for &(start, count) in &ranges {
            if (next & CHUNK_MASK) + count > CHUNK_LEN as u32 {
                next = (next | CHUNK_MASK) + 1;
            }
            debug_assert!(next <= start);
            if next != start {
                for offset in 0..count {
                    let node = std::mem::take(self.node_mut(start + offset));
                    *self.node_mut(next + offset) = node;
                }
            }
            moved_to.push(next);
            next += count;
        }
        // 3. Point every kept parent at its children's new place.
        let new_index = |old: u32| {
            let range = ranges.partition_point(|&(start, _)| start <= old) - 1;
            moved_to[range] + (old - ranges[range].0)
        };
        for (&(_, count), &new_start) in ranges.iter().zip(&moved_to) {
            for index in new_start..new_start + count {
                let node = self.node_mut(index);
                if *node.state.get_mut() == EXPANDED {
                    let first = node.first_child.get_mut();
                    *first = new_index(*first);
                }
            }
        }
        // 4. Reset the slots left behind in the last kept chunk; release the chunks after it.
        let first_free_chunk = (next as usize).div_ceil(CHUNK_LEN);
        let reset_end = self.len().min((first_free_chunk * CHUNK_LEN) as u32);
        for index in next..reset_end {
            *self.node_mut(index) = Node::default();
        }
        for chunk in &mut self.chunks[first_free_chunk..] {
            chunk.take();
        }
        *self.len.get_mut() = next;
        new_index(root)
    }
}

/// Proven value bounds by position, shared by all threads: a node's bounds are facts about
/// its position, so a transposition reached by another path starts with them instead of
/// proving them again (tic-tac-toe has 5,478 positions but 549,946 move sequences).
///
/// One `AtomicU64` per slot: the key's upper 60 bits and the packed bounds in the low 4 bits,
/// so a slot is read and written whole without locks. A newer entry replaces an older one in
/// its slot; a lost entry only costs a proof found again.
///
/// The slots are allocated at the first proof, so sessions that never prove anything (most
/// protocol sessions, every fuzz input that does not search) pay nothing for them.
#[derive(Debug)]
pub struct BoundsTable {
    bits: u32,
    slots: OnceLock<Box<[AtomicU64]>>,
}

impl BoundsTable {
    /// A table of `2^bits` slots (8 bytes each).
    pub fn new(bits: u32) -> BoundsTable {
        BoundsTable { bits, slots: OnceLock::new() }
    }

    /// The bounds stored for `key`, if any.
    pub fn get(&self, key: u64) -> Option<Bounds> {
        let slots = self.slots.get()?;
        let entry = slots[(key as usize) & (slots.len() - 1)].load(Ordering::Relaxed);
        (entry != 0 && entry & !0xF == key & !0xF).then(|| Bounds::unpack((entry & 0xF) as u8))
    }

    /// Stores what is known of `key` (only narrowed bounds are worth a slot).
    pub fn insert(&self, key: u64, bounds: Bounds) {
        if bounds != Bounds::OPEN {
            let slots = self.slots.get_or_init(|| (0..1usize << self.bits).map(|_| AtomicU64::new(0)).collect());
            let slot = &slots[(key as usize) & (slots.len() - 1)];
            let entry = (key & !0xF) | bounds.pack() as u64;
            // Stored only when it changes: a write takes the cache line from every other core,
            // and playouts that end at a proven node would rewrite the same entry each time.
            if slot.load(Ordering::Relaxed) != entry {
                slot.store(entry, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_never_straddle_chunks_and_capacity_is_respected() {
        let arena: Arena<u16> = Arena::with_capacity(2 * CHUNK_LEN);
        let first = arena.allocate(0..(CHUNK_LEN - 10) as u16).unwrap();
        assert_eq!(first, 0);
        let second = arena.allocate(0..20u16).unwrap();
        assert_eq!(second, CHUNK_LEN as u32, "a range that does not fit moves to the next chunk");
        assert_eq!(arena.get(second + 3).mv(), Some(3));
        assert!(arena.allocate(0..(CHUNK_LEN - 1) as u16).is_none(), "over capacity");
        assert!(arena.allocate(0..10u16).is_some());
    }

    #[test]
    fn blocks_serve_ranges_and_children_below_their_parent_survive_compaction() {
        let mut arena: Arena<u16> = Arena::with_capacity(CHUNK_LEN);
        let (mut low, mut high) = (ArenaBlock::default(), ArenaBlock::default());
        let root = arena.allocate_root().unwrap();
        // Two workers' blocks: the first lies below the second.
        let first_low = arena.allocate_from(&mut low, 0..3u16).unwrap();
        let first_high = arena.allocate_from(&mut high, 10..12u16).unwrap();
        assert_eq!(first_high, first_low + BLOCK_LEN, "each block takes BLOCK_LEN nodes at once");
        assert_eq!(arena.allocate_from(&mut low, 3..5u16), Some(first_low + 3), "the next range follows in the block");
        // The root's children come from the high block, a grandchild's range from the low one.
        assert!(arena.get(root).try_begin_expansion());
        arena.get(root).finish_expansion(first_high, 2);
        assert!(arena.get(first_high + 1).try_begin_expansion());
        arena.get(first_high + 1).finish_expansion(first_low + 3, 2);
        arena.get(first_low + 4).record_visit(2, false);

        let new_root = arena.retain_subtree(root);
        let children: Vec<u32> = arena.get(new_root).children().collect();
        assert_eq!(children.iter().map(|&c| arena.get(c).mv().unwrap()).collect::<Vec<_>>(), vec![10, 11]);
        let grandchildren: Vec<_> = arena.get(children[1]).children().map(|c| arena.get(c)).collect();
        assert_eq!(grandchildren.iter().map(|n| n.mv().unwrap()).collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(grandchildren[1].visits(), 1);
        assert_eq!(arena.len(), 1 + 2 + 2, "compacted: the unused block nodes are gone");
    }

    #[test]
    fn retained_subtrees_keep_statistics_and_compact() {
        let mut arena: Arena<u16> = Arena::with_capacity(CHUNK_LEN);
        let root = arena.allocate_root().unwrap();
        let children = arena.allocate(0..3u16).unwrap();
        assert!(arena.get(root).try_begin_expansion());
        arena.get(root).finish_expansion(children, 3);
        arena.get(children + 1).record_visit(2, false);
        arena.get(children + 1).set_proof(Proof::MoverWins);
        arena.get(children + 1).set_policy(0.25);
        let grandchildren = arena.allocate(7..9u16).unwrap();
        assert!(arena.get(children + 1).try_begin_expansion());
        arena.get(children + 1).finish_expansion(grandchildren, 2);
        let deeper = arena.allocate(20..24u16).unwrap();
        assert!(arena.get(grandchildren + 1).try_begin_expansion());
        arena.get(grandchildren + 1).finish_expansion(deeper, 4);
        arena.get(deeper + 2).record_visit(1, false);

        let new_root = arena.retain_subtree(children + 1);
        assert_eq!(new_root, 0);
        assert_eq!(arena.len(), 1 + 2 + 4);
        let node = arena.get(new_root);
        assert_eq!((node.mv(), node.visits(), node.proof()), (Some(1), 1, Proof::MoverWins));
        assert!((node.policy() - 0.25).abs() < 1e-4, "the move probability moves with the node");
        let moves: Vec<_> = node.children().map(|c| arena.get(c).mv().unwrap()).collect();
        assert_eq!(moves, vec![7, 8]);
        let deep: Vec<_> = arena.get(node.children().start + 1).children().map(|c| arena.get(c)).collect();
        assert_eq!(deep.iter().map(|n| n.mv().unwrap()).collect::<Vec<_>>(), vec![20, 21, 22, 23]);
        assert_eq!(deep[2].visits(), 1);
        // Freed slots come back fresh.
        let fresh = arena.allocate(40..42u16).unwrap();
        assert_eq!(fresh, 7);
        assert_eq!((arena.get(fresh).visits(), arena.get(fresh).proof()), (0, Proof::Unknown));
        assert!(!arena.get(fresh).is_expanded());
        assert_eq!(arena.get(fresh).policy(), 0.0);
    }

    #[test]
    fn move_probabilities_are_kept_within_one_step_and_clamped() {
        let node: Node<u16> = Node::default();
        assert_eq!(node.policy(), 0.0);
        for probability in [0.0, 1e-4, 0.3, 0.999, 1.0] {
            node.set_policy(probability);
            assert!((node.policy() - probability).abs() <= 0.5 / POLICY_UNIT, "{probability}");
        }
        node.set_policy(2.0);
        assert_eq!(node.policy(), 1.0);
        node.set_policy(-1.0);
        assert_eq!(node.policy(), 0.0);
    }
}
