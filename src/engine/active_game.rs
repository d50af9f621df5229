//! The game being played, behind one object-safe trait: the session picks a game at run time
//! through [`ActiveGame`]; everything below it ([`GameState`], the rules, the search) is
//! monomorphized.

use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::error::GtpError;
use super::record_view::{GameRecord, StartSetup, move_between, stones_of};
use crate::games::{
    CellNames, Color, ConfigError, Game, GameConfig, MoveError, Outcome, Param, PlayError, perft_estimate, perft_until,
};
use crate::protocol::command::VcView;
use crate::search::deepening::Heartbeat;
use crate::search::tree::Proof;
use crate::search::{
    Limits, NodeSearch, PlayoutHook, PriorHook, RootProof, Search, SearchParams, SearchResult, TreeStats,
};

/// Called with the root moves while a search runs (live analysis).
pub type ProgressCallback<'a> = &'a mut dyn FnMut(&[AnalysisMove]);

/// What a search is asked to do (`'p` is the progress callback's own lifetime).
pub struct SearchRequest<'a, 'p> {
    pub limits: Limits,
    pub seed: u64,
    /// Set from outside (GoGui's `# interrupt`, a new input line) to end the search early.
    pub stop: &'a AtomicBool,
    /// Live analysis: called about every interval with the root moves.
    pub progress: Option<(Duration, ProgressCallback<'p>)>,
}

/// One root move as analysis shows it: values from the view of the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisMove {
    pub mv: String,
    pub visits: u32,
    /// Mean result for the side to move after this move, in [0, 1]; exact for proven moves.
    pub winrate: f64,
    /// The prior the search gave the move, in [0, 1]: the move model's probability where the
    /// game has one (Hex), else an even share.
    pub prior: f64,
    /// A lower confidence bound of the win rate, in [0, 1].
    pub lcb: f64,
    /// The principal variation, starting with `mv`.
    pub pv: Vec<String>,
    /// The expected final score lead of the side to move after this move, in the game's unit
    /// (Reversi: discs), where the search estimates one.
    pub score_lead: Option<f64>,
}

/// What a solver call may use: threads, the time it should fit in, and the stop flag.
pub struct SolveContext<'a> {
    pub threads: usize,
    /// The move's time budget; `None` without a limit.
    pub budget: Option<Duration>,
    pub stop: &'a AtomicBool,
}

/// What a game's exact solver adds to the generic search, registered with the game.
pub struct SolverHooks<G: Game> {
    /// `ponder-solve`: the answer for the side to move of a running game; `None` when stopped.
    pub solve: fn(&G, &SolveContext) -> Option<String>,
    /// Asked before `genmove` searches: a move proven best, or a proof that the side to move
    /// has lost, when the solver finds one within the budget; `None` lets the search decide.
    pub solved_move: Option<SolvedMoveHook<G>>,
    /// The share of a move's time (its target) that `solved_move` may take; the search gets
    /// the rest when the solve does not finish. [`SOLVER_SHARE`] unless the game's solver
    /// knows better what it can finish.
    pub solver_share: f64,
    /// The `ponder-vc_*` views (Hex): the reply for a colour as the side to move.
    pub vc_view: Option<fn(&G, Color, VcView) -> String>,
    /// Moves of the side to move proven to lose at once (Hex: those outside the must-play
    /// region of the opponent's virtual connections). Each search marks them lost at its root.
    pub losing_moves: Option<LosingMovesHook<G>>,
    /// Proofs the search asks for when it first visits a node, beyond what the rules module
    /// knows (Hex: virtual connections once few cells are empty).
    pub expansion_proof: Option<fn(&G) -> Option<Outcome>>,
    /// The threat search the MCTS runs inside its tree (Gomoku: VCF and VCT for both sides at
    /// the root and at nodes with `threat_visits` visits).
    pub node_threats: Option<NodeSearch<G>>,
    /// Asked after `genmove` searched: whether the opponent wins by force after the side to
    /// move plays this move (Gomoku: its VCF or VCT, with larger limits than the tree's). The
    /// search's choice is played unless it is refuted; then the next root moves by the search's
    /// order are tried. `false` when the budget (context's stop flag) ran out first.
    pub refuted_move: Option<RefutedMoveHook<G>>,
}

/// The share of a move's time a game's `solved_move` hook gets unless it asks for another.
pub const SOLVER_SHARE: f64 = 0.4;

/// The `refuted_move` hook: whether the opponent wins by force after the move.
pub type RefutedMoveHook<G> = fn(&G, <G as Game>::Move, &SolveContext) -> bool;

/// The time kept from the search for the `refuted_move` checks (with the time the search
/// leaves unused): a twentieth of the move's time, at least half a second, at most a fifth.
/// In Gomoku the check of the search's choice took 0.0-0.4 s after the search (Rapfi matches
/// at 5 s a move), and a fixed fifth left some 0.8 s of every 5 s unused; the alternatives,
/// checked only when the choice is refuted, get what is left.
const REFUTATION_SHARE: f64 = 0.05;
const MIN_REFUTATION_SECONDS: f64 = 0.5;
const MAX_REFUTATION_SHARE: f64 = 0.2;

/// What the search may use of `time` when its choice is checked by the `refuted_move` hook.
fn time_before_refutation_checks(time: Duration) -> Duration {
    let reserve = (time.as_secs_f64() * REFUTATION_SHARE).max(MIN_REFUTATION_SECONDS);
    time.saturating_sub(Duration::from_secs_f64(reserve.min(time.as_secs_f64() * MAX_REFUTATION_SHARE)))
}

/// The most root moves the `refuted_move` checks try, the search's choice first.
const REFUTATION_CANDIDATES: usize = 6;

/// The `losing_moves` hook: moves of the side to move that lose at once.
pub type LosingMovesHook<G> = fn(&G) -> Vec<<G as Game>::Move>;

