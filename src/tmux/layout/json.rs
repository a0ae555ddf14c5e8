//! The JSON layout form (tmux 3.8, `{"V":2,"L":CELL}`): read into
//! [`Cell`]s by a strict reader and written out again.

use std::fmt;

use super::{
    Cell, Content, LayoutError, MAX_DEPTH, MAX_SIZE, Pane, Split, check_offset, check_size,
    is_json_space,
};

pub(super) fn json_cell(cell: &Cell, out: &mut String, next_index: &mut u32) {
    use std::fmt::Write;
    let t = match &cell.content {
        Content::Pane(_) => 'p',
        Content::Split(Split::LeftRight, _) => 'h',
        Content::Split(Split::TopBottom, _) => 'v',
    };
    let _ = write!(
        out,
        "{{\"t\":\"{t}\",\"w\":{},\"h\":{},\"x\":{},\"y\":{}",
        cell.width, cell.height, cell.x, cell.y
    );
    match &cell.content {
        Content::Split(_, cells) => {
            out.push_str(",\"c\":[");
            for (n, c) in cells.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                json_cell(c, out, next_index);
            }
            out.push(']');
        }
        Content::Pane(p) => {
            if let Some(a) = p.active {
                let _ = write!(out, ",\"a\":{a}");
            }
            if let Some(l) = p.last {
                let _ = write!(out, ",\"l\":{l}");
            }
            let i = p.index.unwrap_or(*next_index);
            *next_index = next_index.saturating_add(1);
            let _ = write!(out, ",\"i\":{i}");
            if let Some(z) = p.z_index {
                let _ = write!(out, ",\"z\":{z}");
            }
            if let Some(id) = p.id {
                let _ = write!(out, ",\"I\":\"%{id}\"");
            }
        }
    }
    out.push('}');
}

/// A reader of the JSON form: strict JSON restricted to what a layout
/// holds (objects, arrays of objects, integers, booleans, strings without
/// escapes), read straight into [`Cell`]s.
pub(super) struct Json<'a> {
    b: &'a [u8],
    at: usize,
}

/// One cell object's fields as read, before they are checked together.
#[derive(Default)]
pub(super) struct RawCell {
    t: Option<(u8, usize)>,
    w: Option<(i64, usize)>,
    h: Option<(i64, usize)>,
    x: Option<(i64, usize)>,
    y: Option<(i64, usize)>,
    c: Option<Vec<Cell>>,
    pane: Pane,
    pane_keys: Option<usize>,
}

/// A layout JSON error at byte `at`: `layout JSON: {what}`.
fn error_at(what: impl fmt::Display, at: usize) -> LayoutError {
    LayoutError::at(format!("layout JSON: {what}"), at)
}

impl<'a> Json<'a> {
    pub(super) fn new(b: &'a [u8]) -> Self {
        Json { b, at: 0 }
    }

    pub(super) fn space(&mut self) {
        while self.b.get(self.at).copied().is_some_and(is_json_space) {
            self.at += 1;
        }
    }

    pub(super) fn peek(&mut self) -> Option<u8> {
        self.space();
        self.b.get(self.at).copied()
    }

    pub(super) fn expect(&mut self, c: u8) -> Result<(), LayoutError> {
        if self.peek() == Some(c) {
            self.at += 1;
            return Ok(());
        }
        Err(self.error(format!("expected '{}'", c as char)))
    }

    pub(super) fn error(&self, what: impl fmt::Display) -> LayoutError {
        error_at(what, self.at)
    }

    /// `{"V":2,"L":CELL}` and nothing after it but whitespace.
    pub(super) fn document(&mut self) -> Result<Cell, LayoutError> {
        let mut version = None;
        let mut root = None;
        self.object(|j, key| match key {
            "V" if version.is_none() => {
                version = Some(j.integer()?);
                Ok(())
            }
            "L" if root.is_none() => {
                root = Some(j.cell(0)?);
                Ok(())
            }
            "V" | "L" => Err(j.error(format!("\"{key}\" given twice"))),
            _ => Err(j.error(format!(
                "unknown key \"{key}\" (a layout has \"V\" and \"L\")"
            ))),
        })?;
        if self.peek().is_some() {
            return Err(self.error("unexpected text after the layout"));
        }
        match version {
            Some(2) => {}
            Some(v) => return Err(LayoutError::new(format!("layout JSON version {v}, not 2"))),
            None => return Err(LayoutError::new("layout JSON without \"V\" (its version)")),
        }
        root.ok_or_else(|| LayoutError::new("layout JSON without \"L\" (its root cell)"))
    }

