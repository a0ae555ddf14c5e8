//! Masking secrets in terminal text before it leaves tmuxwire (pure, no
//! I/O): what `tmuxwire mcp --redact` (`TMUXWIRE_REDACT=1`) applies to
//! every text a tool returns, and the CLI to what it prints.
//!
//! # Brief overview
//!
//! A secret is a byte range of a text and a [`Kind`]; [`find`] gives them
//! for a text of any number of `\n`-separated lines, and [`redact`]
//! replaces each with its kind's marker, `[REDACTED:github-token]`,
//! counting them ([`Counts`]). Nothing else changes: line breaks, and the
//! text around a secret (`password=[REDACTED:password]` keeps the name,
//! a URL keeps its user and host), so line numbers and the shape of a
//! capture stay as tmux gave them.
//!
//! * One-line rules (`rules`): provider tokens by their prefix, alphabet
//!   and length (AWS `AKIA…`, GitHub `ghp_…`, Slack `xoxb-…`, Stripe
//!   `sk_live_…`, Google `AIza…`, OpenAI and Anthropic `sk-…`, npm, PyPI,
//!   …), JSON Web Tokens, private keys written on one line, and values
//!   given to password-, secret-, token- or key-like names (quoted or
//!   bare, `export X=…`, JSON, YAML), a URL's password, `Bearer` and
//!   `Basic` credentials. One multi-pattern `regex_automata` regex,
//!   compiled once.
//! * Private key blocks over several lines (`blocks`): the body lines
//!   between `-----BEGIN … PRIVATE KEY-----` and `-----END …-----`; a block
//!   whose end is not in the text (cut at the bottom of a capture) to the
//!   last body line; one whose beginning is not (cut at the top) from the
//!   first of the body lines just above its end; and a run of three or
//!   more full-width body lines with neither (PEM's 64 or OpenSSH's 70
//!   base64 characters, mixed case). [`LineRedactor`] does the same a line
//!   at a time, for text printed as it arrives.
//! * JSON (`json`): every string of a tool's result, with an array of
//!   strings, or the text of an array of `{line, text}` objects, read as
//!   consecutive lines (a block spans them) and an object's member named
//!   like a password or token masked whole (`{"DB_PASSWORD": "…"}`).
//!
//! The rule set is listed in `docs/redaction.md`; its corpus of secrets
//! and near misses is `tests/data/redact/`.
//!
//! Nothing here panics on any input; time is linear in the text.
//!
//! # Example
//!
//! ```
//! use tmuxwire::redact::{Kind, redact};
//!
//! let (text, counts) = redact("export GH=ghp_0123456789abcdefghijABCDEFGHIJklmnopqr");
//! assert_eq!(text, "export GH=[REDACTED:github-token]");
//! assert_eq!(counts.get(Kind::GithubToken), 1);
//! let (same, none) = redact("tokenizer = load()");
//! assert_eq!((same.as_ref(), none.total()), ("tokenizer = load()", 0));
//! ```

#![deny(missing_docs)]

mod blocks;
mod json;
mod rules;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::ops::Range;

pub use blocks::{LineRedactor, MAX_HELD_LINES, key_lines};
pub use json::redact_value;

use regex_automata::{Anchored, Input};
use rules::{Check, RULES};

