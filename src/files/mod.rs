//! Hashing files.

mod os;

pub use os::{drop_cached, will_need};
