//! Where rings live: memory the front end hands out (a browser's heap, `mmap` natively).

use super::ring::LINE_BYTES;

/// Memory for one ring, obtained the way the front end wants it (plain heap in a browser;
/// `mmap` with or without huge pages natively).
pub trait Arena {
    type Buffer: ChaseBuffer;
    /// At least `bytes` bytes; the ring aligns itself to a cache line inside them.
    fn allocate(&mut self, bytes: usize) -> Result<Self::Buffer, String>;
}

pub trait ChaseBuffer {
    fn bytes_mut(&mut self) -> &mut [u8];
    /// Bytes of the buffer backed by huge pages, asked once the ring has touched every page.
    /// `None` where that can't be known (a browser).
    fn huge_page_bytes(&self) -> Option<u64> {
        None
    }
}

/// Plain heap memory, for the browser and for tests.
#[derive(Debug, Default, Clone, Copy)]
pub struct HeapArena;

impl Arena for HeapArena {
    type Buffer = Vec<u8>;
    fn allocate(&mut self, bytes: usize) -> Result<Vec<u8>, String> {
        let len = bytes.checked_add(LINE_BYTES).ok_or("size overflows the address space")?;
        let mut buffer = Vec::new();
        buffer
            .try_reserve_exact(len)
            .map_err(|_| format!("could not allocate {}", crate::size::format_bytes(len as u64)))?;
        buffer.resize(len, 0);
        Ok(buffer)
    }
}

impl ChaseBuffer for Vec<u8> {
    fn bytes_mut(&mut self) -> &mut [u8] {
        self
    }
}