/// What kind of secret a [`Span`] holds; its [`Kind::name`] is what the
/// marker says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// A private key's body (PEM, OpenSSH, PGP, PKCS#8, encrypted or not).
    PrivateKey,
    /// An AWS access key id (`AKIA…`, `ASIA…`).
    AwsAccessKeyId,
    /// An AWS secret access key (given to an `aws…secret…` name).
    AwsSecretAccessKey,
    /// A GitHub token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`,
    /// `github_pat_`).
    GithubToken,
    /// A GitLab token (`glpat-`, `glptt-`, `glrt-`, … and runner
    /// registration tokens).
    GitlabToken,
    /// A Slack token (`xoxb-`, `xoxp-`, `xapp-`, …).
    SlackToken,
    /// A Slack webhook's secret path.
    SlackWebhook,
    /// A Stripe secret or restricted key, or webhook secret.
    StripeKey,
    /// A Google API key (`AIza…`).
    GoogleApiKey,
    /// A Google OAuth client secret (`GOCSPX-`) or access token (`ya29.`).
    GoogleOauth,
    /// An Anthropic API key (`sk-ant-…`).
    AnthropicKey,
    /// An OpenAI API key (`sk-proj-…`, `sk-…T3BlbkFJ…`).
    OpenaiKey,
    /// Another `sk-…` API key of 32 or more characters.
    ApiKey,
    /// An npm access token (`npm_`).
    NpmToken,
    /// A PyPI upload token (`pypi-AgE…`).
    PypiToken,
    /// A Twilio API key SID (`SK` + 32 hex).
    TwilioKey,
    /// A SendGrid API key (`SG.….…`).
    SendgridKey,
    /// A Mailchimp API key (`…-usN`).
    MailchimpKey,
    /// A Mailgun API key (`key-…`).
    MailgunKey,
    /// A Hugging Face token (`hf_`).
    HuggingfaceToken,
    /// A DigitalOcean token (`dop_v1_`, `doo_v1_`, `dor_v1_`).
    DigitaloceanToken,
    /// A Shopify token (`shpat_`, …).
    ShopifyToken,
    /// A HashiCorp Vault token (`hvs.`, `hvb.`).
    VaultToken,
    /// An age secret key (`AGE-SECRET-KEY-1…`).
    AgeSecretKey,
    /// A Databricks token (`dapi…`).
    DatabricksToken,
    /// A Telegram bot token (`123456789:AA…`).
    TelegramBotToken,
    /// A Doppler token (`dp.pt.…`).
    DopplerToken,
    /// A Linear API key (`lin_api_`).
    LinearKey,
    /// A Postman API key (`PMAK-`).
    PostmanKey,
    /// A Grafana token (`glsa_`, `glc_`).
    GrafanaToken,
    /// A 1Password service account token (`ops_eyJ…`).
    OnepasswordToken,
    /// A Heroku API key (`HRKU-AA…`).
    HerokuKey,
    /// An Atlassian API token (`ATATT3…`).
    AtlassianToken,
    /// A JSON Web Token (`eyJ….eyJ….…`).
    Jwt,
    /// The password of a URL (`scheme://user:PASSWORD@host`).
    UrlPassword,
    /// `Authorization: Basic` credentials.
    BasicAuth,
    /// A `Bearer` token.
    BearerToken,
    /// A value given to a password-like name.
    Password,
    /// A value given to a secret-, token- or key-like name.
    Secret,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 39] = [
        Kind::PrivateKey,
        Kind::AwsAccessKeyId,
        Kind::AwsSecretAccessKey,
        Kind::GithubToken,
        Kind::GitlabToken,
        Kind::SlackToken,
        Kind::SlackWebhook,
        Kind::StripeKey,
        Kind::GoogleApiKey,
        Kind::GoogleOauth,
        Kind::AnthropicKey,
        Kind::OpenaiKey,
        Kind::ApiKey,
        Kind::NpmToken,
        Kind::PypiToken,
        Kind::TwilioKey,
        Kind::SendgridKey,
        Kind::MailchimpKey,
        Kind::MailgunKey,
        Kind::HuggingfaceToken,
        Kind::DigitaloceanToken,
        Kind::ShopifyToken,
        Kind::VaultToken,
        Kind::AgeSecretKey,
        Kind::DatabricksToken,
        Kind::TelegramBotToken,
        Kind::DopplerToken,
        Kind::LinearKey,
        Kind::PostmanKey,
        Kind::GrafanaToken,
        Kind::OnepasswordToken,
        Kind::HerokuKey,
        Kind::AtlassianToken,
        Kind::Jwt,
        Kind::UrlPassword,
        Kind::BasicAuth,
        Kind::BearerToken,
        Kind::Password,
        Kind::Secret,
    ];

    /// The kind's name, as the marker says it: `github-token`.
    pub fn name(self) -> &'static str {
        self.marker()
            .strip_prefix("[REDACTED:")
            .and_then(|m| m.strip_suffix(']'))
            .unwrap_or("secret")
    }

    /// What replaces a secret of this kind: `[REDACTED:github-token]`.
    pub fn marker(self) -> &'static str {
        match self {
            Kind::PrivateKey => "[REDACTED:private-key]",
            Kind::AwsAccessKeyId => "[REDACTED:aws-access-key-id]",
            Kind::AwsSecretAccessKey => "[REDACTED:aws-secret-access-key]",
            Kind::GithubToken => "[REDACTED:github-token]",
            Kind::GitlabToken => "[REDACTED:gitlab-token]",
            Kind::SlackToken => "[REDACTED:slack-token]",
            Kind::SlackWebhook => "[REDACTED:slack-webhook]",
            Kind::StripeKey => "[REDACTED:stripe-key]",
            Kind::GoogleApiKey => "[REDACTED:google-api-key]",
            Kind::GoogleOauth => "[REDACTED:google-oauth]",
            Kind::AnthropicKey => "[REDACTED:anthropic-key]",
            Kind::OpenaiKey => "[REDACTED:openai-key]",
            Kind::ApiKey => "[REDACTED:api-key]",
            Kind::NpmToken => "[REDACTED:npm-token]",
            Kind::PypiToken => "[REDACTED:pypi-token]",
            Kind::TwilioKey => "[REDACTED:twilio-key]",
            Kind::SendgridKey => "[REDACTED:sendgrid-key]",
            Kind::MailchimpKey => "[REDACTED:mailchimp-key]",
            Kind::MailgunKey => "[REDACTED:mailgun-key]",
            Kind::HuggingfaceToken => "[REDACTED:huggingface-token]",
            Kind::DigitaloceanToken => "[REDACTED:digitalocean-token]",
            Kind::ShopifyToken => "[REDACTED:shopify-token]",
            Kind::VaultToken => "[REDACTED:vault-token]",
            Kind::AgeSecretKey => "[REDACTED:age-secret-key]",
            Kind::DatabricksToken => "[REDACTED:databricks-token]",
            Kind::TelegramBotToken => "[REDACTED:telegram-bot-token]",
            Kind::DopplerToken => "[REDACTED:doppler-token]",
            Kind::LinearKey => "[REDACTED:linear-key]",
            Kind::PostmanKey => "[REDACTED:postman-key]",
            Kind::GrafanaToken => "[REDACTED:grafana-token]",
            Kind::OnepasswordToken => "[REDACTED:1password-token]",
            Kind::HerokuKey => "[REDACTED:heroku-key]",
            Kind::AtlassianToken => "[REDACTED:atlassian-token]",
            Kind::Jwt => "[REDACTED:jwt]",
            Kind::UrlPassword => "[REDACTED:url-password]",
            Kind::BasicAuth => "[REDACTED:basic-auth]",
            Kind::BearerToken => "[REDACTED:bearer-token]",
            Kind::Password => "[REDACTED:password]",
            Kind::Secret => "[REDACTED:secret]",
        }
    }

    fn index(self) -> usize {
        Kind::ALL.iter().position(|&k| k == self).unwrap_or(0)
    }
}

