//! Training data: self-play games with a deeper search's score for each position, in a compact
//! binary format that a streaming reader turns back into positions.
//!
//! A file is one or more chunks, so that the shards of a run merge by concatenation
//! (`cat part-*.wzd > all.wzd`). All numbers are little-endian.
//!
//! ```text
//! chunk   = header game*
//! header  = "WUZIDATA" version:u32 reserved:u32 games:u64 positions:u64      (32 bytes)
//! game    = rule:u8 width:u8 height:u8 result:i8 opening:u16 moves:u16
//!           cell:u16 * moves                      (y * width + x, black first)
//!           label * (moves - opening)             (the position before each later move)
//! label   = score:i16 flags:u8                    (score for the side to move, clamped)
//! ```
//!
//! `rule` is the `INFO rule` value, `result` +1 black won, -1 white won, 0 a draw. The opening's
//! positions carry no label. Flag bit 0 (`FORCED`): the search proved a win or a loss, the score
//! is then ±`SCORE_MAX` (a generator ends the game there, with that result). Duplicates are not
//! marked in the file (shards could not know each other's): `Reader::positions` skips repeats
//! when asked.

use std::collections::HashSet;
use std::io::{self, Read, Seek, SeekFrom, Write};

use crate::board::{Board, Color};
use crate::geometry::{Dims, Pos};
use crate::rules::Rule;

pub const MAGIC: &[u8; 8] = b"WUZIDATA";
pub const VERSION: u32 = 1;
const HEADER_BYTES: usize = 32;
/// The score of a proven result; other scores are clamped inside it.
pub const SCORE_MAX: i16 = 32_000;
/// Label flag: the position's result is proven by the search.
pub const FORCED: u8 = 1;

/// One position's label: the deeper search's score for the side to move, and flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    pub score: i16,
    pub flags: u8,
}

/// One self-play game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub rule: Rule,
    pub dims: Dims,
    /// +1 black won, -1 white won, 0 a draw.
    pub result: i8,
    /// Moves that made the opening (unlabelled).
    pub opening: usize,
    pub moves: Vec<Pos>,
    /// One per move after the opening: the position before that move.
    pub labels: Vec<Label>,
}

/// A labelled position as the trainer reads it.
pub struct Sample {
    pub board: Board,
    pub rule: Rule,
    pub label: Label,
    /// The game's result for the side to move: +1 won, 0 drawn, -1 lost.
    pub result: i8,
    /// The move the game played from this position.
    pub next: Pos,
}

/// What makes two samples the same position: the stones, the side to move and the rule.
pub fn position_key(s: &Sample) -> u64 {
    s.board.key() ^ (s.rule.info_value() as u64).wrapping_mul(0x9E37)
}

impl GameRecord {
    /// The labelled positions, replayed from the moves.
    pub fn samples(&self) -> impl Iterator<Item = Sample> + '_ {
        let mut board = Board::with_rule(self.dims, self.rule);
        for &p in &self.moves[..self.opening] {
            board.play(p);
        }
        self.labels.iter().enumerate().map(move |(k, &label)| {
            if k > 0 {
                board.play(self.moves[self.opening + k - 1]);
            }
            let result = match board.to_move() {
                Color::Black => self.result,
                Color::White => -self.result,
            };
            Sample {
                board: board.clone(),
                rule: self.rule,
                label,
                result,
                next: self.moves[self.opening + k],
            }
        })
    }

    fn check(&self) -> io::Result<()> {
        let bad = |why: String| Err(io::Error::new(io::ErrorKind::InvalidData, why));
        if self.opening > self.moves.len() || self.labels.len() != self.moves.len() - self.opening {
            return bad(format!(
                "game of {} moves, opening {}, {} labels",
                self.moves.len(),
                self.opening,
                self.labels.len()
            ));
        }
        if !(-1..=1).contains(&self.result) {
            return bad(format!("result {}", self.result));
        }
        let mut seen = HashSet::new();
        for p in &self.moves {
            if p.x as usize >= self.dims.width
                || p.y as usize >= self.dims.height
                || !seen.insert(*p)
            {
                return bad(format!("move {p} off the board or played twice"));
            }
        }
        Ok(())
    }

    fn write(&self, w: &mut impl Write) -> io::Result<()> {
        self.check()?;
        let mut buf = Vec::with_capacity(8 + 5 * self.moves.len());
        buf.push(self.rule.info_value() as u8);
        buf.push(self.dims.width as u8);
        buf.push(self.dims.height as u8);
        buf.push(self.result as u8);
        buf.extend_from_slice(&(self.opening as u16).to_le_bytes());
        buf.extend_from_slice(&(self.moves.len() as u16).to_le_bytes());
        for p in &self.moves {
            let cell = p.y as usize * self.dims.width + p.x as usize;
            buf.extend_from_slice(&(cell as u16).to_le_bytes());
        }
        for l in &self.labels {
            buf.extend_from_slice(&l.score.to_le_bytes());
            buf.push(l.flags);
        }
        w.write_all(&buf)
    }

    fn read(r: &mut impl Read) -> io::Result<GameRecord> {
        let mut head = [0u8; 8];
        r.read_exact(&mut head)?;
        let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        let rule = match head[0] {
            0 | 1 | 4 | 8 | 9 => Rule::from_info(head[0] as i64),
            v => return Err(bad(format!("rule {v}"))),
        };
        let dims = Dims::new(head[1] as i64, head[2] as i64).map_err(bad)?;
        let result = head[3] as i8;
        let opening = u16::from_le_bytes([head[4], head[5]]) as usize;
        let count = u16::from_le_bytes([head[6], head[7]]) as usize;
        if opening > count || count > dims.cells() {
            return Err(bad(format!("{count} moves with an opening of {opening}")));
        }
        let mut body = vec![0u8; 2 * count + 3 * (count - opening)];
        r.read_exact(&mut body)?;
        let moves = body[..2 * count]
            .chunks_exact(2)
            .map(|c| {
                let cell = u16::from_le_bytes([c[0], c[1]]) as usize;
                Pos::new(cell % dims.width, cell / dims.width)
            })
            .collect();
        let labels = body[2 * count..]
            .chunks_exact(3)
            .map(|c| Label {
                score: i16::from_le_bytes([c[0], c[1]]),
                flags: c[2],
            })
            .collect();
        let game = GameRecord {
            rule,
            dims,
            result,
            opening,
            moves,
            labels,
        };
        game.check()?;
        Ok(game)
    }
}

