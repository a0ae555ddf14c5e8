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

mod json;
mod legacy;

use json::{Json, json_cell};
use legacy::{legacy_cell, parse_legacy};

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

/// Layout texts that are neither a preset's name nor a layout (test data,
/// for the parser here and for `select_layout`'s arguments).
#[cfg(test)]
pub(crate) const MALFORMED: [&str; 6] = ["", "nonsense", "t", "1,", "abcd,", "zzzz,1"];

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
        for bad in MALFORMED.into_iter().chain([
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
        ]) {
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
