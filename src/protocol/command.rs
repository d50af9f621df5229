//! Typed GTP commands and the one command registry.
//!
//! The registry maps each command name to the parser of its arguments. `list_commands` and
//! `known_command` are answered from it (the session filters out the commands the current game
//! does not offer), so a command exists exactly when it is in this table.

use std::fmt;

use crate::games::Color;

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
    BoardSize { width: usize, height: usize },
    ClearBoard,
    Komi(f64),
    Play { color: Color, mv: String },
    GenMove(Color),
    RegGenMove(Color),
    Undo,
    ShowBoard,
    FinalScore,
    ListGames,
    SetGame(String),
    ParamGame(ParamRequest),
    ParamSearch(ParamRequest),
    SetPosition(Vec<(Color, String)>),
    Perft(u32),
    Stats,
}

/// Why a command line was refused before reaching the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandError {
    Unknown,
    Syntax,
    /// A size argument that is a number but no possible board size.
    UnacceptableSize,
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CommandError::Unknown => "unknown command",
            CommandError::Syntax => "syntax error",
            CommandError::UnacceptableSize => "unacceptable size",
        })
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
            if args.is_empty() {
                Ok($command)
            } else {
                Err(CommandError::Syntax)
            }
        }
    };
}

/// Every command ponder knows, in `list_commands` order.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "protocol_version",
        parse: no_arguments!(Command::ProtocolVersion),
    },
    CommandSpec {
        name: "name",
        parse: no_arguments!(Command::Name),
    },
    CommandSpec {
        name: "version",
        parse: no_arguments!(Command::Version),
    },
    CommandSpec {
        name: "known_command",
        parse: parse_known_command,
    },
    CommandSpec {
        name: "list_commands",
        parse: no_arguments!(Command::ListCommands),
    },
    CommandSpec {
        name: "quit",
        parse: no_arguments!(Command::Quit),
    },
    CommandSpec {
        name: "boardsize",
        parse: parse_boardsize,
    },
    CommandSpec {
        name: "rectangular_boardsize",
        parse: parse_rectangular_boardsize,
    },
    CommandSpec {
        name: "clear_board",
        parse: no_arguments!(Command::ClearBoard),
    },
    CommandSpec {
        name: "komi",
        parse: parse_komi,
    },
    CommandSpec {
        name: "play",
        parse: parse_play,
    },
    CommandSpec {
        name: "genmove",
        parse: |args| Ok(Command::GenMove(one_color(args)?)),
    },
    CommandSpec {
        name: "reg_genmove",
        parse: |args| Ok(Command::RegGenMove(one_color(args)?)),
    },
    CommandSpec {
        name: "undo",
        parse: no_arguments!(Command::Undo),
    },
    CommandSpec {
        name: "showboard",
        parse: no_arguments!(Command::ShowBoard),
    },
    CommandSpec {
        name: "final_score",
        parse: no_arguments!(Command::FinalScore),
    },
    CommandSpec {
        name: "list_games",
        parse: no_arguments!(Command::ListGames),
    },
    CommandSpec {
        name: "set_game",
        parse: parse_set_game,
    },
    CommandSpec {
        name: "param_game",
        parse: |args| Ok(Command::ParamGame(param_request(args))),
    },
    CommandSpec {
        name: "param_search",
        parse: |args| Ok(Command::ParamSearch(param_request(args))),
    },
    CommandSpec {
        name: "set_position",
        parse: parse_set_position,
    },
    CommandSpec {
        name: "ponder-perft",
        parse: parse_perft,
    },
    CommandSpec {
        name: "ponder-stats",
        parse: no_arguments!(Command::Stats),
    },
];

/// Finds a command by name and parses its arguments.
///
/// # Errors
/// [`CommandError::Unknown`] for a name not in the registry, [`CommandError::Syntax`] or
/// [`CommandError::UnacceptableSize`] for arguments that do not fit.
pub fn parse_command(name: &str, args: &[String]) -> Result<Command, CommandError> {
    let spec = COMMANDS
        .iter()
        .find(|spec| spec.name == name)
        .ok_or(CommandError::Unknown)?;
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
    text.parse::<usize>()
        .map_err(|_| CommandError::UnacceptableSize)
}

fn parse_boardsize(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [side] => {
            let side = parse_side(side)?;
            Ok(Command::BoardSize {
                width: side,
                height: side,
            })
        }
        [width, height] => parse_rectangular_boardsize(&[width.clone(), height.clone()]),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_rectangular_boardsize(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [width, height] => Ok(Command::BoardSize {
            width: parse_side(width)?,
            height: parse_side(height)?,
        }),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_komi(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [komi] => komi
            .parse::<f64>()
            .ok()
            .filter(|k| k.is_finite())
            .map(Command::Komi)
            .ok_or(CommandError::Syntax),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_play(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [color, mv] => Ok(Command::Play {
            color: parse_color(color)?,
            mv: mv.clone(),
        }),
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
    if args.len() % 2 != 0 {
        return Err(CommandError::Syntax);
    }
    args.chunks(2)
        .map(|pair| Ok((parse_color(&pair[0])?, pair[1].clone())))
        .collect::<Result<Vec<_>, _>>()
        .map(Command::SetPosition)
}

fn parse_perft(args: &[String]) -> Result<Command, CommandError> {
    match args {
        [depth] => depth
            .parse::<u32>()
            .ok()
            .filter(|&d| d <= 64)
            .map(Command::Perft)
            .ok_or(CommandError::Syntax),
        _ => Err(CommandError::Syntax),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn commands_parse_with_typed_arguments() {
        assert_eq!(
            parse_command("play", &args("W c3")),
            Ok(Command::Play {
                color: Color::White,
                mv: "c3".into()
            })
        );
        assert_eq!(
            parse_command("boardsize", &args("7")),
            Ok(Command::BoardSize {
                width: 7,
                height: 7
            })
        );
        assert_eq!(
            parse_command("boardsize", &args("9 6")),
            Ok(Command::BoardSize {
                width: 9,
                height: 6
            })
        );
        assert_eq!(
            parse_command("genmove", &args("black")),
            Ok(Command::GenMove(Color::Black))
        );
        assert_eq!(
            parse_command("param_game", &args("blocked c3,f5")),
            Ok(Command::ParamGame(ParamRequest::Set(
                "blocked".into(),
                "c3,f5".into()
            )))
        );
    }

    #[test]
    fn bad_arguments_are_syntax_errors() {
        assert_eq!(parse_command("frobnicate", &[]), Err(CommandError::Unknown));
        assert_eq!(parse_command("play", &args("b")), Err(CommandError::Syntax));
        assert_eq!(
            parse_command("play", &args("red a1")),
            Err(CommandError::Syntax)
        );
        assert_eq!(parse_command("name", &args("x")), Err(CommandError::Syntax));
        assert_eq!(
            parse_command("boardsize", &args("-3")),
            Err(CommandError::Syntax)
        );
        assert_eq!(
            parse_command("boardsize", &args("99999999999999999999999")),
            Err(CommandError::UnacceptableSize)
        );
        assert_eq!(
            parse_command("komi", &args("NaN")),
            Err(CommandError::Syntax)
        );
        assert_eq!(
            parse_command("set_position", &args("b a1 w")),
            Err(CommandError::Syntax)
        );
    }

    #[test]
    fn command_names_are_unique() {
        for (i, spec) in COMMANDS.iter().enumerate() {
            assert!(
                COMMANDS[i + 1..]
                    .iter()
                    .all(|other| other.name != spec.name),
                "{}",
                spec.name
            );
        }
    }
}
