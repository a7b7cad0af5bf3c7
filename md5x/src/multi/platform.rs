//! The CPU as one value: the ISA extensions the kernels and encoders use,
//! and the vendor, family and model their speed rules depend on
//! ([`Platform`]), read once per process. Every `cpufeatures` check of
//! `md5x::multi` is here; nothing else executes CPUID.

use super::tuning::Tuning;

/// The CPU families this crate has a [`Tuning`] row for; `Other` takes the
/// default row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Family {
    /// Intel with AVX-512, of any family and model.
    IntelAvx512,
    /// AMD before Zen 4: family 0x19 (and 0x17) without AVX-512.
    Zen3,
    /// AMD family 0x19 with AVX-512.
    Zen4,
    /// AMD family 0x1A and later.
    Zen5,
    /// Anything else: other vendors, Intel without AVX-512, non-x86.
    Other,
}

impl Family {
    /// This family's tuning row.
    pub const fn tuning(self) -> Tuning {
        match self {
            Family::IntelAvx512 => Tuning::INTEL,
            Family::Zen3 => Tuning::ZEN3,
            Family::Zen4 => Tuning::ZEN4,
            Family::Zen5 => Tuning::ZEN5,
            Family::Other => Tuning::DEFAULT,
        }
    }
}

/// The CPU: what it can run and what it is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Platform {
    /// AVX2.
    pub avx2: bool,
    /// AVX-512F and VL (the AVX-512 kernel), the OS saving their state.
    pub avx512: bool,
    /// AVX-512BW too (rows built in registers, the hex encoder).
    pub avx512bw: bool,
    /// AVX-512VBMI too (the base64 encoder).
    pub avx512vbmi: bool,
    /// Whether the vendor is AMD.
    pub amd: bool,
    /// Whether the vendor is Intel.
    pub intel: bool,
    /// CPUID leaf 1's family: base, plus extended past 0xF.
    pub family: u32,
    /// CPUID leaf 1's model, with the extended model where the family is
    /// 6 or 0xF.
    pub model: u32,
}

impl Platform {
    /// A CPU with none of the extensions, of no known family.
    pub const NONE: Platform = Platform {
        avx2: false,
        avx512: false,
        avx512bw: false,
        avx512vbmi: false,
        amd: false,
        intel: false,
        family: 0,
        model: 0,
    };

    /// This process's CPU, read once and kept. Miri, which cannot execute
    /// CPUID, gets the build's target features and an AMD Zen 5 (the
    /// widest kernel).
    pub fn detect() -> Platform {
        #[cfg(md5_sse2)]
        {
            x86::detect()
        }
        #[cfg(not(md5_sse2))]
        Platform::NONE
    }

    /// The family whose [`Tuning`] row applies.
    pub fn family(self) -> Family {
        match (self.amd, self.intel) {
            (true, _) if self.family >= 0x1a => Family::Zen5,
            (true, _) if self.family == 0x19 && self.avx512 => Family::Zen4,
            (true, _) => Family::Zen3,
            (_, true) if self.avx512 => Family::IntelAvx512,
            _ => Family::Other,
        }
    }

    /// The [`Tuning`] row of this CPU's family.
    pub fn tuning(self) -> Tuning {
        self.family().tuning()
    }
}

#[cfg(md5_sse2)]
mod x86 {
    use super::Platform;
    use core::arch::x86_64::__cpuid;
    use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

    cpufeatures::new!(avx2_cpuid, "avx2");
    cpufeatures::new!(avx512_cpuid, "avx512f", "avx512vl");
    cpufeatures::new!(avx512bw_cpuid, "avx512f", "avx512vl", "avx512bw");
    cpufeatures::new!(vbmi_cpuid, "avx512f", "avx512bw", "avx512vbmi");

    /// The detected [`Platform`], packed (see [`pack`]); 0 until read.
    static CPU: AtomicU32 = AtomicU32::new(0);

    pub(super) fn detect() -> Platform {
        match CPU.load(Relaxed) {
            0 => {
                let p = read();
                CPU.store(pack(p), Relaxed);
                p
            }
            bits => unpack(bits),
        }
    }

