//! The tests of the `md5` 0.7 and 0.8 drop-ins, written once: the md5
//! crate's own tests rewritten, and differential tests against the
//! crates.io release each package replaces (its `upstream`
//! dev-dependency). A macro, because they name each package's own `md5`
//! and `upstream`, and the method that finishes a context, which the two
//! releases spell differently.

/// Defines, in the calling test crate, the tests every `md5` drop-in runs:
///
/// * against `upstream`: digests of seeded random inputs fed in random
///   pieces, the paths of the public items, `io::Write` and conversions,
///   formatting, and the set of traits each public type implements (the
///   `Context`'s set given as `context_traits`);
/// * the md5 crate's own: the RFC 1321 suite through `compute` and
///   `Context`, chunked input at the padding edges, indexing, and 512 MiB
///   and 4 GiB inputs through `io::Write`, whose bit counts cross 2^29 and
///   2^32 bytes.
///
/// `finish` names the method that finishes a context: `compute` in md5
/// 0.7, `finalize` in 0.8.
#[macro_export]
macro_rules! md5_crate_tests {
    (finish: $finish:ident, context_traits: $context_traits:expr $(,)?) => {
        use md5::{compute, Context};
        use std::collections::hash_map::DefaultHasher;
        use std::hash::{Hash, Hasher};
        /// Lengths 0..=300 (every padding edge up to four blocks) and random ones
        /// up to 20,000 bytes, each cut at random split points.
        #[test]
        fn random_inputs_and_split_points() {
            let mut rng = $crate::Rng(0x6d35_2d30_2e38_0001);
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
                        assert_eq!(ours.clone().$finish().0, theirs.clone().$finish().0);
                    }
                }
                assert_eq!(ours.$finish().0, want.0, "{len} bytes, in pieces");
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
                [
                    std::any::type_name_of_val(&md5::Context::$finish),
                    std::any::type_name_of_val(&upstream::Context::$finish),
                ].into(),
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
            let mut rng = $crate::Rng(0x0123_4567_89ab_cdef);
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
            $crate::same_format!(
                ours,
                theirs,
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

        /// Upstream is built with `std` here, so this compares the `std` builds.
        #[cfg(feature = "std")]
        #[test]
        fn public_types_implement_the_same_traits() {
            use std::fmt::{Debug, Display, LowerHex, UpperHex};
            use std::ops::{Deref, DerefMut};

            let digest = $crate::same_traits!(md5::Digest, upstream::Digest, [
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
            let context = $crate::same_traits!(md5::Context, upstream::Context, [
                "Clone": (Clone), "Copy": (Copy), "Debug": (Debug), "Default": (Default),
                "PartialEq": (PartialEq), "Hash": (Hash), "Write": (std::io::Write), "Send": (Send),
                "Sync": (Sync),
            ]);
            assert_eq!(context, $context_traits);
            // Each crate's Context converts into its own Digest.
            assert!($crate::implements!(md5::Context: Into<md5::Digest>));
            assert!($crate::implements!(upstream::Context: Into<upstream::Digest>));
        }

        #[cfg(not(feature = "std"))]
        #[test]
        fn no_io_write_without_std() {
            assert!(!$crate::implements!(md5::Context: std::io::Write));
        }

        const SUITE: [(&str, &str); 8] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "c3fcd3d76192e4007dfb496cca67e13b",
            ),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f",
            ),
            (
                "0123456789012345678901234567890123456789012345678901234567890123",
                "7f7bfd348709deeaace19e3f535f8c54",
            ),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];

        #[test]
        fn rfc1321_suite() {
            for (input, want) in SUITE {
                assert_eq!(format!("{:x}", compute(input)), want, "{input:?}");
                let mut context = Context::new();
                context.consume(input);
                assert_eq!(format!("{:x}", context.$finish()), want, "{input:?}");
                assert_eq!(format!("{:?}", compute(input)), want);
                assert_eq!(format!("{:X}", compute(input)), want.to_uppercase());
            }
        }

        #[test]
        fn chunked_input_at_the_padding_edges() {
            for len in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 121, 1024] {
                let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
                let whole = compute(&data);
                for chunk in [1, 7, 63, 64, 65, 128] {
                    let mut context = Context::new();
                    for piece in data.chunks(chunk) {
                        context.consume(piece);
                    }
                    assert_eq!(
                        context.$finish(),
                        whole,
                        "{len} bytes in {chunk}-byte pieces"
                    );
                }
            }
        }

        #[test]
        fn index() {
            let mut digest = compute(b"abc");
            assert_eq!(digest[0], 0x90);
            assert_eq!(&digest[0], &0x90);
            assert_eq!(&mut digest[0], &mut 0x90);
        }

        #[cfg(feature = "std")]
        #[test]
        fn write_512_mib() {
            use std::io::Write;
            let data = vec![0; 8 * 1024 * 1024];
            let mut context = Context::new();
            for _ in 0..64 {
                context.write_all(&data).unwrap();
            }
            assert_eq!(
                format!("{:x}", context.$finish()),
                "aa559b4e3523a6c931f08f4df52d58f2"
            );
        }

        #[cfg(all(feature = "std", target_pointer_width = "64"))]
        #[test]
        fn write_4_gib() {
            use std::io::Write;
            let data = vec![0; u32::MAX as usize + 1];
            let mut context = Context::new();
            context.write_all(&data).unwrap();
            assert_eq!(
                format!("{:x}", context.$finish()),
                "c9a5a6878d97b48cc965c1e41859f034"
            );
        }
    };
}

/// `implements!(T: Trait)` is true when `T` implements `Trait`: a probe's
/// inherent constant, which exists only under the bound, shadows the
/// blanket trait constant.
#[macro_export]
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
#[macro_export]
macro_rules! same_traits {
    ($ours:ty, $theirs:ty, [$($name:literal: ($($bound:tt)+)),* $(,)?]) => {{
        let mut set = Vec::new();
        $(
            let (o, t) = ($crate::implements!($ours: $($bound)+), $crate::implements!($theirs: $($bound)+));
            assert_eq!(o, t, "{} implements {}: ours {o}, upstream {t}", stringify!($ours), $name);
            if o {
                set.push($name);
            }
        )*
        set
    }};
}

/// `same_format!(a, b, "{:x}", ...)`: `a` and `b` format alike under
/// each of the format strings.
#[macro_export]
macro_rules! same_format {
    ($ours:expr, $theirs:expr, $($fmt:literal),* $(,)?) => {$(
        assert_eq!(format!($fmt, $ours), format!($fmt, $theirs), "{}", $fmt);
    )*};
}
