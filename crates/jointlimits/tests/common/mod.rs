//! Each test crate that includes this module uses part of it.
#![allow(dead_code)]

//! Test helpers shared by the integration tests.

pub mod oracle;