    /// Bit 0 set (read), bits 1 to 6 the flags, then family and model, a
    /// byte each (every family and model CPUID spells fits).
    fn pack(p: Platform) -> u32 {
        let flags = [p.avx2, p.avx512, p.avx512bw, p.avx512vbmi, p.amd, p.intel];
        let mut bits = 1;
        for (i, f) in flags.into_iter().enumerate() {
            bits |= u32::from(f) << (1 + i);
        }
        bits | (p.family.min(0xff) << 8) | (p.model.min(0xff) << 16)
    }

    fn unpack(bits: u32) -> Platform {
        let flag = |i: u32| bits >> (1 + i) & 1 == 1;
        Platform {
            avx2: flag(0),
            avx512: flag(1),
            avx512bw: flag(2),
            avx512vbmi: flag(3),
            amd: flag(4),
            intel: flag(5),
            family: bits >> 8 & 0xff,
            model: bits >> 16 & 0xff,
        }
    }

    fn read() -> Platform {
        if cfg!(miri) {
            return Platform {
                avx2: cfg!(target_feature = "avx2"),
                avx512: cfg!(all(target_feature = "avx512f", target_feature = "avx512vl")),
                avx512bw: cfg!(all(
                    target_feature = "avx512f",
                    target_feature = "avx512vl",
                    target_feature = "avx512bw"
                )),
                // The encoders' AVX-512 forms do not run under Miri.
                avx512vbmi: false,
                amd: true,
                intel: false,
                family: 0x1a,
                model: 0,
            };
        }
        // SAFETY: every x86_64 CPU has CPUID and its leaves 0 and 1. (Safe
        // to call on newer compilers, `unsafe` on the MSRV.)
        #[allow(unused_unsafe)]
        let (vendor, eax) = unsafe { (__cpuid(0), __cpuid(1).eax) };
        let vendor = [vendor.ebx, vendor.edx, vendor.ecx];
        let is = |name: &[u8; 12]| {
            vendor
                == [0, 4, 8]
                    .map(|i| u32::from_le_bytes([name[i], name[i + 1], name[i + 2], name[i + 3]]))
        };
        let base = (eax >> 8) & 0xf;
        let family = match base {
            0xf => base + ((eax >> 20) & 0xff),
            _ => base,
        };
        let model = match base {
            0x6 | 0xf => ((eax >> 4) & 0xf) | ((eax >> 12) & 0xf0),
            _ => (eax >> 4) & 0xf,
        };
        Platform {
            avx2: avx2_cpuid::get(),
            avx512: avx512_cpuid::get(),
            avx512bw: avx512bw_cpuid::get(),
            avx512vbmi: vbmi_cpuid::get(),
            amd: is(b"AuthenticAMD"),
            intel: is(b"GenuineIntel"),
            family,
            model,
        }
    }

    #[cfg(test)]
    #[test]
    fn families_and_rows() {
        use super::Family;
        use crate::multi::tuning::Tuning;
        let cpu = |amd, intel, avx512, family| Platform {
            amd,
            intel,
            avx512,
            family,
            ..Platform::NONE
        };
        assert_eq!(cpu(true, false, true, 0x19).family(), Family::Zen4);
        assert_eq!(cpu(true, false, false, 0x19).family(), Family::Zen3);
        assert_eq!(cpu(true, false, true, 0x1a).family(), Family::Zen5);
        assert_eq!(cpu(false, true, true, 6).family(), Family::IntelAvx512);
        assert_eq!(cpu(false, false, true, 6).family(), Family::Other);
        assert_eq!(Family::Zen4.tuning().ymm_lanes, 24);
        assert_eq!(Family::Other.tuning(), Tuning::DEFAULT);
    }

    #[cfg(test)]
    #[test]
    fn packs() {
        let p = Platform {
            avx512: true,
            amd: true,
            family: 0x19,
            model: 0x11,
            ..Platform::NONE
        };
        assert_eq!(unpack(pack(p)), p);
        assert_eq!(unpack(pack(Platform::NONE)), Platform::NONE);
    }
}
