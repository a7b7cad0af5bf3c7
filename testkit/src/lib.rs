//! Test support for the packages of this repository: the seeded generator
//! every test and bench draws its input from, known answers, oracles
//! written independently of the code under test, and the one way the tests
//! run a child with given input. Not published.

pub mod backend;
pub mod cpu;
mod differential;
pub mod etag;
mod md5_crate;
pub mod rfc;
mod rng;
pub mod spawn;

pub use rng::Rng;
