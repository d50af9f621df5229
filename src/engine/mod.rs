//! The engine session: the current game with its history and search tree, the search settings,
//! and one handler per command group. It turns a typed [`Command`] into a reply text and never
//! touches stdin or stdout.

mod active_game;
mod analysis;
pub mod clock;
mod error;
pub mod file_access;
mod game_record;
mod game_setup;
mod games;
mod hex_vc_views;
mod moves;
mod record_view;
mod rules_commands;
mod search_settings;
mod sgf_commands;
mod signals;

pub use active_game::{
    ActiveGame, AnalysisMove, GameState, GenMove, SearchRequest, SearchSummary, SolveContext, SolverHooks,
    SolverVerdict,
};
pub use error::GtpError;
pub use file_access::FileAccess;
pub use game_record::{game_of_record, gogui_game_id, load_record, move_text, record_of, sgf_move};
pub use games::{GAMES, GameEntry, ReversiHint, find_game, reversi_hints};
pub use record_view::GameRecord;
pub use search_settings::{MAX_THREADS, SearchSettings};
pub use signals::InputSignals;

use std::sync::Arc;

use crate::protocol::command::{COMMANDS, Command, RulesQuery};

/// The commands only a game with virtual connections (Hex) answers, MoHex's names among them
/// so that HexGui's buttons work.
fn is_hex_connection_command(name: &str) -> bool {
    name.starts_with("ponder-vc_") || matches!(name, "dfpn-solve-state" | "vc-build" | "param_dfpn")
}

/// The largest estimated count `ponder-perft` starts (see [`crate::games::perft_estimate`]):
/// minutes of work at most.
pub const MAX_PERFT_SEQUENCES: f64 = 1e10;

/// Everything one engine process remembers between commands.
pub struct Session {
    game: Box<dyn ActiveGame>,
    settings: SearchSettings,
    clocks: clock::Clocks,
    /// The colour of our last `genmove`: pondering runs while the other side is to move.
    engine_color: Option<crate::games::Color>,
    komi: f64,
    quit: bool,
    /// Raised by the input reader to end a running search early.
    signals: Arc<InputSignals>,
    /// Per colour, the value of its last `genmove` and the moves played then: the next
    /// `genmove` of that colour two moves later takes more time if its value drops.
    last_values: [Option<(usize, f64)>; 2],
    /// What our moves take beyond their hard limits, held back from the next plans.
    move_overhead: clock::MoveOverhead,
    /// The search behind the last `genmove`, if a search chose it.
    last_search: Option<SearchSummary>,
    /// Where `loadsgf` and `savesgf` may read and write.
    file_access: FileAccess,
    /// Set once GoGui asks `gogui-rules_game_id`: from then on moves come and go as GoGui's
    /// vertices (see `rules_commands`).
    gogui_rules_mode: bool,
    /// HexGui's `param_dfpn use_guifx`, read back only (see `param_dfpn`).
    dfpn_use_guifx: bool,
}

impl Session {
    /// A session playing `game` (a registry name), with default settings.
    ///
    /// # Errors
    /// [`GtpError::UnknownGame`] when no game has that name.
    pub fn new(game: &str) -> Result<Session, GtpError> {
        let settings = SearchSettings::default();
        let entry = find_game(game).ok_or(GtpError::UnknownGame)?;
        Ok(Session {
            game: (entry.create)(&settings.params),
            settings,
            clocks: clock::Clocks::default(),
            engine_color: None,
            komi: 0.0,
            quit: false,
            signals: Arc::new(InputSignals::default()),
            last_values: [None; 2],
            move_overhead: clock::MoveOverhead::default(),
            last_search: None,
            file_access: FileAccess::default(),
            gogui_rules_mode: false,
            dfpn_use_guifx: false,
        })
    }

    /// The search behind the last `genmove`; `None` when no search chose it (a solver's move,
    /// a pass, a resignation).
    pub fn last_search(&self) -> Option<&SearchSummary> {
        self.last_search.as_ref()
    }

