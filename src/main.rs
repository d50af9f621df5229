//! The `ponder` command line: the engine itself (GTP on stdin/stdout) and its tool commands.

use std::io;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use ponder::engine::file_access::read_regular_file;
use ponder::engine::{FileAccess, GAMES, GtpError, MAX_THREADS, Session};
use ponder::protocol::command::{Command, ParamRequest};
use ponder::train::bradley_terry::MoveFitOptions;

/// The exit status when stdout closes under a subcommand's report (a shell's status for a
/// process its pipe's reader left, 128 + SIGPIPE).
const EXIT_STDOUT_CLOSED: i32 = 141;

/// Prints a line of a subcommand's report on stdout. When the reader has gone (`ponder solve
/// … | head -1`) the process ends quietly with [`EXIT_STDOUT_CLOSED`], as command-line tools
/// do, where `println!` would panic.
macro_rules! report {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(EXIT_STDOUT_CLOSED);
        }
    }};
}

/// A game engine for Hex, Reversi, Gomoku, Connect Four, NoGo and tic-tac-toe. Without a
/// subcommand it speaks GTP on stdin/stdout.
#[derive(Parser, Debug)]
#[command(name = "ponder", version, about)]
struct Cli {
    #[command(subcommand)]
    tool: Option<Tool>,
    #[command(flatten)]
    engine: EngineOptions,
    /// More log output on stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

/// The line protocol spoken on stdin/stdout.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Protocol {
    /// GTP version 2 (with HTP cell names for Hex).
    Gtp,
    /// The Gomocup (Piskvork) protocol; the game is Gomoku.
    Gomocup,
    /// The simple line protocol of course referees for Hex (`first`, cells, `change`, `finish`);
    /// the game is Hex, with the swap rule unless `--param-game allow_swap=0`.
    Referee,
    /// The NBoard protocol of the NBoard Othello GUI (and NTest, Edax); the game is Reversi.
    Nboard,
}

#[derive(Args, Debug, Clone)]
struct EngineOptions {
    /// The protocol on stdin/stdout.
    #[arg(long, value_enum, default_value = "gtp")]
    protocol: Protocol,
    /// Game to start with (see `list_games`); tictactoe by default, hex with `--protocol referee`,
    /// reversi with `--protocol nboard`.
    #[arg(long)]
    game: Option<String>,
    /// Board size: N, or WxH.
    #[arg(long)]
    size: Option<String>,
    /// A variant parameter NAME=VALUE, as `param_game NAME VALUE` (repeatable).
    #[arg(long = "param-game", value_name = "NAME=VALUE")]
    param_game: Vec<String>,
    /// A search parameter NAME=VALUE, as `param_search NAME VALUE` (repeatable; applied after the
    /// other options), e.g. `--param-search solver=0` for search alone.
    #[arg(long = "param-search", value_name = "NAME=VALUE")]
    param_search: Vec<String>,
    /// Search threads.
    #[arg(long)]
    threads: Option<usize>,
    /// Random seed; with one thread and a visit limit the engine is deterministic.
    #[arg(long)]
    seed: Option<u64>,
    /// Playouts per move (0: no limit).
    #[arg(long)]
    max_visits: Option<u64>,
    /// Seconds per move (0: no limit). Without it: 5 s a move when no clock is set, the clock's
    /// plan under one (GTP time_settings, the Gomocup turn and match limits).
    #[arg(long)]
    max_time: Option<f64>,
    /// Think on the opponent's time (until the next command arrives).
    #[arg(long)]
    ponder: bool,
    /// Cap on the search tree's memory, in MB.
    #[arg(long)]
    max_memory_mb: Option<usize>,
    /// Confine `loadsgf` and `savesgf` to this directory (relative paths are relative to it).
    #[arg(long, value_name = "DIR", conflicts_with = "no_file_commands")]
    files_dir: Option<std::path::PathBuf>,
    /// Turn `loadsgf` and `savesgf` off (for an engine others reach through a bridge).
    #[arg(long)]
    no_file_commands: bool,
}

/// The largest file a command-line argument names that ponder reads (`ponder solve` test sets,
/// `ponder match` openings): the real ones are kilobytes.
const MAX_INPUT_FILE_BYTES: u64 = 16 << 20;

/// Reads a text file named on the command line: a regular file, at most
/// [`MAX_INPUT_FILE_BYTES`], UTF-8.
fn read_input_file(option: &str, path: &std::path::Path) -> Result<String, String> {
    let bytes =
        read_regular_file(path, MAX_INPUT_FILE_BYTES).map_err(|why| format!("{option}{}: {why}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{option}{}: not UTF-8 text", path.display()))
}

/// A thread count from the command line: 1 to [`MAX_THREADS`], as `param_search threads`.
fn check_threads(threads: usize) -> Result<usize, String> {
    if (1..=MAX_THREADS).contains(&threads) {
        Ok(threads)
    } else {
        Err(format!("--threads {threads}: expected an integer from 1 to {MAX_THREADS}"))
    }
}

