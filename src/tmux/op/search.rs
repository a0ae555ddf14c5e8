//! `search_panes`: matching lines in scrollback and screen.
