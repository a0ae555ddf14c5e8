//! Screen cells: 8 bytes each, with side tables for what does not fit.
//!
//! A [`Cell`] holds one code point (or an index into [`Combined`] for a
//! cell that several characters joined), its width in columns, flags and
//! a style index into [`Styles`]. This mirrors tmux's `grid_cell_entry`
//! plus `grid_extd_entry` (grid.c), reduced to what decides text: tmux's
//! colours and attributes matter only where it compares cells
//! (`grid_cells_look_equal()`, for TAB cells on ≥ 3.6) and where it tests
//! the background colour of an erase (`COLOUR_DEFAULT(bg)`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::width::{code_point_len, push_code_point};

/// The cell is the second (or later) column of a wide character
/// (`GRID_FLAG_PADDING`).
pub(crate) const PADDING: u8 = 0x01;
/// The cell is a TAB (`GRID_FLAG_TAB`, ≥ 3.6): `width` columns, printed
/// as `\t`.
pub(crate) const TAB: u8 = 0x02;
/// The code point was written while the DEC special graphics set was
/// active (`GRID_ATTR_CHARSET`): tmux stores the ASCII letter.
pub(crate) const ACS: u8 = 0x04;
/// `code` indexes [`Combined`].
pub(crate) const COMBINED: u8 = 0x08;
/// The cell was cleared (`GRID_FLAG_CLEARED`); compared cells ignore it.
pub(crate) const CLEARED: u8 = 0x10;

/// One screen cell, packed in a `u64` so that writing one is a single
/// store: the code point (or an index into [`Combined`] with
/// [`COMBINED`]) in the low 32 bits, then the width in columns (8 bits:
/// 1 or 2 for characters, 0 on 3.4/3.5 for a lone zero-width character,
/// up to 32 for a TAB cell, 0 for padding), the flags ([`PADDING`],
/// [`TAB`], [`ACS`], [`COMBINED`], [`CLEARED`]; 8 bits) and the index into
/// [`Styles`] (16 bits; 0 is the default style).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cell(u64);

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cell")
            .field("code", &self.code())
            .field("width", &self.width())
            .field("flags", &self.flags())
            .field("style", &self.style())
            .finish()
    }
}

impl Cell {
    #[inline]
    pub(crate) const fn new(code: u32, width: u8, flags: u8, style: u16) -> Cell {
        Cell(code as u64 | (width as u64) << 32 | (flags as u64) << 40 | (style as u64) << 48)
    }

    /// The code point, or an index into [`Combined`] with [`COMBINED`].
    #[inline]
    pub(crate) const fn code(self) -> u32 {
        self.0 as u32
    }

    /// The width in columns.
    #[inline]
    pub(crate) const fn width(self) -> u8 {
        (self.0 >> 32) as u8
    }

    #[inline]
    pub(crate) const fn flags(self) -> u8 {
        (self.0 >> 40) as u8
    }

    /// The index into [`Styles`].
    #[inline]
    pub(crate) const fn style(self) -> u16 {
        (self.0 >> 48) as u16
    }

    pub(crate) const fn with_code(self, code: u32) -> Cell {
        Cell::new(code, self.width(), self.flags(), self.style())
    }

    pub(crate) const fn with_width(self, width: u8) -> Cell {
        Cell::new(self.code(), width, self.flags(), self.style())
    }

    pub(crate) const fn with_flags(self, flags: u8) -> Cell {
        Cell::new(self.code(), self.width(), flags, self.style())
    }

    pub(crate) const fn with_style(self, style: u16) -> Cell {
        Cell::new(self.code(), self.width(), self.flags(), style)
    }

    /// A cleared cell with style `style` (`grid_cleared_cell`).
    pub(crate) const fn cleared(style: u16) -> Cell {
        Cell::new(b' ' as u32, 1, CLEARED, style)
    }

    /// A blank cell as tmux reads one past the end of a line
    /// (`grid_default_cell`).
    pub(crate) const BLANK: Cell = Cell::new(b' ' as u32, 1, 0, 0);