/// One secret in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// Its byte range; never holds a `\n`, starts and ends on character
    /// boundaries.
    pub range: Range<usize>,
    /// What it is.
    pub kind: Kind,
    /// It is counted: false for the second and later lines of a private
    /// key block (a block counts once).
    pub counted: bool,
}

/// How many secrets of each kind were masked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    by_kind: [u64; Kind::ALL.len()],
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            by_kind: [0; Kind::ALL.len()],
        }
    }
}

impl Counts {
    /// Secrets of every kind.
    pub fn total(&self) -> u64 {
        self.by_kind.iter().sum()
    }

    /// Secrets of `kind`.
    pub fn get(&self, kind: Kind) -> u64 {
        self.by_kind[kind.index()]
    }

    /// No secret at all.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Counts) {
        for (a, b) in self.by_kind.iter_mut().zip(other.by_kind) {
            *a += b;
        }
    }

    /// The kinds seen, with their counts, in [`Kind::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Kind, u64)> + '_ {
        Kind::ALL
            .iter()
            .zip(self.by_kind)
            .filter(|(_, n)| *n > 0)
            .map(|(&k, n)| (k, n))
    }

    fn count(&mut self, spans: &[Span]) {
        for s in spans.iter().filter(|s| s.counted) {
            self.by_kind[s.kind.index()] += 1;
        }
    }
}