/// The `solved_move` hook: a verdict for the side to move, when the solver finds one in time.
pub type SolvedMoveHook<G> = fn(&G, &SolveContext) -> Option<SolverVerdict<<G as Game>::Move>>;

/// What a game's own move search (alpha-beta with a trained evaluation) may use.
pub struct MidgameContext<'a> {
    /// The search stops here whatever happens.
    pub max_time: Option<Duration>,
    /// The time the move should take when time saved carries over to later moves; `None`
    /// lets the search run to `max_time`.
    pub target_time: Option<Duration>,
    /// The playout limit of `max_visits` or `level`, which the search turns into nodes.
    pub max_visits: Option<u64>,
    /// The deepest iteration (`param_search max_depth`), if limited.
    pub max_depth: Option<u32>,
    pub stop: &'a AtomicBool,
    /// What the search keeps from one move of a game to the next (Reversi: its transposition
    /// table), of the search's own type; emptied when a new game starts.
    pub kept: &'a Mutex<Option<Box<dyn Any + Send>>>,
    /// Whether the game's threat searches may narrow the search's root (`param_search solver`).
    pub threat_checks: bool,
    /// For the search's limits: called now and then while it runs (analyses only; see
    /// [`Heartbeat`]).
    pub heartbeat: Option<Heartbeat<'a>>,
}

/// The move a game's own search chose.
#[derive(Clone, Debug, PartialEq)]
pub struct MidgameAnswer<M> {
    pub mv: M,
    /// The expected result for the side to move as a win rate in [0, 1].
    pub value: f64,
    pub nodes: u64,
    /// The deepest iteration the search completed, in plies.
    pub depth: u32,
    pub pv: Vec<M>,
    /// Set when the search saw every line to the end of the game.
    pub proof: RootProof,
    /// The search's own score for the side to move, in the game's unit (Reversi: discs).
    pub score: f64,
    /// Other moves in the search's order of preference, to play instead when the game's
    /// `refuted_move` check finds that `mv` loses by force (empty: none offered).
    pub alternatives: Vec<M>,
}

/// The hook of a game that plays `genmove` by its own search instead of MCTS (when the
/// `alphabeta` search parameter is on); `None` hands the move to MCTS.
pub type MidgameHook<G> = fn(&G, &MidgameContext) -> Option<MidgameAnswer<<G as Game>::Move>>;

/// One root move as a game's own analysis scores it, from the view of the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct MidgameLine<M> {
    /// The line, starting with the root move.
    pub pv: Vec<M>,
    /// The expected result as a win rate in [0, 1] (exact where `score` is).
    pub value: f64,
    /// The search's score in the game's unit (Reversi: discs); `None` for a game without one
    /// (Gomoku), whose analysis then shows no `scoreLead`.
    pub score: Option<f64>,
}

/// The hook of a game that analyses (`lz-analyze`, `kata-analyze`) by its own search when the
/// `alphabeta` parameter is on. It deepens within the context's limits and calls `report` after
/// every completed depth with all root moves scored, best first, and the nodes searched so far;
/// its search gets the context's heartbeat. `false` (nothing searched) hands the analysis to
/// MCTS.
pub type MidgameAnalysisHook<G> =
    fn(&G, &MidgameContext, &mut dyn FnMut(&[MidgameLine<<G as Game>::Move>], u64)) -> bool;

/// What a solver hook proved before `genmove` searches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SolverVerdict<M> {
    /// This move is proven best: play it without searching.
    Play(M),
    /// This move is proven best and the game's exact value for the side to move is `score`
    /// (Reversi: the final disc difference), found in `nodes` nodes: played without searching,
    /// and reported as the move's search would be (front ends show the score, as NBoard's eval).
    PlayExact { mv: M, score: f64, nodes: u64 },
    /// Every move loses: `genmove` resigns.
    Lost,
}

/// A one-line summary of a finished search, for the log on stderr.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSummary {
    pub mv: String,
    pub playouts: u64,
    pub reused_visits: u64,
    pub elapsed: Duration,
    /// Win rate of the side that moved, in [0, 1].
    pub value: f64,
    pub proof: RootProof,
    pub pv: Vec<String>,
    /// The score of a game's own search (Reversi's alpha-beta: discs for the side that moved);
    /// `None` for MCTS.
    pub score: Option<f64>,
    /// The deepest iteration of a game's own alpha-beta search, in plies; `None` for MCTS and
    /// the exact solver.
    pub depth: Option<u32>,
}

impl SearchSummary {
    /// What `playouts` counts: the nodes of a game's own alpha-beta search or exact solver
    /// (a summary with a score), else the MCTS's playouts.
    pub fn work_unit(&self) -> &'static str {
        if self.score.is_some() { "nodes" } else { "playouts" }
    }

    /// `, depth D` for a summary line where the game's own alpha-beta chose the move, else
    /// nothing.
    pub fn depth_note(&self) -> String {
        self.depth.map(|depth| format!(", depth {depth}")).unwrap_or_default()
    }
}

/// The summary of a move the exact solver proved, as a search's would be: the game's exact
/// value `score` for the side to move, its sign as a proven result.
fn exact_summary<G: Game>(position: &G, mv: G::Move, score: f64, nodes: u64, elapsed: Duration) -> SearchSummary {
    let (value, proof) = match score.partial_cmp(&0.0) {
        Some(std::cmp::Ordering::Greater) => (1.0, RootProof::Win),
        Some(std::cmp::Ordering::Less) => (0.0, RootProof::Loss),
        _ => (0.5, RootProof::Draw),
    };
    let text = position.format_move(mv);
    SearchSummary {
        mv: text.clone(),
        playouts: nodes,
        reused_visits: 0,
        elapsed,
        value,
        proof,
        pv: vec![text],
        score: Some(score),
        depth: None,
    }
}

