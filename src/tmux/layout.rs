//! Window layouts as text: the two forms tmux prints in
//! `#{window_layout}` and reads back with `select-layout`, parsed, checked
//! and written out again by tmuxwire. Pure: no I/O.
//!
//! * The legacy form (every tmux; layout-custom.c `layout_dump()`): a
//!   checksum of four hex digits, `,`, then the root cell. A cell is
//!   `WxH,X,Y` followed by `,ID` (a pane: the number of its `%ID`) or by
//!   its children between `{…}` (side by side) or `[…]` (one above the
//!   other), separated by `,`:
//!   `a694,120x40,0,0[120x12,0,0,0,120x27,0,13{60x27,0,13,1,59x27,61,13,2}]`.
//! * The JSON form (tmux 3.8, which still reads the legacy one):
//!   `{"V":2,"L":CELL}`, a cell being an object with `"t"` (`"p"` pane,
//!   `"h"` side by side, `"v"` one above the other), `"w"`, `"h"`, `"x"`,
//!   `"y"`, then for a split `"c"` (its cells, an array), for a pane
//!   `"a":true` (the window's active pane) or `"l"` (its place in the
//!   window's last-panes list), `"i"` (pane index), `"z"` (z-index of a
//!   floating pane), `"I"` (`"%N"`, which tmux ignores when reading).
//!
//! Nothing a caller gives reaches tmux as it was given: [`Layout::parse`]
//! accepts only what these grammars allow, within the limits tmux itself
//! keeps, and [`Layout::for_version`] writes the layout out again in a
//! form the running tmux reads. That matters because tmux's layout
//! readers trust their input: tmux 3.2 and 3.3 crash on text without a
//! checksum (`layout_parse()` frees an unset cause), and 3.3a and 3.5a
//! also crash on a well-formed layout one of whose splits has a single
//! cell, when the window has fewer panes than the layout has cells
//! (`layout_destroy_cell()` on a split left empty). tmux never prints such
//! a split (3.8 refuses one in JSON: "nodes must have more than one
//! child"), so neither form accepts one here.

use std::collections::HashSet;
use std::fmt;

use crate::wire::TmuxVersion;

/// The longest layout text accepted, in bytes: tmux 3.8 writes layouts
/// into a buffer of this size (`LAYOUT_STRING_MAX`, 16 KiB; earlier
/// versions 8 KiB), so it never prints a longer one.
pub const MAX_BYTES: usize = 1 << 14;

/// The deepest nesting of splits accepted. A split costs at least 18
/// bytes of legacy text, so [`MAX_BYTES`] allows no deeper layout from
/// tmux; the bound keeps recursion shallow for any input.
pub const MAX_DEPTH: usize = 1000;

/// The largest width or height of a cell, and the largest offset
/// (`PANE_MAXIMUM`, `WINDOW_MAXIMUM`: 10,000 in tmux.h).
pub const MAX_SIZE: u32 = 10_000;

/// The first version that reads the JSON form.
pub const JSON_SINCE: (u32, u32) = (3, 8);

/// Why a layout text is refused: what is wrong, and where (a byte
/// offset) when it is a syntax error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError(String);

impl LayoutError {
    fn at(what: impl fmt::Display, offset: usize) -> LayoutError {
        LayoutError(format!("{what} at byte {offset}"))
    }

    fn new(what: impl Into<String>) -> LayoutError {
        LayoutError(what.into())
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LayoutError {}

/// Which form a layout was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `XXXX,WxH,X,Y…` (every tmux).
    Legacy,
    /// `{"V":2,"L":…}` (tmux 3.8).
    Json,
}

/// How a split arranges its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Side by side: legacy `{…}`, JSON `"h"` (tmux's `LAYOUT_LEFTRIGHT`).
    LeftRight,
    /// One above the other: legacy `[…]`, JSON `"v"` (`LAYOUT_TOPBOTTOM`).
    TopBottom,
}

