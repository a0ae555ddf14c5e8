// One case per escape sequence or text rule, with what tmux shows.
//
// Included (`include!`) by the unit tests in `src/term/tests.rs`, which
// check a `Term` against these expectations, and by `tests/grid_diff.rs`,
// which checks the expectations themselves against the real tmux
// versions, so every expectation here is tmux's own output.
//
// Each entry: (name, versions, width, height, bytes written into the pane,
// rows as `capture-pane -p -S - -E -` prints them (history then screen)
// with the trailing empty rows left out and `\n` between rows, cursor
// (x, y) as `#{cursor_x},#{cursor_y}`). `versions` lists the tmux
// versions the entry holds for (`"3.3a 3.5a"`), `""` for all. The
// history-limit is 100; DEC graphics show as tmux prints them (ASCII).

/// `(name, versions, width, height, bytes, rows, cursor)`.
type Sequence = (&'static str, &'static str, u32, u32, &'static [u8], &'static str, (u32, u32));

const SEQUENCES: &[Sequence] = &[
    // Printing, wrapping, pending wrap.
    ("print", "", 10, 4, b"abc", "abc", (3, 0)),
    ("autowrap", "", 5, 4, b"abcdefg", "abcde\nfg", (2, 1)),
    ("pending_wrap_keeps_x_at_width", "", 5, 4, b"abcde", "abcde", (5, 0)),
    ("pending_wrap_then_cr", "", 5, 4, b"abcde\rX", "Xbcde", (1, 0)),
    ("pending_wrap_then_bs", "", 5, 4, b"abcde\x08X", "abcdX", (5, 0)),
    ("decawm_off_overwrites_last_column", "", 5, 4, b"\x1b[?7labcdefg", "abcdg", (4, 0)),
    ("wide_character_wraps_first", "", 5, 4, "abcd中".as_bytes(), "abcd\n中", (2, 1)),
    ("wide_character_decawm_off_dropped", "", 5, 4, "\x1b[?7labcd中".as_bytes(), "abcd", (4, 0)),
    // Up to 3.5 the wide character stays when its padding is written.
    ("overwrite_wide_character_padding", "3.3a 3.5a", 10, 4, "中\x08x".as_bytes(), "中x", (2, 0)),
    ("overwrite_wide_character_padding", "3.8", 10, 4, "中\x08x".as_bytes(), " x", (2, 0)),
    ("overwrite_wide_character_first_half", "", 10, 4, "中文\x1b[3Gx".as_bytes(), "中x", (3, 0)),
    ("cr_overwrite_progress_c3", "", 20, 4, b"50%\r          \rdone\r\n", "done", (0, 1)),
    ("backspace", "", 10, 4, b"ab\x08\x08X", "Xb", (1, 0)),
    ("backspace_at_column_0", "", 10, 4, b"\x08a", "a", (1, 0)),
    // Tabs: 3.3a/3.5a store spaces, 3.8 a TAB cell printed as `\t`.
    ("tab", "3.3a 3.5a", 20, 4, b"a\tb", "a       b", (9, 0)),
    ("tab", "3.8", 20, 4, b"a\tb", "a\tb", (9, 0)),
    ("tab_over_text_moves_only", "", 20, 4, b"abcdefghij\r\tX", "abcdefghXj", (9, 0)),
    ("tab_to_last_column", "3.3a 3.5a", 10, 4, b"\x1b[3g\tX", "         X", (10, 0)),
    ("tab_to_last_column", "3.8", 10, 4, b"\x1b[3g\tX", "\tX", (10, 0)),
    ("hts_sets_a_stop", "3.3a 3.5a", 20, 4, b"\x1b[4G\x1bH\r\tX", "   X", (4, 0)),
    ("hts_sets_a_stop", "3.8", 20, 4, b"\x1b[4G\x1bH\r\tX", "\tX", (4, 0)),
    ("tbc_clears_one_stop", "3.3a 3.5a", 20, 4, b"\x1b[9G\x1b[g\rX\tY", "X               Y", (17, 0)),
    ("tbc_clears_one_stop", "3.8", 20, 4, b"\x1b[9G\x1b[g\rX\tY", "X\tY", (17, 0)),
    ("cbt_back_tab", "", 20, 4, b"\x1b[15G\x1b[ZX", "        X", (9, 0)),
    // Cursor movement.
    ("cup_cuu_cud_cuf_cub", "", 10, 4, b"\x1b[3;5Ha\x1b[2Ab\x1b[Bc\x1b[3Cd\x1b[6De", "     b\n    e c  d\n    a", (5, 1)),
    ("hvp_cha_hpa_vpa_cnl_cpl", "", 10, 4, b"\x1b[2;3fX\x1b[5GY\x1b[4`Z\x1b[3dW\x1b[EV\x1b[2FU", "\nU XZY\n    W\nV", (1, 1)),
    ("cup_clamped", "", 10, 4, b"\x1b[99;99HX", "\n\n\n         X", (10, 3)),
    ("cuu_stops_at_top", "", 10, 4, b"\x1b[3;1H\x1b[9AX", "X", (1, 0)),
    // Erasing.
    ("ed_below", "", 10, 4, b"abc\r\ndef\r\nghi\x1b[2;2H\x1b[J", "abc\nd", (1, 1)),
    ("ed_above", "", 10, 4, b"abc\r\ndef\r\nghi\x1b[2;2H\x1b[1J", "\n  f\nghi", (1, 1)),
    ("ed_all_moves_screen_to_history", "", 10, 4, b"abc\r\ndef\x1b[2J", "abc\ndef", (3, 1)),
    ("ed_3_clears_history", "", 10, 3, b"a\r\nb\r\nc\r\nd\r\ne\x1b[3J", "c\nd\ne", (1, 2)),
    ("el_right", "", 10, 4, b"abcdef\x1b[3D\x1b[K", "abc", (3, 0)),
    ("el_left", "", 10, 4, b"abcdef\x1b[3D\x1b[1K", "    ef", (3, 0)),
    ("el_all", "", 10, 4, b"abcdef\x1b[3D\x1b[2K", "", (3, 0)),
    ("ech", "", 10, 4, b"abcdef\x1b[3G\x1b[2X", "ab  ef", (2, 0)),
    // Inserting and deleting.
    ("ich", "", 10, 4, b"abcdef\x1b[3G\x1b[2@", "ab  cdef", (2, 0)),
    ("ich_pushes_off_the_edge", "", 6, 4, b"abcdef\x1b[2G\x1b[2@", "a  bcd", (1, 0)),
    ("dch", "", 10, 4, b"abcdef\x1b[3G\x1b[2P", "abef", (2, 0)),
    ("irm_insert_mode", "", 10, 4, b"abcdef\x1b[3G\x1b[4hXY\x1b[4l", "abXYcdef", (4, 0)),
    ("il", "", 10, 4, b"a\r\nb\r\nc\x1b[2;1H\x1b[L", "a\n\nb\nc", (0, 1)),
    ("dl", "", 10, 4, b"a\r\nb\r\nc\x1b[1;1H\x1b[M", "b\nc", (0, 0)),
    // Scroll regions, index, reverse index.
    // With history on, the top row of any scrolled region goes to history
    // (grid.c `grid_scroll_history_region()`), even below row 0.
    ("decstbm_region_top_goes_to_history", "", 10, 4, b"top\x1b[4;1Hbottom\x1b[2;3r\x1b[3;1H1\n2\n3", "\n1\ntop\n 2\n  3\nbottom", (3, 2)),
    ("region_at_top_scrolls_into_history", "", 10, 4, b"\x1b[4;1Hbottom\x1b[1;3r\x1b[3;1H1\r\n2\r\n3", "\n\n1\n2\n3\nbottom", (1, 2)),
    ("ind_ri_nel", "", 10, 4, b"a\x1bDb\x1bMc\x1bEd", "a c\ndb", (1, 1)),
    ("ri_at_top_scrolls_down", "", 10, 4, b"a\r\nb\x1b[H\x1bMX", "X\na\nb", (1, 0)),
    ("lf_vt_ff", "", 10, 4, b"a\x0bb\x0cc\nd", "a\n b\n  c\n   d", (4, 3)),
    ("su", "", 10, 4, b"a\r\nb\r\nc\x1b[S", "a\nb\nc", (1, 2)),
    ("sd", "", 10, 4, b"a\r\nb\x1b[T", "\na\nb", (1, 1)),
    ("origin_mode", "", 10, 4, b"\x1b[2;3r\x1b[?6h\x1b[1;1HX\x1b[9;1HY\x1b[?6l", "\nX\nY", (0, 0)),
    // Saved cursor, resets.
    ("decsc_decrc", "", 10, 4, b"ab\x1b7\x1b[3;3Hx\x1b8c", "abc\n\n  x", (3, 0)),
    ("ris", "", 10, 4, b"abc\r\ndef\x1bcX", "abc\ndef\nX", (1, 0)),
    ("decstr_ignored", "", 10, 4, b"ab\x1b[!pc", "abc", (3, 0)),
    ("decaln", "", 4, 2, b"\x1b#8", "EEEE\nEEEE", (0, 0)),
    // Alternate screen.
    ("alt_1049_on", "", 10, 4, b"main\x1b[?1049halt", "    alt", (7, 0)),
    ("alt_1049_off_restores_cursor", "", 10, 4, b"main\x1b[?1049halt\x1b[2;2H\x1b[?1049l", "main", (4, 0)),
    ("alt_1047_off", "", 10, 4, b"main\x1b[?1047halt\x1b[2;2H\x1b[?1047l", "main", (1, 1)),
    ("alt_47", "", 10, 4, b"main\x1b[?47halt\x1b[2;2H\x1b[?47l", "main", (1, 1)),
    ("alt_has_no_history", "", 10, 2, b"\x1b[?1049ha\r\nb\r\nc", "b\nc", (1, 1)),
    // REP, SGR and strings.
    ("rep", "", 10, 4, b"a\x1b[3b", "aaaa", (4, 0)),
    ("sgr_ignored_for_text", "", 10, 4, b"\x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3mx", "red x", (5, 0)),
    ("osc_dcs_apc_ignored", "", 10, 4, b"a\x1b]0;title\x07b\x1bPq#0\x1b\\c\x1b_apc\x1b\\d\x1bkname\x1b\\e", "abcde", (5, 0)),
    ("can_aborts_escape", "", 10, 4, b"a\x1b[3\x18b", "ab", (2, 0)),
    // DEC special graphics (tmux prints the ASCII letters).
    ("dec_graphics_g0", "", 10, 4, b"\x1b(0lqqk\x1b(Bx", "lqqkx", (5, 0)),
    ("dec_graphics_g1_shift_out", "", 10, 4, b"\x1b)0\x0elqk\x0fq", "lqkq", (4, 0)),
    // Invalid UTF-8 (public case C4): dropped up to 3.5, U+FFFD from 3.6.
    ("invalid_utf8_c4", "3.3a 3.5a", 20, 4, b"CAF\xe9 LATTE\r\n", "CAF LATTE", (0, 1)),
    ("invalid_utf8_c4", "3.8", 20, 4, b"CAF\xe9 LATTE\r\n", "CAF\u{fffd} LATTE", (0, 1)),
    ("lone_continuation_byte", "3.3a 3.5a", 10, 4, b"a\x80b", "ab", (2, 0)),
    ("lone_continuation_byte", "3.8", 10, 4, b"a\x80b", "a\u{fffd}b", (3, 0)),
    // Joining.
    ("combining_mark", "", 10, 4, "e\u{301}x".as_bytes(), "e\u{301}x", (2, 0)),
    ("zwj_sequence", "", 10, 4, "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}x".as_bytes(), "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}x", (3, 0)),
    ("vs16", "3.5a 3.8", 10, 4, "\u{2764}\u{fe0f}x".as_bytes(), "\u{2764}\u{fe0f}x", (3, 0)),
    ("vs16", "3.3a", 10, 4, "\u{2764}\u{fe0f}x".as_bytes(), "\u{2764}\u{fe0f}x", (2, 0)),
    ("skin_tone", "3.5a 3.8", 10, 4, "\u{1f44d}\u{1f3fd}x".as_bytes(), "\u{1f44d}\u{1f3fd}x", (3, 0)),
    ("skin_tone", "3.3a", 10, 4, "\u{1f44d}\u{1f3fd}x".as_bytes(), "\u{1f44d}\u{1f3fd}x", (5, 0)),
    ("flag", "", 10, 4, "\u{1f1eb}\u{1f1f7}x".as_bytes(), "\u{1f1eb}\u{1f1f7}x", (3, 0)),
    // Blank rows down to the cursor (public case C29): capture keeps the
    // interior ones; the cursor row says how far a snapshot reaches.
    ("blank_rows_to_cursor_c29", "", 40, 12, b"top\r\n\r\n\r\n   \r\nbottom\r\n\r\n\r\n", "top\n\n\n\nbottom", (0, 7)),
];
