//! Test helpers shared by the integration tests (each test crate that includes this module uses
//! part of it).
#![allow(dead_code)]

pub mod oracle;