/// What a JSON layout says about one pane; the legacy form carries only
/// the id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pane {
    /// The `N` of the pane's `%N` (legacy `,N`; JSON `"I"`, which tmux
    /// ignores when reading).
    pub id: Option<u32>,
    /// The pane's index in its window (`"i"`): tmux 3.8 gives the cells
    /// to the window's panes in this order.
    pub index: Option<u32>,
    /// Whether it is the window's active pane (`"a"`).
    pub active: Option<bool>,
    /// Its place in the window's list of last panes (`"l"`).
    pub last: Option<u32>,
    /// Its z-index, for a floating pane (`"z"`).
    pub z_index: Option<u32>,
}

/// What a cell holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// A pane.
    Pane(Pane),
    /// Two or more cells.
    Split(Split, Vec<Cell>),
}

/// One cell of a layout: its size and position in cells, and what it
/// holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Width, 1 ..= [`MAX_SIZE`].
    pub width: u32,
    /// Height, 1 ..= [`MAX_SIZE`].
    pub height: u32,
    /// Column of its left edge (negative only for a floating pane).
    pub x: i32,
    /// Row of its top edge (negative only for a floating pane).
    pub y: i32,
    /// A pane or a split.
    pub content: Content,
}

/// A parsed layout text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The form it was written in.
    pub form: Form,
    /// The root cell.
    pub root: Cell,
}

impl Layout {
    /// Parses a layout in either form (JSON when it starts with `{` after
    /// JSON whitespace, as tmux 3.8 decides).
    ///
    /// The legacy form must be exactly what tmux's reader takes (four hex
    /// digits, `,`, cells; its checksum right); the JSON form is strict
    /// JSON with only the keys above, integers, and strings without
    /// escapes. Both: at most [`MAX_BYTES`] and [`MAX_DEPTH`], sizes
    /// 1 ..= 10,000, offsets within ±10,000 (legacy: not negative), and
    /// every split of two or more cells. JSON also as tmux 3.8 checks it:
    /// `"V"` is 2, every pane has an index, at most one is active, and no
    /// two share an index, a z-index or a last-pane place.
    ///
    /// # Errors
    ///
    /// [`LayoutError`] saying what is wrong (and where, for syntax).
    pub fn parse(text: &str) -> Result<Layout, LayoutError> {
        if text.len() > MAX_BYTES {
            return Err(LayoutError::new(format!(
                "a layout is at most {MAX_BYTES} bytes (received {})",
                text.len()
            )));
        }
        let first = text.bytes().find(|b| !is_json_space(*b));
        if first == Some(b'{') {
            let root = Json::new(text.as_bytes()).document()?;
            check_panes(&root)?;
            Ok(Layout {
                form: Form::Json,
                root,
            })
        } else {
            Ok(Layout {
                form: Form::Legacy,
                root: parse_legacy(text)?,
            })
        }
    }

    /// The layout as the running tmux reads it: the JSON form for a JSON
    /// layout on tmux ≥ 3.8, else the legacy form (which every version
    /// reads). Either is written by tmuxwire from the parsed cells, in
    /// tmux's own order of fields, so tmux's own layouts come out as they
    /// went in.
    ///
    /// # Errors
    ///
    /// A JSON layout tmux < 3.8 cannot be given (see [`Layout::to_legacy`]).
    pub fn for_version(&self, version: &TmuxVersion) -> Result<String, LayoutError> {
        match self.form {
            Form::Json if version.at_least(JSON_SINCE.0, JSON_SINCE.1) => Ok(self.to_json()),
            Form::Json => self.to_legacy().map_err(|e| {
                LayoutError::new(format!(
                    "tmux {version} reads only the legacy layout form, and {e}"
                ))
            }),
            Form::Legacy => self.to_legacy(),
        }
    }

