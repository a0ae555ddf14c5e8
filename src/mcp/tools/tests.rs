use super::call::*;
use super::row::*;
use super::*;
use crate::mcp::lenient;
use crate::mcp::text::{TextMode, TextShape};
use crate::mcp::toolsets::{Policy, Toolset};
use crate::tmux::Server;
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};
use std::sync::Arc;

#[test]
fn a_call_names_an_object_by_any_targeting_argument() {
    let args = |v: Value| match v {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    assert!(names_no_object(&args(json!({}))));
    assert!(names_no_object(&args(
        json!({"socket_name": "w", "pane_id": null})
    )));
    for k in NAMING {
        assert!(!names_no_object(&args(json!({*k: "x"}))), "{k}");
    }
}

/// libtmux-mcp's tools, copied once from the reference catalog.
const REFERENCE: &str = include_str!("../../../tests/data/reference-tools.md");

/// Every tool of the reference's toolset table: its name, toolset and
/// whether it is marked self-bounded.
fn reference_tools() -> Vec<(&'static str, Toolset, bool)> {
    let mut out = Vec::new();
    for line in REFERENCE.lines() {
        let Some((set, rest)) = line.strip_prefix("| `").and_then(|l| l.split_once('`')) else {
            continue;
        };
        let toolset = Toolset::ALL
            .into_iter()
            .find(|t| t.name() == set)
            .expect("a toolset");
        let names = rest.split_once("| ").expect("a tool list").1;
        for name in names.trim_end_matches(" |").split(", ") {
            match name.strip_suffix(" (+self-bounded)") {
                Some(n) => out.push((n, toolset, true)),
                None => out.push((name, toolset, false)),
            }
        }
    }
    out
}

/// tmuxwire's tools beyond the reference's: toolset, and whether it
/// bounds its own waiting.
const OWN_TOOLS: &[(&str, Toolset, bool)] = &[
    ("get_pane_state", Toolset::Inspect, false),
    ("list_commands", Toolset::Inspect, false),
    ("get_command_output", Toolset::Inspect, false),
    ("wait_for_command", Toolset::Inspect, true),
    ("wait_for_stable", Toolset::Inspect, true),
    ("poll_events", Toolset::Inspect, true),
];

/// The tools the reference sends with `anthropic/alwaysLoad`.
fn reference_always_load() -> Vec<&'static str> {
    let line = REFERENCE
        .lines()
        .find(|l| l.contains("anthropic/alwaysLoad"))
        .expect("the alwaysLoad line");
    let list = line.split_once("`: ").expect("a list").1;
    let list = list.split_once(". ").expect("a sentence").0;
    list.split(", ").map(|n| n.trim_matches('`')).collect()
}

/// The result shape of every tool whose reference entry says what it
/// returns: a list (`list[…]`), a string (a sentence in quotes, or "a
/// string"), else an object.
fn reference_results() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    let mut tool = None;
    for line in REFERENCE.lines() {
        let heading = line.strip_prefix("- ").unwrap_or(line);
        if let Some(rest) = heading.strip_prefix("**`") {
            tool = rest.split_once('`').map(|(n, _)| n);
            continue;
        }
        let (Some(name), Some((_, what))) = (tool, line.split_once("Returns ")) else {
            continue;
        };
        tool = None;
        let shape = if what.starts_with("`list[") {
            "list"
        } else if ["`\"", "a string", "a **string**"]
            .iter()
            .any(|p| what.starts_with(p))
        {
            "string"
        } else {
            "object"
        };
        out.push((name, shape));
    }
    out
}