/// What `genmove` answered.
#[derive(Clone, Debug, PartialEq)]
pub enum GenMove {
    /// A move (already played unless it was `reg_genmove`), with the search that chose it.
    Move(String, Option<SearchSummary>),
    /// The side has lost: the game is over, or a solver or the search proved every move lost.
    Resign,
    /// A finished, drawn game or a game won by this side: nothing to play.
    Pass,
}

/// The session's view of the current game: rules, history and search tree together.
pub trait ActiveGame: Send + GameRecord {
    /// The game's registry name.
    fn name(&self) -> &'static str;
    /// Board width and height.
    fn size(&self) -> (usize, usize);
    /// Sets the board size and clears the board and the tree.
    fn set_size(&mut self, width: usize, height: usize) -> Result<(), GtpError>;
    /// The variant parameters for `param_game`.
    fn params(&self) -> Vec<Param>;
    /// Sets a variant parameter; a change clears the board and the tree.
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), GtpError>;
    /// Back to the start position with no history; the tree is kept (it is matched by position).
    fn clear_board(&mut self);
    /// Plays a move for `color`, handing it the turn first when needed.
    fn play(&mut self, color: Color, text: &str) -> Result<(), GtpError>;
    /// Takes back the last move.
    fn undo(&mut self) -> Result<(), GtpError>;
    /// Replaces the game by a set-up position with no history.
    fn set_position(&mut self, stones: &[(Color, String)]) -> Result<(), GtpError>;
    /// Gives the turn of a set-up position that no move has followed yet to `color` (an SGF
    /// `PL`); does nothing for other positions.
    ///
    /// # Errors
    /// [`GtpError::IllegalMove`] when the set-up cannot have `color` to move.
    fn set_setup_to_move(&mut self, color: Color) -> Result<(), GtpError>;
    /// Searches a move for `color`; plays it when `commit`.
    fn genmove(&mut self, color: Color, request: SearchRequest, commit: bool) -> Result<GenMove, GtpError>;
    /// Searches the position for `color` without playing (analysis, pondering) and returns the
    /// root moves, best first; empty when the game is over. Blocks for the search.
    fn analyze(&mut self, color: Color, request: SearchRequest) -> Result<Vec<AnalysisMove>, GtpError>;
    /// Thinks about the position for `color` (the opponent's turn) so that our next `genmove`
    /// gains from it: the game's own search when it plays by one (its kept state), else the
    /// kept MCTS tree. Blocks for the search.
    fn ponder(&mut self, color: Color, request: SearchRequest) -> Result<(), GtpError>;
    /// The root moves of the kept tree when it stands for the current position, else empty.
    fn last_analysis(&self) -> Vec<AnalysisMove>;
    /// Whether the game is over.
    fn is_over(&self) -> bool;
    /// An estimate of the moves the side to move still has to make, for time budgets.
    fn moves_left_estimate(&self) -> usize;
    /// Whether the game has an exact solver (`ponder-solve`).
    fn has_solver(&self) -> bool;
    /// `ponder-solve COLOR`: the solver's answer for `color` to move. Blocks until solved or
    /// stopped.
    fn solve(&mut self, color: Color, context: &SolveContext) -> Result<String, GtpError>;
    /// Whether the game answers the `ponder-vc_*` views.
    fn has_vc_views(&self) -> bool;
    /// A `ponder-vc_*` view of the current position for `color` as the side to move.
    fn vc_view(&self, color: Color, view: VcView) -> Result<String, GtpError>;
    /// The `showboard` diagram.
    fn board_text(&self) -> String;
    /// The `final_score` text of a finished game.
    fn final_score(&self) -> Result<String, GtpError>;
    /// Move sequences of exactly `depth` moves from here; `None` when `stop` was raised first.
    fn perft(&self, depth: u32, stop: &AtomicBool) -> Option<u64>;
    /// A cheap estimate of what [`ActiveGame::perft`] would count.
    fn perft_estimate(&self, depth: u32) -> f64;
    /// New search settings (a new memory cap drops the tree).
    fn set_search_params(&mut self, params: &SearchParams);
    /// Size and reuse figures of the kept tree.
    fn tree_stats(&self) -> TreeStats;
    /// The side to move.
    fn to_move(&self) -> Color;
    /// Moves played since the start or set-up position.
    fn moves_played(&self) -> usize;
}

/// One game's state: its variant settings, the positions so far (the last is the current one),
/// and the kept search tree.
pub struct GameState<G: Game> {
    name: &'static str,
    pub(super) config: G::Config,
    pub(super) history: Vec<G>,
    search: Search<G>,
    solver: Option<SolverHooks<G>>,
    /// The game's own move search, used by `genmove` instead of MCTS.
    midgame: Option<MidgameHook<G>>,
    /// The same search's analysis, used by `lz-analyze` and `kata-analyze` instead of MCTS.
    midgame_analysis: Option<MidgameAnalysisHook<G>>,
    /// What that search keeps between the moves of a game ([`MidgameContext::kept`]).
    midgame_kept: Mutex<Option<Box<dyn Any + Send>>>,
    /// Whether `genmove` resigns when the search proves every move lost (MoHex does; off by
    /// default so that games like tic-tac-toe play a lost game to its end).
    resigns_proven_losses: bool,
    /// The stones of a `set_position` that no move has followed yet: such a position has no
    /// fixed side to move, so the first `play` or `genmove` may be for either colour.
    set_up_stones: Option<Vec<(Color, G::Move)>>,
}

impl<G: Game> GameState<G> {
    pub fn new(name: &'static str, config: G::Config, params: &SearchParams) -> GameState<G> {
        let start = G::new(&config);
        GameState {
            name,
            config,
            history: vec![start],
            search: Search::new(params.clone()),
            solver: None,
            midgame: None,
            midgame_analysis: None,
            midgame_kept: Mutex::new(None),
            resigns_proven_losses: false,
            set_up_stones: None,
        }
    }

    /// The same, resigning when the search proves the game lost.
    pub fn resigning_proven_losses(mut self) -> GameState<G> {
        self.resigns_proven_losses = true;
        self
    }

