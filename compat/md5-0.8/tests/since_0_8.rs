//! What md5 0.8 added to the API of 0.7, against upstream md5 0.8.1:
//! `Default` for `Context`, and `finalize`, with `compute` kept as a
//! deprecated name for it.

use md5x_testkit::Rng;

#[test]
fn default_context_and_deprecated_compute() {
    let msg = Rng(0x0123_4567_89ab_cdef).bytes(4097);
    for len in [0, 1, 63, 64, 65, 1000, 4097] {
        let (mut ours, mut theirs) = (md5::Context::default(), upstream::Context::default());
        ours.consume(&msg[..len]);
        theirs.consume(&msg[..len]);
        let want = theirs.finalize().0;
        #[allow(deprecated)]
        let compute = ours.clone().compute().0;
        assert_eq!(compute, want, "{len} bytes, compute");
        assert_eq!(ours.finalize().0, want, "{len} bytes, finalize");
    }
}

/// The deprecation a caller of `compute` sees names it as md5 0.8.1's does:
/// rustc prints the path that `type_name` gives.
#[test]
fn deprecated_compute_has_upstreams_path() {
    #[allow(deprecated)]
    let (ours, theirs) = (
        std::any::type_name_of_val(&md5::Context::compute),
        std::any::type_name_of_val(&upstream::Context::compute),
    );
    assert_eq!(ours, theirs);
    assert_eq!(ours, "md5::Context::compute");
}
