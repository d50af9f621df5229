//! Typed GTP commands and the one command registry.
//!
//! The registry maps each command name to the parser of its arguments. `list_commands` and
//! `known_command` are answered from it (the session filters out the commands the current game
//! does not offer), so a command exists exactly when it is in this table.

use std::fmt;

use std::time::Duration;

use crate::games::Color;
use crate::protocol::time_control::{TimeControl, TimeSystem};

/// A parameter request of `param_game` / `param_search` (MoHex/GoGui convention).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamRequest {
    /// No argument: list every parameter as `[type] name value`.
    List,
    /// One argument: the value of that parameter.
    Get(String),
    /// Two or more arguments: set the parameter to the rest of the line.
    Set(String, String),
}

/// Which analysis format an analyze command prints (Leela Zero's or KataGo's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalysisFormat {
    Lz,
    Kata,
}

/// The arguments of `lz-analyze`, `kata-analyze` and their `genmove_analyze` forms.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyzeRequest {
    pub format: AnalysisFormat,
    /// The side to analyse for; the side to move when absent.
    pub color: Option<Color>,
    /// Time between two info lines.
    pub interval: Duration,
    /// Report at most this many moves.
    pub max_moves: Option<usize>,
}

/// Which GUI's list `*-analyze_commands` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalyzeCommandsFor {
    GoGui,
    HexGui,
}

/// What a `ponder-vc_*` command shows of Hex's virtual connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcView {
    /// `ponder-vc_status`: a gfx picture of who wins by connection and where to play.
    Status,
    /// `ponder-vc_carrier`: the cells of the colour's own edge-to-edge connection.
    Carrier,
    /// `ponder-vc_mustplay`: the cells that do not lose at once to an opponent's connection.
    MustPlay,
    /// `vc-build` (HexGui's consider-set button, after MoHex): the empty cells outside the
    /// must-play, each marked `x` (not worth considering).
    OutsideMustPlay,
}

/// Which GUI's reply format `ponder-pv` and `ponder-move_values` use: HexGui reads its `var`
/// and `gfx` types differently from GoGui.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalysisView {
    GoGui,
    HexGui,
}

/// A GTP command with typed arguments. Move texts stay text: only the current game can read
/// them.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    ProtocolVersion,
    Name,
    Version,
    KnownCommand(String),
    ListCommands,
    Quit,
    BoardSize {
        width: usize,
        height: usize,
    },
    ClearBoard,
    Komi(f64),
    Play {
        color: Color,
        mv: String,
    },
    GenMove(Color),
    RegGenMove(Color),
    Undo,
    ShowBoard,
    FinalScore,
    ListGames,
    SetGame(String),
    ParamGame(ParamRequest),
    ParamSearch(ParamRequest),
    /// `param_dfpn [key [value]]`: the settings HexGui sends before `dfpn-solve-state`.
    ParamDfpn(ParamRequest),
    SetPosition(Vec<(Color, String)>),
    Perft(u32),
    Stats,
    TimeSettings(TimeControl),
    TimeLeft {
        color: Color,
        seconds: f64,
        stones: u32,
    },
    Analyze(AnalyzeRequest),
    GenMoveAnalyze(AnalyzeRequest),
    AnalyzeCommands(AnalyzeCommandsFor),
    /// `ponder-pv [cells]`: GoGui's `var` form (`b a1 w b2`), or cells only (HexGui's `var`).
    PrincipalVariation(AnalysisView),
    /// `ponder-move_values [pairs]`: GoGui `gfx` labels, or `cell value` pairs (HexGui's
    /// `pspairs`).
    MoveValues(AnalysisView),
    Solve(Color),
    /// `dfpn-solve-state COLOR` (Benzene's name, sent by HexGui's solve button): the winner's
    /// colour with `COLOR` to move.
    SolveWinner(Color),
    /// A view of Hex's virtual connections for the colour as the side to move.
    VcView(VcView, Color),
    /// `stop` (KataGo) and `gogui-interrupt` (announces `# interrupt` support): nothing to do,
    /// since any line already ends pondering.
    NoOp,
    /// A GoGui rules command (`gogui-rules_*`).
    Rules(RulesQuery),
    /// `loadsgf FILE [MOVE_NUMBER]`.
    LoadSgf {
        path: String,
        move_number: Option<usize>,
    },
    PrintSgf,
    SaveSgf(String),
}

