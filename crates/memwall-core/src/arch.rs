//! The few CPU hints (and the one hash) the GROUP BY kernels use, with a portable fallback.
//!
//! This is the only place in the core with per-architecture code, so kernels stay free of `cfg`:
//! where a target has no such hint (wasm32, or an architecture not listed) the function does the
//! plain thing, and the kernel is merely slower, never different.

/// One 64-byte cache line of eight words, aligned to a line.
#[repr(C, align(64))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Line(pub [u64; 8]);

impl Line {
    pub const WORDS: usize = 8;
    pub const ZERO: Line = Line([0; 8]);

    /// The words of consecutive lines, in order.
    pub fn words(lines: &[Line]) -> &[u64] {
        // SAFETY: `Line` is `repr(C)` around `[u64; 8]`: 64 bytes, no padding, and at least the
        // alignment of `u64`, so `n` lines are exactly `8 * n` initialized, aligned words.
        unsafe { core::slice::from_raw_parts(lines.as_ptr().cast::<u64>(), lines.len() * Self::WORDS) }
    }

    /// The words of consecutive lines, in order, writable.
    pub fn words_mut(lines: &mut [Line]) -> &mut [u64] {
        // SAFETY: as in `words`; every bit pattern is a valid `u64` and a valid `Line`, so writes
        // through either view keep the other valid, and the borrow is exclusive.
        unsafe { core::slice::from_raw_parts_mut(lines.as_mut_ptr().cast::<u64>(), lines.len() * Self::WORDS) }
    }
}

/// Asks the CPU to start loading the line holding `*ptr` into L1 now, because it will be needed
/// soon. Never faults, whatever `ptr` is, so it is safe to call on any address.
#[inline(always)]
pub fn prefetch<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 (SSE, part of the x86_64 baseline) is a hint: it never faults, even on
    // an unmapped address, and has no architectural effect.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(ptr.cast::<i8>());
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: PRFM is a hint: it never faults and has no architectural effect.
    unsafe {
        core::arch::asm!("prfm pldl1keep, [{0}]", in(reg) ptr, options(nostack, preserves_flags, readonly));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = ptr;
}

/// Copies a full line to `dst` with non-temporal stores where the target has them.
///
/// A partition buffer is written once and read back only after hundreds of megabytes of other
/// writes, so caching its lines only evicts useful data, and a normal store of a line first
/// reads it from DRAM (read-for-ownership). Streaming stores skip both. Call [`stream_fence`]
/// before other threads read what was streamed.
#[inline(always)]
pub fn stream_line(dst: &mut Line, src: &Line) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: both lines are 64-byte aligned (the type guarantees it), so each of the four
    // 16-byte halves is 16-byte aligned as MOVDQA/MOVNTDQ require; SSE2 is baseline on x86_64.
    unsafe {
        use core::arch::x86_64::{__m128i, _mm_load_si128, _mm_stream_si128};
        let from = src.0.as_ptr().cast::<__m128i>();
        let to = dst.0.as_mut_ptr().cast::<__m128i>();
        for i in 0..4 {
            _mm_stream_si128(to.add(i), _mm_load_si128(from.add(i)));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *dst = *src;
    }
}

/// A 64-bit mix in which every output bit depends on every input bit, as cheap as the target
/// allows; the kernels hash every row twice, so a cycle here is 0.1 s at 100 M rows.
///
/// Where a 64x64->128-bit multiply is one instruction (64-bit targets), one folded multiply:
/// the product's halves xor-ed. wasm32 has only 64-bit multiplies, so there a 128-bit product
/// is a library call (the tuned kernel ran 30% slower in Chromium with it); there [`xmx64`],
/// one plain multiply between two xor-shifts, is cheaper still than murmur3's finalizer
/// ([`fmix64`], two multiplies): tuned's per-partition aggregation of the small preset took
/// 6.2 ns/row in Chromium at best against 7.4 (docs/results/wasm-phases-hash-ab-epyc-2vcpu-kvm.txt,
/// a loaded VM). Which mix a target uses changes which partition a key lands in, never a result.
#[inline(always)]
pub fn mix64(x: u64) -> u64 {
    #[cfg(target_pointer_width = "64")]
    {
        let product = u128::from(x) * 0xd6e8_feb8_6659_fd93_u128;
        (product as u64) ^ ((product >> 64) as u64)
    }
    #[cfg(not(target_pointer_width = "64"))]
    {
        xmx64(x)
    }
}