/// Writes one chunk: a header whose counts are filled in by `finish`.
pub struct Writer<W: Write + Seek> {
    w: W,
    start: u64,
    games: u64,
    positions: u64,
}

impl<W: Write + Seek> Writer<W> {
    pub fn new(mut w: W) -> io::Result<Writer<W>> {
        let start = w.stream_position()?;
        let mut writer = Writer {
            w,
            start,
            games: 0,
            positions: 0,
        };
        writer.header()?;
        Ok(writer)
    }

    fn header(&mut self) -> io::Result<()> {
        let mut h = Vec::with_capacity(HEADER_BYTES);
        h.extend_from_slice(MAGIC);
        h.extend_from_slice(&VERSION.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&self.games.to_le_bytes());
        h.extend_from_slice(&self.positions.to_le_bytes());
        self.w.write_all(&h)
    }

    pub fn write(&mut self, game: &GameRecord) -> io::Result<()> {
        game.write(&mut self.w)?;
        self.games += 1;
        self.positions += game.labels.len() as u64;
        Ok(())
    }

    /// Writes the counts into the header; returns (games, positions).
    pub fn finish(mut self) -> io::Result<(u64, u64)> {
        let end = self.w.stream_position()?;
        self.w.seek(SeekFrom::Start(self.start))?;
        self.header()?;
        self.w.seek(SeekFrom::Start(end))?;
        self.w.flush()?;
        Ok((self.games, self.positions))
    }
}

/// Reads games one at a time from a file of chunks: memory stays that of one game whatever
/// the file's size.
pub struct Reader<R: Read> {
    r: R,
    /// Games left in the current chunk.
    left: u64,
    chunks: u64,
}

impl<R: Read> Reader<R> {
    pub fn new(r: R) -> Reader<R> {
        Reader {
            r,
            left: 0,
            chunks: 0,
        }
    }

    /// Reads the next chunk's header; `None` at a clean end of the file.
    fn next_chunk(&mut self) -> io::Result<Option<()>> {
        let mut h = [0u8; HEADER_BYTES];
        let mut got = 0;
        while got < HEADER_BYTES {
            match self.r.read(&mut h[got..])? {
                0 if got == 0 => return Ok(None),
                0 => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "truncated chunk header",
                    ))
                }
                n => got += n,
            }
        }
        if &h[..8] != MAGIC {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not Wuzi training data (no WUZIDATA header)",
            ));
        }
        let version = u32::from_le_bytes(h[8..12].try_into().unwrap_or_default());
        if version != VERSION {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("data version {version}, this build reads {VERSION}"),
            ));
        }
        self.left = u64::from_le_bytes(h[16..24].try_into().unwrap_or_default());
        self.chunks += 1;
        Ok(Some(()))
    }

    /// The next game, `None` at the end of the file.
    pub fn next_game(&mut self) -> io::Result<Option<GameRecord>> {
        while self.left == 0 {
            if self.next_chunk()?.is_none() {
                return Ok(None);
            }
        }
        self.left -= 1;
        GameRecord::read(&mut self.r).map(Some)
    }

    /// Every labelled position in file order, those seen before (same position, rule and side
    /// to move) skipped when `dedup` is set; stops at the first error, which it returns last.
    pub fn samples(mut self, dedup: bool) -> impl Iterator<Item = io::Result<Sample>> {
        let mut seen: HashSet<u64> = HashSet::new();
        let mut pending: std::vec::IntoIter<Sample> = Vec::new().into_iter();
        let mut failed = false;
        std::iter::from_fn(move || loop {
            if let Some(s) = pending.next() {
                if dedup && !seen.insert(position_key(&s)) {
                    continue;
                }
                return Some(Ok(s));
            }
            if failed {
                return None;
            }
            match self.next_game() {
                Ok(Some(g)) => pending = g.samples().collect::<Vec<_>>().into_iter(),
                Ok(None) => return None,
                Err(e) => {
                    failed = true;
                    return Some(Err(e));
                }
            }
        })
    }
}

