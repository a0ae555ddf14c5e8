//! Django-style `filters` for the list tools (libtmux-mcp compatible):
//! `{"field__op": value}`, all conditions must hold. A key without `__op`
//! means `exact`.

use std::collections::BTreeMap;

use regex_automata::meta::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tmux::Error;

/// `filters` as a caller gives them: an object of `field__op` → value,
/// or the same object as a JSON string (some MCP clients send that).
#[derive(Clone, Debug, Deserialize, JsonSchema, serde::Serialize)]
#[serde(untagged)]
pub enum FiltersArg {
    /// `{"session_name__startswith": "dev"}`.
    Map(BTreeMap<String, serde_json::Value>),
    /// The same, as a JSON string.
    Json(String),
}

const OPS: &[&str] = &[
    "contains",
    "endswith",
    "eq",
    "exact",
    "icontains",
    "iendswith",
    "iexact",
    "in",
    "iregex",
    "istartswith",
    "nin",
    "regex",
    "startswith",
];

enum Test {
    Exact(String),
    IExact(String),
    Contains(String),
    IContains(String),
    StartsWith(String),
    IStartsWith(String),
    EndsWith(String),
    IEndsWith(String),
    Regex(Regex),
    In(Vec<String>),
    NotIn(Vec<String>),
}