    /// The same with an exact solver.
    pub fn with_solver(mut self, solver: SolverHooks<G>) -> GameState<G> {
        self.search.set_expansion_proof(solver.expansion_proof);
        self.solver = Some(solver);
        self
    }

    /// The same with priors from trained knowledge in place of the game's own
    /// ([`Game::move_priors`]).
    pub fn with_priors(mut self, priors: PriorHook<G>) -> GameState<G> {
        self.search.set_prior_hook(Some(priors));
        self
    }

    /// The same with playouts from trained knowledge (`param_search pattern_playouts`).
    pub fn with_playouts(mut self, playout: PlayoutHook<G>) -> GameState<G> {
        self.search.set_playout_hook(Some(playout));
        self
    }

    /// The same with priors from trained knowledge in place of the game's own where `enabled`
    /// says so for the search parameters (a `param_search` switch).
    pub fn with_switched_priors(mut self, priors: PriorHook<G>, enabled: fn(&SearchParams) -> bool) -> GameState<G> {
        self.search.set_prior_hook(Some(priors));
        self.search.set_prior_hook_switch(enabled);
        self
    }

    /// The same with its own move search for `genmove`.
    pub fn with_midgame_search(mut self, search: MidgameHook<G>) -> GameState<G> {
        self.midgame = Some(search);
        self
    }

    /// The same with its own analysis for `lz-analyze` and `kata-analyze`.
    pub fn with_midgame_analysis(mut self, analysis: MidgameAnalysisHook<G>) -> GameState<G> {
        self.midgame_analysis = Some(analysis);
        self
    }