    /// A padding cell (`grid_padding_cell`) keeping `style`'s background.
    pub(crate) const fn padding(style: u16) -> Cell {
        Cell::new(0, 0, PADDING, style)
    }

    /// A printable ASCII character.
    #[inline]
    pub(crate) const fn ascii(b: u8, style: u16) -> Cell {
        Cell::new(b as u32, 1, 0, style)
    }

    pub(crate) fn is_padding(self) -> bool {
        self.flags() & PADDING != 0
    }

    pub(crate) fn is_tab(self) -> bool {
        self.flags() & TAB != 0
    }

    /// The number of bytes tmux stores for this cell (`data.size`).
    pub(crate) fn size(self, combined: &Combined) -> usize {
        if self.flags() & PADDING != 0 {
            0
        } else if self.flags() & TAB != 0 {
            usize::from(self.width())
        } else if self.flags() & COMBINED != 0 {
            combined.get(self.code()).len()
        } else {
            code_point_len(self.code())
        }
    }

    /// Appends the bytes tmux stores for this cell (`data.data`): a TAB
    /// cell holds one space per column, padding holds nothing.
    pub(crate) fn push_data(self, combined: &Combined, out: &mut Vec<u8>) {
        if self.flags() & PADDING != 0 {
        } else if self.flags() & TAB != 0 {
            out.extend(std::iter::repeat_n(b' ', usize::from(self.width())));
        } else if self.flags() & COMBINED != 0 {
            out.extend_from_slice(combined.get(self.code()));
        } else {
            push_code_point(out, self.code());
        }
    }

    /// Writes the bytes [`Cell::push_data`] appends into `buf` (cut at its
    /// size; a cell never holds more than 32 bytes) and returns their
    /// count.
    pub(crate) fn write_data(self, combined: &Combined, buf: &mut [u8; 64]) -> usize {
        if self.flags() & PADDING != 0 {
            0
        } else if self.flags() & TAB != 0 {
            let n = usize::from(self.width()).min(buf.len());
            buf[..n].fill(b' ');
            n
        } else if self.flags() & COMBINED != 0 {
            let d = combined.get(self.code());
            let n = d.len().min(buf.len());
            buf[..n].copy_from_slice(&d[..n]);
            n
        } else {
            match char::from_u32(self.code()) {
                Some(c) => c.encode_utf8(&mut buf[..]).len(),
                None => {
                    let mut v = Vec::with_capacity(4);
                    push_code_point(&mut v, self.code());
                    buf[..v.len()].copy_from_slice(&v);
                    v.len()
                }
            }
        }
    }

    /// Whether tmux would call this cell "a single space" for the TAB
    /// rule: `data.size == 1 && data[0] == ' '`.
    pub(crate) fn is_space(self) -> bool {
        self.flags() & (PADDING | COMBINED) == 0
            && (self.code() == u32::from(b' ') || (self.flags() & TAB != 0 && self.width() == 1))
    }
}

/// The DEC special graphics character for an ASCII letter, as tmux draws
/// it on a UTF-8 terminal (tty-acs.c), or `None` if the letter has no
/// line-drawing form.
pub(crate) fn acs_char(b: u32) -> Option<char> {
    Some(match char::from_u32(b)? {
        '+' => '→',
        ',' => '←',
        '-' => '↑',
        '.' => '↓',
        '0' => '▮',
        '`' => '◆',
        'a' => '▒',
        'b' => '␉',
        'c' => '␌',
        'd' => '␍',
        'e' => '␊',
        'f' => '°',
        'g' => '±',
        'h' => '␤',
        'i' => '␋',
        'j' => '┘',
        'k' => '┐',
        'l' => '┌',
        'm' => '└',
        'n' => '┼',
        'o' => '⎺',
        'p' => '⎻',
        'q' => '─',
        'r' => '⎼',
        's' => '⎽',
        't' => '├',
        'u' => '┤',
        'v' => '┴',
        'w' => '┬',
        'x' => '│',
        'y' => '≤',
        'z' => '≥',
        '{' => 'π',
        '|' => '≠',
        '}' => '£',
        '~' => '·',
        _ => return None,
    })
}