    /// The JSON form, `{"V":2,"L":…}`, fields in tmux 3.8's order. Panes
    /// of a legacy layout get their indexes in the cells' order, which is
    /// how tmux gives legacy cells to panes.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"V\":2,\"L\":");
        json_cell(&self.root, &mut out, &mut 0);
        out.push('}');
        out
    }

    /// The legacy form, with its checksum. Panes go to cells in the
    /// cells' order there (the JSON form orders them by index), and
    /// which pane is active or was last is not said.
    ///
    /// # Errors
    ///
    /// [`LayoutError`] for a layout the legacy form cannot say: a floating
    /// pane (z-index or negative offset), or pane indexes that are not in
    /// the cells' order.
    pub fn to_legacy(&self) -> Result<String, LayoutError> {
        let mut body = String::new();
        let mut last_index = None;
        legacy_cell(&self.root, &mut body, &mut last_index)?;
        Ok(format!("{:04x},{body}", checksum(body.as_bytes())))
    }
}

/// tmux's layout checksum (layout-custom.c `layout_checksum()`): rotate
/// right by one bit, add the byte, over the text after the `XXXX,`.
pub fn checksum(body: &[u8]) -> u16 {
    body.iter()
        .fold(0u16, |c, &b| c.rotate_right(1).wrapping_add(u16::from(b)))
}

fn is_json_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn check_size(what: &str, n: i64, offset: usize) -> Result<u32, LayoutError> {
    match u32::try_from(n) {
        Ok(v) if (1..=MAX_SIZE).contains(&v) => Ok(v),
        _ => Err(LayoutError::at(
            format!("{what} must be 1 to {MAX_SIZE} (received {n})"),
            offset,
        )),
    }
}

fn check_offset(what: &str, n: i64, min: i64, offset: usize) -> Result<i32, LayoutError> {
    if (min..=i64::from(MAX_SIZE)).contains(&n) {
        // In range of i32 by the bounds just checked.
        return Ok(n as i32);
    }
    Err(LayoutError::at(
        format!("{what} must be {min} to {MAX_SIZE} (received {n})"),
        offset,
    ))
}

// The legacy form.

/// Parses `XXXX,CELL` (layout-custom.c `layout_parse()` and
/// `layout_construct()`, without their leniencies).
fn parse_legacy(text: &str) -> Result<Cell, LayoutError> {
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

struct Legacy<'a> {
    b: &'a [u8],
    at: usize,
}

impl Legacy<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn number(&mut self, what: &str) -> Result<i64, LayoutError> {
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

    fn expect(&mut self, c: u8) -> Result<(), LayoutError> {
        if self.peek() == Some(c) {
            self.at += 1;
            return Ok(());
        }
        Err(LayoutError::at(
            format!("expected '{}'", c as char),
            self.at,
        ))
    }

    fn cell(&mut self, depth: usize) -> Result<Cell, LayoutError> {
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
    fn next_is_cell(&self) -> bool {
        let mut i = self.at + 1;
        while self.b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        self.b.get(i) == Some(&b'x')
    }
}

fn legacy_cell(
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

// The JSON form.

fn json_cell(cell: &Cell, out: &mut String, next_index: &mut u32) {
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

/// The checks tmux 3.8 makes on a JSON layout's panes once it is read
/// (layout-custom.c `layout_construct()`, `layout_parse_ctx_check_indexes()`).
fn check_panes(root: &Cell) -> Result<(), LayoutError> {
    fn walk<'a>(c: &'a Cell, panes: &mut Vec<&'a Pane>) {
        match &c.content {
            Content::Pane(p) => panes.push(p),
            Content::Split(_, cells) => cells.iter().for_each(|c| walk(c, panes)),
        }
    }
    let mut panes = Vec::new();
    walk(root, &mut panes);
    if panes.iter().filter(|p| p.active == Some(true)).count() > 1 {
        return Err(LayoutError::new(
            "more than one pane is active (\"a\":true)",
        ));
    }
    type Field = fn(&Pane) -> Option<u32>;
    let fields: [(&str, Field); 3] = [
        ("pane index (\"i\")", |p| p.index),
        ("z-index (\"z\")", |p| p.z_index),
        ("last-pane place (\"l\")", |p| p.last),
    ];
    for (what, get) in fields {
        let mut seen = HashSet::new();
        for n in panes.iter().filter_map(|p| get(p)) {
            if !seen.insert(n) {
                return Err(LayoutError::new(format!("two panes have {what} {n}")));
            }
        }
    }
    Ok(())
}

/// A reader of the JSON form: strict JSON restricted to what a layout
/// holds (objects, arrays of objects, integers, booleans, strings without
/// escapes), read straight into [`Cell`]s.
struct Json<'a> {
    b: &'a [u8],
    at: usize,
}

/// One cell object's fields as read, before they are checked together.
#[derive(Default)]
struct RawCell {
    t: Option<(u8, usize)>,
    w: Option<(i64, usize)>,
    h: Option<(i64, usize)>,
    x: Option<(i64, usize)>,
    y: Option<(i64, usize)>,
    c: Option<Vec<Cell>>,
    pane: Pane,
    pane_keys: Option<usize>,
}

impl<'a> Json<'a> {
    fn new(b: &'a [u8]) -> Self {
        Json { b, at: 0 }
    }

