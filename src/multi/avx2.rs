pub(super) const LANES: usize = 16;
use super::{Ptrs, Soa};
pub(super) unsafe fn compress(_: &mut Soa, _: &Ptrs, _: usize) {
    unimplemented!()
}
