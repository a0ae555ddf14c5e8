//! What the waits on one pane share ([`super::text`], [`super::commands`],
//! [`super::stable`]): the [`Op`](super::Op) impl that hands the request
//! to the wait engine ([`crate::tmux::wait::on_pane`]), the ends their
//! outcomes share, and the fields their answers report the wait with.

/// Writes the [`Op`](super::Op) impl of a wait on one pane: the request's
/// `pane` and `timeout` go to [`crate::tmux::wait::on_pane`], which runs
/// `wait(server, pane, &request)` on the pane it resolves. A row:
///
/// `$(#[doc])* Request => Answer by wait; $(extra items of the impl)*`
///
/// The docs go on the impl's `run` (its `# Errors`). A wait's answer is
/// never cut ([`crate::fits_whole`]).
macro_rules! pane_wait {
    ($(#[$doc:meta])* $req:ident => $answer:ident by $wait:ident; $($extra:tt)*) => {
        $crate::fits_whole!($answer);

        impl $crate::tmux::op::Op for $req {
            type Response = $answer;

            $(#[$doc])*
            async fn run(
                self,
                server: &$crate::tmux::op::Server,
                _: $crate::tmux::op::Limit,
            ) -> Result<$answer, $crate::tmux::Error> {
                $crate::tmux::wait::on_pane(server, &self.pane, self.timeout, |pane| {
                    $wait(server, pane, &self)
                })
                .await
            }

            $($extra)*
        }
    };
}
pub(crate) use pane_wait;

/// Writes a wait's outcome enum (serialized in snake_case): its own
/// outcomes as written, then the ends every wait on one pane shares, from
/// the wait engine's [`End`](crate::tmux::wait::End)s, in this order:
/// `password_prompt`, `awaiting_input`, `exited`, `pane_gone`, `timeout`.
macro_rules! wait_outcome {
    ($(#[$m:meta])* $vis:vis enum $name:ident { $($(#[$vm:meta])* $variant:ident,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
        #[serde(rename_all = "snake_case")]
        $vis enum $name {
            $($(#[$vm])* $variant,)*
            /// The program has read a line with echo off for 300 ms.
            PasswordPrompt,
            /// The program has read an echoed line, or waited for a single
            /// key, for 300 ms: `read`, `input()`, `read -n 1`, a y/n
            /// question.
            AwaitingInput,
            /// The pane's program exited (tmux keeps the pane).
            Exited,
            /// The pane is gone.
            PaneGone,
            /// The time ran out.
            Timeout,
        }
    };
}
pub(crate) use wait_outcome;

/// Writes a wait's answer struct with the fields that say how long it
/// waited and how the pane's program ended, in place of the marker
/// `@waited,` among its fields (the other fields as they are written).
macro_rules! waited {
    (@munch $head:tt [$($done:tt)*] @waited, $($rest:tt)*) => {
        $crate::tmux::op::waited::waited!(@munch $head [$($done)*
            /// Seconds waited.
            pub elapsed_seconds: f64,
            /// The timeout applied, in seconds (after clamping to the ceiling).
            pub effective_timeout: f64,
            /// How the pane's program ended, when it did (`pane_exit_status`,
            /// `pane_exit_signal`, `pane_exit_unknown`).
            #[serde(flatten)]
            pub exit: $crate::tmux::wait::Exit,
        ] $($rest)*);
    };
    (@munch $head:tt [$($done:tt)*]
        $(#[$fm:meta])* $fvis:vis $field:ident : $ty:ty, $($rest:tt)*) => {
        $crate::tmux::op::waited::waited!(@munch $head [$($done)*
            $(#[$fm])* $fvis $field: $ty,
        ] $($rest)*);
    };
    (@munch [$($head:tt)*] [$($done:tt)*]) => {
        $($head)* { $($done)* }
    };
    ($(#[$m:meta])* $vis:vis struct $name:ident { $($body:tt)* }) => {
        $crate::tmux::op::waited::waited!(@munch [$(#[$m])* $vis struct $name] [] $($body)*);
    };
}
pub(crate) use waited;