/// The secrets in `text`, a text of any number of `\n`-separated whole
/// (logical) lines (bytes need not be UTF-8): sorted, disjoint, none
/// holding a `\n`. Private key blocks are read across its lines (see the
/// module docs), so a capture's text is best given whole. For a
/// terminal's rows, which soft wraps cut, [`find_rows`].
pub fn find(text: &[u8]) -> Vec<Span> {
    let mut out = Vec::new();
    one_line(text, 0, &mut out);
    // The body lines of key blocks are masked whole (trimmed); the
    // one-line rules' spans on those lines give way.
    overlay(&mut out, blocks::Blocks::scan(text));
    out
}

/// Adds `over` (sorted, apart) to `out`, whose spans that overlap one of
/// `over` give way; `out` ends sorted by start.
fn overlay(out: &mut Vec<Span>, over: Vec<Span>) {
    if over.is_empty() {
        return;
    }
    out.retain(|t| {
        let i = over.partition_point(|k| k.range.end <= t.range.start);
        over.get(i).is_none_or(|k| k.range.start >= t.range.end)
    });
    out.extend(over);
    out.sort_by_key(|s| s.range.start);
}

/// [`find`] for a terminal's rows of `width` cells, as a capture without
/// joining gives them: a row that fills the width is soft-wrapped (tmux
/// wraps a line only there), so it is read joined with the rows after it
/// up to and with the first that does not, and a secret a wrap cuts is
/// found too, masked in each row it spans (counted once).
pub fn find_rows(text: &[u8], width: usize) -> Vec<Span> {
    let mut out = find(text);
    overlay(&mut out, wrapped(text, width));
    out
}

/// The width of `row` in cells (characters of width 2, such as CJK, as
/// 2; bytes that are not UTF-8 as 1 each).
fn row_width(row: &[u8]) -> usize {
    if row.is_ascii() {
        return row.len();
    }
    match std::str::from_utf8(row) {
        Ok(s) => unicode_width::UnicodeWidthStr::width(s),
        Err(_) => row.iter().filter(|&&b| b & 0xC0 != 0x80).count(),
    }
}

/// The secrets that cross a row break of `text`, read as rows of
/// `width` cells (see [`find_rows`]): one span per row piece, sorted.
fn wrapped(text: &[u8], width: usize) -> Vec<Span> {
    let mut rows: Vec<(Range<usize>, bool)> = Vec::new();
    let mut at = 0;
    for end in memchr::memchr_iter(b'\n', text).chain(std::iter::once(text.len())) {
        let full = width > 0 && row_width(&text[at..end]) >= width;
        rows.push((at..end, full));
        at = end + 1;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        if !rows[i].1 || i + 1 == rows.len() {
            i += 1;
            continue;
        }
        // Rows i..=j: full ones, then the one that ends the line.
        let mut j = i + 1;
        while j + 1 < rows.len() && rows[j].1 {
            j += 1;
        }
        let group = &rows[i..=j];
        let mut joined = Vec::new();
        let mut starts = Vec::with_capacity(group.len());
        for (r, _) in group {
            starts.push(joined.len());
            joined.extend_from_slice(&text[r.clone()]);
        }
        for s in find(&joined) {
            // Only what crosses a break; the rest was found row by row.
            let first = starts.partition_point(|&st| st <= s.range.start) - 1;
            let last = starts.partition_point(|&st| st < s.range.end) - 1;
            if first == last {
                continue;
            }
            for (k, (r, _)) in group.iter().enumerate().take(last + 1).skip(first) {
                let from = s.range.start.max(starts[k]) - starts[k];
                let to = s.range.end.min(starts[k] + r.len()) - starts[k];
                if from < to {
                    out.push(Span {
                        range: r.start + from..r.start + to,
                        kind: s.kind,
                        counted: k == first && s.counted,
                    });
                }
            }
        }
        i = j + 1;
    }
    out
}