    fn space(&mut self) {
        while self.b.get(self.at).copied().is_some_and(is_json_space) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.space();
        self.b.get(self.at).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), LayoutError> {
        if self.peek() == Some(c) {
            self.at += 1;
            return Ok(());
        }
        Err(self.error(format!("expected '{}'", c as char)))
    }

    fn error(&self, what: impl fmt::Display) -> LayoutError {
        LayoutError::at(format!("layout JSON: {what}"), self.at)
    }

    /// `{"V":2,"L":CELL}` and nothing after it but whitespace.
    fn document(&mut self) -> Result<Cell, LayoutError> {
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
    fn object(
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
    fn string(&mut self) -> Result<&'a str, LayoutError> {
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
    fn integer(&mut self) -> Result<i64, LayoutError> {
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

    fn boolean(&mut self) -> Result<bool, LayoutError> {
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
    fn index(&mut self, key: &str) -> Result<u32, LayoutError> {
        let at = self.at;
        let n = self.integer()?;
        match u32::try_from(n) {
            Ok(v) if v < i32::MAX as u32 => Ok(v),
            _ => Err(LayoutError::at(
                format!(
                    "layout JSON: \"{key}\" must be 0 to {} (received {n})",
                    i32::MAX - 1
                ),
                at,
            )),
        }
    }

    fn cell(&mut self, depth: usize) -> Result<Cell, LayoutError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("splits nest deeper than {MAX_DEPTH}")));
        }
        self.space();
        let start = self.at;
        let mut raw = RawCell::default();
        self.object(|j, key| {
            let at = j.at;
            let dup = || LayoutError::at(format!("layout JSON: \"{key}\" given twice"), at);
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
                            return Err(LayoutError::at(
                                format!(
                                    "layout JSON: cell type \"{}\" (not \"p\", \"h\" or \"v\")",
                                    crate::tmux::error::shorten(other, 20)
                                ),
                                at,
                            ));
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
                            p.id = Some(id.ok_or_else(|| {
                                LayoutError::at("layout JSON: \"I\" must be a pane id (%N)", at)
                            })?);
                        }
                    }
                }
                _ => {
                    return Err(LayoutError::at(
                        format!(
                            "layout JSON: unknown key \"{}\" in a cell",
                            crate::tmux::error::shorten(key, 20)
                        ),
                        at,
                    ));
                }
            }
            Ok(())
        })?;
        let missing =
            |k: &str| LayoutError::at(format!("layout JSON: a cell without \"{k}\""), start);
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
                return Err(LayoutError::at(
                    "layout JSON: a pane cell with \"c\"",
                    start,
                ));
            }
            if raw.pane.index.is_none() {
                return Err(missing("i"));
            }
            Content::Pane(raw.pane)
        } else {
            if let Some(at) = raw.pane_keys {
                return Err(LayoutError::at(
                    "layout JSON: a split cell with a pane's key",
                    at,
                ));
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
    fn cells(&mut self, depth: usize) -> Result<Vec<Cell>, LayoutError> {
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
            return Err(LayoutError::at(
                "layout JSON: a split must hold at least two cells",
                start,
            ));
        }
        Ok(cells)
    }
}

