//! Shaping a text's lines so a caller reads less: `grep` (with
//! `context`), then `head` and `tail`, the one implementation
//! `get_command_output`, `capture_pane` and `capture_since` share. Pure.
//!
//! The order is grep's then head's: `grep` keeps the lines that hold its
//! text (a plain, case-sensitive substring) and `context` lines on each
//! side of each (as `grep -C`, groups that touch merged); of those,
//! `head` keeps the first N and `tail` the last N (both: the two ends,
//! the middle left out; an end larger than what is left keeps it all).

use crate::tmux::Error;

/// Lines kept around each `grep` match at most.
pub const MAX_CONTEXT: usize = 100;

/// Which lines of a text to keep ([`Shape::keep`]); the default keeps
/// every line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Keep the first N lines (after `grep`).
    pub head: Option<usize>,
    /// Keep the last N lines (after `grep`).
    pub tail: Option<usize>,
    /// Keep only the lines holding this text (case-sensitive), with
    /// `context` lines around each; empty: every line.
    pub grep: Option<String>,
    /// Lines kept before and after each `grep` match (0 to
    /// [`MAX_CONTEXT`]).
    pub context: usize,
    /// Redaction is on (`--redact`): `grep` never matches inside a secret
    /// ([`crate::redact::find_in_lines`]), so grepping for a secret's text
    /// keeps nothing.
    pub redact: bool,
}

impl Shape {
    /// The shape a tool's arguments ask for.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument)
    /// naming `head` or `tail` when negative, `context` outside
    /// 0–[`MAX_CONTEXT`].
    pub fn from_args(
        head: Option<i64>,
        tail: Option<i64>,
        grep: Option<String>,
        context: Option<i64>,
    ) -> Result<Shape, Error> {
        let most = i64::try_from(MAX_CONTEXT).unwrap_or(i64::MAX);
        let context = match context {
            None => 0,
            Some(n) if (0..=most).contains(&n) => usize::try_from(n).unwrap_or(0),
            Some(n) => {
                return Err(Error::invalid(
                    "context",
                    format!("context must be between 0 and {MAX_CONTEXT} (received {n})"),
                    format!("context 0-{MAX_CONTEXT}"),
                ));
            }
        };
        let none_below = |arg: &'static str, v: Option<i64>| match v {
            Some(n) if n < 0 => Err(Error::invalid(
                arg,
                format!("{arg} must not be negative (received {n})"),
                format!("{arg} ≥ 0"),
            )),
            v => Ok(v.map(|n| usize::try_from(n).unwrap_or(usize::MAX))),
        };
        Ok(Shape {
            head: none_below("head", head)?,
            tail: none_below("tail", tail)?,
            grep: grep.filter(|g| !g.is_empty()),
            context,
            redact: false,
        })
    }

    /// Whether it can leave a line out (else every line is kept).
    pub fn is_active(&self) -> bool {
        self.head.is_some() || self.tail.is_some() || self.grep.is_some()
    }

    /// The indexes of the lines of `lines` it keeps, ascending.
    pub fn keep<S: AsRef<str>>(&self, lines: &[S]) -> Vec<usize> {
        let mut kept: Vec<usize> = match self.grep.as_deref().filter(|g| !g.is_empty()) {
            None => (0..lines.len()).collect(),
            Some(g) => {
                let hit = self.hits(lines, g);
                let mut keep = vec![false; lines.len()];
                for (i, _) in hit.iter().enumerate().filter(|(_, h)| **h) {
                    let lo = i.saturating_sub(self.context);
                    let hi = i.saturating_add(self.context).min(lines.len() - 1);
                    keep[lo..=hi].iter_mut().for_each(|k| *k = true);
                }
                (0..lines.len()).filter(|i| keep[*i]).collect()
            }
        };
        match (self.head, self.tail) {
            (Some(h), Some(t)) if h.saturating_add(t) < kept.len() => {
                kept.drain(h..kept.len() - t);
            }
            (Some(h), None) => kept.truncate(h),
            (None, Some(t)) if t < kept.len() => {
                kept.drain(..kept.len() - t);
            }
            _ => {}
        }
        kept
    }

    /// Whether each of `lines` holds `g` (outside every secret when
    /// redaction is on).
    fn hits<S: AsRef<str>>(&self, lines: &[S], g: &str) -> Vec<bool> {
        if !self.redact {
            return lines.iter().map(|l| l.as_ref().contains(g)).collect();
        }
        let texts: Vec<&str> = lines.iter().map(AsRef::as_ref).collect();
        texts
            .iter()
            .zip(crate::redact::find_in_lines(&texts))
            .map(|(t, spans)| {
                crate::redact::clear_parts(t.len(), &spans)
                    .into_iter()
                    .any(|p| memchr::memmem::find(&t.as_bytes()[p], g.as_bytes()).is_some())
            })
            .collect()
    }

    /// Keeps in `items` only the lines it keeps (`text` gives each item's
    /// line); returns how many it left out.
    pub fn apply<T>(&self, items: &mut Vec<T>, text: impl Fn(&T) -> &str) -> usize {
        if !self.is_active() {
            return 0;
        }
        let lines: Vec<&str> = items.iter().map(&text).collect();
        let kept = self.keep(&lines);
        let before = items.len();
        retain_at(items, kept);
        before - items.len()
    }
}

