//! tmuxwire's paste buffers: `paste_buffer`, `load_buffer`,
//! `show_buffer`, `delete_buffer`.
//!
//! Buffer names are checked when a request is built: only buffers of
//! tmuxwire's namespace ([`own_buffer`]) may be read, pasted or deleted.
//! tmux's complaint about a missing buffer is classified here, by the
//! operation that named it ([`buffer_error`]).

use schemars::JsonSchema;
use serde::Serialize;

use super::Server;
use super::fit::{Fit, fit_room, json_len};
use super::typing::{Landed, PaneIdRow, pane_id_lookup, paste_text};
use crate::control::buffer::{buffer_encoding, show_commands};
use crate::control::said::{Said, said};
use crate::control::{Command, Target, TargetKind};
use crate::term::keep_tail;
use crate::tmux::input::{self, fill_buffer};
use crate::tmux::keys::check_text;
use crate::tmux::model::is_zero;
use crate::tmux::target::one_record;
use crate::tmux::{Error, ErrorKind, Selector};

crate::fits_whole!(BufferPasted, BufferRef, BufferDeleted);

/// `paste_buffer`: a buffer `load_buffer` made, pasted into a pane (the
/// buffer stays).
#[derive(Clone, Debug)]
pub struct PasteBufferRequest {
    /// The pane.
    pub pane: Selector,
    /// The buffer (tmuxwire's namespace, [`own_buffer`]).
    pub buffer_name: String,
    /// Bracketed paste when the pane's program asked for it.
    pub bracket: bool,
}

impl PasteBufferRequest {
    /// A paste of buffer `buffer_name` into `pane`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] for a buffer outside tmuxwire's
    /// namespace ([`own_buffer`]).
    pub fn new(
        pane: Selector,
        buffer_name: String,
        bracket: bool,
    ) -> Result<PasteBufferRequest, Error> {
        own_buffer(&buffer_name)?;
        Ok(PasteBufferRequest {
            pane,
            buffer_name,
            bracket,
        })
    }
}

/// What `paste_buffer` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BufferPasted {
    /// The buffer pasted.
    pub buffer_name: String,
    /// The pane, `%N`.
    pub pane_id: String,
    /// The mode the pane was in (`copy-mode`, `view-mode`, …) and was
    /// taken out of before the paste (see
    /// [`TypedInto::left_mode`](super::typing::TypedInto::left_mode)); `None`: it was in none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_mode: Option<String>,
}

op!(PasteBufferRequest, BufferPasted, async |req, server, _| {
    own_buffer(&req.buffer_name)?;
    let target = server.pane_target(&req.pane).await?;
    let landed = paste_buffer(server, &target, &req.buffer_name, req.bracket).await?;
    Ok(BufferPasted {
        buffer_name: req.buffer_name,
        pane_id: landed.pane_id,
        left_mode: landed.left_mode,
    })
});

/// `load_buffer`: text put in a new buffer of tmuxwire's namespace.
#[derive(Clone, Debug)]
pub struct LoadBufferRequest {
    /// The text (not empty, no NUL), stored exactly.
    pub content: String,
    /// The name's readable part (1-64 of `A-Z a-z 0-9 _ . -`).
    pub logical_name: String,
}

impl LoadBufferRequest {
    /// A buffer of `content` named after `logical_name` (default `buf`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] for empty content, a NUL byte, or a
    /// bad logical name.
    pub fn new(content: String, logical_name: Option<String>) -> Result<LoadBufferRequest, Error> {
        let logical_name = logical_name.unwrap_or_else(|| "buf".into());
        check_buffer(&content, &logical_name)?;
        Ok(LoadBufferRequest {
            content,
            logical_name,
        })
    }
}

/// What `load_buffer` made (libtmux-mcp `BufferRef`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BufferRef {
    /// The buffer's full name, for `paste_buffer`, `show_buffer` and
    /// `delete_buffer`.
    pub buffer_name: String,
    /// The readable part of it.
    pub logical_name: String,
}

op!(LoadBufferRequest, BufferRef, async |req, server, _| {
    let buffer_name = load_buffer(server, &req.content, &req.logical_name).await?;
    Ok(BufferRef {
        buffer_name,
        logical_name: req.logical_name,
    })
});

/// `show_buffer`: a buffer's exact text, or its newest lines.
#[derive(Clone, Debug)]
pub struct ShowBufferRequest {
    /// The buffer (tmuxwire's namespace, [`own_buffer`]).
    pub buffer_name: String,
    /// Keep the newest this many lines; `None`: all.
    pub max_lines: Option<usize>,
}

