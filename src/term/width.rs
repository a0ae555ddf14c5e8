//! How many cells tmux gives a character, and whether it joins the cell
//! before it, by tmux version. Pure.
//!
//! tmux decides twice per character, and both decisions changed between
//! releases:
//!
//! 1. **Width** (utf8.c: `utf8_width()`): the C library's `wcwidth()`
//!    (tmux built without utf8proc, as on Debian), with overrides. See
//!    [`char_width`]. The table used here is glibc 2.36's `C.UTF-8`
//!    (`width_table.rs`).
//! 2. **Joining** (screen-write.c: `screen_write_combine()` and, up to 3.3,
//!    `screen_write_cell()`): a character may be appended to the cell
//!    before the cursor instead of taking cells of its own, and may widen
//!    that cell from one column to two. See [`decide`].
//!
//! The rules by version ([`Rules`]):
//!
//! * **≤ 3.3** ([`Rules::V33`]): a character `wcwidth()` calls
//!   non-printable (`-1`) is dropped. A zero-width character joins the
//!   nearest non-padding cell to the left, width unchanged; a ZWJ
//!   (`U+200D`) is held back and joins, with the character after it, that
//!   same cell. Nothing widens a cell.
//! * **3.4, 3.5** ([`Rules::V34`]): a table of emoji (and the regional
//!   indicators) is forced to two cells; other non-printable characters
//!   get one cell (C1 controls zero). A zero-width character, ZWJ or VS16
//!   joins the cell right before the cursor (its padding skipped); VS16
//!   widens a one-cell character to two. A regional indicator or a skin
//!   tone modifier joins and widens any cell holding a non-ASCII
//!   character; anything joins a cell that ends with a ZWJ.
//! * **≥ 3.6** ([`Rules::V36`]): as 3.4, but regional indicators are one
//!   cell and a second one joins the first (a flag, two cells); a skin
//!   tone joins only the emoji that take one; a Hangul choseong never
//!   joins; `U+3164` is ignored; VS16 widens while the server option
//!   `variation-selector-always-wide` is on (the default).
//!
//! Row counting ([`rows`]) lays a logical line out with the same
//! decisions, so a tmux width rule is written once.

use crate::wire::TmuxVersion;

use super::width_table::{FORCED_WIDE, GLIBC};

/// Which of tmux's character rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rules {
    /// tmux ≤ 3.3.
    V33,
    /// tmux 3.4 and 3.5.
    V34,
    /// tmux ≥ 3.6 (and unknown, newer builds). Checked against 3.8.
    V36,
}

impl Rules {
    /// The rules for a server version.
    pub fn for_version(v: &TmuxVersion) -> Rules {
        if !v.at_least(3, 4) {
            Rules::V33
        } else if !v.at_least(3, 6) {
            Rules::V34
        } else {
            Rules::V36
        }
    }

    /// Whether a TAB the program writes over blank cells is kept as one
    /// TAB cell that `capture-pane` prints as `\t` (≥ 3.6; input.c,
    /// `input_c0_dispatch()`, `grid_set_tab()`), rather than only moving
    /// the cursor (blank cells print as spaces).
    pub fn keeps_tabs(self) -> bool {
        self == Rules::V36
    }

    /// Whether bytes that are not valid UTF-8 become `U+FFFD` (≥ 3.6;
    /// input.c `input_stop_utf8()`), rather than being dropped.
    pub fn replaces_invalid_utf8(self) -> bool {
        self == Rules::V36
    }

    /// The most bytes one cell can hold (tmux.h `UTF8_SIZE`): 21 up to
    /// 3.5, 32 from 3.6.
    pub fn max_cell_bytes(self) -> usize {
        match self {
            Rules::V33 | Rules::V34 => 21,
            Rules::V36 => 32,
        }
    }
}

const ZWJ: u32 = 0x200d;
const VS16: u32 = 0xfe0f;
const HANGUL_FILLER: u32 = 0x3164;

fn is_regional(cp: u32) -> bool {
    (0x1f1e6..=0x1f1ff).contains(&cp)
}

fn is_skin_tone(cp: u32) -> bool {
    (0x1f3fb..=0x1f3ff).contains(&cp)
}

