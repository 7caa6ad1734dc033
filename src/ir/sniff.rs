//! What a program file is, from its bytes, before LLVM sees it: bitcode,
//! textual IR, or something else; and, for bitcode LLVM refuses, whether it
//! was cut short. LLVM's own messages would call a truncated file an
//! "invalid bitcode signature", and its IR parser quotes the offending line,
//! junk bytes and all.

/// What the first bytes of a file say it is.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// LLVM bitcode (raw or in its wrapper).
    Bitcode,
    /// Text: textual IR, or a mistake LLVM's IR parser can name.
    Text,
    /// Neither: a short description of how it starts.
    Other(String),
}

const RAW_MAGIC: [u8; 4] = *b"BC\xC0\xDE";
const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];

/// What `bytes` are.
pub(super) fn kind(bytes: &[u8]) -> Kind {
    if bytes.starts_with(&RAW_MAGIC) || bytes.starts_with(&WRAPPER_MAGIC) {
        return Kind::Bitcode;
    }
    if looks_like_text(bytes) {
        return Kind::Text;
    }
    let start: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let what = if bytes.starts_with(b"\x7fELF") {
        " (an ELF executable or object; `mnemo cc` makes bitcode)"
    } else {
        ""
    };
    Kind::Other(format!("it starts with bytes {}{what}", start.join(" ")))
}

/// Whether the start of `bytes` is text: UTF-8 without control characters
/// other than white space.
fn looks_like_text(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // Cut in the middle of a character at the end of the sample.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    !text.is_empty()
        && text
            .chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t' | '\x0c'))
}

/// Why bitcode with an intact magic number is not whole, if its block
/// structure says so: a block that runs past the end of the file, or a
/// length that is no whole number of 32-bit words.
pub(super) fn truncation(bytes: &[u8]) -> Option<String> {
    let len = bytes.len();
    let inner = if bytes.starts_with(&WRAPPER_MAGIC) {
        // Five little-endian words: magic, version, offset, size, CPU type.
        let word = |i: usize| {
            bytes
                .get(4 * i..4 * i + 4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
        };
        let (Some(offset), Some(size)) = (word(2), word(3)) else {
            return Some(format!(
                "the file ends inside its wrapper header ({len} bytes)"
            ));
        };
        if offset.saturating_add(size) > len {
            return Some(format!(
                "its wrapper header gives {size} bytes of bitcode at offset {offset}, but the file has {len} bytes"
            ));
        }
        &bytes[offset..offset + size]
    } else {
        bytes
    };
    if inner.len() <= RAW_MAGIC.len() {
        return Some("it ends after its magic number".to_string());
    }
    if let Some(end) = block_past_end(inner) {
        return Some(format!(
            "a top-level block runs to byte {end}, but the bitcode has {} bytes",
            inner.len()
        ));
    }
    (inner.len() % 4 != 0).then(|| {
        format!(
            "its length, {} bytes, is not a whole number of 32-bit words",
            inner.len()
        )
    })
}

/// The end (in bytes) of the first top-level block that runs past the end
/// of `bitcode`, walking the blocks after the magic number by their length
/// fields.
fn block_past_end(bitcode: &[u8]) -> Option<u64> {
    let mut bits = Bits {
        bytes: bitcode,
        pos: 32,
    };
    let total = bitcode.len() as u64 * 8;
    // Top-level abbreviation ids are 2 bits wide; 1 enters a block.
    while bits.pos + 2 <= total {
        if bits.read(2)? != 1 {
            return None;
        }
        bits.vbr(8)?; // block id
        bits.vbr(4)?; // abbreviation width inside
        bits.pos = bits.pos.div_ceil(32) * 32;
        let words = bits.read(32)?;
        let end = bits.pos + words * 32;
        if end > total {
            return Some(end / 8);
        }
        bits.pos = end;
    }
    None
}

/// A little-endian bit cursor, as LLVM's bitstream reads.
struct Bits<'a> {
    bytes: &'a [u8],
    pos: u64,
}

impl Bits<'_> {
    /// `width` bits (at most 32); `None` past the end.
    fn read(&mut self, width: u64) -> Option<u64> {
        let mut v = 0u64;
        for i in 0..width {
            let p = self.pos + i;
            let byte = *self.bytes.get(usize::try_from(p / 8).ok()?)?;
            v |= u64::from((byte >> (p % 8)) & 1) << i;
        }
        self.pos += width;
        Some(v)
    }

    /// A variable-width number in chunks of `width` bits.
    fn vbr(&mut self, width: u64) -> Option<u64> {
        let high = 1u64 << (width - 1);
        let mut v = 0u64;
        for shift in (0..64).step_by(width as usize - 1) {
            let chunk = self.read(width)?;
            v |= (chunk & (high - 1)) << shift;
            if chunk & high == 0 {
                return Some(v);
            }
        }
        None
    }
}

/// `message` with control characters escaped, so that nothing a file holds
/// reaches the terminal as anything but text.
pub(super) fn printable(message: &str) -> String {
    message
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() && c != '\n' && c != '\t' {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A raw bitcode file of one empty top-level block of `words` words
    /// whose length field says `claimed`.
    fn one_block(words: u32, claimed: u32) -> Vec<u8> {
        let mut v = RAW_MAGIC.to_vec();
        // Abbrev id 1 (2 bits), block id 8 (vbr8), width 3 (vbr4), aligned:
        // bits 0-1 = 01, bits 2-9 = 8, bits 10-13 = 3, then to 32 bits.
        let first: u32 = 1 | (8 << 2) | (3 << 10);
        v.extend_from_slice(&first.to_le_bytes());
        v.extend_from_slice(&claimed.to_le_bytes());
        v.extend(std::iter::repeat_n(0u8, 4 * words as usize));
        v
    }

    #[test]
    fn kinds_by_their_first_bytes() {
        assert_eq!(kind(&one_block(1, 1)), Kind::Bitcode);
        assert_eq!(kind(b"define i32 @main() {\n"), Kind::Text);
        let Kind::Other(what) = kind(&[0x00, 0xff, 0x13, 0x37, 0x42]) else {
            panic!("binary junk is not text");
        };
        assert_eq!(what, "it starts with bytes 00 ff 13 37");
        assert!(matches!(kind(b"\x7fELF\x02\x01\x01\0"), Kind::Other(w) if w.contains("ELF")));
    }

    #[test]
    fn a_block_past_the_end_is_a_truncation() {
        assert_eq!(truncation(&one_block(3, 3)), None);
        let cut = one_block(3, 30);
        let why = truncation(&cut).expect("truncated");
        assert!(why.contains("runs to byte"), "{why}");
        let mut odd = one_block(3, 3);
        odd.push(0);
        assert!(truncation(&odd).expect("cut").contains("32-bit words"));
        assert!(truncation(&RAW_MAGIC)
            .expect("empty")
            .contains("magic number"));
    }

    #[test]
    fn a_wrapper_that_promises_more_than_the_file_holds_is_a_truncation() {
        let inner = one_block(2, 2);
        let mut w = WRAPPER_MAGIC.to_vec();
        for x in [0u32, 20, inner.len() as u32 + 40, 7] {
            w.extend_from_slice(&x.to_le_bytes());
        }
        w.extend_from_slice(&inner);
        assert!(truncation(&w).expect("short").contains("wrapper header"));
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("a\u{1b}[2Jb\nc"), "a\\u{1b}[2Jb\nc");
    }
}
