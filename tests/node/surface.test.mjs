// tmuxwire mcp as two real clients see it, against a private tmux server:
//
// * the official TypeScript SDK client: tools/list and a call of every tool print no warning
//   (the SDK compiles every output schema and complains about non-standard formats), every
//   result validates against its output schema (the SDK checks), its text block is what
//   libtmux-mcp sends for the structured result (the pane text, a sentence, a bare list, the
//   object), and arguments sent as strings (as the Inspector's forms
//   send them) work, including every field a tool returned, passed back unchanged;
// * the MCP Inspector CLI: `--strict` finds no portability problem in tools/list, and every
//   tool is callable with --tool-arg key=value pairs;
// * the README's Inspector CLI lines, as written (only the socket name and the binary
//   replaced), with the Inspector npx installs on Node 18/20 (0.15.0, whose launcher drops
//   `--`) and the latest (2.12.0, which passes the server no environment but `-e`'s).
//
// Run: npm ci && node --test surface.test.mjs (TMUXWIRE_BIN: the binary; default
// ../../target/debug/tmuxwire; TMUXWIRE_NODE_TMUX: the tmux to run, default tmux).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import {
  chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = dirname(fileURLToPath(import.meta.url));
const BIN = process.env.TMUXWIRE_BIN ?? resolve(here, "../../target/debug/tmuxwire");
const TMUX = process.env.TMUXWIRE_NODE_TMUX ?? "tmux";
const INSPECTOR = join(here, "node_modules/.bin/mcp-inspector");
// The Inspector `npx @modelcontextprotocol/inspector` installs on Node 18 and 20 (the newest
// whose `engines` allow them), under an alias: its launcher, not the 2.x one above.
const INSPECTOR_0_15 = join(here, "node_modules/inspector-0.15.0",
  JSON.parse(readFileSync(join(here, "node_modules/inspector-0.15.0/package.json"), "utf8"))
    .bin["mcp-inspector"]);
// The Inspector CLI lines live in the guide's client section (the README links to it).
const README = resolve(here, "../../docs/GUIDE.md");
// The server runs with the inspect toolset only (the read tools), so every tool listed can be
// called against the shared test server without changing it.
const TOOLSETS = "inspect";
const TOOLS = [
  "list_sessions", "list_windows", "list_panes", "get_server_info", "get_session_info",
  "get_window_info", "get_pane_info", "get_pane_state", "list_commands", "get_command_output",
  "capture_pane", "snapshot_pane", "display_message",
  "search_panes", "list_servers", "show_option", "show_environment", "show_buffer",
  "show_hooks", "show_hook", "find_pane_by_position", "call_read_tools_batch",
  "wait_for_text", "wait_for_command", "wait_for_stable", "poll_events", "capture_since",
];
// A buffer in tmuxwire's namespace (show_buffer reads no other).
const BUFFER = `tmuxwire_${"0123456789abcdef".repeat(2)}_node`;

let dir;
let sock;

/** The environment of every process this test starts: no `TMUX`, and a `TMUX_TMPDIR` of the
 * test's own, so nothing started here (or a `list_servers` scan) reaches the user's servers;
 * and a home of the test's own (`HOME` and the XDG directories in `dir`, no `HISTFILE` or
 * other `…HIST…` variable), so no pane's shell (`sh`, bash where `sh` is bash) or other
 * program keeps history in the user's files. */
function childEnv() {
  const home = join(dir, "home");
  const env = {
    ...process.env, TMUX_TMPDIR: dir, HOME: home, XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"), XDG_STATE_HOME: join(home, ".local/state"),
    XDG_CACHE_HOME: join(home, ".cache"),
  };
  for (const k of ["TMUX", "TMUX_PANE", "TMUXWIRE_SOCKET_NAME", "TMUXWIRE_SOCKET_PATH",
    "LIBTMUX_SOCKET", "LIBTMUX_SOCKET_PATH", "TMUXWIRE_RESPONSE_BUDGET", "TMUXWIRE_JSON_TEXT",
    "TMUXWIRE_PLAIN_TEXT", "TMUXWIRE_TOOLSETS", "ENV", "BASH_ENV", "PROMPT_COMMAND",
    ...Object.keys(env).filter((k) => k.includes("HIST"))]) {
    delete env[k];
  }
  return env;
}

