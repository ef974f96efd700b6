//! Board coordinates: `Pos`, board dimensions, `Direction`, and the `x,y` text form managers use.

use std::fmt;

/// Smallest board side we accept (a five must fit).
pub const MIN_SIDE: usize = 5;
/// Largest board side we accept; every cell index fits in 10 bits.
pub const MAX_SIDE: usize = 32;
/// Number of cells of the largest board.
pub const MAX_CELLS: usize = MAX_SIDE * MAX_SIDE;

/// A cell on the board: `x` is the column (0 = left), `y` the row (0 = top), as in the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub x: u8,
    pub y: u8,
}

impl Pos {
    pub const fn new(x: usize, y: usize) -> Pos {
        Pos {
            x: x as u8,
            y: y as u8,
        }
    }

    /// The cell `k` steps from this one in `dir`, if it is inside `dims`.
    pub fn step(self, dir: Direction, k: isize, dims: Dims) -> Option<Pos> {
        let (dx, dy) = dir.delta();
        let x = self.x as isize + dx * k;
        let y = self.y as isize + dy * k;
        dims.contains(x, y)
            .then(|| Pos::new(x as usize, y as usize))
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

/// Width and height of a board. Invariant: both in `MIN_SIDE..=MAX_SIDE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub width: usize,
    pub height: usize,
}

impl Dims {
    /// Checked constructor: `Err` names the supported range.
    pub fn new(width: i64, height: i64) -> Result<Dims, String> {
        let ok = |v: i64| (MIN_SIDE as i64..=MAX_SIDE as i64).contains(&v);
        if ok(width) && ok(height) {
            Ok(Dims {
                width: width as usize,
                height: height as usize,
            })
        } else {
            Err(format!(
                "unsupported board size {width}x{height}: width and height must be {MIN_SIDE} to {MAX_SIDE}"
            ))
        }
    }

    pub const fn square(side: usize) -> Dims {
        Dims {
            width: side,
            height: side,
        }
    }

    pub const fn cells(self) -> usize {
        self.width * self.height
    }

    pub fn contains(self, x: isize, y: isize) -> bool {
        x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height
    }

    pub const fn index(self, p: Pos) -> usize {
        p.y as usize * self.width + p.x as usize
    }

    pub const fn pos(self, index: usize) -> Pos {
        Pos::new(index % self.width, index / self.width)
    }

    pub fn centre(self) -> Pos {
        Pos::new(self.width / 2, self.height / 2)
    }

    /// Parses an `x,y` pair (spaces allowed around the numbers) and checks it is on the board.
    pub fn parse_pos(self, text: &str) -> Result<Pos, String> {
        let nums = parse_ints(text)?;
        if nums.len() != 2 {
            return Err(format!("expected x,y but got '{}'", text.trim()));
        }
        self.checked_pos(nums[0], nums[1])
    }

    pub fn checked_pos(self, x: i64, y: i64) -> Result<Pos, String> {
        if x >= 0 && y >= 0 && (x as u64) < self.width as u64 && (y as u64) < self.height as u64 {
            Ok(Pos::new(x as usize, y as usize))
        } else {
            Err(format!(
                "coordinates {x},{y} are outside the {}x{} board",
                self.width, self.height
            ))
        }
    }
}

/// Parses comma-separated integers such as `10, 7,1`; each item may carry surrounding spaces.
pub fn parse_ints(text: &str) -> Result<Vec<i64>, String> {
    text.split(',')
        .map(|item| {
            let item = item.trim();
            item.parse::<i64>()
                .map_err(|_| format!("'{item}' is not a number"))
        })
        .collect()
}

/// One of the four line directions a five can lie along.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Horizontal,
    Vertical,
    Diagonal,
    AntiDiagonal,
}

impl Direction {
    pub const ALL: [Direction; 4] = [
        Direction::Horizontal,
        Direction::Vertical,
        Direction::Diagonal,
        Direction::AntiDiagonal,
    ];

    /// The unit step `(dx, dy)` along this direction.
    pub const fn delta(self) -> (isize, isize) {
        match self {
            Direction::Horizontal => (1, 0),
            Direction::Vertical => (0, 1),
            Direction::Diagonal => (1, 1),
            Direction::AntiDiagonal => (1, -1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_positions() {
        let d = Dims::square(15);
        assert_eq!(d.parse_pos(" 10 , 7 ").unwrap(), Pos::new(10, 7));
        assert_eq!(Pos::new(3, 14).to_string(), "3,14");
        assert!(d.parse_pos("15,0").is_err());
        assert!(d.parse_pos("-1,0").is_err());
        assert!(d.parse_pos("1,2,3").is_err());
        assert!(d.parse_pos("99999999999999999999,1").is_err());
        assert!(d.parse_pos("a,b").is_err());
    }

    #[test]
    fn rectangular_dims_index_round_trip() {
        let d = Dims::new(7, 12).unwrap();
        for i in 0..d.cells() {
            assert_eq!(d.index(d.pos(i)), i);
        }
        assert!(Dims::new(4, 10).is_err());
        assert!(Dims::new(33, 10).is_err());
    }
}
