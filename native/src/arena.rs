//! Anonymous memory mapped the way `--huge-pages` asks, and the check of what the kernel gave.

use memmap2::{Advice, MmapMut, MmapOptions};
use memwall_core::ladder::{Arena, ChaseBuffer};

const HUGE_PAGE: usize = 2 << 20;

/// How buffers are backed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HugePages {
    /// Small pages only (MADV_NOHUGEPAGE), so TLB misses show in the ladder.
    Off,
    /// Transparent huge pages (MADV_HUGEPAGE on a 2 MiB-aligned buffer), verified afterwards.
    Thp,
    /// Reserved huge pages (MAP_HUGETLB); needs vm.nr_hugepages set by an administrator.
    On,
}

impl HugePages {
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Thp => "thp",
            Self::On => "on",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct MmapArena {
    pub huge_pages: HugePages,
}

/// A mapping and the aligned window of it that the caller uses.
#[derive(Debug)]
pub struct MappedBuffer {
    map: MmapMut,
    offset: usize,
    len: usize,
}

impl MappedBuffer {
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.map[self.offset..self.offset + self.len]
    }

    /// Bytes of this buffer's mapping that the kernel backs with huge pages right now
    /// (AnonHugePages for THP, *_Hugetlb for reserved pages), from /proc/self/smaps.
    pub fn huge_page_bytes(&self) -> Option<u64> {
        let start = self.map.as_ptr() as u64;
        let end = start + self.map.len() as u64;
        let maps = procfs::process::Process::myself().ok()?.smaps().ok()?;
        let mut total = 0;
        for map in maps {
            if map.address.0 < end && map.address.1 > start {
                for field in ["AnonHugePages", "Private_Hugetlb", "Shared_Hugetlb"] {
                    total += map.extension.map.get(field).copied().unwrap_or(0);
                }
            }
        }
        Some(total)
    }
}

impl MmapArena {
    pub fn map(&self, bytes: usize) -> Result<MappedBuffer, String> {
        let too_big = || format!("cannot map {bytes} bytes");
        match self.huge_pages {
            HugePages::On => {
                let len = bytes.checked_next_multiple_of(HUGE_PAGE).ok_or_else(too_big)?;
                let map = MmapOptions::new().len(len).huge(Some(21)).map_anon().map_err(|e| {
                    format!(
                        "huge pages `on`: could not map {} of reserved huge pages ({e}); \
                         reserve some with `sysctl vm.nr_hugepages=N`, or ask for `thp` instead",
                        memwall_core::size::format_bytes(len as u64)
                    )
                })?;
                Ok(MappedBuffer { map, offset: 0, len: bytes })
            }
            HugePages::Thp => {
                // Over-map by one huge page so the window can start on a 2 MiB boundary; THP only
                // backs aligned 2 MiB extents.
                let len = bytes.checked_add(HUGE_PAGE).ok_or_else(too_big)?;
                let map = MmapOptions::new().len(len).map_anon().map_err(|e| format!("mmap: {e}"))?;
                map.advise(Advice::HugePage).map_err(|e| format!("madvise(MADV_HUGEPAGE): {e}"))?;
                let offset = map.as_ptr().align_offset(HUGE_PAGE);
                Ok(MappedBuffer { map, offset, len: bytes })
            }
            HugePages::Off => {
                let map = MmapOptions::new().len(bytes.max(1)).map_anon().map_err(|e| format!("mmap: {e}"))?;
                // Explicit, so a host whose THP mode is "always" still measures small pages.
                map.advise(Advice::NoHugePage).map_err(|e| format!("madvise(MADV_NOHUGEPAGE): {e}"))?;
                Ok(MappedBuffer { map, offset: 0, len: bytes })
            }
        }
    }
}

/// The GROUP BY scratch pool's regions: transparent huge pages, for every kernel alike (a
/// partition buffer or a big table in 4 KiB pages would miss the TLB on nearly every line).
pub const SCRATCH: MmapArena = MmapArena { huge_pages: HugePages::Thp };

/// The scratch pool's regions on `pages`: [`SCRATCH`] by default; small pages (`off`) give a
/// race the memory a browser's wasm has, none of it on huge pages.
pub fn scratch(pages: HugePages) -> &'static MmapArena {
    static SMALL: MmapArena = MmapArena { huge_pages: HugePages::Off };
    static RESERVED: MmapArena = MmapArena { huge_pages: HugePages::On };
    match pages {
        HugePages::Thp => &SCRATCH,
        HugePages::Off => &SMALL,
        HugePages::On => &RESERVED,
    }
}

impl memwall_core::scratch::ChunkSource for MmapArena {
    fn map(&self, bytes: usize) -> Result<Box<dyn memwall_core::scratch::Chunk>, String> {
        Ok(Box::new(MmapArena::map(self, bytes)?))
    }
}

impl memwall_core::scratch::Chunk for MappedBuffer {
    fn bytes(&mut self) -> &mut [u8] {
        self.as_mut_slice()
    }
    fn huge_page_bytes(&self) -> Option<u64> {
        MappedBuffer::huge_page_bytes(self)
    }
}

impl Arena for MmapArena {
    type Buffer = MappedBuffer;
    fn allocate(&mut self, bytes: usize) -> Result<MappedBuffer, String> {
        self.map(bytes)
    }
}

impl ChaseBuffer for MappedBuffer {
    fn bytes_mut(&mut self) -> &mut [u8] {
        self.as_mut_slice()
    }
    fn huge_page_bytes(&self) -> Option<u64> {
        MappedBuffer::huge_page_bytes(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(buffer: &mut MappedBuffer) {
        for page in buffer.as_mut_slice().chunks_mut(4096) {
            page[0] = 1;
        }
    }

    #[test]
    fn off_never_gets_huge_pages() {
        let mut buffer = MmapArena { huge_pages: HugePages::Off }.map(8 << 20).unwrap();
        touch(&mut buffer);
        assert_eq!(buffer.huge_page_bytes(), Some(0));
    }

    #[test]
    fn thp_is_aligned_and_verified_against_what_the_kernel_says() {
        let mut buffer = MmapArena { huge_pages: HugePages::Thp }.map(8 << 20).unwrap();
        assert_eq!(buffer.as_mut_slice().as_ptr() as usize % HUGE_PAGE, 0);
        assert_eq!(buffer.as_mut_slice().len(), 8 << 20);
        touch(&mut buffer);
        let got = buffer.huge_page_bytes().expect("smaps is readable on Linux");
        // What THP grants depends on the host's mode and free memory; what we report must be
        // what smaps says, a whole number of huge pages, and within the mapping.
        assert_eq!(got % HUGE_PAGE as u64, 0);
        assert!(got <= (10 << 20));
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if mode.contains("[never]") {
            assert_eq!(got, 0);
        }
    }

    #[test]
    fn reserved_huge_pages_fail_with_advice_when_none_are_reserved() {
        match (MmapArena { huge_pages: HugePages::On }).map(4 << 20) {
            Ok(mut buffer) => {
                touch(&mut buffer);
                assert!(buffer.huge_page_bytes().unwrap() >= 4 << 20);
            }
            Err(e) => assert!(e.contains("nr_hugepages"), "{e}"),
        }
    }
}