/// The emoji a skin tone modifier joins from 3.6 (utf8-combined.c,
/// `utf8_should_combine()`).
static SKIN_TONE_BASES: &[u32] = &[
    0x1F44B, 0x1F44C, 0x1F44D, 0x1F44E, 0x1F44F, 0x1F450, 0x1F466, 0x1F467, 0x1F468, 0x1F469,
    0x1F46E, 0x1F470, 0x1F471, 0x1F472, 0x1F473, 0x1F474, 0x1F475, 0x1F476, 0x1F477, 0x1F478,
    0x1F47C, 0x1F481, 0x1F482, 0x1F483, 0x1F485, 0x1F486, 0x1F487, 0x1F4AA, 0x1F575, 0x1F57A,
    0x1F590, 0x1F595, 0x1F596, 0x1F645, 0x1F646, 0x1F647, 0x1F64B, 0x1F64C, 0x1F64D, 0x1F64E,
    0x1F64F, 0x1F6B4, 0x1F6B5, 0x1F6B6, 0x1F926, 0x1F937, 0x1F938, 0x1F939, 0x1F93D, 0x1F93E,
    0x1F9B5, 0x1F9B6, 0x1F9B8, 0x1F9B9, 0x1F9CD, 0x1F9CE, 0x1F9CF, 0x1F9D1, 0x1F9D2, 0x1F9D3,
    0x1F9D4, 0x1F9D5, 0x1F9D6, 0x1F9D7, 0x1F9D8, 0x1F9D9, 0x1F9DA, 0x1F9DB, 0x1F9DC, 0x1F9DD,
    0x1F9DE, 0x1F9DF,
];

/// glibc's widths for the Basic Multilingual Plane, one byte per code
/// point, built once from [`GLIBC`] (64 KiB).
fn bmp_widths() -> &'static [i8; 0x10000] {
    static TABLE: std::sync::OnceLock<Box<[i8; 0x10000]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([1i8; 0x10000]);
        for &(first, last, w) in GLIBC {
            if first > 0xffff {
                break;
            }
            for cp in first..=last.min(0xffff) {
                t[cp as usize] = w;
            }
        }
        t
    })
}

