//! Input and buffers: `send_keys`, `send_keys_batch`, `paste_text`, `paste_buffer`, `load_buffer`, `show_buffer`, `delete_buffer`.