/// The GoGui rules commands: what GoGui asks a ruler program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RulesQuery {
    GameId,
    Board,
    BoardSize,
    LegalMoves,
    SideToMove,
    FinalResult,
    CapturedCount,
}

/// Why a command line was refused before reaching the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandError {
    Unknown,
    Syntax,
    /// A size argument that is a number but no possible board size.
    UnacceptableSize,
    /// Well-formed arguments whose values make no sense together; says what was expected.
    InvalidValue(&'static str),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Unknown => f.write_str("unknown command"),
            CommandError::Syntax => f.write_str("syntax error"),
            CommandError::UnacceptableSize => f.write_str("unacceptable size"),
            CommandError::InvalidValue(why) => write!(f, "invalid value: {why}"),
        }
    }
}

type ArgumentParser = fn(&[String]) -> Result<Command, CommandError>;

/// One registered command: its name and the parser of its arguments.
pub struct CommandSpec {
    pub name: &'static str,
    parse: ArgumentParser,
}

macro_rules! no_arguments {
    ($command:expr) => {
        |args: &[String]| {
            if args.is_empty() { Ok($command) } else { Err(CommandError::Syntax) }
        }
    };
}

/// Every command ponder knows, in `list_commands` order.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec { name: "protocol_version", parse: no_arguments!(Command::ProtocolVersion) },
    CommandSpec { name: "name", parse: no_arguments!(Command::Name) },
    CommandSpec { name: "version", parse: no_arguments!(Command::Version) },
    CommandSpec { name: "known_command", parse: parse_known_command },
    CommandSpec { name: "list_commands", parse: no_arguments!(Command::ListCommands) },
    CommandSpec { name: "quit", parse: no_arguments!(Command::Quit) },
    CommandSpec { name: "boardsize", parse: parse_boardsize },
    CommandSpec { name: "rectangular_boardsize", parse: parse_rectangular_boardsize },
    CommandSpec { name: "clear_board", parse: no_arguments!(Command::ClearBoard) },
    CommandSpec { name: "komi", parse: parse_komi },
    CommandSpec { name: "play", parse: parse_play },
    CommandSpec { name: "genmove", parse: |args| Ok(Command::GenMove(one_color(args)?)) },
    CommandSpec { name: "reg_genmove", parse: |args| Ok(Command::RegGenMove(one_color(args)?)) },
    CommandSpec { name: "undo", parse: no_arguments!(Command::Undo) },
    CommandSpec { name: "showboard", parse: no_arguments!(Command::ShowBoard) },
    CommandSpec { name: "final_score", parse: no_arguments!(Command::FinalScore) },
    CommandSpec { name: "list_games", parse: no_arguments!(Command::ListGames) },
    CommandSpec { name: "set_game", parse: parse_set_game },
    CommandSpec { name: "param_game", parse: |args| Ok(Command::ParamGame(param_request(args))) },
    CommandSpec { name: "param_search", parse: |args| Ok(Command::ParamSearch(param_request(args))) },
    CommandSpec { name: "set_position", parse: parse_set_position },
    CommandSpec { name: "ponder-perft", parse: parse_perft },
    CommandSpec { name: "ponder-stats", parse: no_arguments!(Command::Stats) },
    CommandSpec { name: "ponder-pv", parse: |args| Ok(Command::PrincipalVariation(analysis_view(args, "cells")?)) },
    CommandSpec { name: "ponder-solve", parse: |args| Ok(Command::Solve(one_color(args)?)) },
    CommandSpec { name: "dfpn-solve-state", parse: |args| Ok(Command::SolveWinner(one_color(args)?)) },
    CommandSpec { name: "ponder-move_values", parse: |args| Ok(Command::MoveValues(analysis_view(args, "pairs")?)) },
    CommandSpec { name: "ponder-vc_status", parse: |args| Ok(Command::VcView(VcView::Status, one_color(args)?)) },
    CommandSpec { name: "ponder-vc_carrier", parse: |args| Ok(Command::VcView(VcView::Carrier, one_color(args)?)) },
    CommandSpec { name: "ponder-vc_mustplay", parse: |args| Ok(Command::VcView(VcView::MustPlay, one_color(args)?)) },
    CommandSpec { name: "vc-build", parse: |args| Ok(Command::VcView(VcView::OutsideMustPlay, one_color(args)?)) },
    CommandSpec { name: "param_dfpn", parse: |args| Ok(Command::ParamDfpn(param_request(args))) },
    CommandSpec { name: "time_settings", parse: parse_time_settings },
    CommandSpec { name: "kgs-time_settings", parse: parse_named_time_settings },
    CommandSpec { name: "kata-time_settings", parse: parse_named_time_settings },
    CommandSpec { name: "time_left", parse: parse_time_left },
    CommandSpec { name: "lz-analyze", parse: |args| Ok(Command::Analyze(parse_analyze(AnalysisFormat::Lz, args)?)) },
    CommandSpec {
        name: "kata-analyze",
        parse: |args| Ok(Command::Analyze(parse_analyze(AnalysisFormat::Kata, args)?)),
    },
    CommandSpec {
        name: "lz-genmove_analyze",
        parse: |args| Ok(Command::GenMoveAnalyze(parse_analyze(AnalysisFormat::Lz, args)?)),
    },
    CommandSpec {
        name: "kata-genmove_analyze",
        parse: |args| Ok(Command::GenMoveAnalyze(parse_analyze(AnalysisFormat::Kata, args)?)),
    },
    CommandSpec {
        name: "gogui-analyze_commands",
        parse: no_arguments!(Command::AnalyzeCommands(AnalyzeCommandsFor::GoGui)),
    },
    CommandSpec {
        name: "hexgui-analyze_commands",
        parse: no_arguments!(Command::AnalyzeCommands(AnalyzeCommandsFor::HexGui)),
    },
    CommandSpec { name: "gogui-interrupt", parse: no_arguments!(Command::NoOp) },
    CommandSpec { name: "stop", parse: no_arguments!(Command::NoOp) },
    CommandSpec { name: "gogui-rules_game_id", parse: no_arguments!(Command::Rules(RulesQuery::GameId)) },
    CommandSpec { name: "gogui-rules_board", parse: no_arguments!(Command::Rules(RulesQuery::Board)) },
    CommandSpec { name: "gogui-rules_board_size", parse: no_arguments!(Command::Rules(RulesQuery::BoardSize)) },
    CommandSpec { name: "gogui-rules_legal_moves", parse: no_arguments!(Command::Rules(RulesQuery::LegalMoves)) },
    CommandSpec { name: "gogui-rules_side_to_move", parse: no_arguments!(Command::Rules(RulesQuery::SideToMove)) },
    CommandSpec { name: "gogui-rules_final_result", parse: no_arguments!(Command::Rules(RulesQuery::FinalResult)) },
    CommandSpec { name: "gogui-rules_captured_count", parse: no_arguments!(Command::Rules(RulesQuery::CapturedCount)) },
    CommandSpec { name: "loadsgf", parse: parse_loadsgf },
    CommandSpec { name: "printsgf", parse: no_arguments!(Command::PrintSgf) },
    CommandSpec { name: "savesgf", parse: |args| Ok(Command::SaveSgf(file_name(args)?)) },
];

