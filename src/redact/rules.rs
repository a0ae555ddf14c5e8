//! The one-line rules: what each kind of secret looks like, as one
//! multi-pattern `regex_automata::meta::Regex` compiled once per process.
//!
//! Facts about the formats (prefixes, alphabets, lengths) come from the
//! providers' documentation as the public scanners gitleaks, trufflehog
//! and detect-secrets record them; the patterns are written here. Every
//! pattern keeps to one line (no class takes `\n`), so one search over a
//! whole text equals searching each line on its own. Capture group 1 (or
//! the first group that took part) is the secret; without a group, the
//! whole match is. Assignments (`password=…`, `"token": "…"`) and the
//! generic forms (a URL's password, `Bearer …`) are checked again in code
//! ([`Check`]): placeholders (`$VAR`, `null`, `***`, a type name) are not
//! secrets.

use std::sync::OnceLock;

use regex_automata::meta::Regex;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;

use super::Kind;

/// What is checked in code after a rule's pattern matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Check {
    /// Nothing: the pattern is specific enough (a provider's prefix and
    /// alphabet).
    None,
    /// A value assigned to a password-like name: any value but a
    /// placeholder.
    Password,
    /// A value assigned to a token-, secret- or key-like name, or given
    /// as a URL's password or a `Bearer`/`Basic` credential: a
    /// placeholder or a value under [`MIN_SECRET_CHARS`] is not one.
    Secret,
}

/// The shortest value a token-, secret- or key-like name must be given
/// to be taken as a secret (`max_token = 4096` is not one).
pub(super) const MIN_SECRET_CHARS: usize = 8;

/// One rule: its kind, its pattern and what is checked after a match.
pub(super) struct Rule {
    pub(super) kind: Kind,
    pub(super) pattern: &'static str,
    pub(super) check: Check,
}

const fn rule(kind: Kind, pattern: &'static str) -> Rule {
    Rule {
        kind,
        pattern,
        check: Check::None,
    }
}

const fn checked(kind: Kind, check: Check, pattern: &'static str) -> Rule {
    Rule {
        kind,
        pattern,
        check,
    }
}

/// A token that starts at a word boundary: `(?-u:\b)(…)`, the token the
/// masked group.
macro_rules! word {
    ($token:literal) => {
        concat!(r"(?-u:\b)(", $token, ")")
    };
}

/// A token with a word boundary on each side: `(?-u:\b)(…)(?-u:\b)`.
macro_rules! bounded {
    ($token:literal) => {
        concat!(r"(?-u:\b)(", $token, r")(?-u:\b)")
    };
}

/// The value of an assignment: a double- or single-quoted string (groups
/// 1, 2), or a bare word (group 3) that ends at a blank, a quote or
/// punctuation that cannot be part of it.
macro_rules! value {
    () => {
        r#"["']?[ \t]*(?::=|=>|==|=|:)[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'`,;&|<>(){}\[\]]+))"#
    };
}

