//! One manager line parsed into a `Command`; no I/O and no state.

/// A command from the manager. Coordinates are raw numbers; the session checks them against
/// the board. Invariant: `Info` keys are lower case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `START n`, or Yixin-Board's `START w h` (width and height).
    Start(i64, i64),
    RectStart(i64, i64),
    Restart,
    Begin,
    Turn(i64, i64),
    /// `BOARD` (the position, then a move) or `YXBOARD` (the position only).
    Board {
        reply: bool,
    },
    Done,
    Info {
        key: String,
        value: String,
    },
    Takeback(i64, i64),
    About,
    End,
    /// `STOP` or `YXSTOP`: answer now with the best move so far.
    Stop,
    YxShowForbid,
    YxHashClear,
    YxShowInfo,
    YxShowHashUsage,
    /// `YXBLOCK` (`undo` false) or `YXBLOCKUNDO`: `x,y` lines until `DONE`, cells the search
    /// must not play (or no longer).
    YxBlock {
        undo: bool,
    },
    YxBlockReset,
    /// `YXNBEST n`: the `n` best moves (multi-PV), then the best one as the answer.
    YxNbest(u32),
    /// `YXSEARCHDEFEND`: every move that does not lose, then the best one as the answer.
    YxSearchDefend,
    /// `SWAP2BOARD`: `x,y` lines until `DONE`, then the swap2 decision.
    Swap2Board,
    /// A command we take without acting on it (Yixin-Board's database family and the like):
    /// nothing is printed; `skip` says what input belongs to it.
    Ignored {
        skip: Skip,
    },
}

/// The input lines that belong to an ignored command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Only its own line.
    Line,
    /// The next line too (a file name).
    NextLine,
    /// Lines up to and including `DONE`.
    Block,
}

/// Why a line is not a command we can run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not a command we know: answer `UNKNOWN`.
    Unknown(String),
    /// A known command with bad arguments: answer `ERROR`.
    Malformed(String),
}

/// Parses the two numbers of an `x,y` argument.
pub fn parse_pair(args: &str) -> Result<(i64, i64), String> {
    let nums = crate::geometry::parse_ints(args)?;
    match nums[..] {
        [x, y] => Ok((x, y)),
        _ => Err(format!("expected x,y but got '{args}'")),
    }
}

/// Parses one line (already stripped of its line ending).
pub fn parse(line: &str) -> Result<Command, ParseError> {
    let line = line.trim();
    let (word, args) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    };
    let verb = word.to_ascii_uppercase();
    let malformed = |e: String| ParseError::Malformed(format!("{verb}: {e}"));
    let no_args = |c: Command| {
        if args.is_empty() {
            Ok(c)
        } else {
            Err(ParseError::Malformed(format!("{verb} takes no arguments")))
        }
    };
    match verb.as_str() {
        "START" => parse_size(args)
            .map(|(w, h)| Command::Start(w, h))
            .ok_or_else(|| malformed(format!("expected a board size but got '{args}'"))),
        "RECTSTART" => parse_pair(args)
            .map(|(w, h)| Command::RectStart(w, h))
            .map_err(malformed),
        "RESTART" => no_args(Command::Restart),
        "BEGIN" => no_args(Command::Begin),
        "TURN" => parse_pair(args)
            .map(|(x, y)| Command::Turn(x, y))
            .map_err(malformed),
        "TAKEBACK" => parse_pair(args)
            .map(|(x, y)| Command::Takeback(x, y))
            .map_err(malformed),
        "BOARD" => no_args(Command::Board { reply: true }),
        "YXBOARD" => no_args(Command::Board { reply: false }),
        "DONE" => no_args(Command::Done),
        "INFO" => {
            let (key, value) = match args.find(char::is_whitespace) {
                Some(i) => (&args[..i], args[i..].trim()),
                None => (args, ""),
            };
            // INFO never answers, not even when it is malformed: the manager is not reading.
            Ok(Command::Info {
                key: key.to_ascii_lowercase(),
                value: value.to_string(),
            })
        }
        "ABOUT" => Ok(Command::About),
        "END" => Ok(Command::End),
        "STOP" | "YXSTOP" => Ok(Command::Stop),
        "YXSHOWFORBID" => Ok(Command::YxShowForbid),
        "YXHASHCLEAR" => Ok(Command::YxHashClear),
        "YXSHOWINFO" => Ok(Command::YxShowInfo),
        "YXSHOWHASHUSAGE" => Ok(Command::YxShowHashUsage),
        "YXBLOCK" => no_args(Command::YxBlock { undo: false }),
        "YXBLOCKUNDO" => no_args(Command::YxBlock { undo: true }),
        "YXBLOCKRESET" => no_args(Command::YxBlockReset),
        "YXNBEST" => match args.parse::<i64>() {
            Ok(n) if n >= 1 => Ok(Command::YxNbest(n.min(MAX_NBEST) as u32)),
            _ => Err(malformed(format!(
                "expected a number of moves but got '{args}'"
            ))),
        },
        "YXSEARCHDEFEND" => Ok(Command::YxSearchDefend),
        "SWAP2BOARD" => no_args(Command::Swap2Board),
        // Yixin-Board's database family and block paths: position lines until DONE.
        "YXQUERYDATABASEALL"
        | "YXQUERYDATABASEALLT"
        | "YXQUERYDATABASEONE"
        | "YXQUERYDATABASETEXT"
        | "YXEDITLABELDATABASE"
        | "YXEDITTVDDATABASE"
        | "YXDELETEDATABASEALL"
        | "YXDELETEDATABASEONE"
        | "YXSETBESTMOVEDATABASE"
        | "YXCLEARBESTMOVEDATABASE"
        | "YXBLOCKPATH"
        | "YXBLOCKPATHUNDO" => Ok(Command::Ignored { skip: Skip::Block }),
        // A file name follows on the next line unless it is on this one.
        "YXSETDATABASE" | "YXDBTOTXT" | "YXTXTTODB" | "YXDBTOPOS" | "YXLIBTODB" | "YXDBSPLIT"
        | "YXDBMERGE" | "YXHASHDUMP" | "YXHASHLOAD" => Ok(Command::Ignored {
            skip: if args.is_empty() {
                Skip::NextLine
            } else {
                Skip::Line
            },
        }),
        "YXBLOCKPATHRESET" | "YXDBCHECK" | "YXDBFIX" => Ok(Command::Ignored { skip: Skip::Line }),
        _ => Err(ParseError::Unknown(shorten(line))),
    }
}