/// Finds a command by name and parses its arguments.
///
/// # Errors
/// [`CommandError::Unknown`] for a name not in the registry, [`CommandError::Syntax`] or
/// [`CommandError::UnacceptableSize`] for arguments that do not fit.
pub fn parse_command(name: &str, args: &[String]) -> Result<Command, CommandError> {
    let spec = COMMANDS.iter().find(|spec| spec.name == name).ok_or(CommandError::Unknown)?;
    (spec.parse)(args)
}

/// Reads a GTP colour: `b`, `black`, `w`, `white`, any case.
pub fn parse_color(text: &str) -> Result<Color, CommandError> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(CommandError::Syntax),
    }
}

fn one_color(args: &[String]) -> Result<Color, CommandError> {
    match args {
        [color] => parse_color(color),
        _ => Err(CommandError::Syntax),
    }
}

/// No argument: GoGui's format; the one word `hexgui_word`: HexGui's.
fn analysis_view(args: &[String], hexgui_word: &str) -> Result<AnalysisView, CommandError> {
    match args {
        [] => Ok(AnalysisView::GoGui),
        [word] if word.eq_ignore_ascii_case(hexgui_word) => Ok(AnalysisView::HexGui),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_known_command(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [name] => Ok(Command::KnownCommand(name.clone())),
        _ => Err(CommandError::Syntax),
    }
}

/// A board side: a syntax error unless it is a non-negative integer; an unacceptable size when
/// it is one but too large for any game.
fn parse_side(text: &str) -> Result<usize, CommandError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CommandError::Syntax);
    }
    text.parse::<usize>().map_err(|_| CommandError::UnacceptableSize)
}