/// Keeps in `items` only those at the indexes `kept` lists (ascending, as
/// [`Shape::keep`] returns them).
pub(super) fn retain_at<T>(items: &mut Vec<T>, kept: Vec<usize>) {
    let mut want = kept.into_iter().peekable();
    let mut i = 0;
    items.retain(|_| {
        let k = want.peek() == Some(&i);
        if k {
            want.next();
        }
        i += 1;
        k
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(
        head: Option<usize>,
        tail: Option<usize>,
        grep: Option<&str>,
        context: usize,
    ) -> Shape {
        Shape {
            head,
            tail,
            grep: grep.map(str::to_string),
            context,
            redact: false,
        }
    }

    #[test]
    fn a_redacting_grep_never_matches_inside_a_secret() {
        let lines = [
            "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmnopqr",
            "echo ghp_0123",
            "plain",
        ];
        let mut s = shape(None, None, Some("ghp_0123"), 0);
        assert_eq!(s.keep(&lines), vec![0, 1]);
        s.redact = true;
        assert_eq!(s.keep(&lines), vec![1]);
        s.grep = Some("GITHUB_TOKEN".into());
        assert_eq!(s.keep(&lines), vec![0]);
    }

    const TEXT: [&str; 10] = ["a", "b err", "c", "d", "e", "f", "g err", "h", "i", "j"];

    #[test]
    fn grep_then_head_and_tail() {
        assert_eq!(
            shape(None, None, None, 0).keep(&TEXT),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(shape(None, None, Some("err"), 0).keep(&TEXT), [1, 6]);
        assert_eq!(
            shape(None, None, Some("err"), 1).keep(&TEXT),
            [0, 1, 2, 5, 6, 7]
        );
        // Groups that touch are merged; context stops at the ends.
        assert_eq!(
            shape(None, None, Some("err"), 3).keep(&TEXT),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(shape(Some(2), None, None, 0).keep(&TEXT), [0, 1]);
        assert_eq!(shape(None, Some(2), None, 0).keep(&TEXT), [8, 9]);
        assert_eq!(shape(Some(1), Some(1), None, 0).keep(&TEXT), [0, 9]);
        assert_eq!(
            shape(Some(8), Some(8), None, 0).keep(&TEXT),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(shape(None, Some(2), Some("err"), 1).keep(&TEXT), [6, 7]);
        assert_eq!(
            shape(Some(0), None, None, 0).keep(&TEXT),
            Vec::<usize>::new()
        );
        assert_eq!(
            shape(None, None, Some("nothing"), 5).keep(&TEXT),
            Vec::<usize>::new()
        );
        let empty: [&str; 0] = [];
        assert_eq!(
            shape(None, Some(3), Some("x"), 2).keep(&empty),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn apply_keeps_items_in_order() {
        let mut items: Vec<(i64, String)> = TEXT
            .iter()
            .enumerate()
            .map(|(i, t)| (i as i64, t.to_string()))
            .collect();
        let out = shape(None, None, Some("err"), 1).apply(&mut items, |x| &x.1);
        assert_eq!(out, 4);
        assert_eq!(
            items.iter().map(|x| x.0).collect::<Vec<_>>(),
            [0, 1, 2, 5, 6, 7]
        );
        assert_eq!(Shape::default().apply(&mut items, |x| &x.1), 0);
    }

    #[test]
    fn arguments() {
        let s = Shape::from_args(Some(2), None, Some(String::new()), Some(3)).unwrap();
        assert_eq!(s, shape(Some(2), None, None, 3));
        assert!(
            !Shape::from_args(None, None, Some(String::new()), None)
                .unwrap()
                .is_active()
        );
        for (h, t, c, arg) in [
            (Some(-1), None, None, "head"),
            (None, Some(-2), None, "tail"),
            (None, None, Some(101), "context"),
            (None, None, Some(-1), "context"),
        ] {
            let e = Shape::from_args(h, t, None, c).unwrap_err().to_string();
            assert!(e.contains(arg) && e.contains("received"), "{e}");
        }
    }
}
