//! The stdio transport: newline-delimited JSON-RPC between an MCP client and
//! rmcp, with [`super::jsonrpc`] checking every line on the way in.
//!
//! Three parts, joined by channels:
//!
//! * a reader task frames stdin ([`Framer`]), classifies each line
//!   ([`classify`]) and either hands the message to rmcp, queues an answer
//!   of its own, or drops it (notifications);
//! * [`LineTransport`], the [`Transport`] rmcp drives: it receives what the
//!   reader forwards and queues rmcp's messages;
//! * a writer task, the only one that touches stdout: it writes each queued
//!   message as one line, whether it came from rmcp or from the reader.
//!
//! Both queues are bounded, so a client that stops reading its answers
//! stops the reader too, rather than growing memory.

use std::io;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::jsonrpc::{Framer, Verdict, classify};
use super::server::TmuxwireServer;

/// How long, after rmcp has stopped, the writer gets to write what is
/// queued (a client that no longer reads must not keep tmuxwire alive).
const FLUSH_DEADLINE: std::time::Duration = std::time::Duration::from_secs(5);

/// Serves `server` over `read`/`write` (stdin/stdout) until the input ends
/// or rmcp stops; lines longer than `max_line` bytes are refused (see
/// [`Framer`]).
///
/// # Errors
///
/// rmcp's, when initialization fails (such as input ending before an
/// `initialize` request) or its service task fails.
pub async fn serve<R, W>(
    server: TmuxwireServer,
    read: R,
    write: W,
    max_line: usize,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>(64);
    let (in_tx, in_rx) = mpsc::channel::<ClientJsonRpcMessage>(16);
    let writer = tokio::spawn(write_lines(write, out_rx));
    let reader = tokio::spawn(read_lines(read, max_line, in_tx, out_tx.clone()));
    let transport = LineTransport {
        incoming: in_rx,
        outgoing: out_tx,
    };
    let result = async {
        let service = server.serve(transport).await?;
        service.waiting().await?;
        Ok(())
    }
    .await;
    // rmcp has stopped and dropped the transport. The reader may still wait
    // for input (when rmcp stopped first); once it is gone, the writer ends
    // after the last queued line.
    reader.abort();
    let _ = reader.await;
    if tokio::time::timeout(FLUSH_DEADLINE, writer).await.is_err() {
        tracing::warn!("stdout: queued messages not written within {FLUSH_DEADLINE:?}");
    }
    result
}

/// The [`Transport`] rmcp drives: messages from the reader task in, rmcp's
/// messages out to the writer task.
pub struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    outgoing: mpsc::Sender<Vec<u8>>,
}

impl Transport<RoleServer> for LineTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let line = encode(&item);
        let outgoing = self.outgoing.clone();
        async move { outgoing.send(line?).await.map_err(|_| stopped()) }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        // Cancel-safe: rmcp polls this inside a `select!`.
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.incoming.close();
        Ok(())
    }
}

fn stopped() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the stdout writer has stopped")
}

/// A message as one line: its JSON and a newline.
fn encode(msg: &impl serde::Serialize) -> io::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(msg)?;
    line.push(b'\n');
    Ok(line)
}

/// Writes each queued line, flushing whenever the queue is empty, until
/// every sender is gone or stdout fails.
async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut lines: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = lines.recv().await {
        let mut result = write.write_all(&line).await;
        if result.is_ok() && lines.is_empty() {
            result = write.flush().await;
        }
        if let Err(e) = result {
            tracing::error!("stdout: {e}; no more messages are written");
            return;
        }
    }
    let _ = write.flush().await;
}