fn parse_boardsize(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [side] => {
            let side = parse_side(side)?;
            Ok(Command::BoardSize { width: side, height: side })
        }
        [width, height] => parse_rectangular_boardsize(&[width.clone(), height.clone()]),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_rectangular_boardsize(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [width, height] => Ok(Command::BoardSize { width: parse_side(width)?, height: parse_side(height)? }),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_komi(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [komi] => komi.parse::<f64>().ok().filter(|k| k.is_finite()).map(Command::Komi).ok_or(CommandError::Syntax),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_play(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [color, mv] => Ok(Command::Play { color: parse_color(color)?, mv: mv.clone() }),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_set_game(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [name] => Ok(Command::SetGame(name.to_ascii_lowercase())),
        _ => Err(CommandError::Syntax),
    }
}

fn param_request(args: &[String]) -> ParamRequest {
    match args {
        [] => ParamRequest::List,
        [name] => ParamRequest::Get(name.clone()),
        [name, value @ ..] => ParamRequest::Set(name.clone(), value.join(" ")),
    }
}

fn parse_set_position(args: &[String]) -> Result<Command, CommandError> {
    if !args.len().is_multiple_of(2) {
        return Err(CommandError::Syntax);
    }
    args.chunks(2)
        .map(|pair| Ok((parse_color(&pair[0])?, pair[1].clone())))
        .collect::<Result<Vec<_>, _>>()
        .map(Command::SetPosition)
}

/// A file name: the arguments joined by single spaces (GTP has no quoting).
fn file_name(args: &[String]) -> Result<String, CommandError> {
    if args.is_empty() { Err(CommandError::Syntax) } else { Ok(args.join(" ")) }
}

/// `loadsgf FILE [MOVE_NUMBER]`: a last argument of digits after a file name is the move number.
fn parse_loadsgf(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [path @ .., number] if !path.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => {
            let move_number = number.parse::<usize>().map_err(|_| CommandError::Syntax)?;
            Ok(Command::LoadSgf { path: file_name(path)?, move_number: Some(move_number) })
        }
        _ => Ok(Command::LoadSgf { path: file_name(args)?, move_number: None }),
    }
}

/// `ponder-perft DEPTH`: plain decimal digits (Rust's integer parser would also take `+5`).
fn parse_perft(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [depth] if !depth.is_empty() && depth.bytes().all(|b| b.is_ascii_digit()) => {
            depth.parse::<u32>().ok().filter(|&d| d <= 64).map(Command::Perft).ok_or(CommandError::Syntax)
        }
        _ => Err(CommandError::Syntax),
    }
}

/// A non-negative, finite number of seconds.
fn parse_seconds(text: &str) -> Result<f64, CommandError> {
    text.parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e9).ok_or(CommandError::Syntax)
}

/// A count: plain decimal digits.
fn parse_count(text: &str) -> Result<u32, CommandError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CommandError::Syntax);
    }
    text.parse::<u32>().map_err(|_| CommandError::Syntax)
}

/// GTP `time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES`.
fn parse_time_settings(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [main, byo_time, stones] => Ok(Command::TimeSettings(TimeControl::from_gtp(
            parse_seconds(main)?,
            parse_seconds(byo_time)?,
            parse_count(stones)?,
        ))),
        _ => Err(CommandError::Syntax),
    }
}