/// The table serves exactly the reference's tools, each once, in its
/// toolset and with its marks; listing order follows the toolsets;
/// schemas and hints are what clients expect.
#[test]
fn catalog_shape() {
    let reference = reference_tools();
    assert_eq!(reference.len(), 54);
    let tools = catalog();
    assert_eq!(tools.len(), reference.len() + OWN_TOOLS.len());
    for (name, toolset, self_bounded) in OWN_TOOLS {
        assert!(reference.iter().all(|(n, ..)| n != name), "{name}");
        let d = def_of(name).unwrap_or_else(|| panic!("{name} is served"));
        assert_eq!(d.toolset, *toolset, "{name}");
        assert_eq!(d.self_bounded, *self_bounded, "{name}");
    }
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "names are unique");
    for (name, toolset, self_bounded) in &reference {
        let d = def_of(name).unwrap_or_else(|| panic!("{name} is served"));
        assert_eq!(d.toolset, *toolset, "{name}");
        assert_eq!(d.self_bounded, *self_bounded, "{name}");
    }
    let order: Vec<Toolset> = defs().iter().map(|d| d.toolset).collect();
    assert!(order.is_sorted(), "listed by toolset");
    let always = reference_always_load();
    assert_eq!(always.len(), 3);
    for t in &tools {
        let loads = t
            .meta
            .as_ref()
            .is_some_and(|m| m.0.get("anthropic/alwaysLoad") == Some(&json!(true)));
        assert_eq!(loads, always.contains(&t.name.as_ref()), "{}", t.name);
        assert_eq!(
            t.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            t.name
        );
        // Listed without additionalProperties and the arguments the
        // instructions say once; the row's own schema keeps both.
        assert_eq!(
            t.input_schema.get("additionalProperties"),
            None,
            "{}",
            t.name
        );
        let d = def_of(&t.name).expect("a row");
        assert_eq!(
            d.input.get("additionalProperties"),
            Some(&json!(false)),
            "{}",
            t.name
        );
        let props = t.input_schema.get("properties").and_then(Value::as_object);
        let has = |k: &str| props.is_some_and(|p| p.contains_key(k));
        let row_has = |k: &str| {
            d.input
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.contains_key(k))
        };
        // Every tool runs over one server, but the batch (its
        // operations name theirs) and list_servers (it finds them).
        if !matches!(
            t.name.as_ref(),
            "list_servers" | "call_read_tools_batch" | "list_hosts"
        ) {
            assert!(
                row_has("socket_name") && row_has("socket_path"),
                "{}",
                t.name
            );
        }
        assert!(!has("socket_name") && !has("socket_path"), "{}", t.name);
        // A pane tool lists pane_id, not the targets that fall back
        // to an active pane (but those that act on a window too).
        if row_has("pane_id") && row_has("window_id") && !row_has("window_index") {
            for k in PANE_FALLBACKS {
                assert!(!has(k), "{} {k}", t.name);
            }
        }
        if t.name == "search_panes" {
            assert!(has("session_name") && has("session_id") && has("pane_id"));
        }
        assert_eq!(t.title, None, "{}", t.name);
        // Output schemas only for the four objects other results are
        // made of.
        assert_eq!(
            t.output_schema.is_some(),
            matches!(
                t.name.as_ref(),
                "get_pane_info" | "get_window_info" | "get_session_info" | "get_server_info"
            ),
            "{}",
            t.name
        );
        let a = t.annotations.as_ref().expect("annotations");
        let read = toolset_of(&t.name) == Some(Toolset::Inspect);
        assert_eq!(a.read_only_hint, read.then_some(true), "{}", t.name);
    }
    assert!(is_tool("list_panes") && !is_tool("no_such_tool"));
}

/// Every tool's text shape is its reference result's: a string for the
/// tools whose libtmux-mcp result is a `str`, a bare list for the list
/// tools, an object for the rest.
#[test]
fn text_shapes_follow_the_reference() {
    let results = reference_results();
    assert!(results.len() >= 50, "{}", results.len());
    for (name, want) in results {
        let got = match shape_of(name).expect("every tool has a shape") {
            TextShape::String => "string",
            TextShape::List => "list",
            TextShape::Object => "object",
        };
        assert_eq!(got, want, "{name}");
    }
    assert!(shape_of("no_such_tool").is_none());
}

