//! Hex knowledge for the nodes of the search tree (MoHex's "knowledge at a visit threshold"):
//! when a node has been visited often enough, the search asks once what inferior-cell analysis
//! and H-search say about its position, and keeps the answer on the node.
//!
//! * **Inferior cells** (dead cells and captured pairs, [`super::hex_ice`]) are never better
//!   than the best other move, so the node searches the other cells first (they are its
//!   "defences"); the inferior ones compete only once all the others are proven lost.
//! * **Vulnerable cells** likewise: a cell where the opponent has an answer that leaves the
//!   stone dead ([`InferiorCells::killer`]). A side that wins has a winning move that is not
//!   vulnerable (the argument is in [`super::hex_solver`]'s module docs), so when every open
//!   cell, or every open cell of the must-play region, is vulnerable, the node is lost.
//! * **Virtual connections** on the filled-in position: a full or semi connection of the side
//!   to move between its edges wins (the semi's key, or a carrier cell of the full); a full one
//!   of the opponent's loses every move; otherwise every cell outside the intersection of the
//!   opponent's semi carriers (its must-play region) loses, since the opponent answers with
//!   the key of a semi the move left intact.
//! * **Answers to intrusions** (MoHex's virtual-connection maintenance): for each move that
//!   breaks a connection between two of the opponent's groups or edges, the keys of the
//!   opponent's semis that restore it, which the search favours after that move.
//! * **The fill-in itself** (the stones it added), which playouts below the node may start
//!   from, as MoHex's do (`playout_fill_in`).
//!
//! Filling in keeps the value of the position, and of every position after a move on a cell it
//! left empty (dead and captured cells stay so when stones are added), so what H-search proves
//! on the filled board holds for the real one. A move onto a filled cell is no better than a
//! pass there, so it loses whenever the must-play region says a pass would.
//!
//! The H-search costs far more than a playout on 11x11 (2-5 ms on positions of real games
//! against 15-30 us), so it stops when it has used the node's budget; what it found by then
//! still holds. The budget and the reported cost count H-search work (about microseconds, see
//! [`WORK_PER_BUDGET_UNIT`]), never a clock, so a search with a seed and a visit limit stays
//! reproducible.

use std::cell::RefCell;

use crate::games::hex::{Cell, Hex, HexMove};
use crate::games::{Color, Game};
use crate::search::NodeThreats;
use crate::solvers::hex_ice::InferiorCells;
use crate::solvers::hex_vc::{BoardGeometry, EdgeVerdict, VcEngine, VcLimits, edge_verdict, iterate};

/// H-search work units ([`VcEngine::work`]) per unit of the search's budget: about 25 make a
/// microsecond here, so the budget counts microseconds, comparable with Gomoku's threat nodes
/// (some 5 us each) and with the playouts that earn it.
const WORK_PER_BUDGET_UNIT: u64 = 25;

/// The vulnerable-cell test of every open cell in budget units (six ring lookups a cell, a
/// small part of the fill-in's cost).
const VULNERABLE_COST: u64 = 20;

/// Inferior-cell analysis in budget units (it took 80-170 us on 11x11 game positions when its
/// neighbour rings were still built at every call; less now).
const FILL_IN_COST: u64 = 120;

/// What the node of `position` may know, within `budget` microseconds of estimated work (see
/// the module docs). Nothing on boards of more than 128 cells, in finished games, or where the
/// swap rule may still turn a stone over (the first two moves with `allow_swap`): a winning
/// first move would only be swapped.
pub fn node_knowledge(position: &Hex, budget: u64) -> NodeThreats<HexMove> {
    if position.outcome().is_some() || position.allow_swap() && position.stone_count() <= 1 {
        return NodeThreats::default();
    }
    TOOLS.with(|tools| {
        let mut tools = tools.borrow_mut();
        let size = (position.width(), position.height());
        if tools.as_ref().is_none_or(|tools| tools.size != size) {
            *tools = Tools::new(size);
        }
        match tools.as_mut() {
            Some(tools) => knowledge_with(tools, position, budget),
            None => NodeThreats::default(),
        }
    })
}

/// The analysis tools of one board size, kept per thread: building them (neighbour rings,
/// the H-search's tables) costs as much as a playout or more, every node of a search shares the
/// board size, and the search's worker threads each keep their own.
struct Tools {
    size: (usize, usize),
    geometry: BoardGeometry,
    inferior_cells: InferiorCells,
    engine: VcEngine,
}