/// glibc's `wcwidth()` for a code point (`-1`: non-printable).
///
/// Code points above `U+10FFFF` are non-printable; glibc's `mbtowc()`
/// still decodes them from 4-byte sequences up to `U+13FFFF`, so they do
/// reach here.
pub fn glibc_width(cp: u32) -> i8 {
    if (0x20..0x7f).contains(&cp) {
        return 1;
    }
    if cp <= 0xffff {
        return bmp_widths()[cp as usize];
    }
    if cp > 0x10ffff {
        return -1;
    }
    match GLIBC.binary_search_by(|&(first, last, _)| {
        if last < cp {
            std::cmp::Ordering::Less
        } else if first > cp {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => GLIBC[i].2,
        Err(_) => 1,
    }
}

/// The cells tmux gives a character that arrived as UTF-8 (`cp ≥ 0x80`;
/// ASCII is always one cell), or `None` when tmux ≤ 3.3 rejects it as
/// non-printable (the character is then dropped).
///
/// utf8.c `utf8_width()`: ≥ 3.4 first consults a table of emoji forced
/// to two cells (3.4/3.5 also force the regional indicators to two; ≥ 3.6
/// makes them one), then `wcwidth()`, where non-printable becomes one cell
/// (C1 controls, `U+0080..=U+009F`, zero).
pub fn char_width(cp: u32, rules: Rules) -> Option<u8> {
    // The forced emoji are U+261D..=U+270D and above U+1F000.
    if rules != Rules::V33 && ((0x261d..=0x270d).contains(&cp) || cp >= 0x1f000) {
        if FORCED_WIDE.binary_search(&cp).is_ok() {
            return Some(2);
        }
        if is_regional(cp) {
            return Some(if rules == Rules::V34 { 2 } else { 1 });
        }
    }
    let w = glibc_width(cp);
    if w >= 0 {
        return Some(w as u8);
    }
    match rules {
        Rules::V33 => None,
        _ => Some(if (0x80..=0x9f).contains(&cp) { 0 } else { 1 }),
    }
}

/// The first code point of a cell's bytes, as glibc's `mbtowc()` reads
/// it (tmux `utf8_towc()`), or `None` if they do not start with one.
pub fn first_code_point(data: &[u8]) -> Option<u32> {
    let (&b0, rest) = data.split_first()?;
    let (len, init) = match b0 {
        0x00..=0x7f => return Some(u32::from(b0)),
        0xc2..=0xdf => (2, u32::from(b0 & 0x1f)),
        0xe0..=0xef => (3, u32::from(b0 & 0x0f)),
        0xf0..=0xf4 => (4, u32::from(b0 & 0x07)),
        _ => return None,
    };
    if rest.len() < len - 1 {
        return None;
    }
    let mut cp = init;
    for &b in &rest[..len - 1] {
        if b & 0xc0 != 0x80 {
            return None;
        }
        cp = (cp << 6) | u32::from(b & 0x3f);
    }
    let ok = match len {
        3 => cp >= 0x800 && !(0xd800..=0xdfff).contains(&cp),
        4 => cp >= 0x10000,
        _ => true,
    };
    ok.then_some(cp)
}

/// Appends the UTF-8 form of `cp` (also for code points above
/// `U+10FFFF`, which glibc accepts and tmux stores as four bytes).
#[inline]
pub fn push_code_point(out: &mut Vec<u8>, cp: u32) {
    // Fixed-size copies: `extend_from_slice` of a slice whose length is
    // only known at run time is a memcpy call, which costs more than the
    // character.
    if cp < 0x80 {
        out.push(cp as u8);
    } else if cp < 0x800 {
        out.extend_from_slice(&[0xc0 | (cp >> 6) as u8, 0x80 | (cp & 0x3f) as u8]);
    } else if cp < 0x10000 {
        out.extend_from_slice(&[
            0xe0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3f) as u8,
            0x80 | (cp & 0x3f) as u8,
        ]);
    } else {
        // Also the code points glibc decodes past Unicode:
        // 0x110000..=0x13FFFF.
        out.extend_from_slice(&[
            0xf0 | ((cp >> 18) & 0x07) as u8,
            0x80 | ((cp >> 12) & 0x3f) as u8,
            0x80 | ((cp >> 6) & 0x3f) as u8,
            0x80 | (cp & 0x3f) as u8,
        ]);
    }
}

/// The number of bytes [`push_code_point`] writes.
pub fn code_point_len(cp: u32) -> usize {
    match cp {
        0..=0x7f => 1,
        0x80..=0x7ff => 2,
        0x800..=0xffff => 3,
        _ => 4,
    }
}

fn regional_count(data: &[u8]) -> usize {
    data.windows(4)
        .filter(|w| w[0] == 0xf0 && w[1] == 0x9f && w[2] == 0x87 && (0xa6..=0xbf).contains(&w[3]))
        .count()
}

/// Whether a cell's bytes end with a ZWJ (utf8-combined.c `utf8_has_zwj()`).
pub fn ends_with_zwj(data: &[u8]) -> bool {
    data.ends_with("\u{200d}".as_bytes())
}

#[derive(PartialEq, Eq)]
enum Jamo {
    Choseong,
    Jungseong,
    Jongseong,
    None,
}

/// The Hangul Jamo class of a three-byte sequence (utf8-combined.c
/// `hanguljamo_get_class()`).
fn jamo_class(s: &[u8]) -> Jamo {
    let [a, b, c] = match s {
        [a, b, c] => [*a, *b, *c],
        _ => return Jamo::None,
    };
    match (a, b) {
        (0xe1, 0x84) => Jamo::Choseong,
        (0xe1, 0x85) if c <= 0x9f => Jamo::Choseong,
        (0xe1, 0x85) => Jamo::Jungseong,
        (0xe1, 0x86) if c <= 0xa7 => Jamo::Jungseong,
        (0xe1, 0x86) => Jamo::Jongseong,
        (0xe1, 0x87) => Jamo::Jongseong,
        (0xea, 0xa5) if (0xa0..=0xbc).contains(&c) => Jamo::Choseong,
        (0xed, 0x9e) if c >= 0xb0 => Jamo::Jungseong,
        (0xed, 0x9f) if c <= 0x86 => Jamo::Jungseong,
        (0xed, 0x9f) if (0x8b..=0xbb).contains(&c) => Jamo::Jongseong,
        _ => Jamo::None,
    }
}

/// ≥ 3.6 `utf8_should_combine(with, add)`.
fn should_combine(with: &[u8], add: &[u8]) -> bool {
    let (Some(w), Some(a)) = (first_code_point(with), first_code_point(add)) else {
        return false;
    };
    // Regional indicators, skin tones and the emoji they join are all
    // above U+1F1E5.
    if a < 0x1f1e6 || w < 0x1f1e6 {
        return false;
    }
    if is_regional(a) && is_regional(w) {
        return regional_count(with) == 1 && regional_count(add) == 1;
    }
    SKIN_TONE_BASES.binary_search(&a).is_ok() && is_skin_tone(w)
}

/// The cell a character may join: its bytes as tmux stores them and its
/// width in cells.
#[derive(Clone, Copy, Debug)]
pub struct Prev<'a> {
    /// The cell's bytes (a TAB cell holds one space per column).
    pub data: &'a [u8],
    /// The cell's width in columns.
    pub width: u8,
}