/// Fuzz entry point (`fuzz/fuzz_targets/layout.rs`): [`Layout::parse`]
/// never panics; whatever it accepts, written out in its own form, parses
/// back to the same layout and is written out the same way again (so
/// tmux's own layouts round-trip exactly); the legacy text carries a
/// right checksum and only the legacy grammar's bytes; JSON converts to
/// the legacy form and back to the same cells when it can.
///
/// # Panics
///
/// When a property fails.
#[doc(hidden)]
pub fn fuzz_layout(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(layout) = Layout::parse(&text) else {
        return;
    };
    let json = layout.to_json();
    let again = Layout::parse(&json).expect("our JSON parses");
    assert_eq!(again.to_json(), json);
    if layout.form == Form::Json {
        assert_eq!(again.root, layout.root, "JSON round trip");
    } else {
        assert_eq!(strip(&again.root), strip(&layout.root), "legacy to JSON");
    }
    match layout.to_legacy() {
        Ok(legacy) => {
            assert!(legacy.len() > 5);
            assert!(
                legacy[5..]
                    .bytes()
                    .all(|c| c.is_ascii_digit() || b"x,{}[]".contains(&c))
            );
            let back = Layout::parse(&legacy).expect("our legacy string parses");
            assert_eq!(back.to_legacy().as_deref(), Ok(legacy.as_str()));
            assert_eq!(strip(&back.root), strip(&layout.root), "legacy round trip");
            if layout.form == Form::Legacy {
                assert_eq!(back.root, layout.root);
            }
        }
        Err(_) => assert_eq!(layout.form, Form::Json, "a legacy layout always converts"),
    }
    for v in ["3.3a", "3.5a", "3.8"] {
        if let Ok(out) = layout.for_version(&TmuxVersion::parse(v)) {
            assert!(out.len() <= 2 * MAX_BYTES);
            assert!(!out.contains(['\n', '\0', '\\']));
        }
    }
}

