//! mcp_e2e tests (to be written).