/// Xor-shift, multiply, xor-shift: one 64-bit multiply. The first shift folds the high bits
/// into the low ones, so the product's top bits (a key's partition) depend on every key bit;
/// the last folds the product's high half back into the low one (the slot in a partition's
/// table), which a multiply alone leaves depending on the key's low bits only. Not a
/// bijection's equal in quality (see `mixes_spread_adversarial_keys`), but keys that differ
/// only in their top or only in their high half still spread over partitions and slots.
#[inline(always)]
pub fn xmx64(x: u64) -> u64 {
    let x = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^ (x >> 32)
}

/// MurmurHash3's 64-bit finalizer: a bijection whose every output bit depends on every input
/// bit, from 64-bit multiplies and shifts only, so it gives the same value at the same cost on
/// every target.
#[inline(always)]
pub fn fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Orders earlier [`stream_line`] stores before later stores, so a thread that synchronizes
/// with this one afterwards sees them.
#[inline]
pub fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SFENCE (SSE, baseline on x86_64) only orders stores.
    unsafe {
        core::arch::x86_64::_mm_sfence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_lines_arrive() {
        let src = Line([1, 2, 3, 4, 5, 6, u64::MAX, 0]);
        let mut dst = vec![Line::ZERO; 3];
        stream_line(&mut dst[1], &src);
        stream_fence();
        assert_eq!(dst[1], src);
        assert_eq!(dst[0], Line::ZERO);
        assert_eq!(&Line::words(&dst)[8..16], &src.0);
    }

    #[test]
    fn prefetch_is_harmless_anywhere() {
        let x = [1u64; 4];
        prefetch(x.as_ptr());
        prefetch(core::ptr::null::<u64>());
        prefetch(usize::MAX as *const u8);
        assert_eq!(x, [1; 4]);
    }

    #[test]
    fn word_views_agree() {
        let mut lines = vec![Line::ZERO; 2];
        Line::words_mut(&mut lines)[9] = 7;
        assert_eq!(lines[1].0[1], 7);
        assert_eq!(Line::words(&lines).len(), 16);
    }

    /// Each mix of each family of adversarial keys: their top 8 bits (a partition of 256) and
    /// their low 8 bits (a slot of 256) each from half to 1.5x of even (64 keys expected a
    /// bucket; murmur3's finalizer, a bijection, spreads them from 37 to 92).
    #[test]
    fn mixes_spread_adversarial_keys() {
        type Family = (&'static str, fn(u64) -> u64);
        let families: [Family; 6] = [
            ("sequential", |i| i),
            ("only the top bits", |i| i << 50),
            ("only the high half", |i| i << 32),
            ("stride 4096", |i| i * 4096),
            ("high and low alike", |i| (i << 40) | i),
            ("negative", |i| i.wrapping_neg()),
        ];
        for (mix_name, mix) in [("mix64", mix64 as fn(u64) -> u64), ("xmx64", xmx64), ("fmix64", fmix64)] {
            for (family, key) in families {
                let (mut top, mut low) = ([0u32; 256], [0u32; 256]);
                for i in 0..256 * 64 {
                    let h = mix(key(i) ^ 0x9e37_79b9_7f4a_7c15);
                    top[(h >> 56) as usize] += 1;
                    low[(h & 255) as usize] += 1;
                }
                for (bits, counts) in [("top", top), ("low", low)] {
                    let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
                    assert!(*min >= 32 && *max <= 96, "{mix_name}, {family}, {bits} bits: {min}..{max}");
                }
            }
        }
    }
}
