//! The legacy layout form (every tmux; layout-custom.c `layout_dump()`,
//! `layout_parse()`): read into [`Cell`]s and written out again.

use super::{
    Cell, Content, LayoutError, MAX_DEPTH, Pane, Split, check_offset, check_size, checksum,
};

/// Parses `XXXX,CELL` (layout-custom.c `layout_parse()` and
/// `layout_construct()`, without their leniencies).
pub(super) fn parse_legacy(text: &str) -> Result<Cell, LayoutError> {
    let b = text.as_bytes();
    let header = b.len() > 5 && b[..4].iter().all(u8::is_ascii_hexdigit) && b[4] == b',';
    if !header {
        return Err(LayoutError::new(
            "a layout string starts with four hex digits and a comma (its checksum)",
        ));
    }
    let want = u16::from_str_radix(&text[..4], 16).unwrap_or(0);
    let body = &b[5..];
    if checksum(body) != want {
        return Err(LayoutError::new(format!(
            "the layout string's checksum is {:04x}, not {}: the text was changed",
            checksum(body),
            &text[..4]
        )));
    }
    let mut r = Legacy { b, at: 5 };
    let root = r.cell(0)?;
    if r.at != b.len() {
        return Err(LayoutError::at("unexpected text after the layout", r.at));
    }
    Ok(root)
}

pub(super) struct Legacy<'a> {
    b: &'a [u8],
    at: usize,
}

impl Legacy<'_> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    pub(super) fn number(&mut self, what: &str) -> Result<i64, LayoutError> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) && self.at - start < 11 {
            self.at += 1;
        }
        if self.at == start {
            return Err(LayoutError::at(
                format!("expected the {what} (a number)"),
                start,
            ));
        }
        if self.peek().is_some_and(|c| c.is_ascii_digit()) {
            return Err(LayoutError::at(format!("the {what} is too long"), start));
        }
        // Digits only, at most 11 of them: fits.
        Ok(std::str::from_utf8(&self.b[start..self.at])
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(i64::MAX))
    }

    pub(super) fn expect(&mut self, c: u8) -> Result<(), LayoutError> {
        if self.peek() == Some(c) {
            self.at += 1;
            return Ok(());
        }
        Err(LayoutError::at(
            format!("expected '{}'", c as char),
            self.at,
        ))
    }

    pub(super) fn cell(&mut self, depth: usize) -> Result<Cell, LayoutError> {
        if depth > MAX_DEPTH {
            return Err(LayoutError::at(
                format!("splits nest deeper than {MAX_DEPTH}"),
                self.at,
            ));
        }
        let start = self.at;
        let width = check_size("width", self.number("width")?, start)?;
        self.expect(b'x')?;
        let height = check_size("height", self.number("height")?, start)?;
        self.expect(b',')?;
        let x = check_offset("x offset", self.number("x offset")?, 0, start)?;
        self.expect(b',')?;
        let y = check_offset("y offset", self.number("y offset")?, 0, start)?;
        let (split, close) = match self.peek() {
            Some(b'{') => (Split::LeftRight, b'}'),
            Some(b'[') => (Split::TopBottom, b']'),
            _ => {
                // A pane: `,ID` unless the next cell starts there (the id
                // is optional, as in layouts of old tmux).
                let mut id = None;
                if self.peek() == Some(b',') && !self.next_is_cell() {
                    self.at += 1;
                    let n = self.number("pane id")?;
                    id = Some(u32::try_from(n).map_err(|_| {
                        LayoutError::at(format!("pane id {n} is too large"), start)
                    })?);
                }
                let content = Content::Pane(Pane {
                    id,
                    ..Pane::default()
                });
                return Ok(Cell {
                    width,
                    height,
                    x,
                    y,
                    content,
                });
            }
        };
        self.at += 1;
        let mut cells = vec![self.cell(depth + 1)?];
        while self.peek() == Some(b',') {
            self.at += 1;
            cells.push(self.cell(depth + 1)?);
        }
        self.expect(close)?;
        if cells.len() < 2 {
            return Err(LayoutError::at(
                "a split must hold at least two cells",
                start,
            ));
        }
        Ok(Cell {
            width,
            height,
            x,
            y,
            content: Content::Split(split, cells),
        })
    }

    /// Whether `,` at the cursor starts the next cell (`,digits x`), not a
    /// pane id (layout-custom.c looks ahead the same way).
    pub(super) fn next_is_cell(&self) -> bool {
        let mut i = self.at + 1;
        while self.b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        self.b.get(i) == Some(&b'x')
    }
}

pub(super) fn legacy_cell(
    cell: &Cell,
    out: &mut String,
    last_index: &mut Option<u32>,
) -> Result<(), LayoutError> {
    use std::fmt::Write;
    if cell.x < 0 || cell.y < 0 {
        return Err(LayoutError::new(
            "it has a cell at a negative offset (a floating pane)",
        ));
    }
    let _ = write!(out, "{}x{},{},{}", cell.width, cell.height, cell.x, cell.y);
    match &cell.content {
        Content::Pane(p) => {
            if p.z_index.is_some() {
                return Err(LayoutError::new("it has a floating pane (a z-index)"));
            }
            if let Some(i) = p.index {
                if last_index.is_some_and(|l| i <= l) {
                    return Err(LayoutError::new(
                        "its pane indexes are not in the order of its cells",
                    ));
                }
                *last_index = Some(i);
            }
            if let Some(id) = p.id {
                let _ = write!(out, ",{id}");
            }
        }
        Content::Split(split, cells) => {
            let (open, close) = match split {
                Split::LeftRight => ('{', '}'),
                Split::TopBottom => ('[', ']'),
            };
            out.push(open);
            for (n, c) in cells.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                legacy_cell(c, out, last_index)?;
            }
            out.push(close);
        }
    }
    Ok(())
}
