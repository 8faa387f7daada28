//! Test helpers shared by the integration tests.

pub mod oracle;