#[derive(Subcommand, Debug)]
enum Tool {
    /// Counts the positions exactly DEPTH moves after the start position.
    Perft {
        depth: u32,
        #[command(flatten)]
        engine: EngineOptions,
    },
    /// Solves every position of a test file with the game's exact solver and checks the known
    /// answers (Reversi: FFO files as in ../shared/data/reversi/; Connect Four: Pascal Pons'
    /// `moves score` test sets as in ../shared/data/connect4/; Hex: first-move outcome files
    /// `board,cell,winner` as in ../shared/data/hex/; Gomoku: tables of won positions as in
    /// tests/data/gomoku/, where it reports how many the threat search (VCF, then VCT) wins).
    Solve {
        /// The game whose solver to run.
        #[arg(long)]
        game: String,
        /// The test file.
        file: std::path::PathBuf,
        /// Solver threads (Reversi).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Only the first N positions of the file.
        #[arg(long)]
        first: Option<usize>,
        /// Hex: only the lines of these boards, e.g. `--board 7x7` (repeatable; all by default).
        #[arg(long)]
        board: Vec<String>,
    },
    /// Runs the fixed search workload and prints its node-count signature and speed.
    Bench {
        /// Only this game's part of the workload.
        #[arg(long)]
        game: Option<String>,
        /// Also measure every game's playout rate at one thread and at this many (the signature
        /// always uses one thread); a list such as `2,4,8,16` measures each in turn.
        #[arg(long, value_delimiter = ',', default_values_t = [2])]
        threads: Vec<usize>,
    },
    /// Referees a match between two GTP engines (like gogui-twogtp).
    Match(MatchOptions),
    /// Plays self-play games with randomised openings and writes them as shards. Reversi: their
    /// positions, labelled by the exact solver where the empties allow (format:
    /// src/train/reversi_selfplay.rs). Hex and Gomoku: the game records of searches at
    /// `--visits` playouts a move (format: src/train/game_selfplay.rs).
    Selfplay {
        /// The game (reversi, hex or gomoku).
        #[arg(long)]
        game: String,
        /// Seed of the run: the same seed gives the same shards.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Games in all.
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Shards the games are split into (one file each).
        #[arg(long, default_value_t = 1)]
        shards: usize,
        /// Positions with at most this many empties are solved exactly (Reversi).
        #[arg(long, default_value_t = 16)]
        solve_empties: u32,
        /// Reversi: 0 plays the moves by a one-ply heuristic; D by alpha-beta to depth D with
        /// the embedded evaluation (games closer to strong play; the shards then depend on the
        /// weights).
        #[arg(long, default_value_t = 0)]
        player_depth: u32,
        /// Board side (Hex, Gomoku; 0: the game's default, 11 and 15).
        #[arg(long, default_value_t = 0)]
        size: usize,
        /// Playouts per searched move (Hex, Gomoku).
        #[arg(long, default_value_t = 3000)]
        visits: u64,
        /// Make only this shard of the run (Hex, Gomoku; numbered from 0), so that processes or
        /// machines can share a run.
        #[arg(long)]
        shard: Option<usize>,
        /// The directory the shards are written to.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Fits the weights to the shards of a directory, deterministically: Reversi's evaluation
    /// (src/train/reversi_fit.rs), Hex's move patterns (src/train/hex_fit.rs) or Gomoku's line
    /// patterns (src/train/gomoku_fit.rs).
    Train {
        /// The game (reversi, hex or gomoku).
        #[arg(long)]
        game: String,
        /// The directory of shards (`ponder selfplay --out`).
        #[arg(long)]
        data: std::path::PathBuf,
        /// The weights file to write.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Ridge penalty per weight, in squared discs.
        #[arg(long, default_value_t = 10.0)]
        ridge: f64,
        /// Conjugate-gradient iterations per stage (Reversi), minorization-maximization rounds
        /// (Hex, Gomoku).
        #[arg(long, default_value_t = 60)]
        iterations: usize,
        /// A stage also learns from the positions of the stages this close to it.
        #[arg(long, default_value_t = 0)]
        stage_window: usize,
        /// Held-out shards to report the move-prediction accuracy on (Hex, Gomoku), or the
        /// value's log-loss (Gomoku `--model value`).
        #[arg(long)]
        test: Option<std::path::PathBuf>,
        /// What to fit for Gomoku: `priors` (move priors, `weights/gomoku.patterns`, the default),
        /// `value` (the alpha-beta search's position value, `weights/gomoku.value`, from who won,
        /// penalised by `--ridge` per weight in squared logits) or `value-from-moves` (the same
        /// value from the moves a player chose, drawn by `--ridge` towards `--prior-weights`,
        /// by default the embedded value) or `order` (the alpha-beta's move order in quiet
        /// positions, `weights/gomoku.order`, from the moves players chose, penalised by
        /// `--ridge` per weight in squared nats). The other games have one model.
        #[arg(long)]
        model: Option<String>,
        /// Learn the moves of this player only: a case-insensitive part of a match record's
        /// `PB` or `PW` (the data and test directories may hold `ponder match --sgf` records
        /// beside self-play shards, c-gomoku-cli's `-sgf` files too; a shard's moves are all
        /// learned). Move-prior fits, `--model value-from-moves` and `--model order`.
        #[arg(long)]
        learn_from: Option<String>,
        /// Move-prior fits: draw the gammas towards those of this weights file (of the same
        /// model) instead of towards 1, so new games adjust an earlier fit. `--model
        /// value-from-moves`: the value file to start from and draw towards.
        #[arg(long)]
        prior_weights: Option<std::path::PathBuf>,
        /// Move-prior fits: virtual wins and as many losses per feature value against the
        /// prior's gamma (Coulom's prior is 1).
        #[arg(long, default_value_t = 1.0)]
        prior_strength: f64,
        /// Gomoku `--model value`: a teacher's winning chances for positions of the training
        /// games (lines `GAME PLY CHANCE`): the positions it labels are the samples, fitted to
        /// its chances instead of the games' outcomes.
        #[arg(long)]
        labels: Option<std::path::PathBuf>,
        /// Gomoku `--model value`: the teacher's winning chances for positions of the `--test`
        /// games, to report how closely each value follows the teacher there.
        #[arg(long)]
        test_labels: Option<std::path::PathBuf>,
    },
    /// Fits Multi-ProbCut's table: searches positions of a directory of shards to every depth
    /// with the embedded evaluation and fits how each shallow search predicts the deep one.
    ProbcutFit {
        /// The game (reversi).
        #[arg(long)]
        game: String,
        /// The directory of shards (`ponder selfplay --out`).
        #[arg(long)]
        data: std::path::PathBuf,
        /// The table file to write.
        #[arg(long)]
        out: std::path::PathBuf,
        /// About this many positions are searched.
        #[arg(long, default_value_t = 3000)]
        positions: usize,
        /// The deepest search fitted.
        #[arg(long, default_value_t = 8)]
        max_depth: u32,
    },
    /// Writes the table of the swap rule in play (Hex): the first player's win rate after each
    /// first stone of each board size, as the engine's search judges it (format:
    /// src/knowledge/hex_swap.rs).
    SwapTable {
        /// The game (hex).
        #[arg(long)]
        game: String,
        /// Board sides, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "9,10,11,12,13")]
        sizes: Vec<usize>,
        /// First-move outcomes of solved boards (`board,cell,winner` lines, as
        /// tests/data/hex/first-move-outcomes-8x8.csv): which first stones to swap.
        #[arg(long)]
        solved: std::path::PathBuf,
        /// Playouts of each first stone's search.
        #[arg(long, default_value_t = 40000)]
        visits: u64,
        /// Seed of the searches: the same seed gives the same table.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The table file to write.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Writes the table of edge patterns (Hex): stones on the second to fourth row joined to
    /// their edge, alone or by a ladder along the first two rows to an escape stone, each
    /// proven by exact search (format: src/solvers/hex_edge_patterns.rs). Deterministic.
    EdgePatterns {
        /// The game (hex).
        #[arg(long)]
        game: String,
        /// The table file to write.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Prints the evaluation's mean absolute disc error per stage on the exactly solved
    /// positions of a directory of shards (held-out data: shards not trained on).
    EvalError {
        /// The game (reversi).
        #[arg(long)]
        game: String,
        /// The directory of shards.
        #[arg(long)]
        data: std::path::PathBuf,
        /// A weights file instead of the embedded one.
        #[arg(long)]
        weights: Option<std::path::PathBuf>,
    },
}

#[derive(Args, Debug)]
struct MatchOptions {
    /// Command line of engine A, Black in the first game (quotes group words).
    #[arg(long)]
    black: String,
    /// Command line of engine B.
    #[arg(long)]
    white: String,
    /// The game (see `list_games`).
    #[arg(long, default_value = "tictactoe")]
    game: String,
    /// Board size: N, or WxH.
    #[arg(long)]
    size: Option<String>,
    /// A variant parameter NAME=VALUE, sent as `param_game NAME VALUE` (repeatable).
    #[arg(long = "param-game", value_name = "NAME=VALUE")]
    param_game: Vec<String>,
    /// Number of games.
    #[arg(long, default_value_t = 10)]
    games: usize,
    /// Swap colours every game.
    #[arg(long)]
    alternate: bool,
    /// File of openings, one line of moves each, used in turn.
    #[arg(long)]
    openings: Option<std::path::PathBuf>,
    /// Seconds per move (time_settings 0 S 1).
    #[arg(long, conflicts_with = "time_control")]
    time: Option<f64>,
    /// Clock per game, in seconds: MAIN (sudden death), MAIN+INCREMENT (Fischer) or
    /// MAIN+PERIOD/STONES (Canadian overtime: STONES moves in every PERIOD).
    #[arg(long)]
    time_control: Option<String>,
    /// Seconds a move may overrun its time before it loses.
    #[arg(long, default_value_t = 1.0)]
    time_margin: f64,
    /// Seconds to wait for answers to commands other than genmove.
    #[arg(long, default_value_t = 30.0)]
    command_timeout: f64,
    /// Games played at once (each by its own engine processes).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Directory for one SGF file per game and results.tsv.
    #[arg(long)]
    sgf: Option<std::path::PathBuf>,
    /// Stop early with a sequential probability ratio test: elo0,elo1,alpha,beta.
    #[arg(long)]
    sprt: Option<String>,
    /// Show the engines' stderr.
    #[arg(long)]
    engine_stderr: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Gomocup managers merge the engine's stderr into their logs, so there the summaries go out
    // as MESSAGE lines and stderr says nothing unless asked: each -v is one level less quiet.
    // NBoard reads stderr and stdout as one stream (its protocol parser skips lines it does not
    // know, but a log line could still split a reply), so it gets the same quiet.
    let quiet = cli.tool.is_none() && matches!(cli.engine.protocol, Protocol::Gomocup | Protocol::Nboard);
    let level = match cli.verbose + u8::from(!quiet) {
        0 => "off",
        1 => "ponder=info",
        2 => "ponder=debug",
        _ => "ponder=trace",
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level))
        .target(env_logger::Target::Stderr)
        .init();
    let result = match cli.tool {
        None => run_engine(&cli.engine),
        Some(Tool::Perft { depth, engine }) => configured_session(&engine).and_then(|mut session| {
            let count = session.execute(Command::Perft(depth)).map_err(|error| format!("perft {depth}: {error}"))?;
            report!("{count}");
            Ok(())
        }),
        Some(Tool::Bench { game, threads }) => threads
            .into_iter()
            .map(check_threads)
            .collect::<Result<Vec<_>, _>>()
            .and_then(|threads| run_bench(game.as_deref(), &threads)),
        Some(Tool::Solve { game, file, threads, first, board }) => {
            check_threads(threads).and_then(|threads| run_solve(&game, &file, threads, first, &board))
        }
        Some(Tool::Match(options)) => run_match(options),
        Some(Tool::Selfplay { game, seed, games, shards, solve_empties, player_depth, size, visits, shard, out }) => {
            if let Some(record_game) = ponder::train::game_selfplay::RecordGame::from_name(&game) {
                let options = ponder::train::game_selfplay::SelfplayOptions {
                    game: record_game,
                    seed,
                    games,
                    shards,
                    size: if size == 0 { record_game.default_size() } else { size },
                    visits,
                    only_shard: shard,
                    out_dir: out,
                };
                ponder::train::game_selfplay::run_selfplay(&options).map(print_lines)
            } else {
                only_reversi(&game).and_then(|()| {
                    use ponder::train::reversi_selfplay::{Player, SelfplayOptions};
                    let player =
                        if player_depth == 0 { Player::Heuristic } else { Player::Search { depth: player_depth } };
                    let options = SelfplayOptions { seed, games, shards, solve_empties, player, out_dir: out };
                    ponder::train::reversi_selfplay::run_selfplay(&options).map(print_lines)
                })
            }
        }
        Some(Tool::Train { game, model: Some(model), .. }) if !game.eq_ignore_ascii_case("gomoku") => {
            Err(format!("--model {model}: only Gomoku has more than one model to train"))
        }
        Some(Tool::Train { model: Some(model), prior_strength, .. })
            if model == "value-from-moves" && prior_strength != 1.0 =>
        {
            Err("--prior-strength is for the move-prior fits; --model value-from-moves draws towards its prior by --ridge"
                .to_string())
        }
        Some(Tool::Train { model: Some(model), prior_weights, prior_strength, .. })
            if model == "order" && (prior_weights.is_some() || prior_strength != 1.0) =>
        {
            Err("--prior-weights and --prior-strength are not for --model order: it starts from zero, held by --ridge"
                .to_string())
        }
        Some(Tool::Train { game, model, labels, test_labels, .. })
            if (labels.is_some() || test_labels.is_some())
                && (!game.eq_ignore_ascii_case("gomoku") || model.as_deref() != Some("value")) =>
        {
            Err("--labels and --test-labels are for Gomoku's --model value".to_string())
        }
        Some(Tool::Train { test: None, test_labels: Some(_), .. }) => {
            Err("--test-labels labels the games of --test".to_string())
        }
        Some(Tool::Train { model: Some(model), learn_from, prior_weights, prior_strength, .. })
            if model != "priors"
                && model != "value-from-moves"
                && model != "order"
                && (learn_from.is_some() || prior_weights.is_some() || prior_strength != 1.0) =>
        {
            Err(format!(
                "--learn-from, --prior-weights and --prior-strength are for the move-prior fits, not --model {model}"
            ))
        }
        Some(Tool::Train {
            game,
            data,
            out,
            iterations,
            test,
            model,
            ridge,
            learn_from,
            prior_weights,
            prior_strength,
            labels,
            test_labels,
            ..
        }) if game.eq_ignore_ascii_case("gomoku") => match model.as_deref().unwrap_or("priors") {
            "priors" => {
                let options = MoveFitOptions { iterations, test, learn_from, prior_weights, prior_strength };
                ponder::train::gomoku_fit::run_train(&data, &out, &options).map(print_lines)
            }
            "value" if ridge.is_finite() && ridge > 0.0 => {
                let options = ponder::train::gomoku_value_fit::ValueFitOptions {
                    ridge,
                    test: test.as_deref(),
                    labels: labels.as_deref(),
                    test_labels: test_labels.as_deref(),
                };
                ponder::train::gomoku_value_fit::run_train(&data, &out, &options).map(print_lines)
            }
            "value-from-moves" if ridge.is_finite() && ridge > 0.0 => {
                let options = ponder::train::gomoku_move_value_fit::MoveValueOptions {
                    ridge,
                    learn_from: learn_from.as_deref(),
                    prior_weights: prior_weights.as_deref(),
                    test: test.as_deref(),
                };
                ponder::train::gomoku_move_value_fit::run_train(&data, &out, &options).map(print_lines)
            }
            "order" if ridge.is_finite() && ridge > 0.0 => ponder::train::gomoku_order_fit::run_train(
                &data,
                &out,
                ridge,
                learn_from.as_deref(),
                test.as_deref(),
            )
            .map(print_lines),
            "value" | "value-from-moves" | "order" => Err(format!("--ridge {ridge}: expected a positive number")),
            other => Err(format!("--model {other}: expected priors, value, value-from-moves or order")),
        },
        Some(Tool::Train { game, data, out, iterations, test, learn_from, prior_weights, prior_strength, .. })
            if game.eq_ignore_ascii_case("hex") =>
        {
            let options = MoveFitOptions { iterations, test, learn_from, prior_weights, prior_strength };
            ponder::train::hex_fit::run_train(&data, &out, &options).map(print_lines)
        }
        Some(Tool::Train {
            game,
            data,
            out,
            ridge,
            iterations,
            stage_window,
            learn_from,
            prior_weights,
            prior_strength,
            ..
        }) => only_reversi(&game).and_then(|()| {
            if learn_from.is_some() || prior_weights.is_some() || prior_strength != 1.0 {
                return Err("--learn-from, --prior-weights, --prior-strength: Reversi's evaluation learns \
                                from positions, not moves"
                    .to_string());
            }
            if !(ridge.is_finite() && ridge > 0.0) {
                return Err(format!("--ridge {ridge}: expected a positive number"));
            }
            let options = ponder::train::reversi_fit::FitOptions { ridge, iterations, stage_window };
            ponder::train::reversi_fit::run_train(&data, &out, &options).map(print_lines)
        }),
        Some(Tool::ProbcutFit { game, data, out, positions, max_depth }) => only_reversi(&game).and_then(|()| {
            let evaluator =
                ponder::knowledge::reversi_eval::embedded().map_err(|e| format!("embedded weights: {e}"))?;
            let options = ponder::train::reversi_probcut_fit::ProbCutFitOptions { positions, max_depth };
            ponder::train::reversi_probcut_fit::run_probcut_fit(&data, &out, evaluator, &options).map(print_lines)
        }),
        Some(Tool::SwapTable { game, sizes, solved, visits, seed, out }) => {
            if game.eq_ignore_ascii_case("hex") {
                read_input_file("--solved", &solved).and_then(|solved| {
                    let options = ponder::train::hex_swap_table::SwapTableOptions { sizes, solved, visits, seed, out };
                    ponder::train::hex_swap_table::run_swap_table(&options).map(print_lines)
                })
            } else {
                Err(format!("swap-table: only hex has a swap rule, not '{game}'"))
            }
        }
        Some(Tool::EdgePatterns { game, out }) => {
            if game.eq_ignore_ascii_case("hex") {
                ponder::solvers::hex_edge_patterns::run_edge_patterns(&out).map(print_lines)
            } else {
                Err(format!("edge-patterns: only hex has edge patterns, not '{game}'"))
            }
        }
        Some(Tool::EvalError { game, data, weights }) => {
            only_reversi(&game).and_then(|()| run_eval_error(&data, weights.as_deref()))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ponder: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_engine(options: &EngineOptions) -> Result<(), String> {
    let session = configured_session(options)?;
    let result = match options.protocol {
        Protocol::Gtp => ponder::frontends::gtp::run(session, io::stdin(), io::stdout().lock()),
        Protocol::Gomocup => {
            ponder::frontends::gomocup::run(session, options.max_time, io::stdin(), io::stdout().lock())
        }
        Protocol::Referee => ponder::frontends::referee::run(session, io::stdin(), io::stdout().lock()),
        Protocol::Nboard => ponder::frontends::nboard::run(session, io::stdin(), io::stdout().lock()),
    };
    // A closed stdout (the GUI went away) ends the engine quietly.
    match result {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(error) => Err(error.to_string()),
    }
}

/// A session with the command-line options applied through the same commands a GUI would send.
fn configured_session(options: &EngineOptions) -> Result<Session, String> {
    let games = || GAMES.iter().map(|entry| entry.name).collect::<Vec<_>>().join(", ");
    let game = options.game.as_deref().unwrap_or(match options.protocol {
        Protocol::Referee => "hex",
        Protocol::Nboard => "reversi",
        Protocol::Gtp | Protocol::Gomocup => "tictactoe",
    });
    let mut session = Session::new(game).map_err(|_| format!("unknown game '{game}' (games: {})", games()))?;
    let describe = |what: &str, error: GtpError| format!("{what}: {error}");
    if let Some(size) = &options.size {
        let (width, height) = parse_size(size).ok_or_else(|| format!("--size {size}: expected N or WxH"))?;
        session.execute(Command::BoardSize { width, height }).map_err(|e| describe("--size", e))?;
    }
    // Course referees play Hex with the swap rule; a --param-game below may turn it off.
    if options.protocol == Protocol::Referee && session.game().name() == "hex" {
        let swap = ParamRequest::Set("allow_swap".to_string(), "1".to_string());
        session.execute(Command::ParamGame(swap)).map_err(|e| describe("allow_swap", e))?;
    }
    for pair in &options.param_game {
        let (name, value) = pair.split_once('=').ok_or_else(|| format!("--param-game {pair}: expected NAME=VALUE"))?;
        let request = ParamRequest::Set(name.to_string(), value.to_string());
        session.execute(Command::ParamGame(request)).map_err(|e| describe(&format!("--param-game {pair}"), e))?;
    }
    let mut set = |name: &str, value: String| {
        session
            .execute(Command::ParamSearch(ParamRequest::Set(name.to_string(), value)))
            .map(drop)
            .map_err(|e| describe(&format!("--{}", name.replace('_', "-")), e))
    };
    if let Some(threads) = options.threads {
        set("threads", threads.to_string())?;
    }
    if let Some(seed) = options.seed {
        set("seed", seed.to_string())?;
    }
    if let Some(visits) = options.max_visits {
        set("max_visits", visits.to_string())?;
    }
    if let Some(seconds) = options.max_time {
        set("max_time", seconds.to_string())?;
    }
    if options.ponder {
        set("ponder", "1".to_string())?;
    }
    if let Some(megabytes) = options.max_memory_mb {
        set("max_memory_mb", megabytes.to_string())?;
    }
    if let Some(dir) = &options.files_dir {
        session.set_file_access(FileAccess::confined_to(dir).map_err(|why| format!("--files-dir {why}"))?);
    }
    if options.no_file_commands {
        session.set_file_access(FileAccess::Off);
    }
    for pair in &options.param_search {
        let (name, value) =
            pair.split_once('=').ok_or_else(|| format!("--param-search {pair}: expected NAME=VALUE"))?;
        let request = ParamRequest::Set(name.to_string(), value.to_string());
        session.execute(Command::ParamSearch(request)).map_err(|e| describe(&format!("--param-search {pair}"), e))?;
    }
    Ok(session)
}

fn parse_size(text: &str) -> Option<(usize, usize)> {
    match text.split_once(['x', 'X']) {
        Some((width, height)) => Some((width.parse().ok()?, height.parse().ok()?)),
        None => text.parse().ok().map(|side| (side, side)),
    }
}

fn run_bench(game: Option<&str>, thread_counts: &[usize]) -> Result<(), String> {
    // Connect Four and NoGo have no workload positions but do have a thread-scaling probe.
    let scaling_only = game.is_some_and(|game| {
        ponder::bench::SCALING_GAMES.contains(&game) && !ponder::bench::WORKLOAD.iter().any(|p| p.game == game)
    });
    if scaling_only {
        if !thread_counts.iter().any(|&threads| threads > 1) {
            return Err(format!(
                "no bench positions for game '{}'; --threads N (N > 1) measures its scaling",
                game.unwrap_or_default()
            ));
        }
        print_thread_scaling(game, thread_counts);
        return Ok(());
    }
    let lines = ponder::bench::run_workload(game, 1)?;
    for line in &lines {
        report!(
            "{:<14} {:>2} moves  {:>8} playouts  {:>9} nodes  {:>7.3} s",
            line.game,
            line.moves,
            line.playouts,
            line.nodes,
            line.elapsed.as_secs_f64()
        );
    }
    let playouts: u64 = lines.iter().map(|line| line.playouts).sum();
    let seconds: f64 = lines.iter().map(|line| line.elapsed.as_secs_f64()).sum();
    report!("===========================");
    report!("Total time (s) : {seconds:.3}");
    report!("Playouts       : {playouts}");
    report!("Playouts/second: {:.0}", playouts as f64 / seconds.max(1e-9));
    if game == Some("hex") {
        let (search, bare) = ponder::bench::hex_playout_speed(1, 200_000);
        report!("Hex 11x11 playouts/second: {search:.0} in a search, {bare:.0} bare (1 thread)");
    }
    print_thread_scaling(game, thread_counts);
    report!("Bench: {}", ponder::bench::signature(&lines));
    Ok(())
}

/// Thread scaling: the same plain search (no early stop) at 1 and N threads, every game, the
/// median of [`ponder::bench::SCALING_ROUNDS`] turns of a second each; the speedup at equal
/// work (the one-thread rate over as many playouts as the N threads made, so over as large a
/// tree), also turn by turn; and the machine's ceiling, N one-thread searches apart at once.
fn print_thread_scaling(game: Option<&str>, thread_counts: &[usize]) {
    for &threads in thread_counts.iter().filter(|&&threads| threads > 1) {
        for line in ponder::bench::thread_scaling(game, threads, 1.0) {
            report!(
                "{:<9} {:<12} playouts/second: {:>9.0} (1 thread), {:>9.0} ({} threads), {:.2}x; \
                 same work: {:>9.0} (1 thread), {:.2}x, round by round {:.2}x{}; {} searches apart: {:>9.0}, {:.2}x",
                line.game,
                line.position,
                line.one_thread,
                line.many_threads,
                line.threads,
                line.many_threads / line.one_thread.max(1e-9),
                line.one_thread_same_work,
                line.many_threads / line.one_thread_same_work.max(1e-9),
                line.same_work_speedup,
                if line.same_work_complete {
                    String::new()
                } else {
                    format!(" (one thread stopped at {} s, over a smaller tree)", ponder::bench::SAME_WORK_MOST_SECONDS)
                },
                line.threads,
                line.searches_apart,
                line.searches_apart_speedup,
            );
        }
    }
}

fn run_solve(
    game: &str,
    file: &std::path::Path,
    threads: usize,
    first: Option<usize>,
    boards: &[String],
) -> Result<(), String> {
    let text = read_input_file("", file)
        .map_err(|why| format!("cannot read {why} (the full test sets live in ../shared/data/)"))?;
    // Comments and blank lines do not count towards `--first`.
    let text = match first {
        None => text,
        Some(count) => {
            let mut positions = 0;
            let kept = text.lines().take_while(|line| {
                // (A Hex outcome file has a header line too.)
                let is_position = !line.trim().is_empty() && !line.starts_with('#') && !line.starts_with("board,");
                positions += usize::from(is_position);
                positions <= count || !is_position
            });
            kept.collect::<Vec<_>>().join("\n")
        }
    };
    let game = ponder::engine::find_game(game).ok_or_else(|| format!("unknown game '{game}'"))?;
    match game.name {
        "connect4" => solve_connect4_test_set(&text),
        "hex" => solve_hex_first_moves(&text, boards),
        "gomoku" => solve_gomoku_won_positions(&text),
        "reversi" => {
            use ponder::solvers::reversi_endgame::{SolveOptions, solve_ffo_file};
            let options = SolveOptions { threads, ..SolveOptions::default() };
            let summary = solve_ffo_file(&text, &options, &mut io::stdout().lock()).map_err(|e| e.to_string())?;
            if summary.mismatches > 0 || summary.malformed > 0 {
                return Err(format!("{} wrong, {} malformed", summary.mismatches, summary.malformed));
            }
            Ok(())
        }
        other => Err(format!("no batch solver for {other}")),
    }
}

/// Every first move of a Hex outcome file (on the chosen boards, or all): one line per opening
/// as it is solved, then the totals. Fails on a wrong or unproven answer.
fn solve_hex_first_moves(text: &str, boards: &[String]) -> Result<(), String> {
    use ponder::solvers::hex_solver::{FirstMoveCheck, SolveOptions, check_first_move_outcomes_with};
    let boards: Vec<&str> = if boards.is_empty() {
        // Every board named in the file, in order of appearance.
        let mut named = Vec::new();
        for line in text.lines().filter(|line| !line.starts_with('#') && !line.starts_with("board,")) {
            if let Some(board) = line.split(',').next().map(str::trim).filter(|board| !board.is_empty())
                && !named.contains(&board)
            {
                named.push(board);
            }
        }
        named
    } else {
        boards.iter().map(String::as_str).collect()
    };
    let start = std::time::Instant::now();
    let (mut wrong, mut unsolved, mut nodes) = (0, 0, 0u64);
    let checks = check_first_move_outcomes_with(text, &boards, &SolveOptions::default(), |check: &FirstMoveCheck| {
        let verdict = match (&check.error, check.found) {
            (Some(why), _) => format!("ERROR {why}"),
            (None, None) => {
                unsolved += 1;
                "UNSOLVED".to_string()
            }
            (None, found) if found == check.expected => "ok".to_string(),
            _ => {
                wrong += 1;
                "WRONG".to_string()
            }
        };
        nodes += check.nodes;
        let winner = |color: Option<ponder::games::Color>| match color {
            Some(ponder::games::Color::Black) => "black",
            Some(ponder::games::Color::White) => "white",
            None => "-",
        };
        report!(
            "{:<10} expected {:<5} found {:<5} {:>10} nodes {:>9.3} s  {verdict}",
            check.label,
            winner(check.expected),
            winner(check.found),
            check.nodes,
            check.seconds
        );
    });
    let errors = checks.iter().filter(|check| check.error.is_some()).count();
    report!(
        "{} openings: {} correct, {wrong} wrong, {unsolved} unsolved, {errors} malformed; {nodes} nodes, {:.2} s",
        checks.len(),
        checks.len() - wrong - unsolved - errors,
        start.elapsed().as_secs_f64()
    );
    if wrong + unsolved + errors > 0 {
        return Err(format!("{wrong} wrong, {unsolved} unsolved, {errors} malformed"));
    }
    Ok(())
}

/// Pons' benchmark: the score of every line (table cleared before each), one line of output per
/// position, then correctness, mean time and mean nodes.
fn solve_connect4_test_set(text: &str) -> Result<(), String> {
    use ponder::games::connect4::Connect4Config;
    use ponder::solvers::connect4::{SolveLimits, Solver, run_test_set};
    use std::io::Write;
    let mut solver = Solver::new(ponder::solvers::connect4::DEFAULT_TABLE_LOG2);
    let mut out = io::stdout().lock();
    let report = run_test_set(text, &Connect4Config::default(), &mut solver, &SolveLimits::default(), false, |line| {
        let mark = if line.score == line.expected { "" } else { "  WRONG" };
        let _ = writeln!(
            out,
            "#{:<5} {:<42} {:>3} {:>12} nodes {:>10.3} ms{mark}",
            line.line_number,
            line.moves,
            line.score,
            line.nodes,
            line.time.as_secs_f64() * 1e3
        );
    });
    report!("{report}");
    let wrong = report.solved.len() - report.correct();
    if wrong > 0 || !report.rejected.is_empty() {
        return Err(format!("{wrong} wrong, {} rejected", report.rejected.len()));
    }
    Ok(())
}

/// Every position of a Gomoku won-position table (tests/data/gomoku/README.md): one line per
/// position with the search that won it, the move, nodes and time, then the totals (the hit
/// rate). Fails on an unreadable line or a found line that does not check, not on a miss.
fn solve_gomoku_won_positions(text: &str) -> Result<(), String> {
    use ponder::games::Game;
    use ponder::solvers::gomoku_lambda::Vc3Options;
    use ponder::solvers::gomoku_tactics::{ThreatKind, solve_won_positions};
    use ponder::solvers::gomoku_vcf::{VcfOptions, parse_won_positions_tsv};
    use std::sync::atomic::AtomicBool;
    let (positions, problems) = parse_won_positions_tsv(text);
    for problem in &problems {
        eprintln!("{problem}");
    }
    let mut bad_lines = 0;
    let stop = AtomicBool::new(false);
    let vc3 = Vc3Options::solve();
    let report = solve_won_positions(&positions, &VcfOptions::vcf(), &VcfOptions::vct(), Some(&vc3), &stop, |result| {
        let position = &positions.iter().find(|puzzle| puzzle.id == result.id).expect("its own id").position;
        let (kind, cell) = match result.found {
            Some((ThreatKind::Vcf, cell)) => ("VCF", position.format_move(cell)),
            Some((ThreatKind::Vct, cell)) => ("VCT", position.format_move(cell)),
            Some((ThreatKind::Vc3, cell)) => ("VC3", position.format_move(cell)),
            None => ("-", "-".to_string()),
        };
        let note = result.bad_line.as_ref().map(|why| format!("  BAD LINE: {why}")).unwrap_or_default();
        bad_lines += usize::from(result.bad_line.is_some());
        report!(
            "{:<24} {kind:<3} {cell:<4} {:>10} nodes {:>10.3} ms{note}",
            result.id,
            result.nodes,
            result.time.as_secs_f64() * 1e3
        );
    });
    report!("{report}");
    if bad_lines > 0 || !problems.is_empty() {
        return Err(format!("{bad_lines} bad lines, {} unreadable", problems.len()));
    }
    Ok(())
}

/// The training tools know Reversi only so far.
fn only_reversi(game: &str) -> Result<(), String> {
    if ["reversi", "othello"].contains(&game.to_ascii_lowercase().as_str()) {
        Ok(())
    } else {
        Err(format!("--game {game}: only reversi has a trained evaluation so far"))
    }
}

fn print_lines(lines: Vec<String>) {
    for line in lines {
        report!("{line}");
    }
}

/// `ponder eval-error`: the per-stage error table.
fn run_eval_error(data: &std::path::Path, weights: Option<&std::path::Path>) -> Result<(), String> {
    use ponder::knowledge::reversi_eval::{self, Evaluator};
    use ponder::knowledge::reversi_patterns::stage_empties;
    let owned;
    let evaluator = match weights {
        Some(path) => {
            let bytes = read_regular_file(path, 64 << 20).map_err(|why| format!("{}: {why}", path.display()))?;
            owned = Evaluator::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?.0;
            &owned
        }
        None => reversi_eval::embedded().map_err(|e| format!("embedded weights: {e}"))?,
    };
    let (samples, hash, files) = ponder::train::reversi_fit::load_shards(data)?;
    report!("{files} shards, {} positions, data hash {hash:016x}", samples.len());
    report!("stage empties solved mae_discs");
    for (stage, count, error) in ponder::train::reversi_fit::stage_errors(evaluator, &samples) {
        let empties = stage_empties(stage);
        report!("{stage:>5} {:>2}-{:<2} {count:>7} {error:>8.2}", empties.start(), empties.end());
    }
    Ok(())
}

fn run_match(options: MatchOptions) -> Result<(), String> {
    use ponder::referee::{MatchConfig, TimeLimit, parse_openings, run_match, stats::SprtSettings};
    let size = match &options.size {
        None => None,
        Some(text) => Some(parse_size(text).ok_or_else(|| format!("--size {text}: expected N or WxH"))?),
    };
    let params = options
        .param_game
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .ok_or_else(|| format!("--param-game {pair}: expected NAME=VALUE"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let openings = match &options.openings {
        None => Vec::new(),
        Some(path) => parse_openings(&read_input_file("--openings ", path)?),
    };
    let time = match (options.time, &options.time_control) {
        (Some(seconds), _) if seconds.is_finite() && seconds > 0.0 => TimeLimit::PerMove(seconds),
        (Some(seconds), _) => return Err(format!("--time {seconds}: expected a positive number of seconds")),
        (None, Some(text)) => TimeLimit::parse_clock(text)?,
        (None, None) => TimeLimit::None,
    };
    let sprt = options.sprt.as_deref().map(SprtSettings::parse).transpose()?;
    if !(options.command_timeout.is_finite() && options.command_timeout > 0.0) {
        return Err(format!("--command-timeout {}: expected a positive number of seconds", options.command_timeout));
    }
    if !(options.time_margin.is_finite() && options.time_margin >= 0.0) {
        return Err(format!("--time-margin {}: expected a number of seconds, 0 or more", options.time_margin));
    }
    // Each game at once runs two engine processes.
    if !(1..=MAX_THREADS).contains(&options.concurrency) {
        return Err(format!("--concurrency {}: expected an integer from 1 to {MAX_THREADS}", options.concurrency));
    }
    let config = MatchConfig {
        black: options.black,
        white: options.white,
        game: options.game,
        size,
        params,
        games: options.games,
        alternate: options.alternate,
        openings,
        time,
        time_margin: options.time_margin,
        command_timeout: std::time::Duration::from_secs_f64(options.command_timeout),
        concurrency: options.concurrency,
        sgf_dir: options.sgf,
        sprt,
        engine_stderr: options.engine_stderr,
    };
    let summary = run_match(&config)?;
    print!("{}", summary.report(config.sprt.as_ref()));
    Ok(())
}