    /// What the game's own search may use for `request`.
    fn midgame_context<'a>(&'a self, request: &SearchRequest<'a, '_>) -> MidgameContext<'a> {
        let limits = &request.limits;
        MidgameContext {
            max_time: limits.max_time,
            target_time: limits.target_time.filter(|_| limits.stop_when_decided),
            max_visits: limits.max_visits,
            max_depth: Some(self.search.params().max_depth).filter(|&depth| depth > 0),
            stop: request.stop,
            kept: &self.midgame_kept,
            threat_checks: self.search.params().solver,
            heartbeat: None,
        }
    }

    /// The game's own search's move, when it has one and the `alphabeta` parameter is on.
    fn midgame_move(&self, position: &G, request: &SearchRequest) -> Option<(SearchSummary, MidgameAnswer<G::Move>)> {
        let search = self.midgame.filter(|_| self.search.params().alpha_beta)?;
        let context = self.midgame_context(request);
        let started = Instant::now();
        let answer = search(position, &context)?;
        let summary = SearchSummary {
            mv: position.format_move(answer.mv),
            playouts: answer.nodes,
            reused_visits: 0,
            elapsed: started.elapsed(),
            value: answer.value,
            proof: answer.proof,
            pv: format_line(position, &answer.pv),
            score: Some(answer.score),
            depth: Some(answer.depth),
        };
        Some((summary, answer))
    }

    /// The game's own search's analysis, when it has one and the `alphabeta` parameter is on:
    /// the lines of each completed depth go to the progress callback at most once an interval,
    /// again each interval while the next depth runs, and once more at the end (the deepest
    /// lines are the answer).
    fn midgame_analysis(&self, position: &G, request: &mut SearchRequest) -> Option<Vec<AnalysisMove>> {
        let analysis = self.midgame_analysis.filter(|_| self.search.params().alpha_beta)?;
        // The search reports its depths and beats between them, never both at once.
        let stream = RefCell::new(AnalysisStream {
            progress: request.progress.take(),
            latest: Vec::new(),
            emitted: None,
            latest_emitted: false,
        });
        let heartbeat = || stream.borrow_mut().heartbeat();
        let context = MidgameContext { heartbeat: Some(&heartbeat), ..self.midgame_context(request) };
        if !analysis(position, &context, &mut |lines, nodes| {
            stream.borrow_mut().report(midgame_analysis_moves(position, lines, nodes))
        }) {
            return None;
        }
        if stream.borrow().latest.is_empty() {
            // Stopped before its first depth (the next command was already waiting): one
            // depth regardless, so that an analysis always has a line.
            let never = AtomicBool::new(false);
            let shallow = MidgameContext { max_depth: Some(1), stop: &never, heartbeat: None, ..context };
            analysis(position, &shallow, &mut |lines, nodes| {
                stream.borrow_mut().report(midgame_analysis_moves(position, lines, nodes))
            });
        }
        Some(stream.into_inner().finish())
    }

    fn current(&self) -> &G {
        self.history.last().expect("the history always holds the start position")
    }

    /// Replaces the config after a rule change: new start position, fresh tree.
    fn reset_with(&mut self, config: G::Config) {
        self.history = vec![G::new(&config)];
        self.set_up_stones = None;
        self.config = config;
        self.search.clear();
        self.forget_midgame_search();
    }

    /// A new game: the midgame search's kept state belongs to the last one.
    fn forget_midgame_search(&mut self) {
        *self.midgame_kept.get_mut().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// Appends `next`, a move played from `start` (a position `position_for` gave). When
    /// `start` is a set-up made again for the colour not to move there, it becomes the start of
    /// the history, so that the game record knows who moved first.
    fn commit(&mut self, start: G, next: G) {
        let remade = self.history.len() == 1
            && self.set_up_stones.is_some()
            && self.history[0].clone().give_turn_to(start.to_move()).is_err();
        if remade {
            self.history[0] = start;
        }
        self.history.push(next);
    }

    /// Reads a move text in the current position.
    fn parse_move(&self, text: &str) -> Result<G::Move, GtpError> {
        self.current().parse_move(text).map_err(|error| match error {
            MoveError::Syntax if !text.eq_ignore_ascii_case("pass") => GtpError::Syntax,
            _ => GtpError::IllegalMove,
        })
    }

    /// The current position with `color` to move: handed the turn as the game allows, or, for
    /// a fresh set-up position, set up again with `color` to move.
    fn position_for(&self, color: Color) -> Result<G, GtpError> {
        let mut position = self.current().clone();
        match (position.give_turn_to(color), &self.set_up_stones) {
            (Ok(()), _) => Ok(position),
            (Err(PlayError::WrongTurn), Some(stones)) if self.history.len() == 1 => {
                G::set_up(&self.config, stones, color).map_err(play_error)
            }
            (Err(error), _) => Err(play_error(error)),
        }
    }

    /// The solver's verdict on `position` when it has one within the request's time.
    fn solved_move(&self, position: &G, request: &SearchRequest) -> Option<SolverVerdict<G::Move>> {
        if !self.search.params().solver {
            return None;
        }
        let solved_move = self.solver.as_ref()?.solved_move?;
        // The solver gets its share of the move's time (its target, not the hard limit that
        // only an unstable search may reach), so that the search still has the rest when the
        // solve does not finish.
        let share = self.solver.as_ref()?.solver_share;
        let time = request.limits.target_time.or(request.limits.max_time);
        let budget = time.map(|budget| budget.mul_f64(share));
        let threads = self.search.params().threads;
        let started = Instant::now();
        let verdict =
            with_deadline(budget, request.stop, |stop| solved_move(position, &SolveContext { threads, budget, stop }));
        // The time is logged whatever the verdict: the solver's share is time the search lacks.
        let seconds = started.elapsed().as_secs_f64();
        match verdict {
            Some(SolverVerdict::Play(mv) | SolverVerdict::PlayExact { mv, .. }) => {
                log::info!(
                    "{} {}: played by the exact solver in {seconds:.2} s",
                    position.to_move(),
                    position.format_move(mv)
                );
            }
            Some(SolverVerdict::Lost) => {
                log::info!("{}: proven lost by the exact solver in {seconds:.2} s", position.to_move());
            }
            None => log::debug!("{}: the exact solver decided nothing in {seconds:.2} s", position.to_move()),
        }
        verdict
    }

    /// The search's choice `best` unless the `refuted_move` check finds the opponent wins by
    /// force after it; then the first of its `alternatives` (its other moves in its order, none
    /// proven lost; at most [`REFUTATION_CANDIDATES`] moves in all) that the check does not
    /// refute, or `best` when every one tried is refuted or the budget runs out first.
    fn unrefuted_move(
        &self,
        position: &G,
        best: G::Move,
        alternatives: impl Iterator<Item = G::Move>,
        refuted: RefutedMoveHook<G>,
        budget: Option<Duration>,
        interrupt: &AtomicBool,
    ) -> G::Move {
        let threads = self.search.params().threads;
        let candidates = std::iter::once(best).chain(alternatives).take(REFUTATION_CANDIDATES);
        let started = Instant::now();
        let (chosen, checked) = with_deadline(budget, interrupt, |stop| {
            let context = SolveContext { threads, budget, stop };
            let mut checked = 0;
            for mv in candidates {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                checked += 1;
                if !refuted(position, mv, &context) {
                    return (mv, checked);
                }
            }
            (best, checked)
        });
        let seconds = started.elapsed().as_secs_f64();
        if chosen != best {
            log::info!(
                "{} {}: played instead of {}, which the opponent refutes by force ({checked} moves checked in \
                 {seconds:.2} s)",
                position.to_move(),
                position.format_move(chosen),
                position.format_move(best)
            );
        } else {
            log::debug!("{}: the refutation check looked at {checked} moves in {seconds:.2} s", position.to_move());
        }
        chosen
    }

    /// Runs the search on `position`, turning progress reports into [`AnalysisMove`]s.
    fn run_search(&mut self, position: &G, request: SearchRequest) -> SearchResult<G::Move> {
        let SearchRequest { limits, seed, stop, progress } = request;
        let losing_moves = match self.solver.as_ref().and_then(|hooks| hooks.losing_moves) {
            Some(losing_moves) if self.search.params().solver => losing_moves(position),
            _ => Vec::new(),
        };
        self.search.set_root_losing_moves(losing_moves);
        self.search.set_threat_hook(self.solver.as_ref().and_then(|hooks| hooks.node_threats));
        match progress {
            None => self.search.run(position, limits, stop, seed, None),
            Some((interval, callback)) => {
                let mut report = |result: &SearchResult<G::Move>| callback(&analysis_moves(position, result));
                self.search.run(position, limits, stop, seed, Some((interval, &mut report)))
            }
        }
    }

    fn summary(&self, position: &G, result: &SearchResult<G::Move>, mv: G::Move) -> SearchSummary {
        let best = result.moves.iter().find(|stats| stats.mv == mv);
        SearchSummary {
            mv: position.format_move(mv),
            playouts: result.playouts,
            reused_visits: result.reused_visits,
            elapsed: result.elapsed,
            value: best.map_or(0.5, |stats| proven_value(stats.proof).unwrap_or(stats.value)),
            proof: result.root_proof,
            pv: best.map(|stats| format_line(position, &stats.pv)).unwrap_or_default(),
            score: None,
            depth: None,
        }
    }
}

impl<G: Game> GameRecord for GameState<G> {
    fn legal_move_names(&self) -> Vec<String> {
        let position = self.history.last().expect("the history always holds a position");
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        moves.iter().map(|&mv| position.format_move(mv)).collect()
    }

    fn stone_rows(&self) -> Vec<Vec<Option<Color>>> {
        stones_of(self.history.last().expect("the history always holds a position"), self.config.size())
    }

    fn cell_names(&self) -> CellNames {
        G::CELL_NAMES
    }

    fn start_setup(&self) -> StartSetup {
        let start = &self.history[0];
        if start.hash() == G::new(&self.config).hash() {
            return (Vec::new(), start.to_move());
        }
        let mut stones = Vec::new();
        for (row, cells) in stones_of(start, self.config.size()).into_iter().enumerate() {
            for (column, stone) in cells.into_iter().enumerate() {
                if let Some(color) = stone {
                    stones.push((color, (column, row)));
                }
            }
        }
        (stones, start.to_move())
    }