/// What tmux does with one character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Put it in new cells: the character's own width in columns (which
    /// can be 0 on 3.4/3.5 when a joining character does not fit its cell).
    New(u8),
    /// Append it to the previous cell, whose width stays.
    Join,
    /// Append it to the previous cell and widen that cell from one column
    /// to two.
    JoinWiden,
    /// Drop it.
    Drop,
}

/// One character: its bytes, code point and width from [`char_width`].
#[derive(Clone, Copy, Debug)]
pub struct Char<'a> {
    /// The UTF-8 bytes as the program wrote them.
    pub data: &'a [u8],
    /// The code point.
    pub cp: u32,
    /// The width from [`char_width`].
    pub width: u8,
}

/// tmux ≥ 3.4's joining decision for a non-ASCII character
/// (screen-write.c `screen_write_combine()`).
///
/// `prev` is the cell right before the cursor that tmux would join, or
/// `None` when there is none: the cursor is in column 0, or the cell there
/// is not a character whose width reaches the cursor. `vs16_wide` is the
/// server option `variation-selector-always-wide` (≥ 3.6; 3.4 and 3.5
/// always widen).
///
/// tmux ≤ 3.3 decides differently (with state across characters); see
/// [`V33Joiner`].
pub fn decide(rules: Rules, prev: Option<Prev<'_>>, c: Char<'_>, vs16_wide: bool) -> Decision {
    if rules == Rules::V36 && c.cp == HANGUL_FILLER {
        return Decision::Drop;
    }
    let mut force_wide = false;
    let zero_width = if c.cp == ZWJ {
        true
    } else if c.cp == VS16 {
        force_wide = rules == Rules::V34 || vs16_wide;
        true
    } else {
        c.width == 0
    };
    let lone = if zero_width {
        Decision::Drop
    } else {
        Decision::New(c.width)
    };
    let Some(last) = prev else {
        return lone;
    };
    if c.data.len() < 2 {
        return lone;
    }
    if !zero_width {
        match rules {
            Rules::V34 => {
                if is_regional(c.cp) || is_skin_tone(c.cp) {
                    if last.data.len() < 2 {
                        return Decision::New(c.width);
                    }
                    force_wide = true;
                } else if !ends_with_zwj(last.data) {
                    return Decision::New(c.width);
                }
            }
            _ => {
                let tail = &last.data[last.data.len().saturating_sub(3)..];
                let jamo = if c.data.len() == 3 {
                    jamo_class(c.data)
                } else {
                    Jamo::None
                };
                match jamo {
                    Jamo::Choseong => return Decision::New(c.width),
                    Jamo::Jungseong | Jamo::Jongseong => {
                        let want = if jamo == Jamo::Jungseong {
                            Jamo::Choseong
                        } else {
                            Jamo::Jungseong
                        };
                        if last.data.len() < 3 || jamo_class(tail) != want {
                            return Decision::Drop;
                        }
                    }
                    Jamo::None => {
                        if should_combine(last.data, c.data) || should_combine(c.data, last.data) {
                            force_wide = true;
                        } else if !ends_with_zwj(last.data) {
                            return Decision::New(c.width);
                        }
                    }
                }
            }
        }
    }
    if last.data.len() + c.data.len() > rules.max_cell_bytes() {
        return match rules {
            // 3.4/3.5 return 0 here: the character takes a cell of its
            // own, even a zero-width one.
            Rules::V34 => Decision::New(c.width),
            _ => lone,
        };
    }
    if last.width == 1 && force_wide {
        Decision::JoinWiden
    } else {
        Decision::Join
    }
}