/// The secrets of `lines`, read as consecutive lines of one text (so a
/// key block spans them): one list per line, ranges relative to it.
/// A line that holds `\n` is read as the lines it holds.
pub fn find_in_lines<S: AsRef<[u8]>>(lines: &[S]) -> Vec<Vec<Span>> {
    per_line(lines, find)
}

/// [`find_in_lines`] for a terminal's rows of `width` cells
/// ([`find_rows`]).
pub fn find_in_rows<S: AsRef<[u8]>>(rows: &[S], width: usize) -> Vec<Vec<Span>> {
    per_line(rows, |t| find_rows(t, width))
}

/// `find` over `lines` joined by `\n`, its spans given back per line.
fn per_line<S: AsRef<[u8]>>(lines: &[S], find: impl Fn(&[u8]) -> Vec<Span>) -> Vec<Vec<Span>> {
    let mut joined = Vec::new();
    let mut starts = Vec::with_capacity(lines.len());
    for l in lines {
        starts.push(joined.len());
        joined.extend_from_slice(l.as_ref());
        joined.push(b'\n');
    }
    let mut out: Vec<Vec<Span>> = vec![Vec::new(); lines.len()];
    for s in find(&joined) {
        // The line holding the span: the last that starts at or before it.
        let i = starts.partition_point(|&st| st <= s.range.start) - 1;
        let base = starts[i];
        out[i].push(Span {
            range: s.range.start - base..s.range.end - base,
            ..s
        });
    }
    out
}

/// `text` with every secret replaced by its marker, and the count; the
/// text borrowed when it holds none. See [`find`].
pub fn redact(text: &str) -> (Cow<'_, str>, Counts) {
    let spans = find(text.as_bytes());
    if spans.is_empty() {
        return (Cow::Borrowed(text), Counts::default());
    }
    let mut counts = Counts::default();
    counts.count(&spans);
    (Cow::Owned(apply_str(text, &spans)), counts)
}

/// [`redact`] for a terminal's rows of `width` cells ([`find_rows`]).
pub fn redact_rows(text: &str, width: usize) -> (Cow<'_, str>, Counts) {
    let spans = find_rows(text.as_bytes(), width);
    if spans.is_empty() {
        return (Cow::Borrowed(text), Counts::default());
    }
    (Cow::Owned(apply_str(text, &spans)), count(&spans))
}

/// [`redact`] for bytes that need not be UTF-8 (what the CLI prints).
pub fn redact_bytes(text: &[u8]) -> (Cow<'_, [u8]>, Counts) {
    let spans = find(text);
    if spans.is_empty() {
        return (Cow::Borrowed(text), Counts::default());
    }
    let mut counts = Counts::default();
    counts.count(&spans);
    (Cow::Owned(apply(text, &spans)), counts)
}

/// `text` with each of `spans` (sorted, disjoint, in bounds, as [`find`]
/// gives them) replaced by its marker.
pub fn apply(text: &[u8], spans: &[Span]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for s in spans {
        let (start, end) = (s.range.start.max(at), s.range.end.min(text.len()));
        if start >= end {
            continue;
        }
        out.extend_from_slice(&text[at..start]);
        out.extend_from_slice(s.kind.marker().as_bytes());
        at = end;
    }
    out.extend_from_slice(&text[at..]);
    out
}