impl Tools {
    /// `None` on boards too large for the H-search.
    fn new((width, height): (usize, usize)) -> Option<Tools> {
        let geometry = BoardGeometry::new(width, height)?;
        Some(Tools {
            size: (width, height),
            inferior_cells: InferiorCells::new(&geometry),
            engine: {
                let mut engine = VcEngine::new(geometry.clone(), VcLimits::default());
                engine.use_edge_patterns();
                engine
            },
            geometry,
        })
    }
}

thread_local! {
    static TOOLS: RefCell<Option<Tools>> = const { RefCell::new(None) };
}

fn knowledge_with(tools: &mut Tools, position: &Hex, budget: u64) -> NodeThreats<HexMove> {
    let mut knowledge = NodeThreats::default();
    let geometry = &tools.geometry;
    let mut stones = geometry.stones_of(position);
    let empty = geometry.all() & !(stones[0] | stones[1]);
    let fill = tools.inferior_cells.fill_in(&mut stones, empty);
    knowledge.nodes += FILL_IN_COST;
    let inferior = fill.dead | fill.captured[0] | fill.captured[1];
    let open = empty & !inferior;
    let me = position.to_move();
    // The stones fill-in added, as it coloured them (captured cells their captor's).
    knowledge.fill_in = [Color::Black, Color::White]
        .into_iter()
        .flat_map(|color| {
            let added = stones[color.index()] & empty;
            iterate(added).map(move |cell| (HexMove::Cell(Cell(cell as u16)), color))
        })
        .collect();
    if let Some(winner) = filled_winner(geometry, &stones) {
        // Fill-in alone joined a player's edges.
        if winner != me {
            knowledge.losing_moves = cells(empty);
        } else if open != 0 {
            knowledge.winning_move = Some(HexMove::Cell(Cell(open.trailing_zeros() as u16)));
        }
        return knowledge;
    }
    // A winner has a winning move that is not vulnerable on the filled board (the solver's
    // module docs), so the candidates are the open cells that are not; none left is a loss.
    let candidates = open & !vulnerable_cells(&tools.inferior_cells, me, &stones, open);
    knowledge.nodes += VULNERABLE_COST;
    if candidates == 0 {
        knowledge.losing_moves = cells(empty);
        return knowledge;
    }
    if budget > knowledge.nodes {
        // The engine's work counter runs on across calls: this call's limit and cost are
        // counted from where it stands.
        let engine = &mut tools.engine;
        let work_before = engine.work();
        engine.set_work_limit(
            work_before.saturating_add((budget - knowledge.nodes).saturating_mul(WORK_PER_BUDGET_UNIT)),
        );
        let verdict = edge_verdict(engine, me, &stones, open);
        knowledge.nodes += (engine.work() - work_before).div_ceil(WORK_PER_BUDGET_UNIT);
        match verdict {
            EdgeVerdict::MoverWins(cell) => {
                knowledge.winning_move = Some(HexMove::Cell(Cell(cell as u16)));
                return knowledge;
            }
            EdgeVerdict::OpponentConnected => {
                knowledge.losing_moves = cells(empty);
                return knowledge;
            }
            EdgeVerdict::MustPlay(region) => {
                let defences = candidates & region;
                if defences == 0 {
                    // Every winning move would be an invulnerable one in the region.
                    knowledge.losing_moves = cells(empty);
                } else {
                    knowledge.losing_moves = cells(empty & !region);
                    knowledge.defences = Some(cells(defences));
                    knowledge.replies = connection_replies(engine, defences);
                }
                return knowledge;
            }
            EdgeVerdict::Open => knowledge.replies = connection_replies(engine, candidates),
        }
    }
    if candidates != empty {
        knowledge.defences = Some(cells(candidates));
    }
    knowledge
}

/// The opponent's answers that keep its connections against each of `probes` (the moves of
/// the side to move), from the opponent's connections the engine found last.
fn connection_replies(engine: &VcEngine, probes: u128) -> Vec<(HexMove, Vec<HexMove>)> {
    let cell = |index: usize| HexMove::Cell(Cell(index as u16));
    engine.connection_replies(probes).into_iter().map(|(probe, answers)| (cell(probe), cells(answers))).collect()
}