/// When [`decide`] (3.4+ rules) surely returns `New(width)` for a
/// character: the previous cell then holds one character that is not a
/// ZWJ and whose code point is below the returned limit. `None`: no such
/// guarantee (zero-width characters, the Hangul filler, Hangul jamo that
/// may join, regional indicators and skin tones).
///
/// Below U+1F1E6 a character joins only after a ZWJ (`should_combine()`
/// needs both sides at or above it); an emoji above that joins a single
/// character only if that one is a regional indicator or skin tone (also
/// above it). The caller's fast path for ordinary text.
pub(crate) fn new_cell_after(cp: u32, width: u8) -> Option<u32> {
    if width == 0
        || cp == ZWJ
        || cp == VS16
        || cp == HANGUL_FILLER
        || (0x1100..=0x11ff).contains(&cp)
        || (0xa960..=0xa97f).contains(&cp)
        || (0xd7b0..=0xd7ff).contains(&cp)
    {
        return None;
    }
    if cp < 0x1f1e6 {
        Some(u32::MAX)
    } else if is_regional(cp) || is_skin_tone(cp) {
        None
    } else {
        Some(0x1f1e6)
    }
}

/// tmux ≤ 3.3's joining state (screen-write.c `screen_write_cell()`,
/// `SCREEN_WRITE_ZWJ`): a ZWJ is held back and joins, together with the
/// character after it, the cell before the cursor.
///
/// tmux keeps the ZWJ flag in its `screen_write_ctx`, which it resets on
/// every read from the pane; [`V33Joiner::reset`] is that reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct V33Joiner {
    zwj: bool,
}

/// What tmux ≤ 3.3 does with a character that reaches
/// `screen_write_cell()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V33Decision {
    /// Put it in new cells of this width.
    New(u8),
    /// Append it to the nearest non-padding cell left of the cursor
    /// (first a held-back ZWJ, if `with_zwj`, then the character; each
    /// append is skipped if the cell would exceed 21 bytes); if there is no
    /// such cell the character is dropped.
    Join {
        /// A held-back ZWJ goes first.
        with_zwj: bool,
    },
    /// Hold it back (it was a ZWJ).
    Hold,
}

impl V33Joiner {
    /// Decides for one character of `width` cells (`cp` its code point).
    pub fn decide(&mut self, cp: u32, width: u8) -> V33Decision {
        if cp == ZWJ {
            self.zwj = true;
            return V33Decision::Hold;
        }
        if width == 0 || self.zwj {
            let with_zwj = std::mem::take(&mut self.zwj);
            return V33Decision::Join { with_zwj };
        }
        V33Decision::New(width)
    }

    /// Forgets a held-back ZWJ (tmux does this at the start of each read
    /// from the pane).
    pub fn reset(&mut self) {
        self.zwj = false;
    }
}

/// The rows a logical line of `text` fills in a pane `width` cells wide,
/// laid out as tmux writes it from column 0: a character that does not fit
/// in what is left of the row moves to the next one (so a two-cell
/// character never straddles the edge), joining characters join per
/// [`decide`], and a line that exactly fills its rows does not spill into
/// another. A TAB (kept by tmux ≥ 3.6) reaches the next multiple of 8 but
/// never wraps.
pub fn rows(text: &str, width: usize, rules: Rules) -> u32 {
    if width == 0 {
        return 1;
    }
    if text.is_ascii() && !text.contains('\t') {
        return text.len().div_ceil(width).max(1) as u32;
    }
    let mut layout = Layout::new(width, rules);
    for c in text.chars() {
        layout.push(c as u32);
    }
    layout.rows
}

/// Whether `text` (UTF-8, no TAB) surely fits in one row `width` cells
/// wide without laying it out: no character takes more cells than it has
/// bytes (a cell is at most two columns and every character of two
/// columns is three or four bytes; a joiner that widens a cell has three),
/// so a line of at most `width` bytes never reaches the edge. Most lines
/// of a history are such lines, and most of a seed's time went to laying
/// them out character by character.
fn fits_one_row(text: &[u8], width: usize) -> bool {
    text.len() <= width && std::str::from_utf8(text).is_ok()
}

/// Appends to `out` the byte offsets in `text` (one logical line, as
/// `capture-pane -J` prints it) where its rows after the first begin, laid
/// out as [`rows`] counts them: `out` gains `rows(text) - 1` offsets, each
/// at the start of a character (a joining character stays on the row of
/// the cell it joins). A byte that is not UTF-8 takes one cell.
pub fn row_breaks(text: &[u8], width: usize, rules: Rules, out: &mut Vec<usize>) {
    if width == 0 {
        return;
    }
    if memchr::memchr(b'\t', text).is_none() {
        if text.is_ascii() {
            out.extend((width..text.len()).step_by(width));
            return;
        }
        if fits_one_row(text, width) {
            return;
        }
    }
    let mut layout = Layout::new(width, rules);
    let mut row = 0;
    let mut i = 0;
    while i < text.len() {
        let (cp, len) = match first_code_point(&text[i..]) {
            Some(cp) => (cp, code_point_len(cp)),
            None => (0xfffd, 1),
        };
        let placed = layout.push(cp);
        if placed.row != row {
            row = placed.row;
            out.push(i);
        }
        i += len;
    }
}