/// [`apply`] on text: spans fall on character boundaries, so the result
/// is text (should one not, the bytes around it are read lossily rather
/// than failing).
pub fn apply_str(text: &str, spans: &[Span]) -> String {
    match String::from_utf8(apply(text.as_bytes(), spans)) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Counts `spans` as [`redact`] would.
pub fn count(spans: &[Span]) -> Counts {
    let mut c = Counts::default();
    c.count(spans);
    c
}

/// The parts of a line of `len` bytes outside `spans` (sorted, disjoint):
/// where a search may match while redaction is on (a match must lie
/// wholly within one; empty parts are left out).
pub fn clear_parts(len: usize, spans: &[Span]) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(spans.len() + 1);
    let mut at = 0;
    for s in spans {
        if s.range.start > at {
            out.push(at..s.range.start.min(len));
        }
        at = at.max(s.range.end);
    }
    if at < len {
        out.push(at..len);
    }
    out.retain(|r| r.start < r.end);
    out
}

/// Whether the rules are usable (they compile); `tmuxwire` checks this
/// once before it serves with redaction on.
///
/// # Errors
///
/// A message when they do not (a bug: the unit tests compile them).
pub fn check_rules() -> Result<(), String> {
    rules::compiled()
        .map(|_| ())
        .ok_or_else(|| "the redaction rules do not compile".to_string())
}

/// The one-line rules over `text` (which may hold many lines), spans
/// offset by `base`, appended to `out` in order.
fn one_line(text: &[u8], base: usize, out: &mut Vec<Span>) {
    let Some(rules) = rules::compiled() else {
        // Unusable rules: mask every line rather than let a secret out.
        let mut at = 0;
        for end in memchr::memchr_iter(b'\n', text).chain([text.len()]) {
            if end > at {
                out.push(Span {
                    range: base + at..base + end,
                    kind: Kind::Secret,
                    counted: true,
                });
            }
            at = end + 1;
        }
        return;
    };
    for m in rules.all.find_iter(text) {
        let pid = m.pattern().as_usize();
        let (Some(rule), Some(one)) = (RULES.get(pid), rules.one.get(pid)) else {
            continue;
        };
        // The rule alone, anchored on its match, says where the secret is.
        let mut caps = one.create_captures();
        let input = Input::new(text).span(m.range()).anchored(Anchored::Yes);
        one.search_captures(&input, &mut caps);
        let (group, value) = (1..caps.group_len())
            .find_map(|g| caps.get_group(g).map(|s| (g, s.range())))
            .unwrap_or((0, m.range()));
        if value.is_empty() {
            continue;
        }
        let bare = group == 3 || rule.kind == Kind::UrlPassword;
        let accepted = match rule.check {
            Check::None => true,
            Check::Password | Check::Secret => {
                accepts(text, m.range(), value.clone(), bare, rule.check)
            }
        };
        if !accepted {
            // A placeholder; a provider's token inside it is still one.
            one_line(&text[value.clone()], base + value.start, out);
            continue;
        }
        let kind = match rule.check {
            Check::None => rule.kind,
            // `password=ghp_…` is a GitHub token first.
            _ => specific_kind(&text[value.clone()]).unwrap_or(rule.kind),
        };
        out.push(Span {
            range: base + value.start..base + value.end,
            kind,
            counted: true,
        });
    }
}

