//! Records of tmux format queries, declared once by field name.
//!
//! A query asks tmux for many format variables of each object at once
//! ([`crate::control::format::Query`]), and its answer is read back field
//! by field. [`record!`](crate::record) declares the struct, the variables
//! it is read from and the parser together, so a field is named in one
//! place and never read by its position:
//!
//! ```
//! tmuxwire::record! {
//!     /// A pane, as `list-panes` prints it.
//!     pub struct PaneRow {
//!         /// `%N`.
//!         pub pane_id: String = "pane_id",
//!         /// Width in cells.
//!         pub width: u32 = "pane_width",
//!         /// Whether it is the window's active pane.
//!         pub active: bool = "pane_active",
//!     }
//! }
//! assert_eq!(PaneRow::FIELDS, ["pane_id", "pane_width", "pane_active"]);
//! let r = tmuxwire::control::format::Record(vec!["%3".into(), "80".into(), "1".into()]);
//! let p = PaneRow::from_record(&r);
//! assert_eq!((p.pane_id.as_str(), p.width, p.active), ("%3", 80, true));
//! ```
//!
//! Values are read as [`FromField`] says for each type: text as tmux
//! printed it (unescaped), numbers that do not parse as 0 (or `None` for
//! an `Option`), flags as tmux's `1`.

/// How one field of a record is read from the text tmux printed for it.
pub trait FromField: Sized {
    /// The value of `text` (never fails: a value tmux did not print as
    /// expected reads as the type's empty value).
    fn from_field(text: &str) -> Self;
}

impl FromField for String {
    fn from_field(text: &str) -> String {
        text.to_string()
    }
}

/// A number: blanks around it ignored, 0 when it is none.
macro_rules! number_field {
    ($($t:ty),*) => {$(
        impl FromField for $t {
            fn from_field(text: &str) -> $t {
                text.trim().parse().unwrap_or(0)
            }
        }
    )*};
}

number_field!(i64, u64, u32, usize);

impl FromField for Option<i64> {
    fn from_field(text: &str) -> Option<i64> {
        text.trim().parse().ok()
    }
}

impl FromField for Option<u32> {
    fn from_field(text: &str) -> Option<u32> {
        text.trim().parse().ok()
    }
}

/// A flag: tmux prints `1` for true.
impl FromField for bool {
    fn from_field(text: &str) -> bool {
        text == "1"
    }
}

/// A flag this tmux may not know: empty is `None`.
impl FromField for Option<bool> {
    fn from_field(text: &str) -> Option<bool> {
        match text {
            "" => None,
            s => Some(s == "1"),
        }
    }
}

/// Text that may be absent: empty is `None`.
impl FromField for Option<String> {
    fn from_field(text: &str) -> Option<String> {
        (!text.is_empty()).then(|| text.to_string())
    }
}