    /// The session keeps positions, not moves, so each move is found again as the legal move
    /// (for either colour, since GTP's `play` may hand the turn over) that leads from one
    /// position to the next. A gap that no move explains ends the list early.
    fn moves_with_colors(&self) -> Vec<(Color, String)> {
        let mut moves = Vec::new();
        for pair in self.history.windows(2) {
            match move_between(&pair[0], &pair[1]) {
                Some(found) => moves.push(found),
                None => {
                    log::warn!("the game record stops after {} moves: no move explains the next position", moves.len());
                    break;
                }
            }
        }
        moves
    }
}

/// Runs `work` with a stop flag that a watchdog sets at `budget` from now (never without a
/// budget) or as soon as `interrupt` is set. Blocks until `work` returns.
pub(crate) fn with_deadline<T>(
    budget: Option<Duration>,
    interrupt: &AtomicBool,
    work: impl FnOnce(&AtomicBool) -> T,
) -> T {
    let deadline_stop = AtomicBool::new(false);
    let (finished, finished_signal) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        // The watchdog waits on the channel, so it wakes at once when the work is over.
        let deadline_stop = &deadline_stop;
        let watchdog = scope.spawn(move || {
            let deadline = budget.map(|budget| Instant::now() + budget);
            loop {
                if interrupt.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
                    deadline_stop.store(true, Ordering::Relaxed);
                    return;
                }
                match finished_signal.recv_timeout(Duration::from_millis(5)) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            }
        });
        let result = work(deadline_stop);
        drop(finished);
        // Joined explicitly: the scope alone returns when the closure ends, before the thread
        // has exited (LeakSanitizer, in the fuzz campaign, saw its thread-local destructor list
        // outlive the command).
        let _ = watchdog.join();
        result
    })
}

fn config_error(error: ConfigError) -> GtpError {
    match error {
        ConfigError::UnacceptableSize => GtpError::UnacceptableSize,
        ConfigError::UnknownParam => GtpError::UnknownParameter,
        ConfigError::InvalidValue(why) => GtpError::InvalidValue(why),
    }
}

fn play_error(_: PlayError) -> GtpError {
    GtpError::IllegalMove
}