/// Whether the value `value` of a generic rule's match `m` in `text` is a
/// secret (see [`Check`]); `bare`: it is not quoted.
fn accepts(text: &[u8], m: Range<usize>, value: Range<usize>, bare: bool, check: Check) -> bool {
    let v = &text[value.clone()];
    if rules::is_placeholder(v) {
        return false;
    }
    if check == Check::Secret && v.trim_ascii().len() < rules::MIN_SECRET_CHARS {
        return false;
    }
    if !bare {
        return true;
    }
    let after = &text[value.end..];
    // A call or an index (`token = get_token()`, `os.environ["X"]`).
    if matches!(after.first(), Some(b'(' | b'[')) {
        return false;
    }
    if check == Check::Secret && rules::is_dotted_name(v) {
        return false;
    }
    // `passwd: password updated successfully`: after a colon, a word that
    // prose goes on from on the same line is a sentence, not a value.
    let before = text[m.start..value.start].trim_ascii_end();
    if before.ends_with(b":") {
        let line = &after[..memchr::memchr(b'\n', after).unwrap_or(after.len())];
        let rest = line.trim_ascii_start();
        if rest.len() < line.len() && rest.first().is_some_and(u8::is_ascii_alphabetic) {
            return false;
        }
    }
    true
}

/// The kind of the first provider token in `value`, if any.
fn specific_kind(value: &[u8]) -> Option<Kind> {
    let re = &rules::compiled()?.all;
    re.find_iter(value).find_map(|m| {
        let r = RULES.get(m.pattern().as_usize())?;
        (r.check == Check::None).then_some(r.kind)
    })
}

/// Fuzz entry point: [`find`] and [`find_rows`] (rows as wide as the
/// first byte says, 1–64) on any bytes never panic and give sorted,
/// disjoint, in-bounds spans on character boundaries that hold no `\n`;
/// every secret of the whole lines is masked when they are read as rows
/// too; [`redact_bytes`] keeps every line break; masking again finds
/// nothing (a marker is never a secret); [`LineRedactor`], fed the same
/// lines, masks as [`find`]; [`find_in_lines`] agrees with [`find`].
pub fn fuzz_redact(data: &[u8]) {
    let spans = find(data);
    let width = usize::from(data.first().copied().unwrap_or(0) % 64) + 1;
    let rows = find_rows(data, width);
    for found in [&spans, &rows] {
        let mut at = 0;
        for s in found {
            assert!(
                s.range.start >= at && s.range.start < s.range.end,
                "{found:?}"
            );
            assert!(s.range.end <= data.len());
            assert!(!data[s.range.clone()].contains(&b'\n'));
            at = s.range.end;
        }
        if let Ok(text) = std::str::from_utf8(data) {
            for s in found {
                assert!(text.is_char_boundary(s.range.start) && text.is_char_boundary(s.range.end));
            }
        }
    }
    for l in &spans {
        assert!(
            rows.iter()
                .any(|s| s.range.start < l.range.end && l.range.start < s.range.end),
            "{l:?} lost when read as rows"
        );
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let once = apply_str(text, &spans);
        let again = find(once.as_bytes());
        assert!(again.is_empty(), "masking twice: {again:?} in {once:?}");
    }
    let (out, counts) = redact_bytes(data);
    assert_eq!(
        memchr::memchr_iter(b'\n', &out).count(),
        memchr::memchr_iter(b'\n', data).count(),
        "line breaks kept"
    );
    let mut streamed = Vec::new();
    let mut r = LineRedactor::new();
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    for l in &lines {
        r.push(l, |line| {
            streamed.extend_from_slice(line);
            streamed.push(b'\n');
        });
    }
    r.finish(|line| {
        streamed.extend_from_slice(line);
        streamed.push(b'\n');
    });
    streamed.pop();
    assert_eq!(streamed, out.as_ref(), "streamed as a whole");
    assert_eq!(r.counts(), &counts);
    let per_line = find_in_lines(&lines);
    let flat: Vec<Span> = per_line
        .iter()
        .zip(lines.iter().scan(0, |at, l| {
            let base = *at;
            *at += l.len() + 1;
            Some(base)
        }))
        .flat_map(|(spans, base)| {
            spans.iter().map(move |s| Span {
                range: s.range.start + base..s.range.end + base,
                ..s.clone()
            })
        })
        .collect();
    assert_eq!(flat, spans, "per line as a whole");
}