/// Clamps a search score into a label's range, `FORCED` for a proven result.
pub fn label(score: i32) -> Label {
    use crate::search::MATE_BOUND;
    if score >= MATE_BOUND {
        Label {
            score: SCORE_MAX,
            flags: FORCED,
        }
    } else if score <= -MATE_BOUND {
        Label {
            score: -SCORE_MAX,
            flags: FORCED,
        }
    } else {
        let max = SCORE_MAX as i32 - 1;
        Label {
            score: score.clamp(-max, max) as i16,
            flags: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn game(seed: usize) -> GameRecord {
        let dims = Dims::new(15, 15).unwrap();
        let moves: Vec<Pos> = (0..10)
            .map(|k| Pos::new((k * 3 + seed) % 15, (k + seed) % 15))
            .collect();
        GameRecord {
            rule: Rule::Renju,
            dims,
            result: -1,
            opening: 3,
            labels: (0..7)
                .map(|k| Label {
                    score: k * 100 - 300,
                    flags: (k == 6) as u8,
                })
                .collect(),
            moves,
        }
    }

    #[test]
    fn games_read_back_and_chunks_concatenate() {
        let mut bytes = Vec::new();
        for part in 0..2 {
            let mut cur = Cursor::new(Vec::new());
            let mut w = Writer::new(&mut cur).unwrap();
            w.write(&game(part)).unwrap();
            w.write(&game(part + 5)).unwrap();
            assert_eq!(w.finish().unwrap(), (2, 14));
            bytes.extend(cur.into_inner());
        }
        let mut r = Reader::new(Cursor::new(bytes.clone()));
        let mut got = Vec::new();
        while let Some(g) = r.next_game().unwrap() {
            got.push(g);
        }
        assert_eq!(got, vec![game(0), game(5), game(1), game(6)]);
        assert_eq!(r.chunks, 2);
        let samples: Vec<Sample> = Reader::new(Cursor::new(bytes))
            .samples(false)
            .collect::<io::Result<_>>()
            .unwrap();
        assert_eq!(samples.len(), 28);
        // The first label is the position after the 3 opening moves: white to move, white won.
        assert_eq!(samples[0].board.stone_count(), 3);
        assert_eq!(samples[0].result, 1);
        assert_eq!(samples[1].result, -1);
    }

    #[test]
    fn duplicates_are_skipped_when_asked() {
        let mut cur = Cursor::new(Vec::new());
        let mut w = Writer::new(&mut cur).unwrap();
        w.write(&game(0)).unwrap();
        w.write(&game(0)).unwrap();
        w.finish().unwrap();
        let bytes = cur.into_inner();
        let all = Reader::new(Cursor::new(bytes.clone()))
            .samples(false)
            .count();
        let unique = Reader::new(Cursor::new(bytes)).samples(true).count();
        assert_eq!((all, unique), (14, 7));
    }

    #[test]
    fn bad_files_are_errors_not_panics() {
        let mut cur = Cursor::new(Vec::new());
        let mut w = Writer::new(&mut cur).unwrap();
        w.write(&game(0)).unwrap();
        w.finish().unwrap();
        let bytes = cur.into_inner();
        for cut in [5, HEADER_BYTES + 3, bytes.len() - 1] {
            let mut r = Reader::new(Cursor::new(bytes[..cut].to_vec()));
            assert!(r.next_game().is_err(), "cut at {cut}");
        }
        let mut wrong = bytes.clone();
        wrong[0] = b'X';
        assert!(Reader::new(Cursor::new(wrong)).next_game().is_err());
        let mut version = bytes.clone();
        version[8] = 9;
        let e = Reader::new(Cursor::new(version)).next_game().unwrap_err();
        assert!(e.to_string().contains("version 9"), "{e}");
        let mut rule = bytes;
        rule[HEADER_BYTES] = 3;
        assert!(Reader::new(Cursor::new(rule)).next_game().is_err());
        assert!(Reader::new(Cursor::new(Vec::new()))
            .next_game()
            .unwrap()
            .is_none());
    }

    #[test]
    fn scores_clamp_and_proofs_are_flagged() {
        use crate::search::{MATE_BOUND, WIN};
        assert_eq!(
            label(123),
            Label {
                score: 123,
                flags: 0
            }
        );
        assert_eq!(label(-99_999).score, -(SCORE_MAX - 1));
        assert_eq!(
            label(WIN - 7),
            Label {
                score: SCORE_MAX,
                flags: FORCED
            }
        );
        assert_eq!(label(-MATE_BOUND).flags, FORCED);
    }
}