/// A listed item as filters test it.
pub trait Filtered: Serialize {
    /// The item's fields by name: as it serializes, plus those its answer
    /// leaves out (for their default, or to another tool), so a filter on
    /// one still tests the value (`{"history_size": 0}` keeps the panes
    /// without history). A JSON object.
    fn fields(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Parsed filters.
pub struct Filters {
    tests: Vec<(String, Test)>,
}

/// A JSON scalar as the string it is compared as.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn invalid(msg: String) -> Error {
    Error::invalid(
        "filters",
        msg,
        "an object like {\"session_name__startswith\": \"dev\"}; operators: contains, endswith, eq, exact, \
         icontains, iendswith, iexact, in, iregex, istartswith, nin, regex, startswith",
    )
}

impl Filters {
    /// Parses the argument.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for bad JSON, an unknown operator or a
    /// bad regex.
    pub fn parse(arg: &FiltersArg) -> Result<Filters, Error> {
        let map = match arg {
            FiltersArg::Map(m) => m.clone(),
            FiltersArg::Json(s) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(o)) => o.into_iter().collect(),
                Ok(other) => {
                    return Err(invalid(format!(
                        "filters must be a JSON object, got {}",
                        match other {
                            Value::Array(_) => "an array",
                            Value::String(_) => "a string",
                            Value::Number(_) => "a number",
                            Value::Bool(_) => "a boolean",
                            _ => "null",
                        }
                    )));
                }
                Err(e) => return Err(invalid(format!("Invalid filters JSON: {e}"))),
            },
        };
        let mut tests = Vec::new();
        for (key, value) in map {
            let (field, op) = match key.rsplit_once("__") {
                Some((f, op)) if OPS.contains(&op) => (f.to_string(), op),
                Some((_, op)) => {
                    return Err(invalid(format!(
                        "Invalid filter operator '{op}' in '{key}'. Valid operators: {}",
                        OPS.join(", ")
                    )));
                }
                None => (key.clone(), "exact"),
            };
            let list = || -> Vec<String> {
                match &value {
                    Value::Array(a) => a.iter().map(text).collect(),
                    other => text(other)
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .collect(),
                }
            };
            let v = text(&value);
            let test = match op {
                "exact" | "eq" => Test::Exact(v),
                "iexact" => Test::IExact(v.to_lowercase()),
                "contains" => Test::Contains(v),
                "icontains" => Test::IContains(v.to_lowercase()),
                "startswith" => Test::StartsWith(v),
                "istartswith" => Test::IStartsWith(v.to_lowercase()),
                "endswith" => Test::EndsWith(v),
                "iendswith" => Test::IEndsWith(v.to_lowercase()),
                "regex" | "iregex" => {
                    let pat = if op == "iregex" {
                        format!("(?i){v}")
                    } else {
                        v
                    };
                    let re = Regex::builder()
                        .configure(Regex::config().nfa_size_limit(Some(1 << 20)))
                        .build(&pat)
                        .map_err(|e| {
                            let detail = std::error::Error::source(&e)
                                .map_or_else(|| e.to_string(), ToString::to_string);
                            invalid(format!("invalid regex in filter '{key}': {detail}"))
                        })?;
                    Test::Regex(re)
                }
                "in" => Test::In(list()),
                "nin" => Test::NotIn(list()),
                _ => unreachable!("OPS lists every operator"),
            };
            tests.push((field, test));
        }
        Ok(Filters { tests })
    }

    /// Keeps the items (JSON objects) that pass every test.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) when a filter names a field the items
    /// do not have (the message lists the fields).
    pub fn apply(&self, items: Vec<Value>) -> Result<Vec<Value>, Error> {
        if let Some(first) = items.first().and_then(Value::as_object) {
            for (field, _) in &self.tests {
                if !first.contains_key(field) {
                    let mut fields: Vec<&str> = first.keys().map(String::as_str).collect();
                    fields.sort_unstable();
                    return Err(invalid(format!(
                        "unknown field '{field}' in filters; fields are: {}",
                        fields.join(", ")
                    )));
                }
            }
        }
        Ok(items
            .into_iter()
            .filter(|item| self.matches(item))
            .collect())
    }

    /// Keeps the items that pass every test, each tested by its
    /// [`Filtered::fields`] (the fields a caller sees, and those its answer
    /// leaves out for their default).
    ///
    /// # Errors
    ///
    /// As [`Filters::apply`].
    pub fn keep<T: Filtered>(&self, items: Vec<T>) -> Result<Vec<T>, Error> {
        let values: Vec<Value> = items.iter().map(Filtered::fields).collect();
        if let Some(first) = values.first() {
            self.apply(vec![first.clone()])?;
        }
        Ok(items
            .into_iter()
            .zip(values)
            .filter(|(_, v)| self.matches(v))
            .map(|(i, _)| i)
            .collect())
    }

    fn matches(&self, item: &Value) -> bool {
        self.tests.iter().all(|(field, test)| {
            let v = item.get(field).map(text).unwrap_or_default();
            match test {
                Test::Exact(s) => v == *s,
                Test::IExact(s) => v.to_lowercase() == *s,
                Test::Contains(s) => v.contains(s.as_str()),
                Test::IContains(s) => v.to_lowercase().contains(s.as_str()),
                Test::StartsWith(s) => v.starts_with(s.as_str()),
                Test::IStartsWith(s) => v.to_lowercase().starts_with(s.as_str()),
                Test::EndsWith(s) => v.ends_with(s.as_str()),
                Test::IEndsWith(s) => v.to_lowercase().ends_with(s.as_str()),
                Test::Regex(re) => re.is_match(v.as_bytes()),
                Test::In(l) => l.contains(&v),
                Test::NotIn(l) => !l.contains(&v),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(f: Value, items: Value) -> Result<Vec<Value>, Error> {
        let arg: FiltersArg = serde_json::from_value(f).unwrap();
        Filters::parse(&arg)?.apply(items.as_array().unwrap().clone())
    }

    #[test]
    fn operators() {
        let items = json!([{"n": "dev-1", "c": 2}, {"n": "Prod", "c": 3}]);
        let names = |r: Vec<Value>| {
            r.iter()
                .map(|v| v["n"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        for (filter, want) in [
            (json!({"n__startswith": "dev"}), "dev-1"),
            (json!({"n__iexact": "prod"}), "Prod"),
            (json!({"n": "Prod"}), "Prod"),
            (json!({"c__eq": 3}), "Prod"),
            (json!({"n__in": ["Prod", "x"]}), "Prod"),
            (json!({"n__nin": "Prod,x"}), "dev-1"),
            (json!({"n__iregex": "^PROD$"}), "Prod"),
            (json!("{\"n__contains\": \"-\"}"), "dev-1"),
        ] {
            assert_eq!(
                names(run(filter.clone(), items.clone()).unwrap()),
                [want],
                "{filter}"
            );
        }
    }

    #[test]
    fn errors() {
        let items = json!([{"n": "a"}]);
        let e = run(json!({"n__bogus": "x"}), items.clone())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("Invalid filter operator 'bogus' in 'n__bogus'"),
            "{e}"
        );
        assert!(
            run(json!("{not json"), items.clone())
                .unwrap_err()
                .to_string()
                .contains("Invalid filters JSON")
        );
        assert!(
            run(json!("[1]"), items.clone())
                .unwrap_err()
                .to_string()
                .contains("must be a JSON object")
        );
        assert!(
            run(json!({"zzz": "a"}), items.clone())
                .unwrap_err()
                .to_string()
                .contains("unknown field")
        );
        assert!(run(json!({"n__regex": "("}), items).is_err());
    }
}