/// Declares a record type of a tmux format query, by field name: the
/// struct, `FIELDS` (the format variables in record order, for
/// [`crate::control::format::Query::new`]) and `from_record` (each field
/// read by [`FromField`]). See the [module docs](crate::control::record).
///
/// A field is read from its variable (`= "pane_id"`), from the next
/// variables by a nested record type in its place (`= ..`: a flattened
/// group such as a pane's geometry), or not at all (no `=`: its type's
/// default, for the caller to fill). A type whose own `from_record` takes
/// more than a record gives the generated reader another name, after the
/// struct (`read_as read_fields;`).
#[macro_export]
macro_rules! record {
    (@vars $ty:ty, ..) => { <$ty>::FIELDS };
    (@vars $ty:ty, $var:literal) => { &[$var] };
    (@vars $ty:ty) => { &[] };
    (@read $r:ident, $i:ident, $ty:ty, ..) => {{
        let v = <$ty>::from_record_at($r, $i);
        $i += <$ty>::FIELDS.len();
        v
    }};
    (@read $r:ident, $i:ident, $ty:ty, $var:literal) => {{
        let v = <$ty as $crate::control::record::FromField>::from_field($r.str($i));
        $i += 1;
        v
    }};
    (@read $r:ident, $i:ident, $ty:ty) => {
        <$ty as ::core::default::Default>::default()
    };
    (@reader [$default:ident]) => {
        $crate::record!(@reader [$default] [$default]);
    };
    (@reader [$default:ident] [$reader:ident]) => {
        /// Reads one from a record of [`Self::FIELDS`].
        #[allow(dead_code)]
        pub fn $reader(r: &$crate::control::format::Record) -> Self {
            Self::from_record_at(r, 0)
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $fvis:vis $field:ident : $ty:ty $(= $src:tt)?
            ),* $(,)?
        }
        $(read_as $reader:ident;)?
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }

        impl $name {
            /// The format variables this record is read from, in order.
            pub const FIELDS: &'static [&'static str] = {
                const PARTS: &[&[&str]] = &[$($crate::record!(@vars $ty $(, $src)?)),*];
                const N: usize = $crate::control::record::fields_len(PARTS);
                const OUT: [&str; N] = $crate::control::record::fields_concat(PARTS);
                &OUT
            };

            $crate::record!(@reader [from_record] $([$reader])?);

            /// Reads one from a record whose fields `at..` are
            /// [`Self::FIELDS`] (a record of several record types' fields
            /// in a row, as [`concat_fields!`](crate::concat_fields) lists
            /// them).
            #[allow(unused_assignments, unused_mut, unused_variables, dead_code)]
            pub fn from_record_at(r: &$crate::control::format::Record, at: usize) -> Self {
                let mut i = at;
                $name {
                    $( $field: $crate::record!(@read r, i, $ty $(, $src)?), )*
                }
            }
        }
    };
}

/// How many variables `parts` hold together (for [`record!`](crate::record)).
#[doc(hidden)]
pub const fn fields_len(parts: &[&[&str]]) -> usize {
    let mut n = 0;
    let mut p = 0;
    while p < parts.len() {
        n += parts[p].len();
        p += 1;
    }
    n
}

/// `parts` in a row, as one array of `N` ([`fields_len`]) variables (for
/// [`record!`](crate::record)).
#[doc(hidden)]
pub const fn fields_concat<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut at = 0;
    let mut p = 0;
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[at] = parts[p][i];
            at += 1;
            i += 1;
        }
        p += 1;
    }
    out
}

/// The `FIELDS` of several record types in a row, as a constant array:
/// `&concat_fields!(PaneRow, Geometry)` is a query whose record the first
/// type reads with `from_record` and the next with `from_record_at(r,
/// PaneRow::FIELDS.len())`.
#[macro_export]
macro_rules! concat_fields {
    ($($t:ty),+ $(,)?) => {{
        const PARTS: &[&[&str]] = &[$(<$t>::FIELDS),+];
        const N: usize = $crate::control::record::fields_len(PARTS);
        const OUT: [&str; N] = $crate::control::record::fields_concat(PARTS);
        OUT
    }};
}

#[cfg(test)]
mod tests {
    use crate::control::format::Record;

    crate::record! {
        #[derive(Debug, PartialEq)]
        struct Row {
            id: String = "pane_id",
            width: u32 = "pane_width",
            pid: Option<i64> = "pane_pid",
            dead: bool = "pane_dead",
            marked: Option<bool> = "pane_marked",
            title: Option<String> = "pane_title",
        }
    }

    #[test]
    fn fields_by_name() {
        assert_eq!(
            Row::FIELDS,
            [
                "pane_id",
                "pane_width",
                "pane_pid",
                "pane_dead",
                "pane_marked",
                "pane_title"
            ]
        );
        let r = Row::from_record(&Record(
            ["%1", "80", "123", "1", "", "t"].map(String::from).to_vec(),
        ));
        assert_eq!(
            r,
            Row {
                id: "%1".into(),
                width: 80,
                pid: Some(123),
                dead: true,
                marked: None,
                title: Some("t".into()),
            }
        );
        assert_eq!(crate::concat_fields!(Row, Row).len(), 12);
        assert_eq!(
            Row::from_record_at(&Record(["x", "%1", "80"].map(String::from).to_vec()), 1).width,
            80
        );
        // Missing and malformed fields read as empty values.
        let r = Row::from_record(&Record(vec!["%2".into(), "x".into()]));
        assert_eq!(
            (r.width, r.pid, r.dead, r.marked, r.title),
            (0, None, false, None, None)
        );
    }
}