/// Lays text out cell by cell as tmux would write it from column 0 of an
/// empty row, tracking the row and column of each character.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    width: usize,
    rules: Rules,
    /// Rows used so far (1-based count).
    pub rows: u32,
    /// The column the next character goes to (may equal `width`: a wrap is
    /// pending).
    pub col: usize,
    /// The bytes and width of the last cell written on this row.
    last: Vec<u8>,
    last_width: u8,
    has_last: bool,
    joiner: V33Joiner,
}

/// Where [`Layout::push`] put a character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placed {
    /// The 0-based row within the line.
    pub row: u32,
    /// The first column of the cell the character is in (or joined).
    pub col: usize,
    /// The columns the cell covers after this character.
    pub width: usize,
}

impl Layout {
    pub(crate) fn new(width: usize, rules: Rules) -> Layout {
        Layout {
            width: width.max(1),
            rules,
            rows: 1,
            col: 0,
            last: Vec::new(),
            last_width: 0,
            has_last: false,
            joiner: V33Joiner::default(),
        }
    }

    /// Places one character (a code point as tmux decoded it).
    pub(crate) fn push(&mut self, cp: u32) -> Placed {
        if cp == u32::from(b'\t') {
            return self.tab();
        }
        let width = if cp < 0x80 {
            Some(1)
        } else {
            char_width(cp, self.rules)
        };
        let Some(width) = width else {
            return self.here(0);
        };
        let mut data = Vec::with_capacity(4);
        push_code_point(&mut data, cp);
        if self.rules == Rules::V33 {
            return match self.joiner.decide(cp, width) {
                V33Decision::Hold => self.here(0),
                V33Decision::Join { .. } => {
                    if self.has_last && self.last.len() + data.len() <= 21 {
                        self.last.extend_from_slice(&data);
                    }
                    self.here(usize::from(self.last_width))
                }
                V33Decision::New(w) => self.place(usize::from(w), data),
            };
        }
        let prev = (self.has_last && self.col > 0).then(|| Prev {
            data: &self.last,
            width: self.last_width,
        });
        let c = Char {
            data: &data,
            cp,
            width,
        };
        match decide(self.rules, prev, c, true) {
            Decision::Drop => self.here(0),
            Decision::Join => {
                self.last.extend_from_slice(&data);
                self.here(usize::from(self.last_width))
            }
            Decision::JoinWiden => {
                self.last.extend_from_slice(&data);
                self.last_width = 2;
                // The widened cell takes the column after it (possibly
                // past the edge, as tmux does).
                self.col += 1;
                self.here(2)
            }
            Decision::New(w) => self.place(usize::from(w), data),
        }
    }

    fn here(&self, width: usize) -> Placed {
        let col = self.col.saturating_sub(width);
        Placed {
            row: self.rows - 1,
            col,
            width,
        }
    }

    fn place(&mut self, w: usize, data: Vec<u8>) -> Placed {
        if self.col + w > self.width && self.col > 0 {
            self.rows += 1;
            self.col = 0;
        }
        let col = self.col;
        self.col += w;
        self.last = data;
        self.last_width = w as u8;
        self.has_last = true;
        Placed {
            row: self.rows - 1,
            col,
            width: w,
        }
    }