impl ShowBufferRequest {
    /// A read of buffer `buffer_name`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] for a buffer outside tmuxwire's
    /// namespace.
    pub fn new(buffer_name: String, max_lines: Option<usize>) -> Result<ShowBufferRequest, Error> {
        own_buffer(&buffer_name)?;
        Ok(ShowBufferRequest {
            buffer_name,
            max_lines,
        })
    }
}

/// `show_buffer`'s answer (libtmux-mcp `BufferContent`): the exact text
/// when whole; else the newest lines kept (joined by `\n`), and what was
/// left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BufferContent {
    /// The buffer.
    pub buffer_name: String,
    /// Its text (invalid UTF-8 replaced).
    pub content: String,
    /// Whether lines or bytes were left out.
    pub content_truncated: bool,
    /// Lines left out (the oldest), for `max_lines` or the response
    /// limit.
    pub content_truncated_lines: usize,
    /// Bytes left out of the oldest line kept, for the response limit.
    #[serde(skip_serializing_if = "is_zero")]
    pub content_truncated_bytes: usize,
    /// The lines `content` holds when it was cut (for [`Fit`]).
    #[serde(skip)]
    lines: Vec<String>,
}

op!(ShowBufferRequest, BufferContent, async |req, server, _| {
    own_buffer(&req.buffer_name)?;
    let bytes = show_buffer(server, &req.buffer_name).await?;
    Ok(buffer_content(req.buffer_name, &bytes, req.max_lines))
});

/// A buffer's bytes as `show_buffer` returns them before any response
/// limit: exact when whole; else the newest `max_lines` lines.
fn buffer_content(buffer_name: String, bytes: &[u8], max_lines: Option<usize>) -> BufferContent {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let cut = keep_tail(&mut lines, max_lines);
    BufferContent {
        buffer_name,
        content: if cut == 0 { text } else { lines.join("\n") },
        content_truncated: cut > 0,
        content_truncated_lines: cut,
        content_truncated_bytes: 0,
        lines,
    }
}

impl Fit for BufferContent {
    /// Keeps the newest lines that fit; when not even the newest line
    /// fits, the end of it (`content_truncated_bytes` says how much of
    /// the text was left out).
    fn fit_to(&mut self, b: usize) {
        let bare = BufferContent {
            buffer_name: self.buffer_name.clone(),
            content: String::new(),
            content_truncated: false,
            content_truncated_lines: 0,
            content_truncated_bytes: 0,
            lines: Vec::new(),
        };
        let room = b.saturating_sub(json_len(&bare) + 64);
        let total: usize = self.lines.iter().map(|l| json_len(l) + 1).sum();
        if total <= room {
            return;
        }
        let (drop, bytes) = fit_room(&mut self.lines, room);
        if drop == 0 && bytes == 0 {
            return;
        }
        self.content = self.lines.join("\n");
        self.content_truncated = true;
        self.content_truncated_lines += drop;
        self.content_truncated_bytes = bytes;
    }
}

/// `delete_buffer`.
#[derive(Clone, Debug)]
pub struct DeleteBufferRequest {
    /// The buffer (tmuxwire's namespace, [`own_buffer`]).
    pub buffer_name: String,
}

impl DeleteBufferRequest {
    /// A deletion of buffer `buffer_name`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] for a buffer outside tmuxwire's
    /// namespace.
    pub fn new(buffer_name: String) -> Result<DeleteBufferRequest, Error> {
        own_buffer(&buffer_name)?;
        Ok(DeleteBufferRequest { buffer_name })
    }
}

/// What `delete_buffer` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BufferDeleted {
    /// The buffer deleted.
    pub buffer_name: String,
}

op!(
    DeleteBufferRequest,
    BufferDeleted,
    async |req, server, _| {
        own_buffer(&req.buffer_name)?;
        delete_buffer(server, &req.buffer_name).await?;
        Ok(BufferDeleted {
            buffer_name: req.buffer_name,
        })
    }
);

/// Only buffers of tmuxwire's namespace may be read, pasted or deleted:
/// the user's own buffers (clipboard history) stay out of reach.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`] for any other name.
pub(super) fn own_buffer(name: &str) -> Result<(), Error> {
    if input::is_own_buffer(name) {
        return Ok(());
    }
    let shown = crate::tmux::error::shorten(name, 80);
    Err(Error::invalid(
        "buffer_name",
        format!("Invalid buffer name: '{shown}'"),
        "a name load_buffer returned (tmuxwire_<32 hex>_<name>)",
    ))
}