/// Most lines `YXNBEST` may ask for.
pub const MAX_NBEST: i64 = 64;

/// A board size: `n`, or a width and a height separated by spaces or a comma.
fn parse_size(args: &str) -> Option<(i64, i64)> {
    let nums: Vec<i64> = args
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().ok())
        .collect::<Option<_>>()?;
    match nums[..] {
        [n] => Some((n, n)),
        [w, h] => Some((w, h)),
        _ => None,
    }
}

/// The first 60 characters of a line, for echoing it in a reply.
pub fn shorten(line: &str) -> String {
    let mut s: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_case_insensitive_and_tolerate_spaces() {
        assert_eq!(parse("start 15"), Ok(Command::Start(15, 15)));
        assert_eq!(parse("START 15 15"), Ok(Command::Start(15, 15)));
        assert_eq!(parse("start 20 15"), Ok(Command::Start(20, 15)));
        assert_eq!(parse("yxnbest 3"), Ok(Command::YxNbest(3)));
        assert_eq!(
            parse("yxquerydatabaseall"),
            Ok(Command::Ignored { skip: Skip::Block })
        );
        assert_eq!(
            parse("yxsetdatabase"),
            Ok(Command::Ignored {
                skip: Skip::NextLine
            })
        );
        assert_eq!(parse("  TURN  10 , 7 "), Ok(Command::Turn(10, 7)));
        assert_eq!(parse("RectStart 20,15"), Ok(Command::RectStart(20, 15)));
        assert_eq!(
            parse("info FOLDER C:/My Games/x "),
            Ok(Command::Info {
                key: "folder".into(),
                value: "C:/My Games/x".into()
            })
        );
        assert_eq!(parse("yxstop"), Ok(Command::Stop));
    }

    #[test]
    fn bad_lines_are_errors_not_panics() {
        assert!(matches!(parse("TURN 1"), Err(ParseError::Malformed(_))));
        assert!(matches!(parse("TURN a,b"), Err(ParseError::Malformed(_))));
        assert!(matches!(parse("START"), Err(ParseError::Malformed(_))));
        assert!(matches!(
            parse("START 15 15 15"),
            Err(ParseError::Malformed(_))
        ));
        assert!(matches!(parse("YXNBEST 0"), Err(ParseError::Malformed(_))));
        assert!(matches!(
            parse("START 99999999999999999999999"),
            Err(ParseError::Malformed(_))
        ));
        assert!(matches!(parse("FOO bar"), Err(ParseError::Unknown(_))));
        assert!(matches!(parse("BEGIN now"), Err(ParseError::Malformed(_))));
    }
}