    fn tab(&mut self) -> Placed {
        if self.col + 1 >= self.width {
            return self.here(0);
        }
        let stop = ((self.col / 8 + 1) * 8).min(self.width - 1);
        let w = stop - self.col;
        self.place(w, vec![b' '; w])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_wide() {
        for r in [Rules::V33, Rules::V34, Rules::V36] {
            assert_eq!(rows("", 20, r), 1);
            assert_eq!(rows("0123456789abcdefNEEDLEXYZ-tail", 20, r), 2);
            assert_eq!(rows(&"x".repeat(20), 20, r), 1);
            assert_eq!(rows(&"x".repeat(21), 20, r), 2);
            // 中文 + 18 x = 22 cells.
            assert_eq!(rows("中文xxxxxxxxxxxxxxxxxx", 20, r), 2);
            // A wide character that does not fit in the last cell wraps early.
            assert_eq!(rows("xxxxxxxxxxxxxxxxxxx中", 20, r), 2);
            assert_eq!(rows("xxxxxxxxxxxxxxxxxx中", 20, r), 1);
            assert_eq!(rows("a\tb", 20, r), 1);
            // A combining accent takes no cell.
            assert_eq!(rows(&"e\u{301}".repeat(20), 20, r), 1);
        }
    }

    /// A line of at most `width` bytes is one row whatever it holds
    /// ([`fits_one_row`]): laid out character by character it never
    /// breaks either, with wide, joining, widening and regional-indicator
    /// characters at every position.
    #[test]
    fn a_line_no_longer_than_the_row_in_bytes_is_one_row() {
        let pieces: &[&str] = &[
            "a",
            "\u{e9}",
            "\u{4e2d}",
            "\u{1f44d}",
            "\u{1f3fd}",
            "\u{fe0f}",
            "\u{200d}",
            "\u{1f1eb}",
            "\u{301}",
            "\u{263a}",
            "\u{80}",
            "\u{ac00}",
        ];
        let mut rng = fastrand::Rng::with_seed(0x0e0123);
        for rules in [Rules::V33, Rules::V34, Rules::V36] {
            for _ in 0..20_000 {
                let width = rng.usize(1..40);
                let mut text = String::new();
                while text.len() < width {
                    text.push_str(pieces[rng.usize(..pieces.len())]);
                }
                while text.len() > width {
                    text.pop();
                }
                let mut layout = Layout::new(width, rules);
                let mut rows = 1;
                for c in text.chars() {
                    rows = rows.max(layout.push(c as u32).row + 1);
                }
                assert_eq!(rows, 1, "{rules:?} width {width}: {text:?}");
                assert!(fits_one_row(text.as_bytes(), width));
            }
        }
    }

    #[test]
    fn fast_path_agrees_with_decide() {
        // Every code point the fast path takes gets New(width) from decide()
        // after any previous cell of one character below its limit.
        let prevs = [
            "a",
            "\u{1f680}",
            "\u{1f3fd}",
            "\u{1f44d}",
            "\u{1f1eb}",
            "\u{1100}",
            "\u{ac00}",
            "e\u{301}",
            "\u{1f468}\u{1f3fd}",
            "\u{3164}",
        ];
        for rules in [Rules::V34, Rules::V36] {
            for cp in 0..0x20000u32 {
                let Some(width) = char_width(cp, rules) else {
                    continue;
                };
                let Some(limit) = new_cell_after(cp, width) else {
                    continue;
                };
                let mut data = Vec::new();
                push_code_point(&mut data, cp);
                let c = Char {
                    data: &data,
                    cp,
                    width,
                };
                for p in prevs {
                    if first_code_point(p.as_bytes()).is_none_or(|f| f >= limit) {
                        continue;
                    }
                    for pw in [1, 2] {
                        let prev = Some(Prev {
                            data: p.as_bytes(),
                            width: pw,
                        });
                        for vs16 in [false, true] {
                            assert_eq!(
                                decide(rules, prev, c, vs16),
                                Decision::New(width),
                                "{cp:#x} after {p:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn variation_selector() {
        // 60 × "❤️" (U+2764 U+FE0F) in 80 columns: one cell each up to 3.3,
        // two cells from 3.4.
        let hearts = "\u{2764}\u{fe0f}".repeat(60);
        assert_eq!(rows(&hearts, 80, Rules::V33), 1);
        assert_eq!(rows(&hearts, 80, Rules::V34), 2);
        assert_eq!(rows(&hearts, 80, Rules::V36), 2);
    }

    #[test]
    fn joiners_modifiers_and_flags() {
        // 👨‍👩‍👧 is one two-cell character from 3.4; 3.3 joins only the
        // character right after each ZWJ, which here is all of them.
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
        assert_eq!(rows(&family.repeat(10), 20, Rules::V34), 1);
        assert_eq!(rows(&family.repeat(10), 20, Rules::V33), 1);
        // 👍🏽: the skin tone joins from 3.4; on 3.3 it is its own cell.
        let thumbs = "\u{1f44d}\u{1f3fd}".repeat(10);
        assert_eq!(rows(&thumbs, 20, Rules::V34), 1);
        assert_eq!(rows(&thumbs, 20, Rules::V33), 2);
        // 🇫🇷: a pair of regional indicators, joined from 3.6.
        let flags = "\u{1f1eb}\u{1f1f7}".repeat(10);
        assert_eq!(rows(&flags, 20, Rules::V36), 1);
        // 3.4/3.5 give each indicator two cells and join the second too.
        assert_eq!(rows(&flags, 20, Rules::V34), 1);
    }

    #[test]
    fn widths() {
        assert_eq!(char_width(0x4e2d, Rules::V33), Some(2));
        assert_eq!(char_width(0x301, Rules::V33), Some(0));
        // Unassigned in glibc 2.36: dropped on 3.3, one cell later.
        assert_eq!(char_width(0x1fae8, Rules::V33), None);
        assert_eq!(char_width(0x1fae8, Rules::V34), Some(1));
        assert_eq!(char_width(0x85, Rules::V36), Some(0));
        assert_eq!(char_width(0x1f1e6, Rules::V34), Some(2));
        assert_eq!(char_width(0x1f1e6, Rules::V36), Some(1));
        assert_eq!(char_width(0x261d, Rules::V33), Some(1));
        assert_eq!(char_width(0x261d, Rules::V36), Some(2));
        assert_eq!(glibc_width(0x110000), -1);
    }

    #[test]
    fn decisions() {
        let c = |s: &'static str, r: Rules| Char {
            data: s.as_bytes(),
            cp: s.chars().next().unwrap() as u32,
            width: char_width(s.chars().next().unwrap() as u32, r).unwrap(),
        };
        let prev = |s: &'static str, w: u8| {
            Some(Prev {
                data: s.as_bytes(),
                width: w,
            })
        };
        // VS16 after an ASCII letter: widened from 3.4.
        assert_eq!(
            decide(Rules::V34, prev("a", 1), c("\u{fe0f}", Rules::V34), true),
            Decision::JoinWiden
        );
        assert_eq!(
            decide(Rules::V36, prev("a", 1), c("\u{fe0f}", Rules::V36), false),
            Decision::Join
        );
        // A regional indicator after a CJK character: joined on 3.4/3.5.
        assert_eq!(
            decide(Rules::V34, prev("中", 2), c("\u{1f1eb}", Rules::V34), true),
            Decision::Join
        );
        assert_eq!(
            decide(Rules::V36, prev("中", 2), c("\u{1f1eb}", Rules::V36), true),
            Decision::New(1)
        );
        // A zero-width character with nothing to join is dropped.
        assert_eq!(
            decide(Rules::V36, None, c("\u{301}", Rules::V36), true),
            Decision::Drop
        );
        // Too long: 3.4/3.5 give it a cell of its own, ≥ 3.6 drop it.
        let long = "e\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}";
        assert_eq!(
            decide(Rules::V34, prev(long, 1), c("\u{301}", Rules::V34), true),
            Decision::New(0)
        );
        assert_eq!(
            decide(Rules::V36, prev(long, 1), c("\u{301}", Rules::V36), true),
            Decision::Join
        );
        // Hangul filler is ignored from 3.6.
        assert_eq!(
            decide(Rules::V36, prev("a", 1), c("\u{3164}", Rules::V36), true),
            Decision::Drop
        );
    }

    #[test]
    fn code_points() {
        assert_eq!(first_code_point("é".as_bytes()), Some(0xe9));
        assert_eq!(first_code_point(&[0xe0, 0x80, 0x80]), None);
        assert_eq!(first_code_point(&[0xed, 0xa0, 0x80]), None);
        assert_eq!(first_code_point(&[0xf4, 0x90, 0x80, 0x80]), Some(0x110000));
        let mut out = Vec::new();
        push_code_point(&mut out, 0x110000);
        assert_eq!(out, [0xf4, 0x90, 0x80, 0x80]);
        assert_eq!(code_point_len(0x110000), 4);
    }

    #[test]
    fn rules_by_version() {
        let v = |s: &str| Rules::for_version(&TmuxVersion::parse(s));
        assert_eq!(v("3.2a"), Rules::V33);
        assert_eq!(v("3.3a"), Rules::V33);
        assert_eq!(v("3.4"), Rules::V34);
        assert_eq!(v("3.5a"), Rules::V34);
        assert_eq!(v("3.6a"), Rules::V36);
        assert_eq!(v("3.8"), Rules::V36);
        assert_eq!(v("next-3.8"), Rules::V36);
    }
}