impl<G: Game> ActiveGame for GameState<G> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn size(&self) -> (usize, usize) {
        self.config.size()
    }

    fn set_size(&mut self, width: usize, height: usize) -> Result<(), GtpError> {
        let mut config = self.config.clone();
        config.set_size(width, height).map_err(config_error)?;
        self.reset_with(config);
        Ok(())
    }

    fn params(&self) -> Vec<Param> {
        self.config.params()
    }

    fn set_param(&mut self, name: &str, value: &str) -> Result<(), GtpError> {
        let mut config = self.config.clone();
        config.set_param(name, value).map_err(config_error)?;
        self.reset_with(config);
        Ok(())
    }

    fn clear_board(&mut self) {
        self.history.truncate(1);
        self.set_up_stones = None;
        self.history[0] = G::new(&self.config);
        self.forget_midgame_search();
    }

    fn play(&mut self, color: Color, text: &str) -> Result<(), GtpError> {
        let mv = self.parse_move(text)?;
        let start = self.position_for(color)?;
        let mut next = start.clone();
        next.play(mv).map_err(play_error)?;
        self.commit(start, next);
        Ok(())
    }

    fn undo(&mut self) -> Result<(), GtpError> {
        if self.history.len() <= 1 {
            return Err(GtpError::CannotUndo);
        }
        self.history.pop();
        Ok(())
    }

    fn set_position(&mut self, stones: &[(Color, String)]) -> Result<(), GtpError> {
        let empty = G::new(&self.config);
        let stones = stones
            .iter()
            .map(|(color, text)| {
                let mv = empty.parse_move(text).map_err(|error| match error {
                    MoveError::Syntax => GtpError::Syntax,
                    MoveError::OffBoard => GtpError::IllegalMove,
                })?;
                Ok((*color, mv))
            })
            .collect::<Result<Vec<_>, GtpError>>()?;
        // Black moves next unless Black has placed more stones (KataGo hands the turn to Black
        // after set_position; with uneven stones the other side is the natural one).
        let black = stones.iter().filter(|(color, _)| *color == Color::Black).count();
        let next = if black > stones.len() - black { Color::White } else { Color::Black };
        let position = G::set_up(&self.config, &stones, next).map_err(play_error)?;
        self.history = vec![position];
        self.set_up_stones = Some(stones);
        Ok(())
    }

    fn set_setup_to_move(&mut self, color: Color) -> Result<(), GtpError> {
        if self.history.len() == 1 && self.set_up_stones.is_some() {
            self.history[0] = self.position_for(color)?;
        }
        Ok(())
    }

    fn genmove(&mut self, color: Color, request: SearchRequest, commit: bool) -> Result<GenMove, GtpError> {
        let current = self.current();
        if let Some(outcome) = current.outcome() {
            return Ok(if outcome.reward_for(color) == 0.0 { GenMove::Resign } else { GenMove::Pass });
        }
        let mut position = self.position_for(color)?;
        let solve_started = Instant::now();
        let solved = match self.solved_move(&position, &request) {
            Some(SolverVerdict::Play(mv)) => Some((mv, None)),
            Some(SolverVerdict::PlayExact { mv, score, nodes }) => {
                Some((mv, Some(exact_summary(&position, mv, score, nodes, solve_started.elapsed()))))
            }
            Some(SolverVerdict::Lost) if self.search.params().resign => return Ok(GenMove::Resign),
            Some(SolverVerdict::Lost) | None => None,
        };
        if let Some((mv, summary)) = solved {
            let text = position.format_move(mv);
            if commit {
                let start = position.clone();
                position.play(mv).map_err(play_error)?;
                self.commit(start, position);
            }
            return Ok(GenMove::Move(text, summary));
        }
        // The search gets what the solver left of the move's time, less the share kept for
        // checking its choice where the game has such a check: a forcing win of the opponent
        // can lie deeper than either search sees (a Gomoku VCT of nine threats, say).
        let mut request = request;
        let refuted_move =
            self.solver.as_ref().and_then(|hooks| hooks.refuted_move).filter(|_| self.search.params().solver);
        let move_time = request.limits.max_time;
        let interrupt = request.stop;
        let solving = solve_started.elapsed();
        let search_time = |time: Duration| {
            let left = time.saturating_sub(solving);
            if refuted_move.is_some() { time_before_refutation_checks(left) } else { left }
        };
        request.limits.max_time = request.limits.max_time.map(search_time);
        request.limits.target_time = request.limits.target_time.map(search_time);
        if let Some((mut summary, answer)) = self.midgame_move(&position, &request) {
            let mut mv = answer.mv;
            if let Some(refuted) = refuted_move
                && answer.proof == RootProof::Unknown
            {
                let budget = move_time.map(|time| time.saturating_sub(solve_started.elapsed()));
                mv = self.unrefuted_move(&position, mv, answer.alternatives.into_iter(), refuted, budget, interrupt);
                if mv != answer.mv {
                    // The search's line and value were those of the refuted move.
                    summary.mv = position.format_move(mv);
                    summary.pv = vec![summary.mv.clone()];
                }
            }
            if commit {
                let start = position.clone();
                position.play(mv).map_err(play_error)?;
                self.commit(start, position);
            }
            return Ok(GenMove::Move(summary.mv.clone(), Some(summary)));
        }
        let result = self.run_search(&position, request);
        // Resign only a decided game: when the search proved every move lost (a value-based
        // threshold would give up games a weak opponent may still throw away).
        let params = self.search.params();
        if self.resigns_proven_losses && params.resign && result.root_proof == RootProof::Loss {
            log::info!("{}: proven lost by the search, resigns", position.to_move());
            return Ok(GenMove::Resign);
        }
        let mut mv = result.best_move.ok_or(GtpError::IllegalMove)?;
        if let Some(refuted) = refuted_move
            && result.root_proof == RootProof::Unknown
        {
            let budget = move_time.map(|time| time.saturating_sub(solve_started.elapsed()));
            let alternatives = result
                .moves
                .iter()
                .filter(|stats| stats.mv != mv && stats.proof != Proof::MoverLoses)
                .map(|stats| stats.mv);
            mv = self.unrefuted_move(&position, mv, alternatives, refuted, budget, interrupt);
        }
        // The optional value threshold (off by default): a well-searched best move that rarely
        // wins.
        if params.resign
            && let Some(best) = result.moves.iter().find(|stats| stats.mv == mv)
            && best.value < params.resign_threshold
            && best.visits >= crate::search::RESIGN_MIN_VISITS
        {
            log::info!(
                "{}: win rate {:.1}% below the resign threshold, resigns",
                position.to_move(),
                best.value * 100.0
            );
            return Ok(GenMove::Resign);
        }
        let summary = self.summary(&position, &result, mv);
        let text = position.format_move(mv);
        if commit {
            let start = position.clone();
            position.play(mv).map_err(play_error)?;
            self.commit(start, position);
        }
        Ok(GenMove::Move(text, Some(summary)))
    }

    fn analyze(&mut self, color: Color, mut request: SearchRequest) -> Result<Vec<AnalysisMove>, GtpError> {
        if self.current().outcome().is_some() {
            return Ok(Vec::new());
        }
        let position = self.position_for(color)?;
        if let Some(moves) = self.midgame_analysis(&position, &mut request) {
            return Ok(moves);
        }
        let result = self.run_search(&position, request);
        Ok(analysis_moves(&position, &result))
    }

    fn ponder(&mut self, color: Color, request: SearchRequest) -> Result<(), GtpError> {
        if self.current().outcome().is_some() {
            return Ok(());
        }
        let position = self.position_for(color)?;
        // The game's own search keeps its table, which holds the positions after each reply.
        if self.midgame_move(&position, &request).is_none() {
            self.run_search(&position, request);
        }
        Ok(())
    }

    fn last_analysis(&self) -> Vec<AnalysisMove> {
        let position = self.current();
        self.search.kept_result(position).map(|result| analysis_moves(position, &result)).unwrap_or_default()
    }

    fn is_over(&self) -> bool {
        self.current().outcome().is_some()
    }

    /// The side to move makes every other ply of what the game is expected to last.
    fn moves_left_estimate(&self) -> usize {
        self.current().expected_plies_left().div_ceil(2).max(1)
    }

    fn has_solver(&self) -> bool {
        self.solver.is_some()
    }

    fn solve(&mut self, color: Color, context: &SolveContext) -> Result<String, GtpError> {
        let solver = self.solver.as_ref().ok_or(GtpError::UnknownCommand)?;
        let position =
            if self.current().outcome().is_some() { self.current().clone() } else { self.position_for(color)? };
        (solver.solve)(&position, context).ok_or(GtpError::Interrupted)
    }

    fn has_vc_views(&self) -> bool {
        self.solver.as_ref().is_some_and(|solver| solver.vc_view.is_some())
    }

    fn vc_view(&self, color: Color, view: VcView) -> Result<String, GtpError> {
        let vc_view = self.solver.as_ref().and_then(|solver| solver.vc_view).ok_or(GtpError::UnknownCommand)?;
        Ok(vc_view(self.current(), color, view))
    }

    fn board_text(&self) -> String {
        self.current().board_text()
    }

    fn final_score(&self) -> Result<String, GtpError> {
        self.current().score_text().ok_or(GtpError::CannotScore)
    }

    fn perft(&self, depth: u32, stop: &AtomicBool) -> Option<u64> {
        perft_until(self.current(), depth, &|| stop.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn perft_estimate(&self, depth: u32) -> f64 {
        perft_estimate(self.current(), depth)
    }

    fn set_search_params(&mut self, params: &SearchParams) {
        self.search.set_params(params.clone());
    }

    fn tree_stats(&self) -> TreeStats {
        self.search.stats()
    }

    fn to_move(&self) -> Color {
        self.current().to_move()
    }

    fn moves_played(&self) -> usize {
        self.history.len() - 1
    }
}

/// The root moves of a search result as analysis shows them, best first, moves without visits
/// left out (at least one move is always there once a playout ran).
fn analysis_moves<G: Game>(position: &G, result: &SearchResult<G::Move>) -> Vec<AnalysisMove> {
    // The move model's probabilities where the game has one, else an even share.
    let has_model = result.moves.iter().any(|stats| stats.policy > 0.0);
    let even_share = 1.0 / result.moves.len().max(1) as f64;
    result
        .moves
        .iter()
        .filter(|stats| stats.visits > 0 || stats.proof != Proof::Unknown)
        .map(|stats| {
            let winrate = proven_value(stats.proof).unwrap_or(stats.value);
            // The lower end of the Wilson score interval (z = 1.96): sound for few visits too.
            let lcb = if stats.proof == Proof::Unknown {
                let n = stats.visits.max(1) as f64;
                let z2 = 1.96 * 1.96;
                let centre = winrate + z2 / (2.0 * n);
                let spread = 1.96 * (winrate * (1.0 - winrate) / n + z2 / (4.0 * n * n)).sqrt();
                ((centre - spread) / (1.0 + z2 / n)).clamp(0.0, 1.0)
            } else {
                winrate
            };
            AnalysisMove {
                mv: position.format_move(stats.mv),
                visits: stats.visits,
                winrate,
                prior: if has_model { f64::from(stats.policy) } else { even_share },
                lcb,
                pv: format_line(position, &stats.pv),
                score_lead: None,
            }
        })
        .collect()
}

/// Live analysis lines as a game's own search completes its depths: passed on at most once an
/// interval, the latest kept for the end.
struct AnalysisStream<'p> {
    progress: Option<(Duration, ProgressCallback<'p>)>,
    latest: Vec<AnalysisMove>,
    /// When lines were last passed on.
    emitted: Option<Instant>,
    latest_emitted: bool,
}

impl AnalysisStream<'_> {
    fn report(&mut self, moves: Vec<AnalysisMove>) {
        self.latest = moves;
        self.latest_emitted = false;
        if let Some((interval, callback)) = self.progress.as_mut()
            && self.emitted.is_none_or(|at| at.elapsed() >= *interval)
        {
            callback(&self.latest);
            self.emitted = Some(Instant::now());
            self.latest_emitted = true;
        }
    }

    /// Between depths: the latest lines once more, unchanged, when an interval has passed
    /// since lines were last passed on. A depth can take seconds; so a viewer still hears from
    /// the search, and a reader that went away shows within an interval (its write fails)
    /// instead of at the next depth. The lines stay those of the depth (nodes included), so
    /// what the stream says does not depend on the moment it was said.
    fn heartbeat(&mut self) {
        if self.latest.is_empty() {
            return;
        }
        if let Some((interval, callback)) = self.progress.as_mut()
            && self.emitted.is_some_and(|at| at.elapsed() >= *interval)
        {
            callback(&self.latest);
            self.emitted = Some(Instant::now());
        }
    }

    /// The latest lines, passed on once more unless they just were.
    fn finish(mut self) -> Vec<AnalysisMove> {
        if let Some((_, callback)) = self.progress.as_mut()
            && !self.latest_emitted
        {
            callback(&self.latest);
        }
        self.latest
    }
}