    /// An object; `field` reads each value, given its key.
    pub(super) fn object(
        &mut self,
        mut field: impl FnMut(&mut Self, &str) -> Result<(), LayoutError>,
    ) -> Result<(), LayoutError> {
        self.expect(b'{')?;
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            let key = self.string()?;
            self.expect(b':')?;
            field(self, key)?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    /// A string without escapes or control characters (tmux's JSON reader
    /// does not undo escapes, and no layout needs one).
    pub(super) fn string(&mut self) -> Result<&'a str, LayoutError> {
        self.expect(b'"')?;
        let start = self.at;
        loop {
            match self.b.get(self.at) {
                Some(b'"') => break,
                Some(b'\\') => return Err(self.error("escapes are not used in layouts")),
                Some(c) if *c < 0x20 => return Err(self.error("control character in a string")),
                Some(_) => self.at += 1,
                None => return Err(self.error("unterminated string")),
            }
        }
        let s = std::str::from_utf8(&self.b[start..self.at])
            .map_err(|_| self.error("a string is not UTF-8"))?;
        self.at += 1;
        Ok(s)
    }

    /// An integer: `-?(0|[1-9][0-9]*)`, at most 11 digits, no fraction or
    /// exponent (tmux reads numbers with `strtoll()`).
    pub(super) fn integer(&mut self) -> Result<i64, LayoutError> {
        self.space();
        let start = self.at;
        let negative = self.b.get(self.at) == Some(&b'-');
        if negative {
            self.at += 1;
        }
        let digits = self.at;
        while self.b.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        let n = self.at - digits;
        if n == 0 {
            self.at = start;
            return Err(self.error("expected an integer"));
        }
        if n > 11 || (n > 1 && self.b[digits] == b'0') {
            self.at = start;
            return Err(self.error("not an integer tmux prints"));
        }
        if matches!(self.b.get(self.at), Some(b'.' | b'e' | b'E')) {
            return Err(self.error("expected an integer, not a fraction"));
        }
        let v: i64 = std::str::from_utf8(&self.b[digits..self.at])
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(i64::MAX);
        Ok(if negative { -v } else { v })
    }

    pub(super) fn boolean(&mut self) -> Result<bool, LayoutError> {
        self.space();
        let rest = &self.b[self.at..];
        if rest.starts_with(b"true") {
            self.at += 4;
            Ok(true)
        } else if rest.starts_with(b"false") {
            self.at += 5;
            Ok(false)
        } else {
            Err(self.error("expected true or false"))
        }
    }

    /// A non-negative index that fits tmux's `int` (`"i"`, `"l"`, `"z"`).
    pub(super) fn index(&mut self, key: &str) -> Result<u32, LayoutError> {
        let at = self.at;
        let n = self.integer()?;
        match u32::try_from(n) {
            Ok(v) if v < i32::MAX as u32 => Ok(v),
            _ => Err(error_at(
                format_args!("\"{key}\" must be 0 to {} (received {n})", i32::MAX - 1),
                at,
            )),
        }
    }