/// A small, fast hasher for the interning tables (FxHash's mixing step):
/// their keys are short and not attacker-chosen in a way that matters (a
/// collision only slows a lookup).
#[derive(Default)]
pub(crate) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut v = [0u8; 8];
            v[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(v));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    fn write_u16(&mut self, v: u16) {
        self.write_u64(u64::from(v));
    }

    fn write_u8(&mut self, v: u8) {
        self.write_u64(u64::from(v));
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// The text of cells that several characters joined, interned.
///
/// Grows with the number of distinct joined cells written; [`Combined::gc`]
/// rebuilds it from the cells still on screen when it gets large.
#[derive(Clone, Debug, Default)]
pub(crate) struct Combined {
    data: Vec<Box<[u8]>>,
    index: FxMap<Box<[u8]>, u32>,
}

impl Combined {
    /// The bytes of entry `i` (empty for an unknown index).
    pub(crate) fn get(&self, i: u32) -> &[u8] {
        self.data.get(i as usize).map_or(&[], |d| d)
    }

    /// The index of `bytes`, adding them if new.
    pub(crate) fn intern(&mut self, bytes: &[u8]) -> u32 {
        if let Some(&i) = self.index.get(bytes) {
            return i;
        }
        let i = self.data.len() as u32;
        let b: Box<[u8]> = bytes.into();
        self.data.push(b.clone());
        self.index.insert(b, i);
        i
    }

    pub(crate) fn len(&self) -> usize {
        self.data.len()
    }

    /// Rebuilds the table keeping only entries `keep` still reaches, and
    /// returns the old→new index map for the caller to rewrite its cells.
    pub(crate) fn gc(&mut self, live: impl Iterator<Item = u32>) -> HashMap<u32, u32> {
        let mut map = HashMap::new();
        let old = std::mem::take(self);
        for i in live {
            if let std::collections::hash_map::Entry::Vacant(e) = map.entry(i) {
                e.insert(self.intern(old.get(i)));
            }
        }
        map
    }
}

/// A colour as tmux stores it: 0–7 and 90–97 the ANSI colours, 8 (or 9)
/// the default, `0x0100_0000 | n` a 256-colour index, `0x0200_0000 | rgb`.
pub(crate) type Colour = u32;

/// `COLOUR_DEFAULT()`.
pub(crate) fn colour_default(c: Colour) -> bool {
    c == 8 || c == 9
}

/// Everything `grid_cells_look_equal()` compares besides the flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Style {
    pub fg: Colour,
    pub bg: Colour,
    /// tmux's `GRID_ATTR_*` bits, except `GRID_ATTR_CHARSET`.
    pub attr: u16,
    /// Underline colour (`us`); 8 is the default.
    pub us: Colour,
    /// Hyperlink: 0 for none, else an id for the link's URI and id.
    pub link: u32,
}

impl Style {
    pub(crate) const DEFAULT: Style = Style {
        fg: 8,
        bg: 8,
        attr: 0,
        us: 8,
        link: 0,
    };

    /// The style of a cleared cell: default except the background.
    pub(crate) fn cleared(bg: Colour) -> Style {
        Style {
            bg,
            ..Style::DEFAULT
        }
    }
}

/// Interned styles; index 0 is [`Style::DEFAULT`].
#[derive(Clone, Debug)]
pub(crate) struct Styles {
    list: Vec<Style>,
    index: FxMap<Style, u16>,
    /// A direct-mapped cache in front of `index` (output switches between
    /// a few styles, and SGR changes the pen often).
    cache: Box<[(Style, u16); CACHE]>,
}

const CACHE: usize = 64;

