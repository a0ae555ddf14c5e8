//! Redacting a JSON value: what a tool's result holds.

use serde_json::Value;

use super::{Counts, Kind, apply_str, count, find_in_lines, redact, rules};

/// Masks every secret in the strings of `v`, in place, and counts them:
///
/// * a string is redacted as a text ([`super::redact`]);
/// * an array of two or more strings is read as consecutive lines
///   ([`super::find_in_lines`]), so a key block spans them (a capture's
///   rows, a wait's lines), and so is a string member of an array of line
///   objects (`get_command_output`'s `{line, text}`);
/// * an object's string member whose name ends like a password's or a
///   token's (`DB_PASSWORD`, `github_token`, `"api_key"`: the names the
///   assignment rules know) is masked whole, unless it is a placeholder.
///
/// Object keys and other values (numbers, booleans) are left as they are.
pub fn redact_value(v: &mut Value) -> Counts {
    let mut counts = Counts::default();
    walk(v, &mut counts);
    counts
}

fn walk(v: &mut Value, counts: &mut Counts) {
    match v {
        Value::String(s) => {
            let (text, c) = redact(s);
            if !c.is_empty() {
                *s = text.into_owned();
                counts.add(&c);
            }
        }
        Value::Array(items) if items.len() > 1 && items.iter().all(Value::is_string) => {
            let spans = {
                let lines: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                find_in_lines(&lines)
            };
            for (item, spans) in items.iter_mut().zip(spans) {
                if let Value::String(s) = item
                    && !spans.is_empty()
                {
                    counts.add(&count(&spans));
                    *s = apply_str(s, &spans);
                }
            }
        }
        Value::Array(items) if items.len() > 1 && items.iter().all(is_line) => {
            let columns = columns(items);
            for k in &columns {
                let spans = {
                    let lines: Vec<&str> = items.iter().filter_map(|i| i[k].as_str()).collect();
                    find_in_lines(&lines)
                };
                let cells = items.iter_mut().filter_map(|i| match i.get_mut(k) {
                    Some(Value::String(s)) => Some(s),
                    _ => None,
                });
                for (s, spans) in cells.zip(spans) {
                    if !spans.is_empty() {
                        counts.add(&count(&spans));
                        *s = apply_str(s, &spans);
                    }
                }
            }
            for item in items.iter_mut() {
                if let Value::Object(map) = item {
                    walk_object(map, counts, &columns);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| walk(x, counts)),
        Value::Object(map) => walk_object(map, counts, &[]),
        _ => {}
    }
}

/// Whether `v` is one line of a pane's text as an object: it has a
/// numeric `line` (`get_command_output`'s `{line, text}`). Only such
/// objects are read as consecutive lines: objects about different panes
/// (`list_panes`' titles) are not, so no pane's text can make another's
/// be masked.
fn is_line(v: &Value) -> bool {
    v.get("line").is_some_and(Value::is_number)
}

/// The names of the string members that two or more of `items` (line
/// objects) share, and that do not name a secret: each read as a column
/// of consecutive lines.
fn columns(items: &[Value]) -> Vec<String> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for item in items {
        let Value::Object(map) = item else { continue };
        for (k, v) in map {
            if !v.is_string() {
                continue;
            }
            match seen.iter_mut().find(|(n, _)| n == k) {
                Some((_, c)) => *c += 1,
                None => seen.push((k.clone(), 1)),
            }
        }
    }
    seen.into_iter()
        .filter(|(k, c)| *c > 1 && secret_name(k).is_none())
        .map(|(k, _)| k)
        .collect()
}

/// Walks the members of `map` but the string members named in `done`.
fn walk_object(map: &mut serde_json::Map<String, Value>, counts: &mut Counts, done: &[String]) {
    for (k, x) in map.iter_mut() {
        if x.is_string() && done.contains(k) {
            continue;
        }
        if let Value::String(s) = x
            && let Some(kind) = named_secret(k, s)
        {
            counts.add(&count(&[super::Span {
                range: 0..s.len(),
                kind,
                counted: true,
            }]));
            *s = kind.marker().to_string();
            continue;
        }
        walk(x, counts);
    }
}

/// Names whose value is a password.
const PASSWORD_NAMES: &[&str] = &["password", "passwd", "passphrase"];

/// Names whose value is a secret (as the assignment rule's words).
const SECRET_NAMES: &[&str] = &[
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "credential",
    "credentials",
    "auth",
];

/// The words before `key`/`_key`/`-key` that make a name a secret's.
const KEY_WORDS: &[&str] = &[
    "access",
    "secret",
    "private",
    "auth",
    "encryption",
    "signing",
    "master",
    "account",
    "client",
    "app",
    "service",
];

/// The kind a member named `name` holds, when the name says it is a
/// secret (`DB_PASSWORD`: a password; `api_key`: a secret).
fn secret_name(name: &str) -> Option<Kind> {
    let n = name.to_ascii_lowercase();
    let password = PASSWORD_NAMES.iter().any(|w| n.ends_with(w))
        || n == "pass"
        || n.ends_with("_pass")
        || n.ends_with("-pass");
    let key = n
        .strip_suffix("key")
        .map(|b| b.strip_suffix(['_', '-']).unwrap_or(b))
        .is_some_and(|b| KEY_WORDS.iter().any(|w| b.ends_with(w)));
    let secret = key || SECRET_NAMES.iter().any(|w| n.ends_with(w));
    match (password, secret) {
        (true, _) => Some(Kind::Password),
        (false, true) => Some(Kind::Secret),
        (false, false) => None,
    }
}

/// The kind of the value `value` of a member named `name`, when the name
/// says it is a secret and the value is not a placeholder (one line).
fn named_secret(name: &str, value: &str) -> Option<Kind> {
    let kind = secret_name(name)?;
    let v = value.as_bytes();
    if value.contains('\n') || rules::is_placeholder(v) {
        return None;
    }
    if kind == Kind::Secret && v.trim_ascii().len() < rules::MIN_SECRET_CHARS {
        return None;
    }
    Some(super::specific_kind(v).unwrap_or(kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_arrays_and_named_members() {
        let body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";
        let mut v = json!({
            "result": "$ echo $T\nghp_0123456789abcdefghijABCDEFGHIJklmnopqr\n$ ",
            "lines": ["-----BEGIN RSA PRIVATE KEY-----", body, body, "-----END RSA PRIVATE KEY-----"],
            "env": {"DB_PASSWORD": "hunter2", "HOME": "/home/u", "GITHUB_TOKEN": "$GH", "max_tokens": "4096"},
            "n": 3,
        });
        let c = redact_value(&mut v);
        assert_eq!(v["result"], "$ echo $T\n[REDACTED:github-token]\n$ ", "{v}");
        assert_eq!(v["lines"][1], "[REDACTED:private-key]");
        assert_eq!(v["lines"][2], "[REDACTED:private-key]");
        assert_eq!(v["lines"][3], "-----END RSA PRIVATE KEY-----");
        assert_eq!(v["env"]["DB_PASSWORD"], "[REDACTED:password]");
        assert_eq!(v["env"]["HOME"], "/home/u");
        assert_eq!(v["env"]["GITHUB_TOKEN"], "$GH");
        assert_eq!(v["env"]["max_tokens"], "4096");
        assert_eq!(c.total(), 3);
        assert_eq!(c.get(Kind::PrivateKey), 1);
        assert_eq!(
            named_secret("AccountKey", "abcdefghijklmnop"),
            Some(Kind::Secret)
        );
        assert_eq!(named_secret("monkey", "abcdefghijklmnop"), None);
        // A field across an array of objects is read as lines.
        let rows: Vec<Value> = [
            "$ cat k",
            "-----BEGIN RSA PRIVATE KEY-----",
            body,
            body,
            body,
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"line": i, "text": t}))
        .collect();
        let mut v = json!({"lines": rows});
        let c = redact_value(&mut v);
        assert_eq!(v["lines"][2]["text"], "[REDACTED:private-key]");
        assert_eq!(v["lines"][4]["text"], "[REDACTED:private-key]");
        assert_eq!(v["lines"][2]["line"], 2);
        assert_eq!(c.total(), 1);
    }
}
