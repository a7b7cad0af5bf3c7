//! Differential tests against the crates.io release this package replaces
//! (`upstream`: md5 0.7.0 or 0.8.1; `compat/md5-0.7/tests/upstream.rs` is a
//! link to this file, and `common/release.rs` names what the two spell
//! differently): digests of seeded random inputs fed in random
//! pieces, formatting, conversions, and the set of traits each public type
//! implements.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

#[path = "common/release.rs"]
mod release;
#[path = "common/rng.rs"]
mod rng;
use release::{finish, finish_paths};
use rng::Rng;

/// Lengths 0..=300 (every padding edge up to four blocks) and random ones
/// up to 20,000 bytes, each cut at random split points.
#[test]
fn random_inputs_and_split_points() {
    let mut rng = Rng(0x6d35_2d30_2e38_0001);
    let lens = (0..=300).chain((0..300).map(|_| rng.below(20_001)));
    for len in lens.collect::<Vec<_>>() {
        let msg = rng.bytes(len);
        let want = upstream::compute(&msg);
        assert_eq!(md5::compute(&msg).0, want.0, "{len} bytes");

        let mut ours = md5::Context::new();
        let mut theirs = upstream::Context::new();
        let mut rest = &msg[..];
        while !rest.is_empty() {
            // Mostly short pieces, so that many land inside one block.
            let cap = if rng.below(4) == 0 { rest.len() } else { 70 };
            let (piece, tail) = rest.split_at(rng.below(cap.min(rest.len()) + 1));
            ours.consume(piece);
            theirs.consume(piece);
            rest = tail;
            if rng.below(8) == 0 {
                // A clone mid-stream finishes as the original would.
                assert_eq!(finish!(ours.clone()).0, finish!(theirs.clone()).0);
            }
        }
        assert_eq!(finish!(ours).0, want.0, "{len} bytes, in pieces");
    }
}

/// The API's functions have upstream's paths, which rustc prints in its
/// messages about them (a deprecation, a wrong argument): an impl outside
/// the module of its type would print as `md5::module::<impl ..>::f`.
#[test]
fn paths_match() {
    use std::any::type_name_of_val as name;
    let pairs = [
        (
            name(&md5::compute::<&[u8]>),
            name(&upstream::compute::<&[u8]>),
        ),
        (name(&md5::Context::new), name(&upstream::Context::new)),
        (
            name(&md5::Context::consume::<&[u8]>),
            name(&upstream::Context::consume::<&[u8]>),
        ),
        finish_paths().into(),
    ];
    for (ours, theirs) in pairs {
        assert_eq!(ours, theirs);
        assert!(!ours.contains("impl"), "{ours}");
    }
}

#[cfg(feature = "std")]
#[test]
fn io_write_and_conversions_match() {
    use std::io::Write;
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for len in [0, 1, 63, 64, 65, 1000, 4097] {
        let msg = rng.bytes(len);
        let mut ours = md5::Context::new();
        let mut theirs = upstream::Context::new();
        for piece in msg.chunks(17) {
            assert_eq!(ours.write(piece).unwrap(), piece.len());
            assert_eq!(theirs.write(piece).unwrap(), piece.len());
        }
        ours.flush().unwrap();
        let (ours, theirs) = (md5::Digest::from(ours), upstream::Digest::from(theirs));
        assert_eq!(<[u8; 16]>::from(ours), <[u8; 16]>::from(theirs));
    }
}

#[test]
fn formatting_matches() {
    let ours = md5::compute(b"formatting");
    let theirs = upstream::compute(b"formatting");
    // Width, fill, `#` and `+` are ignored by both.
    macro_rules! same {
        ($($fmt:literal),*) => {$(
            assert_eq!(format!($fmt, ours), format!($fmt, theirs), "{}", $fmt);
        )*};
    }
    same!(
        "{:x}", "{:X}", "{:?}", "{:#x}", "{:#X}", "{:#?}", "{:>40x}", "{:<40X}", "{:*^40?}",
        "{:08x}"
    );
}