/// `kgs-time_settings` / `kata-time_settings`: `none`, `absolute MAIN`, `byoyomi MAIN PERIOD
/// PERIODS`, `canadian MAIN PERIOD STONES`, `fischer MAIN INCREMENT`.
fn parse_named_time_settings(args: &[String]) -> Result<Command, CommandError> {
    let (kind, numbers) = args.split_first().ok_or(CommandError::Syntax)?;
    let control = match (kind.to_ascii_lowercase().as_str(), numbers) {
        ("none", []) => TimeControl::UNLIMITED,
        ("absolute", [main]) => TimeControl { system: TimeSystem::Absolute, main_time: parse_seconds(main)? },
        ("byoyomi", [main, period, periods]) => {
            let periods = parse_count(periods)?;
            // Zero periods would leave the clock nothing to play with after the main time.
            if periods == 0 {
                return Err(CommandError::InvalidValue("byo-yomi needs at least one period"));
            }
            TimeControl {
                system: TimeSystem::Byoyomi { period: parse_seconds(period)?, periods },
                main_time: parse_seconds(main)?,
            }
        }
        ("canadian", [main, period, stones]) => {
            let stones = parse_count(stones)?;
            if stones == 0 {
                return Err(CommandError::InvalidValue("canadian time needs at least one stone per period"));
            }
            TimeControl {
                system: TimeSystem::Canadian { period: parse_seconds(period)?, stones },
                main_time: parse_seconds(main)?,
            }
        }
        ("fischer", [main, increment]) => TimeControl {
            system: TimeSystem::Fischer { increment: parse_seconds(increment)? },
            main_time: parse_seconds(main)?,
        },
        _ => return Err(CommandError::Syntax),
    };
    Ok(Command::TimeSettings(control))
}

fn parse_time_left(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [color, seconds, stones] => Ok(Command::TimeLeft {
            color: parse_color(color)?,
            seconds: parse_seconds(seconds)?,
            stones: parse_count(stones)?,
        }),
        _ => Err(CommandError::Syntax),
    }
}