/// The open cells where a `me` stone has a killer ([`InferiorCells::killer`]): an answer of
/// the opponent that leaves it dead.
fn vulnerable_cells(inferior_cells: &InferiorCells, me: Color, stones: &[u128; 2], open: u128) -> u128 {
    iterate(open)
        .filter(|&cell| inferior_cells.killer(cell, me, stones, open).is_some())
        .fold(0, |set, cell| set | 1 << cell)
}

/// The player whose edges fill-in joined outright, if any (H-search must not be asked then).
fn filled_winner(geometry: &BoardGeometry, stones: &[u128; 2]) -> Option<Color> {
    [Color::Black, Color::White].into_iter().find(|&color| geometry.connected(color, stones[color.index()]))
}

fn cells(set: u128) -> Vec<HexMove> {
    iterate(set).map(|cell| HexMove::Cell(Cell(cell as u16))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::GameConfig;
    use crate::games::hex::HexConfig;
    use crate::games::testing::{hex_position, minimax_value, random_running_position};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use rustc_hash::FxHashMap;

    /// Whether the side to move wins after `mv` (exhaustive search).
    fn wins_after(position: &Hex, mv: HexMove, memo: &mut FxHashMap<u64, i32>) -> bool {
        let mut child = position.clone();
        child.play(mv).unwrap();
        match child.outcome() {
            Some(crate::games::Outcome::Win(winner)) => winner == position.to_move(),
            _ => minimax_value(&child, memo) < 0,
        }
    }

    /// `count` random running positions of a `width` x `height` board, each with a number of
    /// moves drawn from `moves`.
    fn random_positions<'a>(
        rng: &'a mut SmallRng,
        (width, height): (usize, usize),
        moves: std::ops::Range<usize>,
        count: usize,
    ) -> impl Iterator<Item = Hex> + 'a {
        let start = Hex::new(&HexConfig::with_size(width, height).unwrap());
        (0..count).map(move |_| {
            let moves = rng.random_range(moves.clone());
            random_running_position(&start, rng, moves)
        })
    }

    /// The 11x11 position after `moves` (cell names, Black first, colours alternating).
    fn eleven_by_eleven_after(moves: &str) -> Hex {
        let mut position = Hex::new(&HexConfig::with_size(11, 11).unwrap());
        for mv in moves.split_whitespace() {
            position.play(position.parse_move(mv).unwrap()).unwrap();
        }
        position
    }

    /// Everything the knowledge claims holds by exhaustive search on random small boards,
    /// with an unlimited budget and with budgets that cut the H-search short: a winning move
    /// wins, every losing move loses, and when the node is restricted to a set of moves, a
    /// won position has a winning move in it.
    #[test]
    fn node_knowledge_is_sound_against_minimax() {
        let mut rng = SmallRng::seed_from_u64(11);
        let (mut wins, mut losses, mut restricted) = (0, 0, 0);
        for (width, height) in [(3, 4), (4, 3), (4, 4)] {
            let mut memo = FxHashMap::default();
            for position in random_positions(&mut rng, (width, height), 2..width * height - 2, 200) {
                let won = minimax_value(&position, &mut memo) > 0;
                for budget in [u64::MAX, 200, 130] {
                    let knowledge = node_knowledge(&position, budget);
                    if let Some(mv) = knowledge.winning_move {
                        assert!(wins_after(&position, mv, &mut memo), "{position:?}: {mv:?} does not win");
                        wins += 1;
                    }
                    for &mv in &knowledge.losing_moves {
                        assert!(!wins_after(&position, mv, &mut memo), "{position:?}: {mv:?} does not lose");
                        losses += 1;
                    }
                    if let Some(defences) = &knowledge.defences {
                        assert!(!defences.is_empty());
                        if won {
                            assert!(
                                defences.iter().any(|&mv| wins_after(&position, mv, &mut memo)),
                                "{position:?}: no winning move among {defences:?}"
                            );
                        }
                        restricted += 1;
                    }
                }
            }
        }
        assert!(wins > 50 && losses > 50 && restricted > 50, "too few claims: {wins} {losses} {restricted}");
    }

    /// The fill-in the knowledge hands the playouts keeps the position's value: on random
    /// small boards, the position with the fill-in's stones (the side to move unchanged) has the
    /// same minimax value, its cells were empty, and none of them is a defence.
    #[test]
    fn the_fill_in_keeps_the_value() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut filled_positions = 0;
        for (width, height) in [(3, 4), (4, 4)] {
            let mut memo = FxHashMap::default();
            for position in random_positions(&mut rng, (width, height), 2..width * height - 3, 300) {
                let knowledge = node_knowledge(&position, u64::MAX);
                if knowledge.fill_in.is_empty() || knowledge.winning_move.is_some() {
                    continue;
                }
                for &(mv, _) in &knowledge.fill_in {
                    assert!(position.is_legal(mv), "{position:?}: {mv:?} is not empty");
                    assert!(!knowledge.defences.as_ref().is_some_and(|defences| defences.contains(&mv)));
                }
                let mut filled = position.clone();
                filled.fill_in(&knowledge.fill_in);
                assert_eq!(filled.to_move(), position.to_move());
                assert_eq!(
                    minimax_value(&filled, &mut memo),
                    minimax_value(&position, &mut memo),
                    "{position:?} filled {filled:?}"
                );
                filled_positions += 1;
            }
        }
        assert!(filled_positions > 30, "only {filled_positions} positions had a fill-in");
    }

    /// Vulnerable cells are searched last: a node left unproven that has one gets a defence
    /// set, and no defence set holds one.
    #[test]
    fn vulnerable_cells_are_left_out_of_the_defences() {
        let mut rng = SmallRng::seed_from_u64(3);
        let geometry = BoardGeometry::new(5, 5).unwrap();
        let inferior_cells = InferiorCells::new(&geometry);
        let mut restricted = 0;
        for position in random_positions(&mut rng, (5, 5), 3..14, 400) {
            let knowledge = node_knowledge(&position, u64::MAX);
            let mut stones = geometry.stones_of(&position);
            let empty = geometry.all() & !(stones[0] | stones[1]);
            let fill = inferior_cells.fill_in(&mut stones, empty);
            let open = empty & !(fill.dead | fill.captured[0] | fill.captured[1]);
            let vulnerable = vulnerable_cells(&inferior_cells, position.to_move(), &stones, open);
            let proven =
                knowledge.winning_move.is_some() || knowledge.losing_moves.len() == empty.count_ones() as usize;
            if vulnerable == 0 || proven {
                continue;
            }
            let defences = knowledge.defences.expect("a node with vulnerable cells is restricted");
            for mv in defences {
                let HexMove::Cell(Cell(cell)) = mv else { panic!("a defence is a cell") };
                assert_eq!(vulnerable >> cell & 1, 0, "{position:?}: vulnerable {} defends", position.format_move(mv));
            }
            restricted += 1;
        }
        assert!(restricted > 20, "too few positions with vulnerable cells: {restricted}");
    }

    /// The budget bounds the work (up to one AND step past the limit) and the answer is the
    /// same every time for the same position and budget.
    #[test]
    fn node_knowledge_keeps_to_its_budget_and_repeats_itself() {
        let mut rng = SmallRng::seed_from_u64(5);
        let start = Hex::new(&HexConfig::with_size(11, 11).unwrap());
        for stones in [10, 20, 30, 40] {
            let position = random_running_position(&start, &mut rng, stones);
            let unlimited = node_knowledge(&position, u64::MAX);
            for budget in [150, 400, 2_000] {
                let knowledge = node_knowledge(&position, budget);
                assert!(knowledge.nodes <= budget + 50, "{} units for a budget of {budget}", knowledge.nodes);
                assert_eq!(knowledge, node_knowledge(&position, budget));
            }
            assert!(unlimited.nodes > 150, "an 11x11 H-search is real work: {}", unlimited.nodes);
        }
    }

    /// On 3x3, b2 is the key for both sides: Black's b1 and b3 meet only there, and White's
    /// c1 reaches the left edge from b2 by a2 or a3. Whoever moves wins with it.
    #[test]
    fn the_key_of_a_semi_connection_between_the_edges_wins() {
        for to_move in [Color::White, Color::Black] {
            let mut position = hex_position(3, 3, &["b1", "b3"], &["c1"]);
            position.give_turn_to(to_move).unwrap();
            let knowledge = node_knowledge(&position, u64::MAX);
            assert_eq!(knowledge.winning_move.map(|mv| position.format_move(mv)), Some("b2".to_string()));
        }
    }

    /// White's bridge e5-f6 in the middle of 11x11, Black to move: a Black stone on one of the
    /// bridge's two cells (f5, e6) breaks it, and the other cell is White's answer that
    /// restores it.
    fn bridge_position() -> Hex {
        hex_position(11, 11, &["k1", "a11"], &["e5", "f6"])
    }

    #[test]
    fn an_intrusion_into_a_bridge_is_answered_with_its_other_cell() {
        let position = bridge_position();
        let knowledge = node_knowledge(&position, u64::MAX);
        let answers_to = |probe: &str| -> Vec<String> {
            let probe = position.parse_move(probe).unwrap();
            let answers = knowledge.replies.iter().find(|(mv, _)| *mv == probe).map(|(_, answers)| answers.clone());
            answers.unwrap_or_default().into_iter().map(|mv| position.format_move(mv)).collect()
        };
        assert!(answers_to("f5").contains(&"e6".to_string()), "{:?}", answers_to("f5"));
        assert!(answers_to("e6").contains(&"f5".to_string()), "{:?}", answers_to("e6"));
        // Every probe named lies in a carrier of White's, and every answer is an empty cell.
        for (probe, answers) in &knowledge.replies {
            assert!(position.is_legal(*probe) && !answers.is_empty());
            assert!(answers.iter().all(|&answer| answer != *probe && position.is_legal(answer)));
        }
    }

    /// The search favours the answers after the probe: once the root's knowledge has named e6
    /// as the answer to f5, the position after f5 holds e6 at half the moves' probability or
    /// more (the default bonus); with the bonus at 0 it does not.
    #[test]
    fn the_search_favours_the_answer_to_an_intrusion() {
        use crate::search::{Limits, NodeSearch, Search, SearchParams};
        use std::sync::atomic::AtomicBool;
        let position = bridge_position();
        let mut after_probe = position.clone();
        after_probe.play(position.parse_move("f5").unwrap()).unwrap();
        let answer = position.parse_move("e6").unwrap();
        let answer_policy = |reply_bonus: f64| {
            let mut search = Search::new(SearchParams { max_memory_mb: 16, reply_bonus, ..SearchParams::default() });
            search.set_threat_hook(Some(NodeSearch::knowledge(node_knowledge)));
            let stop = AtomicBool::new(false);
            search.run(&position, Limits { max_visits: Some(300), ..Limits::default() }, &stop, 5, None);
            search.run(&after_probe, Limits { max_visits: Some(20), ..Limits::default() }, &stop, 5, None);
            let result = search.kept_result(&after_probe).expect("the root after f5 is expanded");
            result.moves.iter().find(|stats| stats.mv == answer).expect("e6 is a move").policy
        };
        assert!(answer_policy(1.0) >= 0.49, "{}", answer_policy(1.0));
        assert!(answer_policy(0.0) < 0.2, "{}", answer_policy(0.0));
    }

    /// With the swap rule, the first player's winning centre is no win (it is swapped), and
    /// the second player's first move may be the swap: no knowledge before two stones.
    #[test]
    fn no_knowledge_while_the_swap_may_still_come() {
        let mut config = HexConfig::with_size(3, 3).unwrap();
        assert!(node_knowledge(&Hex::new(&config), u64::MAX).winning_move.is_some(), "b2 wins without the swap");
        config.set_param("allow_swap", "1").unwrap();
        let mut position = Hex::new(&config);
        assert_eq!(node_knowledge(&position, u64::MAX), NodeThreats::default());
        position.play(position.parse_move("b2").unwrap()).unwrap();
        assert_eq!(node_knowledge(&position, u64::MAX), NodeThreats::default());
    }

    /// A position of a game between ponder and MoHex 2.0 (11x11, session 30; White ponder
    /// to move after 23 stones): MoHex's virtual connections and its DFPN solver both find
    /// Black's edges joined. Ponder's H-search finds it through the greedy union of Black's
    /// semis between the edges (more than the four its OR rule combines), within the default
    /// knowledge budget of a tree node.
    #[test]
    fn the_greedy_union_proves_a_loss_that_mohex_saw_in_play() {
        let position = eleven_by_eleven_after("i2 i3 k2 j4 i4 j3 i5 g4 e5 e6 f5 f7 f6 e7 h7 h6 i6 f3 d4 d5 e4 h9 g9");
        assert_eq!(position.to_move(), Color::White);
        let knowledge = node_knowledge(&position, crate::search::DEFAULT_KNOWLEDGE_NODES);
        assert_eq!(knowledge.losing_moves.len(), 121 - 23, "every White move loses");
    }

    /// An 11x11 position of a game between ponder and MoHex 2.0 (`fi-a/game-0005` of
    /// `tests/data/hex/mohex-vc-wins.txt`, 33 stones, White to move, where MoHex's virtual
    /// connections join Black's edges): H-search at the root leaves White moves that it cannot
    /// refute, but with knowledge at the tree's nodes the search proves that every White move
    /// loses (the replies' must-play regions and the wins below them); without it, or with a
    /// knowledge budget too small for any H-search, the search proves nothing in the same
    /// playouts. The knowledge's budget is its own: Gomoku's threat budget does not bound it.
    /// (The positions this test used before, a self-play one and `fi-b/game-0009`, are now
    /// proven at their roots.)
    #[test]
    fn knowledge_in_the_tree_proves_a_loss_the_root_alone_does_not() {
        use crate::search::{Limits, NodeSearch, RootProof, Search, SearchParams};
        use std::sync::atomic::AtomicBool;
        let position = eleven_by_eleven_after(
            "c8 c9 e8 e7 f7 g5 d10 e9 d6 f5 e4 c7 h5 h6 g6 h4 b8 d5 c6 b9 d8 d9 g8 f10 h9 g11 i10 e5 c5 i9 h10 h8 g9",
        );
        assert_eq!(position.to_move(), Color::White);
        assert!(node_knowledge(&position, u64::MAX).losing_moves.len() < 121 - 33);
        let search_with = |params: SearchParams| {
            let mut search = Search::new(SearchParams { max_memory_mb: 64, ..params });
            search.set_threat_hook(Some(NodeSearch::knowledge(node_knowledge)));
            let limits = Limits { max_visits: Some(5_000), ..Limits::default() };
            search.run(&position, limits, &AtomicBool::new(false), 7, None)
        };
        let with_knowledge =
            search_with(SearchParams { knowledge_visits: 16, threat_nodes: 0, ..SearchParams::default() });
        assert_eq!(with_knowledge.root_proof, RootProof::Loss);
        let cell_analysis_only = SearchParams {
            knowledge_visits: 16,
            knowledge_nodes: FILL_IN_COST + VULNERABLE_COST,
            knowledge_nodes_per_playout: 0,
            threat_nodes: u64::MAX / 2,
            ..SearchParams::default()
        };
        assert_eq!(search_with(cell_analysis_only).root_proof, RootProof::Unknown);
        assert_eq!(
            search_with(SearchParams { knowledge_visits: 0, ..SearchParams::default() }).root_proof,
            RootProof::Unknown
        );
    }

    /// How many of the positions where MoHex's virtual connections join a player's edges
    /// (`tests/data/hex/mohex-vc-wins.txt`) the node knowledge decides at the default budget,
    /// in all and at the first such position of each game and player (where MoHex saw it
    /// first), and the first positions it misses. A measurement, not a check. Run with
    /// `cargo test --release --lib
    /// solvers::hex_tree_knowledge::tests::mohex_connected_positions -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn mohex_connected_positions() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hex/mohex-vc-wins.txt");
        let text = std::fs::read_to_string(path).unwrap();
        let (mut decided, mut total, mut first_decided, mut firsts) = (0, 0, 0, 0);
        let mut seen = std::collections::HashSet::new();
        let started = std::time::Instant::now();
        for line in text.lines().filter(|line| !line.starts_with('#')) {
            let mut fields = line.split_whitespace();
            let (game, holder) = (fields.next().unwrap(), fields.next().unwrap());
            let holder = if holder == "b" { Color::Black } else { Color::White };
            let position = eleven_by_eleven_after(&fields.collect::<Vec<_>>().join(" "));
            let knowledge = node_knowledge(&position, crate::search::DEFAULT_KNOWLEDGE_NODES);
            let empty = 121 - position.stone_count();
            let found = if holder == position.to_move() {
                knowledge.winning_move.is_some()
            } else {
                knowledge.losing_moves.len() == empty
            };
            total += 1;
            decided += usize::from(found);
            if seen.insert((game.to_string(), holder)) {
                firsts += 1;
                first_decided += usize::from(found);
                if !found {
                    // The lines to compare with MoHex's own connections (`vc-build`).
                    println!("missed first: {line}");
                }
            }
        }
        let millis = started.elapsed().as_secs_f64() * 1e3 / total as f64;
        println!(
            "decided {decided} of {total} positions, {first_decided} of the first {firsts} ({millis:.2} ms a position)"
        );
    }
}
