//! The MCP server: libtmux-mcp's tools, all 54 of them (same names,
//! arguments and result fields), over tmuxwire's direct tmux connection,
//! served on stdio with rmcp.
//!
//! * [`tools`]: the tool catalog and what each tool does, one file per
//!   toolset; [`toolsets`]: which tools a server offers.
//! * [`resources`]: the six `tmux://` resource templates and completion;
//!   [`prompts`]: the four prompts.
//! * [`args`]: argument types, defaults, checks and lenient reading.
//! * [`schema`]: the JSON Schemas clients see, tidied.
//! * [`budget`]: the response budget every answer fits.
//! * [`redaction`]: `--redact`, secrets masked in every answer.
//! * [`text`]: the text block of each result (libtmux-mcp's, by default).
//! * [`jsonrpc`]: the checks every input line passes before rmcp sees it
//!   (limits, encoding, batches, JSON-RPC errors answered here).
//! * [`server`]: [`TmuxwireServer`], the rmcp handler, and
//!   [`serve_stdio`].
//! * [`stdio`]: the stdio transport: reader, rmcp, one stdout writer.
//!
//! Results: every result is one JSON object, sent as `structuredContent`
//! (lists are `{"result": [...]}`); its text block is what libtmux-mcp
//! sends for it (the pane text, a sentence, a bare list, an object in the
//! reference's field order; see [`text`]), or with `--json-text` the
//! result serialized. Each
//! answer fits the response budget ([`budget`]; 1 MiB of text by default)
//! and says what it cut to fit. Failures are tool results with `isError: true`, a
//! message a model can act on, and `_meta` `{error_type, expected,
//! suggestion}`; only a message that is not a usable JSON-RPC request
//! becomes a JSON-RPC error (for example `-32602` for a `tools/call` with
//! non-object `arguments`; see [`jsonrpc`]). Logs go to stderr only.

pub mod args;
pub mod budget;
pub mod errors;
mod framing;
pub mod jsonrpc;
pub mod lenient;
pub mod prompts;
pub mod push;
pub mod redaction;
pub mod resources;
pub mod schema;
pub mod server;
pub mod stdio;
pub mod targeting;
pub mod text;
pub mod tools;
pub mod toolsets;

pub use server::{INSTRUCTIONS, TmuxwireServer, instructions, serve_stdio};