/// `[COLOR] [INTERVAL] [KEY VALUE]...` with the interval in centiseconds (KataGo/Leela Zero).
/// Keys: `interval`, `maxmoves`, `minmoves` (accepted; every visited move is reported anyway),
/// `ownership` (accepted; no ownership is reported).
fn parse_analyze(format: AnalysisFormat, args: &[String]) -> Result<AnalyzeRequest, CommandError> {
    let mut request = AnalyzeRequest { format, color: None, interval: Duration::from_secs(1), max_moves: None };
    let mut rest = args;
    if let Some((first, tail)) = rest.split_first()
        && let Ok(color) = parse_color(first)
    {
        request.color = Some(color);
        rest = tail;
    }
    let centiseconds =
        |text: &str| text.parse::<u64>().map(Duration::from_millis).map(|d| d * 10).map_err(|_| CommandError::Syntax);
    if let Some((first, tail)) = rest.split_first()
        && first.bytes().all(|b| b.is_ascii_digit())
    {
        request.interval = centiseconds(first)?;
        rest = tail;
    }
    for pair in rest.chunks(2) {
        match pair {
            [key, value] => match key.to_ascii_lowercase().as_str() {
                "interval" => request.interval = centiseconds(value)?,
                "maxmoves" => request.max_moves = Some(value.parse().map_err(|_| CommandError::Syntax)?),
                "minmoves" => {
                    value.parse::<usize>().map_err(|_| CommandError::Syntax)?;
                }
                "ownership" | "ownershipstdev" | "pvvisits" | "movesownership" => {}
                _ => return Err(CommandError::Syntax),
            },
            _ => return Err(CommandError::Syntax),
        }
    }
    // A zero interval would flood the pipe; one line every 10 ms is plenty.
    request.interval = request.interval.max(Duration::from_millis(10));
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn commands_parse_with_typed_arguments() {
        assert_eq!(parse_command("play", &args("W c3")), Ok(Command::Play { color: Color::White, mv: "c3".into() }));
        assert_eq!(parse_command("boardsize", &args("7")), Ok(Command::BoardSize { width: 7, height: 7 }));
        assert_eq!(parse_command("boardsize", &args("9 6")), Ok(Command::BoardSize { width: 9, height: 6 }));
        assert_eq!(parse_command("genmove", &args("black")), Ok(Command::GenMove(Color::Black)));
        assert_eq!(
            parse_command("param_game", &args("blocked c3,f5")),
            Ok(Command::ParamGame(ParamRequest::Set("blocked".into(), "c3,f5".into())))
        );
    }

    #[test]
    fn gui_views_take_their_format_word() {
        assert_eq!(parse_command("ponder-pv", &[]), Ok(Command::PrincipalVariation(AnalysisView::GoGui)));
        assert_eq!(parse_command("ponder-pv", &args("CELLS")), Ok(Command::PrincipalVariation(AnalysisView::HexGui)));
        assert_eq!(parse_command("ponder-pv", &args("pairs")), Err(CommandError::Syntax));
        assert_eq!(parse_command("ponder-move_values", &args("pairs")), Ok(Command::MoveValues(AnalysisView::HexGui)));
        assert_eq!(
            parse_command("ponder-vc_mustplay", &args("w")),
            Ok(Command::VcView(VcView::MustPlay, Color::White))
        );
        assert_eq!(parse_command("ponder-vc_status", &[]), Err(CommandError::Syntax));
    }

    #[test]
    fn bad_arguments_are_syntax_errors() {
        assert_eq!(parse_command("frobnicate", &[]), Err(CommandError::Unknown));
        assert_eq!(parse_command("play", &args("b")), Err(CommandError::Syntax));
        assert_eq!(parse_command("play", &args("red a1")), Err(CommandError::Syntax));
        assert_eq!(parse_command("name", &args("x")), Err(CommandError::Syntax));
        assert_eq!(parse_command("boardsize", &args("-3")), Err(CommandError::Syntax));
        assert_eq!(parse_command("boardsize", &args("99999999999999999999999")), Err(CommandError::UnacceptableSize));
        assert_eq!(parse_command("komi", &args("NaN")), Err(CommandError::Syntax));
        assert_eq!(parse_command("set_position", &args("b a1 w")), Err(CommandError::Syntax));
    }

    #[test]
    fn time_and_analysis_commands_parse() {
        assert_eq!(
            parse_command("time_settings", &args("300 0 0")),
            Ok(Command::TimeSettings(TimeControl { system: TimeSystem::Absolute, main_time: 300.0 }))
        );
        assert_eq!(
            parse_command("kata-time_settings", &args("fischer 60 2")),
            Ok(Command::TimeSettings(TimeControl { system: TimeSystem::Fischer { increment: 2.0 }, main_time: 60.0 }))
        );
        assert_eq!(
            parse_command("kgs-time_settings", &args("none")),
            Ok(Command::TimeSettings(TimeControl::UNLIMITED))
        );
        assert_eq!(parse_command("kgs-time_settings", &args("canadian 1 2")), Err(CommandError::Syntax));
        assert_eq!(
            parse_command("time_left", &args("w 12.5 3")),
            Ok(Command::TimeLeft { color: Color::White, seconds: 12.5, stones: 3 })
        );
        let request = AnalyzeRequest {
            format: AnalysisFormat::Kata,
            color: Some(Color::Black),
            interval: Duration::from_millis(500),
            max_moves: Some(3),
        };
        assert_eq!(parse_command("kata-analyze", &args("B 50 maxmoves 3")), Ok(Command::Analyze(request.clone())));
        assert_eq!(parse_command("kata-analyze", &args("b interval 50 maxmoves 3")), Ok(Command::Analyze(request)));
        assert_eq!(parse_command("lz-analyze", &args("50 frobs 2")), Err(CommandError::Syntax));
    }

    #[test]
    fn command_names_are_unique() {
        for (i, spec) in COMMANDS.iter().enumerate() {
            assert!(COMMANDS[i + 1..].iter().all(|other| other.name != spec.name), "{}", spec.name);
        }
    }
}
