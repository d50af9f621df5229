//! The `ponder` command line: the engine itself (GTP on stdin/stdout) and its tool commands.

use std::io;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use ponder::engine::{GAMES, GtpError, Session};
use ponder::protocol::command::{Command, ParamRequest};

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

#[derive(Args, Debug, Clone)]
struct EngineOptions {
    /// Game to start with (see `list_games`).
    #[arg(long, default_value = "tictactoe")]
    game: String,
    /// Board size: N, or WxH.
    #[arg(long)]
    size: Option<String>,
    /// Search threads.
    #[arg(long)]
    threads: Option<usize>,
    /// Random seed; with one thread and a visit limit the engine is deterministic.
    #[arg(long)]
    seed: Option<u64>,
    /// Playouts per move (0: no limit).
    #[arg(long)]
    max_visits: Option<u64>,
    /// Seconds per move (0: no limit).
    #[arg(long)]
    max_time: Option<f64>,
}

#[derive(Subcommand, Debug)]
enum Tool {
    /// Counts the positions exactly DEPTH moves after the start position.
    Perft {
        depth: u32,
        #[command(flatten)]
        engine: EngineOptions,
    },
    /// Runs the fixed search workload and prints its node-count signature and speed.
    Bench {
        /// Only this game's part of the workload.
        #[arg(long)]
        game: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let level = match cli.verbose {
        0 => "ponder=info",
        1 => "ponder=debug",
        _ => "ponder=trace",
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level))
        .target(env_logger::Target::Stderr)
        .init();
    let result = match cli.tool {
        None => run_engine(&cli.engine),
        Some(Tool::Perft { depth, engine }) => configured_session(&engine).map(|mut session| {
            println!("{}", session.execute(Command::Perft(depth)).unwrap_or_default());
        }),
        Some(Tool::Bench { game }) => run_bench(game.as_deref()),
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
    // A closed stdout (the GUI went away) ends the engine quietly.
    match ponder::protocol::gtp::run(session, io::stdin(), io::stdout().lock()) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(error) => Err(error.to_string()),
    }
}

/// A session with the command-line options applied through the same commands a GUI would send.
fn configured_session(options: &EngineOptions) -> Result<Session, String> {
    let games = || GAMES.iter().map(|entry| entry.name).collect::<Vec<_>>().join(", ");
    let mut session =
        Session::new(&options.game).map_err(|_| format!("unknown game '{}' (games: {})", options.game, games()))?;
    let describe = |what: &str, error: GtpError| format!("{what}: {error}");
    if let Some(size) = &options.size {
        let (width, height) = parse_size(size).ok_or_else(|| format!("--size {size}: expected N or WxH"))?;
        session.execute(Command::BoardSize { width, height }).map_err(|e| describe("--size", e))?;
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
    Ok(session)
}

fn parse_size(text: &str) -> Option<(usize, usize)> {
    match text.split_once(['x', 'X']) {
        Some((width, height)) => Some((width.parse().ok()?, height.parse().ok()?)),
        None => text.parse().ok().map(|side| (side, side)),
    }
}

fn run_bench(game: Option<&str>) -> Result<(), String> {
    let lines = ponder::bench::run_workload(game)?;
    let mut playouts = 0;
    let mut seconds = 0.0;
    for line in &lines {
        println!(
            "{:<10} {:>2} moves  {:>8} playouts  {:>8} nodes  {:>7.3} s",
            line.game,
            line.moves,
            line.playouts,
            line.nodes,
            line.elapsed.as_secs_f64()
        );
        playouts += line.playouts;
        seconds += line.elapsed.as_secs_f64();
    }
    println!("===========================");
    println!("Total time (s) : {seconds:.3}");
    println!("Playouts       : {playouts}");
    println!("Playouts/second: {:.0}", playouts as f64 / seconds.max(1e-9));
    println!("Bench: {}", ponder::bench::signature(&lines));
    Ok(())
}