    pub(super) fn cell(&mut self, depth: usize) -> Result<Cell, LayoutError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("splits nest deeper than {MAX_DEPTH}")));
        }
        self.space();
        let start = self.at;
        let mut raw = RawCell::default();
        self.object(|j, key| {
            let at = j.at;
            let dup = || error_at(format_args!("\"{key}\" given twice"), at);
            match key {
                "t" => {
                    if raw.t.is_some() {
                        return Err(dup());
                    }
                    let v = match j.string()? {
                        "p" => b'p',
                        "h" => b'h',
                        "v" => b'v',
                        other => {
                            let what = format_args!(
                                "cell type \"{}\" (not \"p\", \"h\" or \"v\")",
                                crate::tmux::error::shorten(other, 20)
                            );
                            return Err(error_at(what, at));
                        }
                    };
                    raw.t = Some((v, at));
                }
                "w" | "h" | "x" | "y" => {
                    let slot = match key {
                        "w" => &mut raw.w,
                        "h" => &mut raw.h,
                        "x" => &mut raw.x,
                        _ => &mut raw.y,
                    };
                    if slot.is_some() {
                        return Err(dup());
                    }
                    *slot = Some((j.integer()?, at));
                }
                "c" => {
                    if raw.c.is_some() {
                        return Err(dup());
                    }
                    raw.c = Some(j.cells(depth)?);
                }
                "a" | "l" | "i" | "z" | "I" => {
                    raw.pane_keys.get_or_insert(at);
                    let p = &mut raw.pane;
                    let taken = match key {
                        "a" => p.active.is_some(),
                        "l" => p.last.is_some(),
                        "i" => p.index.is_some(),
                        "z" => p.z_index.is_some(),
                        _ => p.id.is_some(),
                    };
                    if taken {
                        return Err(dup());
                    }
                    match key {
                        "a" => p.active = Some(j.boolean()?),
                        "l" => p.last = Some(j.index(key)?),
                        "i" => p.index = Some(j.index(key)?),
                        "z" => p.z_index = Some(j.index(key)?),
                        _ => {
                            let s = j.string()?;
                            let id = s
                                .strip_prefix('%')
                                .filter(|d| {
                                    !d.is_empty()
                                        && d.len() <= 10
                                        && d.bytes().all(|c| c.is_ascii_digit())
                                })
                                .and_then(|d| d.parse::<u32>().ok());
                            p.id = Some(
                                id.ok_or_else(|| error_at("\"I\" must be a pane id (%N)", at))?,
                            );
                        }
                    }
                }
                _ => {
                    let key = crate::tmux::error::shorten(key, 20);
                    return Err(error_at(
                        format_args!("unknown key \"{key}\" in a cell"),
                        at,
                    ));
                }
            }
            Ok(())
        })?;
        let missing = |k: &str| error_at(format_args!("a cell without \"{k}\""), start);
        let (t, _) = raw.t.ok_or_else(|| missing("t"))?;
        let (w, w_at) = raw.w.ok_or_else(|| missing("w"))?;
        let (h, h_at) = raw.h.ok_or_else(|| missing("h"))?;
        let (x, x_at) = raw.x.ok_or_else(|| missing("x"))?;
        let (y, y_at) = raw.y.ok_or_else(|| missing("y"))?;
        let max = -i64::from(MAX_SIZE);
        let (width, height) = (
            check_size("width", w, w_at)?,
            check_size("height", h, h_at)?,
        );
        let (x, y) = (
            check_offset("x offset", x, max, x_at)?,
            check_offset("y offset", y, max, y_at)?,
        );
        let content = if t == b'p' {
            if raw.c.is_some() {
                return Err(error_at("a pane cell with \"c\"", start));
            }
            if raw.pane.index.is_none() {
                return Err(missing("i"));
            }
            Content::Pane(raw.pane)
        } else {
            if let Some(at) = raw.pane_keys {
                return Err(error_at("a split cell with a pane's key", at));
            }
            let cells = raw.c.ok_or_else(|| missing("c"))?;
            let split = if t == b'h' {
                Split::LeftRight
            } else {
                Split::TopBottom
            };
            Content::Split(split, cells)
        };
        Ok(Cell {
            width,
            height,
            x,
            y,
            content,
        })
    }

    /// `[CELL, CELL, …]`: at least two.
    pub(super) fn cells(&mut self, depth: usize) -> Result<Vec<Cell>, LayoutError> {
        let start = self.at;
        self.expect(b'[')?;
        let mut cells = Vec::new();
        if self.peek() != Some(b']') {
            loop {
                cells.push(self.cell(depth + 1)?);
                match self.peek() {
                    Some(b',') => self.at += 1,
                    Some(b']') => break,
                    _ => return Err(self.error("expected ',' or ']'")),
                }
            }
        }
        self.at += 1;
        if cells.len() < 2 {
            return Err(error_at("a split must hold at least two cells", start));
        }
        Ok(cells)
    }
}