    /// The signals an input reader raises to end a running search.
    pub fn input_signals(&self) -> Arc<InputSignals> {
        Arc::clone(&self.signals)
    }

    /// Whether `quit` was received.
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    /// The current game.
    pub fn game(&self) -> &dyn ActiveGame {
        self.game.as_ref()
    }

    /// The search settings.
    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }

    /// Runs one command and returns its reply text. Blocks while a search runs.
    ///
    /// # Errors
    /// The command's [`GtpError`]; the session state is then unchanged.
    pub fn execute(&mut self, command: Command) -> Result<String, GtpError> {
        match command {
            Command::ProtocolVersion => Ok("2".to_string()),
            Command::Name => Ok("ponder".to_string()),
            Command::Version => Ok(env!("CARGO_PKG_VERSION").to_string()),
            Command::KnownCommand(name) => Ok(self.knows(&name).to_string()),
            Command::ListCommands => Ok(self.command_names().join("\n")),
            Command::Quit => {
                self.quit = true;
                Ok(String::new())
            }
            Command::BoardSize { width, height } => self.set_board_size(width, height),
            Command::ClearBoard => self.clear_board(),
            Command::Komi(komi) => {
                self.komi = komi;
                Ok(String::new())
            }
            Command::ListGames => Ok(games::list_games()),
            Command::SetGame(name) => self.set_game(&name),
            Command::ParamGame(request) => self.param_game(request),
            Command::SetPosition(stones) => self.set_position(&stones),
            Command::Play { color, mv } => {
                let mv = self.move_from_controller(&mv)?;
                self.play(color, &mv)
            }
            Command::GenMove(color) => self.genmove(color, true).map(|mv| self.move_to_controller(&mv)),
            Command::RegGenMove(color) => self.genmove(color, false).map(|mv| self.move_to_controller(&mv)),
            Command::Undo => self.undo(),
            Command::ShowBoard => Ok(format!("\n{}", self.game.board_text())),
            Command::FinalScore => self.game.final_score(),
            Command::Perft(depth) => self.perft(depth),
            Command::ParamSearch(request) => self.param_search(request),
            Command::ParamDfpn(request) => self.param_dfpn(request),
            Command::Stats => Ok(self.stats()),
            Command::TimeSettings(control) => {
                self.clocks = clock::Clocks::new(control);
                Ok(String::new())
            }
            Command::TimeLeft { color, seconds, stones } => {
                self.clocks.set_time_left(color, seconds, stones);
                Ok(String::new())
            }
            Command::AnalyzeCommands(gui) => {
                let file_commands = self.file_access != FileAccess::Off;
                Ok(analysis::analyze_commands(gui, self.game.has_vc_views(), file_commands))
            }
            Command::PrincipalVariation(view) => Ok(self.cells_to_controller(&self.principal_variation(view))),
            Command::MoveValues(view) => Ok(self.cells_to_controller(&self.move_values(view))),
            Command::NoOp => Ok(String::new()),
            Command::Solve(color) => self.solve(color),
            Command::SolveWinner(color) => self.solve_winner(color),
            Command::VcView(view, color) => self.game.vc_view(color, view).map(|text| self.cells_to_controller(&text)),
            Command::Rules(query) => {
                if query == RulesQuery::GameId {
                    self.gogui_rules_mode = true;
                }
                self.rules_query(query)
            }
            Command::LoadSgf { path, move_number } => self.load_sgf(&path, move_number),
            Command::PrintSgf => Ok(self.print_sgf()),
            Command::SaveSgf(path) => self.save_sgf(&path),
            // The GTP front end streams these line by line through `run_analysis` and
            // `run_genmove_analysis`; here the lines are collected into one reply.
            Command::Analyze(request) => {
                let mut lines = Vec::new();
                self.run_analysis(&request, false, &mut |line: &str| lines.push(line.to_string()))?;
                Ok(lines.join("\n"))
            }
            Command::GenMoveAnalyze(request) => {
                let mut lines = Vec::new();
                let last = self.run_genmove_analysis(&request, &mut |line: &str| lines.push(line.to_string()))?;
                lines.push(last);
                Ok(lines.join("\n"))
            }
        }
    }

    /// Names of the commands available now, in registry order: `ponder-solve` only for games
    /// with an exact solver, `ponder-vc_*` only for Hex, the file commands only when they are on.
    fn command_names(&self) -> Vec<&'static str> {
        COMMANDS
            .iter()
            .map(|spec| spec.name)
            .filter(|&name| name != "ponder-solve" || self.game.has_solver())
            .filter(|&name| !is_hex_connection_command(name) || self.game.has_vc_views())
            .filter(|&name| !(name == "loadsgf" || name == "savesgf") || self.file_access != FileAccess::Off)
            .collect()
    }

    /// `ponder-perft DEPTH`: refused when its estimated count passes [`MAX_PERFT_SEQUENCES`];
    /// ended like a solve, by `# interrupt` and by the end of input, not by the next command
    /// line.
    fn perft(&mut self, depth: u32) -> Result<String, GtpError> {
        let estimate = self.game.perft_estimate(depth);
        if estimate > MAX_PERFT_SEQUENCES {
            return Err(GtpError::InvalidValue(format!(
                "ponder-perft {depth} would count about {estimate:.1e} move sequences (at most {MAX_PERFT_SEQUENCES:.0e})"
            )));
        }
        self.signals.begin_search(true, false);
        let count = self.game.perft(depth, self.signals.stop_flag());
        self.signals.end_search();
        count.map(|count| count.to_string()).ok_or(GtpError::Interrupted)
    }

    /// `ponder-solve COLOR`: the game's exact solver, ended like a `genmove` without limits:
    /// by `# interrupt` and by the end of input, not by the next command line.
    fn solve(&mut self, color: crate::games::Color) -> Result<String, GtpError> {
        if !self.game.has_solver() {
            return Err(GtpError::UnknownCommand);
        }
        // A solve has no limit of its own (Hex 11x11 or Connect Four 7x6 near the start run for
        // hours), so the end of input stops it and the process ends when its GUI is gone.
        self.signals.begin_search(true, false);
        let context =
            SolveContext { threads: self.settings.params.threads, budget: None, stop: self.signals.stop_flag() };
        let answer = self.game.solve(color, &context);
        self.signals.end_search();
        answer
    }

    /// `dfpn-solve-state COLOR` (Hex): `black` or `white`, the winner with `color` to move, as
    /// Benzene answers it; HexGui shows it as "Winning: …".
    fn solve_winner(&mut self, color: crate::games::Color) -> Result<String, GtpError> {
        if !self.game.has_vc_views() {
            return Err(GtpError::UnknownCommand);
        }
        let answer = self.solve(color)?;
        let winner = match answer.split_whitespace().next() {
            Some("win") => color,
            Some("loss") => color.opponent(),
            _ => return Err(GtpError::InvalidValue("the solver cannot solve this board".to_string())),
        };
        Ok(winner.to_string())
    }

    fn knows(&self, name: &str) -> bool {
        self.command_names().contains(&name)
    }

    /// Pondering: searches the current position while the opponent thinks, until the next
    /// input line or the ponder limits. Does nothing unless pondering is on, the game runs and
    /// it is the other side's turn after our `genmove`. Blocks while it searches; call it when
    /// the reply to the last command has been written.
    pub fn ponder_while_idle(&mut self) {
        let wanted = self.settings.ponder
            && !self.game.is_over()
            && self.engine_color.is_some_and(|ours| ours != self.game.to_move());
        if !wanted {
            return;
        }
        let limits = self.settings.ponder_limits();
        self.signals.begin_search(true, true);
        let request = SearchRequest {
            limits,
            seed: self.settings.next_search_seed(),
            stop: self.signals.stop_flag(),
            progress: None,
        };
        let to_move = self.game.to_move();
        let _ = self.game.ponder(to_move, request);
        self.signals.end_search();
    }

    /// The komi last set (kept for GUIs; none of our games uses it).
    pub fn komi(&self) -> f64 {
        self.komi
    }
}