/// The cells with only what the legacy form says about panes (the id).
fn strip(c: &Cell) -> Cell {
    let content = match &c.content {
        Content::Pane(p) => Content::Pane(Pane {
            id: p.id,
            ..Pane::default()
        }),
        Content::Split(s, cells) => Content::Split(*s, cells.iter().map(strip).collect()),
    };
    Cell {
        content,
        ..c.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tmux 3.8's own layouts (a window split in three with %0 resized;
    /// floating panes, one at a negative offset, out of index order).
    const TMUX_38: &[&str] = &[
        r#"{"V":2,"L":{"t":"v","w":120,"h":40,"x":0,"y":0,"c":[{"t":"p","w":120,"h":12,"x":0,"y":0,"l":1,"i":0,"I":"%0"},{"t":"h","w":120,"h":27,"x":0,"y":13,"c":[{"t":"p","w":60,"h":27,"x":0,"y":13,"l":0,"i":1,"I":"%1"},{"t":"p","w":59,"h":27,"x":61,"y":13,"a":true,"i":2,"I":"%2"}]}]}}"#,
        r#"{"V":2,"L":{"t":"v","w":80,"h":24,"x":0,"y":0,"c":[{"t":"p","w":8,"h":3,"x":51,"y":11,"l":0,"i":1,"z":1,"I":"%3"},{"t":"p","w":8,"h":3,"x":-2,"y":-1,"a":true,"i":2,"z":0,"I":"%4"},{"t":"p","w":18,"h":6,"x":6,"y":4,"l":1,"i":0,"z":2,"I":"%1"}]}}"#,
        r#"{"V":2,"L":{"t":"p","w":18,"h":6,"x":6,"y":4,"a":true,"i":0,"z":0,"I":"%1"}}"#,
    ];

    fn body_with_checksum(body: &str) -> String {
        format!("{:04x},{body}", checksum(body.as_bytes()))
    }

    #[test]
    fn checksum_is_tmuxs() {
        // From tmux 3.3a: `#{window_layout}` of one 80x24 pane %0.
        assert_eq!(checksum(b"80x24,0,0,0"), 0xb25d);
    }

    #[test]
    fn tmux_layouts_round_trip_exactly() {
        for text in TMUX_38 {
            let l = Layout::parse(text).unwrap();
            assert_eq!(l.form, Form::Json);
            assert_eq!(l.to_json(), *text);
            assert_eq!(l.for_version(&TmuxVersion::parse("3.8")).unwrap(), *text);
        }
        let legacy =
            body_with_checksum("120x40,0,0[120x12,0,0,0,120x27,0,13{60x27,0,13,1,59x27,61,13,2}]");
        let l = Layout::parse(&legacy).unwrap();
        assert_eq!(l.form, Form::Legacy);
        for v in ["3.3a", "3.8"] {
            assert_eq!(l.for_version(&TmuxVersion::parse(v)).unwrap(), legacy);
        }
        // The JSON of the same window becomes that legacy string for tmux < 3.8.
        let json = Layout::parse(TMUX_38[0]).unwrap();
        assert_eq!(
            json.for_version(&TmuxVersion::parse("3.5a")).unwrap(),
            legacy
        );
        assert!(l.for_version(&TmuxVersion::parse("3.5a")).is_ok());
    }

    #[test]
    fn legacy_without_pane_ids() {
        let text = body_with_checksum("80x24,0,0{40x24,0,0,39x24,41,0}");
        let l = Layout::parse(&text).unwrap();
        assert_eq!(l.to_legacy().unwrap(), text);
    }

    #[test]
    fn floating_panes_need_json() {
        let l = Layout::parse(TMUX_38[1]).unwrap();
        let e = l.for_version(&TmuxVersion::parse("3.5a")).unwrap_err();
        assert!(e.to_string().contains("legacy"), "{e}");
    }

    #[test]
    fn refused() {
        let one_child = body_with_checksum("80x24,0,0[80x12,0,0,0,80x11,0,13{80x11,0,13,1}]");
        let too_big = body_with_checksum("10001x24,0,0,0");
        let deep = {
            let mut body = String::new();
            for _ in 0..=MAX_DEPTH {
                body.push_str("2x2,0,0{");
            }
            body.push_str("1x1,0,0,0,1x1,0,0,1");
            for _ in 0..=MAX_DEPTH {
                body.push_str(",1x1,0,0,2}");
            }
            body_with_checksum(&body)
        };
        for bad in [
            "",
            "nonsense",
            "t",
            "1,",
            "abcd,",
            "zzzz,1",
            "abcd,80x24,0,0,0",
            &one_child,
            &too_big,
            &body_with_checksum("80x24,0,0,0,"),
            &body_with_checksum("80x24,0,0,0 "),
            &body_with_checksum("80x24,-1,0,0"),
            &body_with_checksum("80x24,0,0,0{1x1,0,0,1,1x1,0,0,2}"),
            &body_with_checksum("80x24,0,0{40x24,0,0,1,39x24,41,0,2]"),
            &body_with_checksum("0x24,0,0,0"),
            &body_with_checksum("80x24,0,0,99999999999"),
            &deep,
            "{}",
            "{\"V\":2}",
            "{\"V\":1,\"L\":{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0}}",
            "{\"V\":2,\"L\":{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0}}",
            "{\"V\":2,\"L\":{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0,\"i\":1}}",
            "{\"V\":2,\"L\":{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0,\"q\":1}}",
            "{\"V\":2,\"L\":{\"t\":\"p\",\"w\":1.0,\"h\":1,\"x\":0,\"y\":0,\"i\":0}}",
            "{\"V\":2,\"L\":{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0,\"I\":\"%\\u0030\"}}",
            "{\"V\":2,\"L\":{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0}} x",
            "{\"V\":2,\"L\":{\"t\":\"v\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"c\":[{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0}]}}",
            "{\"V\":2,\"L\":{\"t\":\"v\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0,\"c\":[{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0},{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":1}]}}",
            "{\"V\":2,\"L\":{\"t\":\"v\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"c\":[{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0},{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0}]}}",
            "{\"V\":2,\"L\":{\"t\":\"v\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"c\":[{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":0,\"a\":true},{\"t\":\"p\",\"w\":1,\"h\":1,\"x\":0,\"y\":0,\"i\":1,\"a\":true}]}}",
            &"{".repeat(MAX_BYTES + 1),
        ] {
            assert!(Layout::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn json_whitespace_and_key_order_are_read() {
        let text =
            " { \"L\" : {\"i\":0, \"y\":0,\"x\":0,\"h\":24,\"w\":80,\"t\":\"p\"} ,\n\"V\":2 } ";
        let l = Layout::parse(text).unwrap();
        assert_eq!(
            l.to_json(),
            r#"{"V":2,"L":{"t":"p","w":80,"h":24,"x":0,"y":0,"i":0}}"#
        );
    }

    #[test]
    fn fuzz_seeds_hold() {
        for text in TMUX_38 {
            fuzz_layout(text.as_bytes());
            for cut in 0..text.len() {
                fuzz_layout(&text.as_bytes()[..cut]);
            }
        }
        fuzz_layout(body_with_checksum("80x24,0,0{40x24,0,0,1,39x24,41,0,2}").as_bytes());
    }

    proptest::proptest! {
        /// Any layout of the grammar round-trips through both forms.
        #[test]
        fn generated_layouts_round_trip(seed in proptest::collection::vec(0u8..=255, 0..64)) {
            let text = generate(&seed);
            let l = Layout::parse(&text).expect("generated layouts parse");
            fuzz_layout(text.as_bytes());
            let json = l.to_json();
            fuzz_layout(json.as_bytes());
        }

        /// Bytes changed anywhere in a valid layout never panic the reader.
        #[test]
        fn mutated_layouts_never_panic(
            seed in proptest::collection::vec(0u8..=255, 0..32),
            at in 0usize..400,
            byte in 0u8..=255,
        ) {
            for text in [generate(&seed), Layout::parse(&generate(&seed)).unwrap().to_json()] {
                let mut b = text.into_bytes();
                if !b.is_empty() {
                    let i = at % b.len();
                    b[i] = byte;
                }
                fuzz_layout(&b);
            }
        }
    }

    /// A legacy layout string built from `seed`: a tree of up to a few
    /// dozen cells with pane ids in order.
    fn generate(seed: &[u8]) -> String {
        fn cell(seed: &mut std::slice::Iter<'_, u8>, depth: usize, id: &mut u32, out: &mut String) {
            let b = seed.next().copied().unwrap_or(0);
            let (w, h) = (1 + u32::from(b % 7) * 13, 1 + u32::from(b / 7 % 5) * 9);
            out.push_str(&format!("{w}x{h},{},{}", b % 3, b % 5));
            if depth < 4 && b % 3 == 0 {
                let open = if b % 2 == 0 { ('{', '}') } else { ('[', ']') };
                out.push(open.0);
                let n = 2 + usize::from(b % 3);
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    cell(seed, depth + 1, id, out);
                }
                out.push(open.1);
            } else {
                out.push_str(&format!(",{id}"));
                *id += 1;
            }
        }
        let mut body = String::new();
        cell(&mut seed.iter(), 0, &mut 0, &mut body);
        body_with_checksum(&body)
    }
}
