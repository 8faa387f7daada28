//! Helpers shared by the integration tests and benches.

#![allow(dead_code)]

pub mod ik_problems;
