//! Reading pane text through a paste buffer, framed by its length. Pure.
//!
//! `capture-pane -p` prints a pane's text inside a command block, where a
//! line of pane text equal to the block's closing guard would end the
//! answer early, and tmux 3.2–3.5 never free what it prints to a control
//! client (cmd-capture-pane.c). Capturing into a paste buffer, printing the
//! buffer's size, then the buffer, then deleting it, all on one command
//! line, avoids both: the text is read by its length
//! ([`FrameSpec::LengthOfPrevious`]) and tmux frees everything.

use super::command::{Command, Line};
use super::correlate::FrameSpec;
use super::parse::{Block, Encoding};
use crate::wire::TmuxVersion;

/// How `show-buffer` writes a buffer to a control client: vis(3)-escaped
/// before 3.4 (cmd-save-buffer.c), raw since.
pub fn buffer_encoding(v: &TmuxVersion) -> Encoding {
    if v.at_least(3, 4) {
        Encoding::Raw
    } else {
        Encoding::Vis
    }
}

/// `show-buffer -b name`, read by the size the command before it printed,
/// and the command to put right after it: one that prints a random canary
/// line (`list-buffers -F <canary> -f <name only>`), so that where tmux
/// ≥ 3.4 prints past the buffer's text, the reader knows where tmux's own
/// output resumes ([`super::parse::Frame::Length`]'s `canary`).
pub fn show_commands(name: &str, encoding: Encoding) -> [Command; 2] {
    let canary = format!("tmuxwire-canary-{}", crate::nonce::hex());
    let only = format!("#{{==:#{{buffer_name}},{name}}}");
    let show = Command::new("show-buffer")
        .opt("-b", name.to_string())
        .frame(FrameSpec::LengthOfPrevious(
            encoding,
            Some(canary.clone().into_bytes()),
        ));
    let sing = Command::new("list-buffers")
        .opt("-F", canary)
        .opt("-f", only);
    [show, sing]
}

/// The line that runs `capture` (a `capture-pane -p …`) as a paste-buffer
/// read: `set-buffer -b NAME <EMPTY> ; capture-pane … -b NAME ;
/// list-buffers -F '#{buffer_size}' -f <NAME only> ; show-buffer -b NAME ;
/// list-buffers -F <canary> -f <NAME only> ; delete-buffer -b NAME`
/// ([`show_commands`]).
///
/// One line, so tmux runs the five back to back and nobody sees or
/// pastes the buffer in between; the buffer's size is printed before its
/// text, which is read by length ([`FrameSpec::LengthOfPrevious`]) and so
/// cannot be cut by a line that looks like a block guard. `capture-pane
/// -b` frees everything on every version (3.2–3.5 leak `-p` captures sent
/// by a control client: cmd-capture-pane.c). The name carries a random
/// nonce.
pub fn capture_line(capture: &Command, encoding: Encoding) -> Line {
    Line::list(capture_commands(capture, encoding).to_vec())
}

/// Commands in one paste-buffer read ([`capture_commands`]).
pub const GROUP: usize = 6;

/// The byte a buffer holds before the capture: `capture-pane -b` leaves a
/// buffer untouched when the capture is empty (paste.c: `paste_set()`
/// ignores empty data), so the buffer always exists and `show-buffer`
/// never fails (a failure would end the rest of a longer line). No capture
/// is this one byte: captured rows end in `\n`, and `capture-pane -P`
/// starts with an escape or a character, never a C0 control.
pub const EMPTY: &str = "\u{1}";

/// The commands of [`capture_line`], to put on a longer line: fill the
/// buffer with [`EMPTY`], capture into it, print its size, print it,
/// delete it. Their [`GROUP`] blocks (fewer when the capture failed) give
/// the text with [`captured`].
pub fn capture_commands(capture: &Command, encoding: Encoding) -> [Command; GROUP] {
    let name = format!("tmuxwire-{}", crate::nonce::hex());
    let fill = Command::new("set-buffer")
        .opt("-b", name.clone())
        .arg(EMPTY);
    let mut cap = Command::new("capture-pane");
    for a in capture.argv().iter().skip(1).filter(|a| *a != "-p") {
        cap = cap.arg(a.clone());
    }
    let cap = cap.opt("-b", name.clone());
    let size = Command::new("list-buffers")
        .opt("-F", "#{buffer_size}")
        .opt("-f", format!("#{{==:#{{buffer_name}},{name}}}"));
    let [show, sing] = show_commands(&name, encoding);
    let delete = Command::new("delete-buffer").opt("-b", name);
    [fill, cap, size, show, sing, delete]
}

/// The text the blocks of [`capture_commands`] carry (the bytes
/// `capture-pane -p` would print, plus its final line break), or tmux's
/// error text.
///
/// # Errors
///
/// The failing command's message (`can't find pane: %9`, …), as bytes.
pub fn captured(blocks: Vec<Block>) -> Result<Vec<u8>, Vec<u8>> {
    let no_answer = || b"tmux gave no answer to capture-pane\n".to_vec();
    let mut blocks = blocks.into_iter();
    let fill = blocks.next().ok_or_else(no_answer)?;
    if !fill.ok {
        return Err(fill.body);
    }
    let cap = blocks.next().ok_or_else(no_answer)?;
    if !cap.ok {
        return Err(cap.body);
    }
    let _size = blocks.next().ok_or_else(no_answer)?;
    let show = blocks.next().ok_or_else(no_answer)?;
    if !show.ok {
        return Err(show.body);
    }
    if show.body == EMPTY.as_bytes() {
        return Ok(Vec::new());
    }
    Ok(show.body)
}