/// Every rule, in priority order: where two could match at the same
/// place, the earlier one wins (leftmost-first, as an alternation).
pub(super) const RULES: &[Rule] = &[
    // A private key written on one line (`"private_key": "-----BEGIN
    // PRIVATE KEY-----\nMIIE…\n-----END PRIVATE KEY-----\n"` in a JSON
    // credentials file): the body between the markers, or to the end of
    // its run when the line ends first. Keys over several lines are
    // `super::blocks`' job.
    rule(
        Kind::PrivateKey,
        r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----((?:\\[nrt]|[A-Za-z0-9+/=:.,_ \t-])*?)-----END",
    ),
    rule(
        Kind::PrivateKey,
        r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----((?:\\[nrt]|[A-Za-z0-9+/=])(?:\\[nrt]|[A-Za-z0-9+/=:.,_ \t-]){15,})",
    ),
    // AWS: access key ids are 20 characters, a 4-letter prefix (AKIA
    // long-term, ASIA temporary, ABIA, ACCA, A3T…) and base32; secret
    // access keys 40 characters of base64, told only by their name
    // (`aws…secret…`, or `SecretAccessKey` as `aws sts` prints it).
    rule(
        Kind::AwsAccessKeyId,
        bounded!(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}"),
    ),
    rule(
        Kind::AwsSecretAccessKey,
        r#"(?:(?i:aws)[A-Za-z0-9_.-]{0,20}(?i:secret)[A-Za-z0-9_.-]{0,20}|(?i:secret_?access_?key))["']?[ \t]*(?::=|=>|=|:)[ \t]*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
    ),
    // GitHub: ghp_ (classic personal), gho_ (OAuth), ghu_ (user-to-
    // server), ghs_ (server-to-server), ghr_ (refresh), then 36 or more
    // base62 characters; github_pat_ (fine-grained) 82.
    rule(Kind::GithubToken, word!(r"gh[pousr]_[A-Za-z0-9]{36,}")),
    rule(Kind::GithubToken, word!(r"github_pat_[A-Za-z0-9_]{36,}")),
    // GitLab: personal (glpat-), pipeline trigger (glptt-), runner (glrt-),
    // deploy (gldt-), feed (glft-), CI job (glcbt-), OAuth (gloas-),
    // incoming mail (glimt-), SCIM (glsoat-), agent (glagent-), workspace
    // (glwt-) tokens; runner registration tokens start GR1348941.
    rule(
        Kind::GitlabToken,
        word!(r"gl(?:pat|ptt|rt|dt|ft|cbt|oas|imt|soat|agent|wt)-[A-Za-z0-9_.-]{20,}"),
    ),
    rule(Kind::GitlabToken, word!(r"GR1348941[A-Za-z0-9_-]{20,64}")),
    // Slack: xoxb- (bot), xoxp- (user), xoxa-/xoxr- (app, refresh),
    // xoxo-/xoxs- (legacy), xoxe- and xoxe.xoxp- (rotating), xapp- (app
    // level); incoming webhooks under hooks.slack.com.
    rule(Kind::SlackToken, word!(r"xoxe\.xox[bp]-[A-Za-z0-9-]{20,}")),
    rule(Kind::SlackToken, word!(r"xox[abposre]-[A-Za-z0-9-]{10,}")),
    rule(Kind::SlackToken, word!(r"xapp-[0-9]-[A-Za-z0-9-]{20,}")),
    rule(
        Kind::SlackWebhook,
        r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})",
    ),
    // Stripe: secret (sk_) and restricted (rk_) keys, live and test;
    // webhook signing secrets (whsec_). Publishable keys (pk_) are public.
    rule(
        Kind::StripeKey,
        word!(r"(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}"),
    ),
    rule(Kind::StripeKey, word!(r"whsec_[A-Za-z0-9+/=]{24,}")),
    // Google: API keys (AIza + 35), OAuth client secrets (GOCSPX- + 28),
    // OAuth access tokens (ya29.).
    rule(Kind::GoogleApiKey, r"(AIza[A-Za-z0-9_-]{35})"),
    rule(Kind::GoogleOauth, word!(r"GOCSPX-[A-Za-z0-9_-]{28}")),
    rule(Kind::GoogleOauth, word!(r"ya29\.[A-Za-z0-9_-]{20,}")),
    // Anthropic (sk-ant-api03-…, sk-ant-admin01-…) before OpenAI
    // (sk-proj-, sk-svcacct-, sk-admin-, and the older sk-…T3BlbkFJ…) and
    // other `sk-` keys of 32 or more characters (OpenAI's oldest, and
    // the providers that copied the form).
    rule(
        Kind::AnthropicKey,
        word!(r"sk-ant-[a-z]{2,8}[0-9]{2}-[A-Za-z0-9_-]{32,}"),
    ),
    rule(
        Kind::OpenaiKey,
        word!(r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}"),
    ),
    rule(
        Kind::OpenaiKey,
        word!(r"sk-[A-Za-z0-9_-]{8,64}T3BlbkFJ[A-Za-z0-9_-]{8,}"),
    ),
    rule(Kind::ApiKey, word!(r"sk-[A-Za-z0-9]{32,}")),
    // Package registries: npm (npm_ + 36), PyPI (pypi- and a macaroon,
    // whose base64 starts AgE).
    rule(Kind::NpmToken, word!(r"npm_[A-Za-z0-9]{36,}")),
    rule(Kind::PypiToken, word!(r"pypi-AgE[A-Za-z0-9_-]{50,}")),
    // Twilio API key SIDs (SK + 32 hex), SendGrid (SG.22.43), Mailchimp
    // (32 hex + -usN), Mailgun (key- + 32 hex).
    rule(Kind::TwilioKey, bounded!(r"SK[0-9a-fA-F]{32}")),
    rule(
        Kind::SendgridKey,
        word!(r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{32,64}"),
    ),
    rule(Kind::MailchimpKey, bounded!(r"[0-9a-f]{32}-us[0-9]{1,2}")),
    rule(Kind::MailgunKey, bounded!(r"key-[0-9a-f]{32}")),
    // Hugging Face (hf_), DigitalOcean (dop_v1_, doo_v1_, dor_v1_ + 64
    // hex), Shopify (shpat_, shpca_, shppa_, shpss_ + 32 hex), HashiCorp
    // Vault (hvs., hvb.), age secret keys (bech32), Databricks (dapi + 32
    // hex), Telegram bots (id:AA…), Doppler (dp.pt. …), Linear (lin_api_),
    // Postman (PMAK-), Grafana (glsa_, glc_), 1Password service accounts
    // (ops_eyJ), Heroku (HRKU-AA), Atlassian (ATATT3).
    rule(Kind::HuggingfaceToken, word!(r"hf_[A-Za-z0-9]{34,}")),
    rule(Kind::DigitaloceanToken, word!(r"do[opr]_v1_[a-f0-9]{64}")),
    rule(
        Kind::ShopifyToken,
        word!(r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ),
    rule(Kind::VaultToken, word!(r"hv[sb]\.[A-Za-z0-9_-]{24,}")),
    rule(
        Kind::AgeSecretKey,
        r"(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})",
    ),
    rule(
        Kind::DatabricksToken,
        bounded!(r"dapi[a-f0-9]{32}(?:-[0-9])?"),
    ),
    rule(Kind::TelegramBotToken, r"([0-9]{8,10}:AA[A-Za-z0-9_-]{33})"),
    rule(
        Kind::DopplerToken,
        word!(r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}"),
    ),
    rule(Kind::LinearKey, word!(r"lin_api_[A-Za-z0-9]{40}")),
    rule(Kind::PostmanKey, word!(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}")),
    rule(
        Kind::GrafanaToken,
        word!(r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    ),
    rule(Kind::GrafanaToken, word!(r"glc_[A-Za-z0-9+/]{32,}={0,2}")),
    rule(
        Kind::OnepasswordToken,
        word!(r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"),
    ),
    rule(Kind::HerokuKey, word!(r"HRKU-AA[A-Za-z0-9_-]{58}")),
    rule(Kind::AtlassianToken, word!(r"ATATT3[A-Za-z0-9_=-]{100,}")),
    // JSON Web Tokens: a base64url JSON header and payload (both start
    // `ey`, the encoding of `{"`), then a signature (empty when unsigned);
    // JWE has five parts.
    rule(
        Kind::Jwt,
        word!(
            r"ey[A-Za-z0-9_-]{15,}\.ey[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+){0,2}"
        ),
    ),
    // A URL's password (`postgres://user:pass@host`): only the password
    // (`[` and `]` are not allowed raw in a URL's user information, and
    // leaving them out keeps a marker from ever matching).
    checked(
        Kind::UrlPassword,
        Check::Password,
        r#"(?-u:\b)[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/@'"\[\]]*:([^\s/@'"\[\]]+)@"#,
    ),
    // HTTP credentials: `Authorization: Basic base64(user:pass)`,
    // `Bearer token`.
    checked(
        Kind::BasicAuth,
        Check::Secret,
        r#"(?i:authorization)["']?[ \t]*[:=][ \t]*["']?(?i:basic)[ \t]+([A-Za-z0-9+/]{8,}={0,2})"#,
    ),
    checked(
        Kind::BearerToken,
        Check::Secret,
        r"(?-u:\b)(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)",
    ),
    // Assignments to a name that ends in a password word (`password`,
    // `DB_PASSWD`, `--pass`, `"passphrase":`) ...
    checked(
        Kind::Password,
        Check::Password,
        concat!(
            r"(?i:passwd|password|passphrase|(?:(?-u:\b)|_)pass)",
            value!()
        ),
    ),
    // ... or in a secret, token or key word (`client_secret`,
    // `GITHUB_TOKEN`, `api_key`, `AccountKey`, `credentials`, `auth`).
    checked(
        Kind::Secret,
        Check::Secret,
        concat!(
            r"(?i:secret|token|api[_-]?key|apikey|(?:access|secret|private|auth|encryption|signing|master|account|client|app|service)[_-]?key|credentials?|auth)",
            value!()
        ),
    ),
];

/// The rules compiled.
pub(super) struct Compiled {
    /// Every rule, pattern `i` being [`RULES`]`[i]`, without capture
    /// groups: finds where a secret is, at the lazy DFA's speed.
    pub(super) all: Regex,
    /// Each rule on its own, with its groups: run anchored on a match of
    /// `all` to find the secret in it. (Capture groups over every rule at
    /// once make one large NFA whose group search costs about a
    /// millisecond a match; one rule's is small.)
    pub(super) one: Vec<Regex>,
}

/// The rules compiled once; `None` if they do not compile (a bug the unit
/// tests catch; the callers then mask every line rather than let a
/// secret through).
pub(super) fn compiled() -> Option<&'static Compiled> {
    static RE: OnceLock<Option<Compiled>> = OnceLock::new();
    RE.get_or_init(|| {
        let patterns: Vec<&str> = RULES.iter().map(|r| r.pattern).collect();
        // Bytes, ASCII classes and ASCII case: every literal is ASCII, and
        // each class either takes every byte from 0x80 up (`[^"\n]`) or none,
        // so a match still starts and ends on a character boundary; the
        // automata are a fraction of their Unicode size, which keeps the
        // lazy DFA from giving up on text with many secrets.
        let syntax = syntax::Config::new()
            .nest_limit(64)
            .unicode(false)
            .utf8(false);
        let all = Regex::builder()
            .syntax(syntax)
            .configure(Regex::config().which_captures(WhichCaptures::Implicit))
            .build_many(&patterns)
            .ok()?;
        let one = patterns
            .iter()
            .map(|p| Regex::builder().syntax(syntax).build(p).ok())
            .collect::<Option<Vec<Regex>>>()?;
        Some(Compiled { all, one })
    })
    .as_ref()
}

/// Whether `value` (an assigned value, a URL's password, a credential) is
/// a placeholder rather than a secret: a variable or template reference
/// (`$DB_PASS`, `${X}`, `%s`, `{{ x }}`, `<password>`), a word that names
/// no value (`null`, `None`, `true`, `string`), one character repeated
/// (`****`, `xxxxxxxx`), text already redacted, or a private key's
/// armour (whose body the key rule masks, keeping the markers).
pub(super) fn is_placeholder(value: &[u8]) -> bool {
    let v = value.trim_ascii();
    let Some(&first) = v.first() else {
        return true;
    };
    if matches!(first, b'$' | b'%' | b'<' | b'*') || v.starts_with(b"{{") {
        return true;
    }
    if v.starts_with(b"[REDACTED") || v.starts_with(b"-----") || v.iter().all(|&b| b == first) {
        return true;
    }
    const WORDS: &[&str] = &[
        "null",
        "none",
        "nil",
        "true",
        "false",
        "yes",
        "no",
        "undefined",
        "empty",
        "string",
        "str",
        "number",
        "int",
        "bool",
        "boolean",
        "any",
        "unknown",
        "object",
        "bytes",
        "optional",
        "required",
        "redacted",
        "hidden",
        "masked",
    ];
    WORDS.iter().any(|w| v.eq_ignore_ascii_case(w.as_bytes()))
}

/// Whether a bare `value` is an expression rather than a literal: a
/// dotted name (`self.token`, `os.environ`), taken for a secret only when
/// it is a password's.
pub(super) fn is_dotted_name(value: &[u8]) -> bool {
    let mut parts = value.split(|&b| b == b'.');
    let name = |p: &[u8]| {
        p.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && p.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    value.contains(&b'.') && parts.all(name)
}