impl Default for Styles {
    fn default() -> Styles {
        let mut s = Styles {
            list: Vec::new(),
            index: FxMap::default(),
            cache: Box::new([(Style::DEFAULT, 0); CACHE]),
        };
        s.list.push(Style::DEFAULT);
        s.index.insert(Style::DEFAULT, 0);
        s
    }
}

impl Styles {
    pub(crate) fn get(&self, i: u16) -> Style {
        self.list
            .get(usize::from(i))
            .copied()
            .unwrap_or(Style::DEFAULT)
    }

    /// The index of `s`, or `None` when the table is full (the caller
    /// collects garbage and retries).
    pub(crate) fn intern(&mut self, s: Style) -> Option<u16> {
        if s == Style::DEFAULT {
            return Some(0);
        }
        let h = s.fg.wrapping_mul(0x9e37_79b9)
            ^ s.bg.wrapping_mul(0x85eb_ca6b).rotate_left(7)
            ^ u32::from(s.attr).wrapping_mul(0xc2b2_ae35)
            ^ s.us.rotate_left(13)
            ^ s.link.wrapping_mul(0x27d4_eb2f);
        // Two ways: the entry at `slot` and its neighbour; a miss moves
        // the first to the second.
        let slot = ((h >> 26) as usize % CACHE) & !1;
        for way in [slot, slot + 1] {
            if self.cache[way].0 == s {
                return Some(self.cache[way].1);
            }
        }
        let i = self.intern_slow(s)?;
        self.cache[slot + 1] = self.cache[slot];
        self.cache[slot] = (s, i);
        Some(i)
    }

    fn intern_slow(&mut self, s: Style) -> Option<u16> {
        if let Some(&i) = self.index.get(&s) {
            return Some(i);
        }
        let i = u16::try_from(self.list.len()).ok()?;
        self.list.push(s);
        self.index.insert(s, i);
        Some(i)
    }

    /// Keeps only the styles `live` reaches (and the default); returns the
    /// old→new map.
    pub(crate) fn gc(&mut self, live: impl Iterator<Item = u16>) -> HashMap<u16, u16> {
        let old = std::mem::take(self);
        let mut map = HashMap::new();
        map.insert(0, 0);
        for i in live {
            if let std::collections::hash_map::Entry::Vacant(e) = map.entry(i) {
                // Cannot fail: at most as many live styles as before.
                e.insert(self.intern(old.get(i)).unwrap_or(0));
            }
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_data() {
        let c = Combined::default();
        let mut out = Vec::new();
        Cell::ascii(b'a', 0).push_data(&c, &mut out);
        Cell::new(0x4e2d, 2, 0, 0).push_data(&c, &mut out);
        Cell::new(0, 3, TAB, 0).push_data(&c, &mut out);
        Cell::padding(0).push_data(&c, &mut out);
        assert_eq!(out, "a中   ".as_bytes());
        assert!(Cell::BLANK.is_space());
        assert!(Cell::cleared(3).is_space());
        assert!(!Cell::padding(0).is_space());
        assert_eq!(Cell::new(0, 3, TAB, 0).size(&c), 3);
    }

    #[test]
    fn interning() {
        let mut c = Combined::default();
        let a = c.intern(b"e\xcc\x81");
        let b = c.intern(b"x\xcc\x81");
        assert_eq!(c.intern(b"e\xcc\x81"), a);
        let map = c.gc([b].into_iter());
        assert_eq!(c.len(), 1);
        assert_eq!(c.get(map[&b]), b"x\xcc\x81");

        let mut s = Styles::default();
        let red = Style {
            fg: 1,
            ..Style::DEFAULT
        };
        let i = s.intern(red).unwrap();
        assert_eq!(s.intern(red), Some(i));
        assert_eq!(s.get(i), red);
        assert_eq!(s.get(0), Style::DEFAULT);
    }

    #[test]
    fn acs() {
        assert_eq!(acs_char(u32::from(b'q')), Some('─'));
        assert_eq!(acs_char(u32::from(b'A')), None);
    }
}
