//! `--redact` (`TMUXWIRE_REDACT=1`) at the MCP boundary: the one place a
//! tool's answer passes before its text block is written
//! ([`tool_result`]), and resources ([`super::resources::read`]).
//!
//! Every string of a result's structured content is masked
//! ([`crate::redact::redact_value`]: pane text, matched lines, command
//! output, a wait's lines, snapshot rows, buffers, titles, paths,
//! environment values), and the count is added as `redacted` (the number
//! of secrets masked) when it is not 0; the text block is then written
//! from the masked result, so both halves say the same. An error's text
//! is masked too. The pane, tmuxwire's copy of it, and what is typed are
//! never changed: only what is returned. Operations are told as well
//! ([`crate::tmux::op::Op::redacting`]): those that find text by a
//! pattern then find no match inside a secret, and captures of rows mask
//! them where the pane's width says which rows a soft wrap cut (a secret
//! over rows), counting them in `redacted` themselves.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// The field of a result that counts the secrets masked in it.
pub const FIELD: &str = "redacted";

/// `r` with every secret in its structured content and its text blocks
/// masked, and `redacted: N` added to an object result when N > 0.
pub fn tool_result(mut r: CallToolResult) -> CallToolResult {
    if let Some(v) = r.structured_content.as_mut() {
        let found = crate::redact::redact_value(v).total();
        if let Value::Object(o) = v {
            // An operation that masked rows itself counted them there.
            let before = o.get(FIELD).and_then(Value::as_u64).unwrap_or(0);
            if found + before > 0 {
                o.insert(FIELD.into(), Value::from(found + before));
            }
        }
    }
    for c in &mut r.content {
        if let ContentBlock::Text(t) = c {
            let (text, counts) = crate::redact::redact(&t.text);
            if !counts.is_empty() {
                t.text = text.into_owned();
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_and_text_are_masked_and_counted() {
        let mut r = CallToolResult::success(Vec::new());
        r.structured_content = Some(json!({
            "result": "$ env\nGITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmnopqr\n$ ",
            "pane_id": "%1"
        }));
        let r = tool_result(r);
        let v = r.structured_content.expect("structured");
        assert_eq!(
            v["result"],
            "$ env\nGITHUB_TOKEN=[REDACTED:github-token]\n$ "
        );
        assert_eq!(v[FIELD], 1);
        let mut clean = CallToolResult::success(Vec::new());
        clean.structured_content = Some(json!({"result": "ls", "pane_id": "%1"}));
        let clean = tool_result(clean);
        assert!(
            clean
                .structured_content
                .expect("structured")
                .get(FIELD)
                .is_none()
        );
        let e = CallToolResult::error(vec![ContentBlock::text("bad: password=hunter2")]);
        let e = tool_result(e);
        assert_eq!(
            e.content[0].as_text().map(|t| t.text.as_str()),
            Some("bad: password=[REDACTED:password]")
        );
    }
}