/// Reads lines until the input ends (a last line without a newline
/// included) or nobody listens any more.
async fn read_lines<R: AsyncRead + Unpin>(
    read: R,
    max_line: usize,
    forward: mpsc::Sender<ClientJsonRpcMessage>,
    answers: mpsc::Sender<Vec<u8>>,
) {
    let mut read = BufReader::with_capacity(64 << 10, read);
    let mut framer = Framer::new(max_line);
    let mut gate = Gate::default();
    loop {
        let (line, end) = match read.fill_buf().await {
            Ok([]) => match framer.finish() {
                Some(line) => (line, true),
                None => return,
            },
            Ok(bytes) => {
                let (n, line) = framer.feed(bytes);
                read.consume(n);
                match line {
                    Some(line) => (line, false),
                    None => continue,
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::error!("stdin: {e}");
                return;
            }
        };
        let len = line.len();
        let delivered = match classify(line) {
            Verdict::Forward(msg) => match gate.pass(*msg) {
                Some(msg) => forward.send(msg).await.is_ok(),
                None => true,
            },
            Verdict::Answer(v) => {
                tracing::debug!(len, answer = %v, "stdin: line answered here");
                match encode(&v) {
                    Ok(line) => answers.send(line).await.is_ok(),
                    Err(e) => {
                        tracing::error!("cannot encode an answer: {e}");
                        true
                    }
                }
            }
            Verdict::Ignore(why) => {
                tracing::debug!(len, "stdin: line ignored: {why}");
                true
            }
        };
        if !delivered || end {
            return;
        }
    }
}

/// Holds back notifications and responses until the session has started.
///
/// Before a session starts rmcp takes only requests, and stops serving at
/// the first notification or response; dropping those instead keeps one
/// stray line from ending the session. The session starts with the first
/// request other than `ping` (`initialize`, or a request that carries its
/// protocol version inline).
#[derive(Debug, Default)]
struct Gate {
    open: bool,
}

impl Gate {
    fn pass(&mut self, msg: ClientJsonRpcMessage) -> Option<ClientJsonRpcMessage> {
        match &msg {
            JsonRpcMessage::Request(r) => {
                if !matches!(r.request, ClientRequest::PingRequest(_)) {
                    self.open = true;
                }
                Some(msg)
            }
            _ if self.open => Some(msg),
            _ => {
                tracing::debug!("stdin: dropped before the session started: {msg:?}");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::*;
    use crate::tmux::{Caller, Server, Servers};

    /// A server whose tmux socket does not exist (nothing here needs tmux).
    fn server() -> TmuxwireServer {
        let socket = std::env::temp_dir().join(format!("tmuxwire-none-{}/s", std::process::id()));
        let tmux = Arc::new(Server::new(socket, None, Caller::default()));
        TmuxwireServer::new(Arc::new(Servers::new(tmux, Caller::default())))
    }

    /// Everything written back for `input` (written in one go), in order.
    async fn exchange(input: Vec<u8>, max_line: usize) -> Vec<Value> {
        let (client, server_side) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_side);
        let task = tokio::spawn(serve(server(), read, write, max_line));
        let (client_read, mut client_write) = tokio::io::split(client);
        let writing = tokio::spawn(async move {
            client_write.write_all(&input).await.unwrap();
            client_write.shutdown().await.unwrap();
            client_write
        });
        let mut lines = BufReader::new(client_read).lines();
        let mut out = Vec::new();
        let deadline = Duration::from_secs(15);
        while let Some(line) = tokio::time::timeout(deadline, lines.next_line())
            .await
            .expect("an answer within the deadline")
            .unwrap()
        {
            out.push(serde_json::from_str(&line).unwrap());
        }
        let result = tokio::time::timeout(deadline, task)
            .await
            .expect("serve returns")
            .unwrap();
        assert!(result.is_ok(), "{result:?}");
        drop(writing.await.unwrap());
        out
    }

    fn lines(msgs: &[&[u8]]) -> Vec<u8> {
        msgs.iter()
            .flat_map(|m| m.iter().copied().chain([b'\n']))
            .collect()
    }

    const INIT: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn answers_share_stdout_with_rmcp() {
        let long = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{"x":"{}"}}}}"#,
            "a".repeat(300)
        );
        let input = lines(&[
            br#"{"jsonrpc":"2.0","method":"notifications/stray"}"#,
            INIT,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            b"{oops",
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"no/such"}"#,
            long.as_bytes(),
            br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        ]);
        // The last line has no newline: it is answered too.
        let mut input = input;
        input.extend_from_slice(br#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#);
        let out = exchange(input, 200).await;
        let by_id = |id: Value| -> Vec<&Value> { out.iter().filter(|v| v["id"] == id).collect() };
        assert_eq!(
            by_id(json!(0))[0]["result"]["serverInfo"]["name"],
            "tmuxwire"
        );
        for id in [1, 5, 6] {
            assert_eq!(
                by_id(json!(id)),
                [&json!({"jsonrpc": "2.0", "id": id, "result": {}})]
            );
        }
        assert_eq!(by_id(json!(2))[0]["error"]["code"], -32602);
        assert_eq!(by_id(json!(3))[0]["error"]["code"], -32601);
        assert_eq!(by_id(json!(4))[0]["error"]["code"], -32600);
        let nulls = by_id(Value::Null);
        assert_eq!(nulls.len(), 1, "{out:?}");
        assert_eq!(nulls[0]["error"]["code"], -32700);
        assert_eq!(out.len(), 8, "nothing for the notifications: {out:?}");
    }
}