#[test]
fn digest_behaves_the_same() {
    let (a, b) = (md5::compute(b"a"), md5::compute(b"b"));
    let (ua, ub) = (upstream::compute(b"a"), upstream::compute(b"b"));
    let hash = |h: &dyn Fn(&mut DefaultHasher)| {
        let mut s = DefaultHasher::new();
        h(&mut s);
        s.finish()
    };
    assert_eq!(hash(&|s| a.hash(s)), hash(&|s| ua.hash(s)));
    assert_eq!(a == b, ua == ub);
    assert_eq!(a == a, ua == ua);
    let mut m = md5::Digest([7; 16]);
    m[3] = 1;
    m.0[4] = 2;
    assert_eq!(*m, [7, 7, 7, 1, 2, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]);
}

/// `implements!(T: Trait)` is true when `T` implements `Trait`: a probe's
/// inherent constant, which exists only under the bound, shadows the
/// blanket trait constant.
macro_rules! implements {
    ($t:ty: $($bound:tt)+) => {{
        #[allow(dead_code)]
        trait Fallback {
            const YES: bool = false;
        }
        struct Probe<T: ?Sized>(std::marker::PhantomData<T>);
        impl<T: ?Sized> Fallback for Probe<T> {}
        #[allow(dead_code)]
        impl<T: ?Sized + $($bound)+> Probe<T> {
            const YES: bool = true;
        }
        <Probe<$t>>::YES
    }};
}

/// Both crates' types implement the same traits, out of a wide list.
#[cfg(feature = "std")]
macro_rules! same_traits {
    ($ours:ty, $theirs:ty, [$($name:literal: ($($bound:tt)+)),* $(,)?]) => {{
        let mut set = Vec::new();
        $(
            let (o, t) = (implements!($ours: $($bound)+), implements!($theirs: $($bound)+));
            assert_eq!(o, t, "{} implements {}: ours {o}, upstream {t}", stringify!($ours), $name);
            if o {
                set.push($name);
            }
        )*
        set
    }};
}

/// Upstream is built with `std` here, so this compares the `std` builds.
#[cfg(feature = "std")]
#[test]
fn public_types_implement_the_same_traits() {
    use std::fmt::{Debug, Display, LowerHex, UpperHex};
    use std::ops::{Deref, DerefMut};

    let digest = same_traits!(md5::Digest, upstream::Digest, [
        "Clone": (Clone), "Copy": (Copy), "Debug": (Debug), "Default": (Default),
        "Display": (Display), "LowerHex": (LowerHex), "UpperHex": (UpperHex),
        "PartialEq": (PartialEq), "Eq": (Eq), "PartialOrd": (PartialOrd), "Ord": (Ord),
        "Hash": (Hash), "Deref": (Deref<Target = [u8; 16]>), "DerefMut": (DerefMut),
        "Into<[u8; 16]>": (Into<[u8; 16]>), "From<[u8; 16]>": (From<[u8; 16]>),
        "AsRef<[u8]>": (AsRef<[u8]>), "Send": (Send), "Sync": (Sync), "Unpin": (Unpin),
    ]);
    assert_eq!(
        digest,
        [
            "Clone",
            "Copy",
            "Debug",
            "LowerHex",
            "UpperHex",
            "PartialEq",
            "Eq",
            "Hash",
            "Deref",
            "DerefMut",
            "Into<[u8; 16]>",
            "Send",
            "Sync",
            "Unpin"
        ]
    );
    let context = same_traits!(md5::Context, upstream::Context, [
        "Clone": (Clone), "Copy": (Copy), "Debug": (Debug), "Default": (Default),
        "PartialEq": (PartialEq), "Hash": (Hash), "Write": (std::io::Write), "Send": (Send),
        "Sync": (Sync),
    ]);
    assert_eq!(context, release::CONTEXT_TRAITS);
    // Each crate's Context converts into its own Digest.
    assert!(implements!(md5::Context: Into<md5::Digest>));
    assert!(implements!(upstream::Context: Into<upstream::Digest>));
}

#[cfg(not(feature = "std"))]
#[test]
fn no_io_write_without_std() {
    assert!(!implements!(md5::Context: std::io::Write));
}