/// A game's own analysis lines as analysis shows them. The alpha-beta has no visits per move:
/// every line shows the nodes searched so far, and its score as both win rate and bound.
fn midgame_analysis_moves<G: Game>(position: &G, lines: &[MidgameLine<G::Move>], nodes: u64) -> Vec<AnalysisMove> {
    let prior = 1.0 / lines.len().max(1) as f64;
    lines
        .iter()
        .filter(|line| !line.pv.is_empty())
        .map(|line| AnalysisMove {
            mv: position.format_move(line.pv[0]),
            visits: u32::try_from(nodes).unwrap_or(u32::MAX),
            winrate: line.value,
            prior,
            lcb: line.value,
            pv: format_line(position, &line.pv),
            score_lead: line.score,
        })
        .collect()
}

/// The exact win rate of a proven move, `None` for an unproven one.
fn proven_value(proof: Proof) -> Option<f64> {
    match proof {
        Proof::MoverWins => Some(1.0),
        Proof::MoverLoses => Some(0.0),
        Proof::Draw => Some(0.5),
        Proof::Unknown => None,
    }
}

/// A line of moves from `position`, each written in the position it is played in (a Connect
/// Four column names a different cell as the column fills).
fn format_line<G: Game>(position: &G, moves: &[G::Move]) -> Vec<String> {
    let mut current = position.clone();
    moves
        .iter()
        .map(|&mv| {
            let text = current.format_move(mv);
            if current.is_legal(mv) {
                current.play_unchecked(mv);
            }
            text
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refutation_checks_keep_half_a_second_within_a_fifth_of_the_move() {
        let seconds = |s: f64| Duration::from_secs_f64(s);
        let searched = |s: f64| time_before_refutation_checks(seconds(s)).as_secs_f64();
        // A fifth of a short move, half a second of a middling one, a twentieth of a long one.
        assert!((searched(1.0) - 0.8).abs() < 1e-9, "{}", searched(1.0));
        assert!((searched(4.9) - 4.4).abs() < 1e-9, "{}", searched(4.9));
        assert!((searched(30.0) - 28.5).abs() < 1e-9, "{}", searched(30.0));
        assert_eq!(searched(0.0), 0.0);
    }
}