/// Checks what `load_buffer` is given: text for a paste buffer
/// ([`check_text`]) and a logical name of 1-64 of `A-Z a-z 0-9 _ . -`.
fn check_buffer(content: &str, logical: &str) -> Result<(), Error> {
    check_text("content", content)?;
    if !input::is_logical_name(logical) {
        return Err(Error::invalid(
            "logical_name",
            "logical_name must be 1-64 of A-Z a-z 0-9 _ . -",
            "a short name such as notes or cmd.1",
        ));
    }
    Ok(())
}

/// Puts `content` in a new paste buffer of tmuxwire's namespace
/// (`tmuxwire_<32 hex>_<logical>`); its name.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for empty content, a NUL byte, or a bad
/// logical name.
pub(super) async fn load_buffer(
    server: &Server,
    content: &str,
    logical: &str,
) -> Result<String, Error> {
    check_buffer(content, logical)?;
    let name = input::new_buffer_name(logical);
    server.act(fill_buffer(&name, content)).await?;
    Ok(name)
}

/// A buffer's exact bytes (read by length: no line of it can end the
/// answer).
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a buffer that does not exist.
pub(super) async fn show_buffer(server: &Server, name: &str) -> Result<Vec<u8>, Error> {
    let encoding = buffer_encoding(&server.version().await?);
    let size = Command::new("list-buffers")
        .opt("-F", "#{buffer_size}")
        .opt("-f", format!("#{{==:#{{buffer_name}},{name}}}"));
    let [show, canary] = show_commands(name, encoding);
    let out = server
        .act(vec![size, show, canary])
        .await
        .map_err(buffer_error)?;
    let size: Option<usize> = String::from_utf8_lossy(&out[0]).trim().parse().ok();
    let mut body = out.into_iter().nth(1).unwrap_or_default();
    // A one-shot client (a server without sessions) prints the bytes
    // with a final line break of its own, and, on tmux >= 3.4, whatever
    // `%s` read past a buffer that fills its evbuffer chain
    // ([`crate::control::parse::Frame::Length`]): the buffer is its first
    // `size` bytes.
    if let Some(n) = size {
        body.truncate(n);
    }
    Ok(body)
}

/// Pastes a buffer into a pane (the buffer stays), the pane's modes left
/// first ([`input::leave_modes`]); the pane id and the mode it left. The
/// program receives what tmux 3.7+ pastes: before 3.7 (whose paste writes
/// a buffer's bytes as they are) the buffer is read first and, when it
/// holds a byte a 3.7 paste would show as `^X`, its text goes as
/// [`paste_text`] pastes it (one more round trip).
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing buffer or pane.
pub(super) async fn paste_buffer(
    server: &Server,
    target: &Target,
    name: &str,
    bracket: bool,
) -> Result<Landed, Error> {
    let sanitizes = server
        .version()
        .await?
        .release()
        .is_some_and(|r| r >= (3, 7));
    if !sanitizes {
        let bytes = show_buffer(server, name).await?;
        let safe = input::paste_safe(&bytes);
        if safe.as_bytes() != bytes.as_slice() {
            return paste_text(server, target, &safe, bracket).await;
        }
    }
    let (lookup, q) = pane_id_lookup(target);
    let mut paste = Command::new("paste-buffer").target(target, TargetKind::Pane);
    if bracket {
        paste = paste.arg("-p");
    }
    let paste = paste.opt("-b", name);
    let leave = input::leave_modes(&target.to_arg(TargetKind::Pane));
    let out = server
        .act(vec![lookup, leave, paste])
        .await
        .map_err(buffer_error)?;
    Ok(PaneIdRow::from_record(&one_record(&q, &out[0], target)?).into())
}

/// Deletes a buffer.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing buffer.
pub(super) async fn delete_buffer(server: &Server, name: &str) -> Result<(), Error> {
    match server
        .act(vec![Command::new("delete-buffer").opt("-b", name)])
        .await
        .map_err(buffer_error)
    {
        Err(e) if e.is(ErrorKind::NoBuffer) => Err(Error::not_found(format!(
            "delete-buffer failed for '{name}': {}",
            e.detail()
        ))),
        other => other.map(drop),
    }
}

/// tmux's answer to a command naming a paste buffer that does not exist
/// (`unknown buffer: NAME` from `show-buffer`/`delete-buffer`, `no buffer
/// NAME` from `paste-buffer`) as [`ErrorKind::NoBuffer`]; other errors as
/// they are.
fn buffer_error(e: Error) -> Error {
    let d = e.detail();
    if e.is(ErrorKind::Tmux) && said(d) == Said::NoBuffer {
        Error::no_buffer(d.to_string())
    } else {
        e
    }
}