/// The text block of each shape, from a structured result, in both
/// modes; errors keep their message.
#[test]
fn text_blocks() {
    let text_of = |r: &CallToolResult| {
        r.content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
    };
    let pane = json!({"result": "[... truncated 2 lines ...]\nb\n$", "pane_id": "%1",
        "truncated_lines": 2});
    let r = with_text(
        "capture_pane",
        TextMode::Reference,
        structured(pane.clone()),
        &[],
    );
    assert_eq!(
        text_of(&r),
        [
            "[... truncated 2 lines ...]\nb\n$",
            r#"{"truncated_lines":2}"#
        ]
    );
    assert_eq!(r.structured_content.as_ref(), Some(&pane));
    let r = with_text(
        "capture_pane",
        TextMode::Json,
        structured(pane.clone()),
        &[],
    );
    assert_eq!(text_of(&r), [pane.to_string()]);
    let r = with_text(
        "kill_pane",
        TextMode::Reference,
        object(&Sentence::new("Pane killed: %1".into())),
        &[],
    );
    assert_eq!(text_of(&r), ["Pane killed: %1"]);
    let list = json!({"result": [{"session_id": "$0", "session_name": "a"}]});
    let r = with_text("list_sessions", TextMode::Reference, structured(list), &[]);
    assert_eq!(text_of(&r), [r#"[{"session_id":"$0","session_name":"a"}]"#]);
    let e = error_result("no such pane", "NotFound", true, None);
    let r = with_text("capture_pane", TextMode::Reference, e.clone(), &[]);
    assert_eq!(r, e);
}

/// Wrong values a model is likely to send for an argument of each
/// declared type: a word for a number or a flag, a fraction for an
/// integer, an object for a string or a list of strings, a name not
/// in an enum.
fn wrong_values(prop: &Value) -> Vec<Value> {
    let types: Vec<&str> = match (prop.get("type"), prop.get("anyOf")) {
        (Some(Value::String(t)), _) => vec![t.as_str()],
        (_, Some(Value::Array(b))) => b
            .iter()
            .filter_map(|b| b.get("type").and_then(Value::as_str))
            .filter(|t| *t != "null")
            .collect(),
        _ => Vec::new(),
    };
    if prop.get("enum").is_some() {
        return vec![json!("no-such-choice"), json!({"a": 1})];
    }
    match types.as_slice() {
        ["integer"] => vec![json!("abc"), json!(1.5), json!({"a": 1}), json!([1, 2])],
        ["number"] => vec![json!("fast"), json!({"a": 1})],
        ["boolean"] => vec![json!("maybe"), json!(2), json!([true])],
        ["string"] => vec![json!({"a": 1}), json!([1, 2])],
        ["array"] => {
            let objects = prop["items"]["type"] == json!("object");
            if objects {
                vec![json!(5), json!("not a list")]
            } else {
                vec![json!({"a": 1})]
            }
        }
        ["object"] => vec![json!(5), json!("not json")],
        _ => Vec::new(),
    }
}

/// Every argument of every tool, sent with each wrong value a model is
/// likely to send, is refused before anything reaches tmux with one
/// line that names the argument, what was given and the form expected;
/// never a panic or a hang.
#[tokio::test]
async fn every_argument_refuses_wrong_types_naming_itself() {
    let socket = std::env::temp_dir().join(format!("tmuxwire-none-{}/s", std::process::id()));
    let tmux = Arc::new(Server::new(socket, None, crate::tmux::Caller::default()));
    let servers = Servers::new(tmux, crate::tmux::Caller::default());
    let mut checked = 0;
    for d in defs() {
        let Some(Value::Object(props)) = d.input.get("properties") else {
            continue;
        };
        for (arg, prop) in props {
            for wrong in wrong_values(prop) {
                let mut args = Map::new();
                args.insert(arg.clone(), wrong.clone());
                let r = tokio::time::timeout(
                    std::time::Duration::from_secs(10),
                    call(&servers, d.name, args),
                )
                .await
                .unwrap_or_else(|_| panic!("{} {arg}={wrong}: hung", d.name));
                let text = r
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map(|t| t.text.clone())
                    .unwrap_or_default();
                let kind = r.meta.as_ref().and_then(|m| m.0.get("error_type").cloned());
                let line = text.lines().next().unwrap_or("");
                assert!(
                    r.is_error == Some(true)
                        && kind == Some(json!("InvalidArgument"))
                        && line.contains(arg.as_str())
                        && line.contains("received"),
                    "{} {arg}={wrong}: {text:?} ({kind:?})",
                    d.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

/// The forms models send are read as meant: one string for a list of
/// strings, numbers and flags as strings, a JSON list or object in a
/// string, an enum name in another case.
#[test]
fn arguments_as_models_send_them() {
    let schema = schema_for_type::<waits::WaitForTextArgs>();
    let mut a = Map::new();
    a.insert("patterns".into(), json!("ready"));
    a.insert("timeout".into(), json!("2.5"));
    a.insert("regex".into(), json!("false"));
    lenient::coerce(&schema, &mut a).expect("read");
    assert_eq!(a["patterns"], json!(["ready"]));
    assert_eq!(a["timeout"], json!(2.5));
    assert_eq!(a["regex"], json!(false));
    let mut a = Map::new();
    a.insert("patterns".into(), json!("[\"a\", \"b\"]"));
    lenient::coerce(&schema, &mut a).expect("read");
    assert_eq!(a["patterns"], json!(["a", "b"]));
    let e = lenient::coerce(
        &schema,
        &mut Map::from_iter([("patterns".into(), json!({"a": 1}))]),
    )
    .expect_err("an object is no pattern");
    assert!(e.to_string().contains("patterns must be a list"), "{e}");
}

/// `docs/RESULTS.md`'s tool table is [`contract_table`]; with
/// `TMUXWIRE_WRITE_RESULTS=1` the test writes it instead of failing.
#[test]
fn results_doc_is_fresh() {
    const BEGIN: &str =
        "<!-- tools:begin (generated: TMUXWIRE_WRITE_RESULTS=1 cargo test --lib results_doc) -->\n";
    const END: &str = "<!-- tools:end -->";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/RESULTS.md");
    let doc = std::fs::read_to_string(path).expect("docs/RESULTS.md");
    let (head, rest) = doc.split_once(BEGIN).expect("the begin marker");
    let (_, tail) = rest.split_once(END).expect("the end marker");
    let fresh = format!("{head}{BEGIN}{}{END}{tail}", contract_table());
    if std::env::var_os("TMUXWIRE_WRITE_RESULTS").is_some() {
        std::fs::write(path, &fresh).expect("write docs/RESULTS.md");
        return;
    }
    assert!(
        fresh == doc,
        "docs/RESULTS.md is stale: run TMUXWIRE_WRITE_RESULTS=1 cargo test --lib results_doc"
    );
}

#[test]
fn hosts_add_list_hosts_and_a_host_argument() {
    let names = vec!["local".to_string(), "dev".to_string()];
    let plain = catalog_for(&Policy::default());
    let with = catalog_for_hosts(&Policy::default(), Some(&names));
    assert_eq!(with.len(), plain.len() + 1);
    assert!(plain.iter().all(|t| t.name != "list_hosts"));
    for t in &with {
        let host = t.input_schema.get("properties").and_then(|p| p.get("host"));
        let fenced = t
            .input_schema
            .get("properties")
            .and_then(|p| p.get("fenced"));
        assert_eq!(
            fenced.is_some(),
            ["search_panes", "capture_pane", "capture_since"].contains(&&*t.name),
            "{}",
            t.name
        );
        if t.name == "list_hosts" {
            assert!(host.is_none());
        } else {
            assert_eq!(
                host.map(|h| &h["enum"]),
                Some(&json!(["local", "dev"])),
                "{}",
                t.name
            );
        }
    }
}

/// The core toolset: the tools an agent needs most (find, read,
/// type, wait, run, state), and only those.
#[test]
fn core_tools() {
    let env = |k: &str| (k == "TMUXWIRE_TOOLSETS").then(|| "core".to_string());
    let core = Policy::from_env(env, is_tool).expect("core");
    let names: Vec<String> = catalog_for(&core)
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        [
            "list_panes",
            "get_pane_state",
            "list_commands",
            "capture_pane",
            "search_panes",
            "wait_for_text",
            "capture_since",
            "send_keys",
            "run_command"
        ]
    );
    // Every description within the 1 KB a model reads of it.
    for t in catalog() {
        assert!(
            t.description.as_ref().is_some_and(|d| d.len() <= 1024),
            "{}",
            t.name
        );
    }
}

#[test]
fn policy_filters_the_catalog() {
    let all = catalog_for(&Policy::all()).len();
    let default = catalog_for(&Policy::default()).len();
    assert_eq!(all, catalog().len());
    assert_eq!(all - default, 6, "teardown is off by default");
}

/// `host` and `fenced` are read into the typed arguments (every row) and
/// refused as before when of the wrong type: one line naming the
/// argument, what was given and the form expected; `fenced` is an
/// unknown argument of a row that does not answer from the mirror, and
/// neither is listed among the arguments a tool takes (its schema has
/// them only when hosts are configured).
#[tokio::test]
async fn host_and_fenced_are_read_and_checked() {
    let socket = std::env::temp_dir().join(format!("tmuxwire-none-{}/h", std::process::id()));
    let tmux = Arc::new(Server::new(socket, None, crate::tmux::Caller::default()));
    let servers = Servers::new(tmux, crate::tmux::Caller::default());
    let first_line = |r: &CallToolResult| {
        let text = r.content.first().and_then(|c| c.as_text());
        let kind = r.meta.as_ref().and_then(|m| m.0.get("error_type").cloned());
        (text.map(|t| t.text.clone()).unwrap_or_default(), kind)
    };
    for d in defs() {
        assert!(!d.fenced || d.hosted, "{}: fenced but not hosted", d.name);
        let args = |k: &str, v: Value| Map::from_iter([(k.to_string(), v)]);
        let r = call(&servers, d.name, args("host", json!(3))).await;
        let (text, kind) = first_line(&r);
        assert_eq!(
            text,
            "host must be a string (received 3)\nExpected a host name from list_hosts, or \"local\".",
            "{}",
            d.name
        );
        assert_eq!(kind, Some(json!("InvalidArgument")), "{}", d.name);
        let r = call(&servers, d.name, args("fenced", json!([true]))).await;
        let (text, kind) = first_line(&r);
        let want = if d.fenced {
            "fenced must be a boolean (received [true])"
        } else {
            "unknown argument fenced"
        };
        assert!(text.starts_with(want), "{}: {text}", d.name);
        assert!(
            !text.contains(", host") && !text.contains(", fenced"),
            "{}: {text}",
            d.name
        );
        assert_eq!(kind, Some(json!("InvalidArgument")), "{}", d.name);
    }
}

/// A cursor of a remote host names its host: the call runs there, and
/// the cursor is read without it; another host, or a remote host with a
/// cursor of this machine, is refused.
#[test]
fn a_cursor_names_its_host() {
    let mut c = "dev/abc".to_string();
    assert_eq!(
        hosts::cursor_host(None, Some(&mut c)).unwrap(),
        Some("dev".into())
    );
    assert_eq!(c, "abc");
    let mut c = "dev/abc".to_string();
    assert!(hosts::cursor_host(Some("prod".into()), Some(&mut c)).is_err());
    let mut c = "abc".to_string();
    assert!(hosts::cursor_host(Some("dev".into()), Some(&mut c)).is_err());
    assert_eq!(
        hosts::cursor_host(Some("local".into()), Some(&mut c)).unwrap(),
        Some("local".into())
    );
    assert_eq!(hosts::cursor_host(None, None).unwrap(), None);
}