function tmux(...args) {
  return execFileSync(TMUX, ["-S", sock, "-f", "/dev/null", ...args],
    { encoding: "utf8", env: childEnv() });
}

/** Polls `cond` until it returns something truthy, or fails after `ms`. */
async function waitFor(what, cond, ms = 15000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = cond();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

before(async () => {
  assert.ok(existsSync(BIN), `${BIN} missing: run cargo build (or cargo test) first`);
  dir = mkdtempSync(join(tmpdir(), "tmuxwire-node-"));
  mkdirSync(join(dir, "home"), { mode: 0o700 });
  sock = join(dir, "tmux.sock");
  tmux("new-session", "-d", "-s", "nodetest", "-x", "100", "-y", "30", "sh");
  tmux("new-window", "-d", "-t", "=nodetest:1", "sh");
  // A session whose name a JSON parser reads as a number.
  tmux("new-session", "-d", "-s", "2024", "sh");
  tmux("send-keys", "-t", "=nodetest:0", "-l", "printf 'NODE-%s\\n' MARK; seq 1 60");
  tmux("send-keys", "-t", "=nodetest:0", "Enter");
  tmux("set-buffer", "-b", BUFFER, "node buffer");
  await waitFor("the pane's output", () =>
    tmux("capture-pane", "-p", "-t", "=nodetest:0", "-S", "-100").includes("60\n"));
});

after(() => {
  try {
    tmux("kill-server");
  } catch {
    // Already gone.
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Connects the SDK client, recording everything written to the console meanwhile. */
async function connect(console_lines) {
  for (const k of ["warn", "error", "log", "info", "debug"]) {
    const orig = console[k];
    console[k] = (...a) => {
      console_lines.push(`${k}: ${a.join(" ")}`);
      orig(...a);
    };
  }
  const env = { ...childEnv(), TMUXWIRE_TOOLSETS: TOOLSETS };
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["-S", sock, "mcp"],
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "tmuxwire-node-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** Every value of `args` as a string, as a form-based client sends them. */
function strings(args) {
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [k, typeof v === "object" ? v : String(v)]),
  );
}

// The read tools whose libtmux-mcp result is a string (the text block is `result`) or a list
// (the text block is the bare `result` list); the others send the object.
const STRING_TOOLS = ["capture_pane", "display_message"];
const LIST_TOOLS = ["list_sessions", "list_windows", "list_panes", "list_servers"];

/** Checks that result `r` of tool `name` has libtmux-mcp's text for its structured result as
 * its first text block, and for a string or list result at most a second one: a JSON object of
 * the structured fields the first lacks (a cut's `next`, a list's `omitted`), each as sent. */
function checkText(name, r) {
  const s = r.structuredContent;
  const bare = STRING_TOOLS.includes(name) || LIST_TOOLS.includes(name);
  assert.ok(r.content.length === 1 || (bare && r.content.length === 2), `${name}: text blocks`);
  if (r.content.length === 2) {
    const note = JSON.parse(r.content[1].text);
    assert.ok(Object.keys(note).length > 0 && !("result" in note), `${name}: ${r.content[1].text}`);
    for (const [k, v] of Object.entries(note)) {
      assert.deepEqual(v, s[k], `${name}: the second block's ${k}`);
    }
  }
  const text = r.content[0].text;
  if (STRING_TOOLS.includes(name)) {
    assert.equal(text, s.result, `${name}: text = result`);
  } else if (LIST_TOOLS.includes(name)) {
    assert.ok(text.startsWith("["), `${name}: a bare list: ${text}`);
    assert.deepEqual(JSON.parse(text), s.result, `${name}: text = result`);
  } else {
    const v = JSON.parse(text);
    if (name === "snapshot_pane") {
      // libtmux-mcp's types: numbers in the text, strings in structuredContent.
      for (const k of ["pane_width", "pane_height"]) {
        assert.equal(typeof v[k], "number", `${name}: ${k}`);
        v[k] = String(v[k]);
      }
    }
    assert.deepEqual(v, s, `${name}: text = structured`);
  }
}

/** Calls a tool that must succeed; checks the text block against the structured result. */
async function ok(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  const text = r.content?.[0]?.text;
  assert.notEqual(r.isError, true, `${name} ${JSON.stringify(args)}: ${text}`);
  checkText(name, r);
  return r.structuredContent;
}

test("the TypeScript SDK client: no warning, every tool, arguments as strings", async () => {
  const lines = [];
  const client = await connect(lines);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), TOOLS);
    for (const t of tools) {
      // An output schema only for the four objects other results are made of; the SDK
      // checks structuredContent against it.
      const described = /^get_(pane|window|session|server)_info$/.test(t.name);
      assert.equal(t.outputSchema?.type, described ? "object" : undefined, `${t.name}: output schema`);
    }

    const sessions = (await ok(client, "list_sessions", {})).result;
    const s = sessions.find((x) => x.session_name === "nodetest");
    assert.ok(s, JSON.stringify(sessions));
    assert.equal(s.session_attached, "0");
    const windows = (await ok(client, "list_windows", strings({ session_id: s.session_id }))).result;
    assert.equal(windows.length, 2);
    const w = windows[0];
    // Every field goes back unchanged: window_index is "0" in results.
    const wi = await ok(client, "get_window_info", {
      session_name: w.session_name,
      window_index: w.window_index,
    });
    assert.equal(wi.window_id, w.window_id);
    const panes = (await ok(client, "list_panes", {
      session_id: w.session_id,
      window_index: w.window_index,
    })).result;
    const p = panes[0];
    const pi = await ok(client, "get_pane_info", {
      pane_id: p.pane_id,
      window_id: p.window_id,
      session_id: p.session_id,
      session_name: p.session_name,
    });
    assert.equal(pi.pane_width, p.pane_width);
    const st = await ok(client, "get_pane_state", { pane_id: p.pane_id });
    assert.equal(st.pane_id, p.pane_id);
    assert.equal(typeof st.input, "string", JSON.stringify(st));
    const cmds = await ok(client, "list_commands", { pane_id: p.pane_id, limit: "5" });
    assert.equal(cmds.pane_id, p.pane_id);
    assert.ok(Array.isArray(cmds.commands), JSON.stringify(cmds));
    // No shell integration in this pane: a NotFound that says why, arguments as strings.
    const out = await client.callTool({
      name: "get_command_output",
      arguments: { pane_id: p.pane_id, index: "-1", tail: "3" },
    });
    assert.equal(out.isError, true, JSON.stringify(out));
    assert.equal(out._meta?.error_type, "NotFound", JSON.stringify(out));
    assert.match(out.content[0].text, /no command marks/, JSON.stringify(out));
    const server = await ok(client, "get_server_info", {});
    assert.equal(server.is_alive, true);
    await ok(client, "get_session_info", { session_name: s.session_name });
    // A string argument given as a number (as a JSON-parsing client sends "2024").
    await ok(client, "get_session_info", { session_name: 2024 });

    const cap = await ok(client, "capture_pane", strings({
      pane_id: p.pane_id, start: -100, end: 29, max_lines: 5, join_wrapped: false,
    }));
    assert.equal(cap.lines, 5);
    assert.ok(cap.truncated_lines > 0, JSON.stringify(cap));
    // next: the arguments that return the lines cut, passed back as strings too.
    const older = await ok(client, "capture_pane", strings(cap.next));
    assert.ok(older.result.length > 0);
    const joined = await ok(client, "capture_pane", strings({
      pane_id: p.pane_id, join_wrapped: true, max_lines: "null",
    }));
    // Nothing cut: truncated_lines (0) is left out.
    assert.equal(joined.truncated_lines, undefined);

    const snap = await ok(client, "snapshot_pane", strings({ pane_id: p.pane_id, max_lines: 3 }));
    assert.equal(snap.pane_width, p.pane_width, "one type per field");
    assert.equal(snap.content_truncated, true);
    await ok(client, "capture_pane", snap.next);

    const d = await ok(client, "display_message", strings({
      pane_id: p.pane_id, format_string: "#{session_attached} #{pane_id}",
    }));
    assert.equal(d.result, `0 ${p.pane_id}`);

    const found = await ok(client, "search_panes", strings({
      pattern: "NODE-MARK", regex: false, match_case: true, limit: 10, offset: 0,
      max_matched_lines_per_pane: 5, session_id: s.session_id,
    }));
    assert.equal(found.total_panes_matched, 1, JSON.stringify(found));
    const line = found.matches[0].matched_line_numbers.at(-1);
    const at = await ok(client, "capture_pane", { pane_id: p.pane_id, start: line, end: line });
    assert.equal(at.result, "NODE-MARK");

    // A value that is not an integer: a tool error naming the argument.
    const bad = await client.callTool({ name: "capture_pane", arguments: { start: "1.5" } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /^start must be an integer/);
  } finally {
    await client.close();
  }
  assert.deepEqual(lines, [], "the SDK printed nothing");
});

const run = promisify(execFile);

/** `mcp-inspector --cli ... -- tmuxwire mcp`: its JSON answer. */
async function inspector(args, { toolError = false } = {}) {
  let out;
  try {
    out = await run(
      INSPECTOR,
      ["--cli", "--format", "json", "-e", `TMUXWIRE_SOCKET_PATH=${sock}`, "-e",
        `TMUXWIRE_TOOLSETS=${TOOLSETS}`, "-e", `TMUX_TMPDIR=${dir}`, ...args, "--", BIN, "mcp"],
      { encoding: "utf8", maxBuffer: 64 << 20, env: childEnv() },
    );
  } catch (e) {
    // A tool error makes the Inspector exit non-zero, with its JSON on stdout.
    if (!toolError || typeof e.stdout !== "string") throw e;
    out = e;
  }
  return { answer: JSON.parse(out.stdout), stderr: out.stderr };
}

test("the MCP Inspector CLI: --strict finds nothing, every tool takes --tool-arg pairs", async () => {
  const { answer, stderr } = await inspector(["--strict", "--method", "tools/list"]);
  assert.deepEqual(answer.result.tools.map((t) => t.name), TOOLS);
  assert.doesNotMatch(stderr, /Warning|Error|problem/i, stderr);

  const pane = tmux("display-message", "-p", "-t", "=nodetest:0", "#{pane_id}").trim();
  const session = tmux("display-message", "-p", "-t", "=nodetest:0", "#{session_id}").trim();
  const calls = [
    ["list_sessions", [`filters={"session_name__contains":"node"}`]],
    ["list_windows", ["session_name=nodetest"]],
    ["list_panes", ["session_name=nodetest", "window_index=1"]],
    ["get_server_info", []],
    ["get_session_info", ["session_name=2024"]],
    ["get_window_info", [`session_id=${session}`, "window_index=0"]],
    ["get_pane_info", [`pane_id=${pane}`]],
    ["get_pane_state", [`pane_id=${pane}`]],
    ["list_commands", [`pane_id=${pane}`, "limit=5"]],
    // The pane's shell has no integration: a clear NotFound, arguments taken as strings.
    ["get_command_output", [`pane_id=${pane}`, "index=-1", "tail=3", "grep=x", "context=1"]],
    ["capture_pane", [`pane_id=${pane}`, "start=-10", "end=29", "max_lines=3", "join_wrapped=true",
      "grep=NODE", "context=1", "head=5"]],
    ["snapshot_pane", [`pane_id=${pane}`, "max_lines=null"]],
    ["display_message", [`pane_id=${pane}`, "format_string=#{session_attached}"]],
    ["search_panes", ["pattern=NODE-MARK", "regex=false", "match_case=true", "limit=5",
      "offset=0", "max_matched_lines_per_pane=2", "session_name=nodetest", `pane_id=${pane}`]],
    ["list_servers", [`extra_socket_paths=["${sock}"]`]],
    ["show_option", ["option=history-limit", "global_=true"]],
    ["show_environment", ["session_name=nodetest"]],
    ["show_buffer", [`buffer_name=${BUFFER}`, "max_lines=10"]],
    ["show_hooks", ["scope=server"]],
    ["show_hook", ["hook_name=after-new-window", "global_=true"]],
    ["find_pane_by_position", ["session_name=nodetest", "corner=top-left"]],
    ["call_read_tools_batch", ['operations=[{"tool":"list_sessions"}]', "on_error=continue"]],
    ["wait_for_text", [`pane_id=${pane}`, 'patterns=["never-printed"]', "timeout=0.2",
      "interval=0.5", "regex=false"]],
    ["wait_for_command", [`pane_id=${pane}`, "timeout=0.2"]],
    ["wait_for_stable", [`pane_id=${pane}`, "stable_ms=100", "timeout=10", "mask_rows=[-1]"]],
    ["poll_events", [`panes=["${pane}"]`, 'kinds=["command_finished"]', "timeout=0.2"]],
    ["capture_since", [`pane_id=${pane}`, "max_lines=5", "max_bytes=null", "tail=2"]],
  ];
  assert.deepEqual(calls.map(([n]) => n), TOOLS);
  // A few at a time: each run starts node and tmuxwire.
  const results = [];
  for (let i = 0; i < calls.length; i += 4) {
    results.push(...await Promise.all(calls.slice(i, i + 4).map(async ([name, pairs]) => {
      const args = ["--method", "tools/call", "--tool-name", name];
      for (const kv of pairs) args.push("--tool-arg", kv);
      const toolError = name === "get_command_output";
      return [name, (await inspector(args, { toolError })).answer];
    })));
  }
  for (const [name, answer] of results) {
    if (name === "get_command_output") {
      assert.equal(answer.result?.isError, true, `${name}: ${JSON.stringify(answer)}`);
      assert.equal(answer.result._meta.error_type, "NotFound", JSON.stringify(answer));
      assert.match(answer.result._meta.suggestion, /list_commands/, JSON.stringify(answer));
      continue;
    }
    const r = answer.result;
    assert.ok(r, `${name}: ${JSON.stringify(answer)}`);
    assert.equal(r.isError, false, `${name}: ${JSON.stringify(r)}`);
    checkText(name, r);
  }
  const by = Object.fromEntries(results.map(([n, a]) => [n, a.result?.structuredContent]));
  assert.equal(by.list_commands.marks, "absent");
  assert.equal(by.wait_for_command.outcome, "timeout");
  assert.equal(by.wait_for_command.marks, "absent");
  assert.equal(by.wait_for_stable.outcome, "stable");
  assert.equal(by.get_session_info.session_name, "2024");
  // Shaped: at most max_lines of the lines grep kept, the others counted.
  assert.ok(by.capture_pane.lines <= 3 && by.capture_pane.lines_omitted > 0, JSON.stringify(by.capture_pane));
  assert.equal(by.display_message.result, "0");
  assert.equal(by.search_panes.total_panes_matched, 1);
  assert.equal(by.show_option.value, 2000);
  assert.equal(by.show_buffer.content, "node buffer");
  assert.equal(by.call_read_tools_batch.succeeded, 1);
  assert.equal(by.wait_for_text.outcome, "timeout");
  assert.equal(by.wait_for_text.effective_timeout, 0.2);
  assert.match(by.capture_since.cursor, /^tmuxwire-cursor-v1\./);
  assert.ok(Array.isArray(by.poll_events.events), JSON.stringify(by.poll_events));
  assert.equal(typeof by.poll_events.cursor, "string", JSON.stringify(by.poll_events));
});

/** The Inspector CLI lines of the README's client section (`npx @modelcontextprotocol/inspector
 * --cli ...` in its `sh` blocks), each split into words; they use no shell quoting. */
function readmeInspectorLines() {
  const text = readFileSync(README, "utf8");
  const from = text.indexOf("## Use it from an MCP client");
  const to = text.indexOf("\n## ", from + 1);
  assert.ok(from >= 0 && to > from, "README: no client section");
  const lines = [];
  for (const [, block] of text.slice(from, to).matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block.split("\n")) {
      const line = raw.replace(/\s+#\s.*$/, "").trim();
      if (!line.startsWith("npx @modelcontextprotocol/inspector --cli ")) continue;
      assert.doesNotMatch(line, /["'`$\\;|&<>()]/, `README line needs a shell: ${line}`);
      lines.push(line.split(/\s+/));
    }
  }
  return lines;
}

test("the README's Inspector CLI lines, with Inspector 0.15.0 and 2.12.0", async () => {
  const lines = readmeInspectorLines();
  assert.ok(lines.length >= 4, `README: ${lines.length} Inspector CLI lines`);
  // The README names the server `work`: here a fresh server of the test's own, in its own
  // TMUX_TMPDIR, so that its first pane is the README's %0.
  const name = `tmuxwire-test-${process.pid}-${Date.now()}`;
  const env = { ...childEnv(), TMUX_TMPDIR: dir };
  const tmuxL = (...args) => execFileSync(TMUX, ["-L", name, "-f", "/dev/null", ...args],
    { encoding: "utf8", env });
  // The README's `tmuxwire`: runs tmuxwire only when the socket the line names reached it (as
  // -L NAME or TMUXWIRE_SOCKET_NAME), so that a client which lost it fails here instead of
  // reaching the default server; TMUX_TMPDIR is set again because 2.x drops it.
  assert.doesNotMatch(BIN + dir, /'/);
  const wrapper = join(dir, "tmuxwire");
  writeFileSync(wrapper, [
    "#!/bin/sh",
    "ok=",
    `[ "$TMUXWIRE_SOCKET_NAME" = '${name}' ] && ok=1`,
    "prev=",
    `for a in "$@"; do [ "$prev" = -L ] && [ "$a" = '${name}' ] && ok=1; prev=$a; done`,
    '[ -n "$ok" ] || { echo "tmuxwire: the socket did not arrive: $*" >&2; exit 97; }',
    `TMUX_TMPDIR='${dir}' exec '${BIN}' "$@"`,
    "",
  ].join("\n"));
  chmodSync(wrapper, 0o755);
  tmuxL("new-session", "-d", "-s", "readme", "-x", "100", "-y", "30", "sh");
  try {
    tmuxL("send-keys", "-t", "=readme:0", "-l", "printf '%s: README-MARK\\n' error");
    tmuxL("send-keys", "-t", "=readme:0", "Enter");
    await waitFor("the pane's output", () =>
      tmuxL("capture-pane", "-p", "-t", "=readme:0").includes("\nerror: README-MARK"));
    assert.equal(tmuxL("display-message", "-p", "-t", "=readme:0", "#{pane_id}").trim(), "%0");

    const runs = [];
    for (const [version, launcher] of [["0.15.0", INSPECTOR_0_15], ["2.12.0", INSPECTOR]]) {
      for (const words of lines) {
        assert.deepEqual(words.slice(0, 3), ["npx", "@modelcontextprotocol/inspector", "--cli"]);
        const args = words.slice(2).map((w) => w === "tmuxwire" ? wrapper
          : w === "work" ? name : w.replace(/=work$/, `=${name}`));
        runs.push({ version, line: words.join(" "), launcher, args });
      }
    }
    const results = [];
    for (let i = 0; i < runs.length; i += 4) {
      results.push(...await Promise.all(runs.slice(i, i + 4).map(async (r) => {
        const { stdout } = await run(process.execPath, [r.launcher, ...r.args],
          { encoding: "utf8", maxBuffer: 64 << 20, env: childEnv() }).catch((e) => {
          throw new Error(`Inspector ${r.version}: ${r.line}: ${e.stderr || e.message}`);
        });
        return { ...r, answer: JSON.parse(stdout.slice(stdout.indexOf("{"))) };
      })));
    }
    for (const { version, line, args, answer } of results) {
      const what = `Inspector ${version}: ${line}: ${JSON.stringify(answer).slice(0, 500)}`;
      const method = args[args.indexOf("--method") + 1];
      if (method === "tools/list") {
        const names = answer.tools.map((t) => t.name);
        assert.ok(names.includes("capture_pane") && names.includes("search_panes"), what);
      } else {
        assert.equal(method, "tools/call", what);
        assert.equal(answer.isError, false, what);
        const tool = args[args.indexOf("--tool-name") + 1];
        const s = answer.structuredContent;
        if (tool === "capture_pane") {
          assert.match(s.result, /^error: README-MARK$/m, what);
        } else if (tool === "search_panes") {
          assert.ok(s.matches[0].matched_lines.includes("error: README-MARK"), what);
        }
      }
    }
  } finally {
    try {
      tmuxL("kill-server");
    } catch {
      // Already gone.
    }
  }
});
