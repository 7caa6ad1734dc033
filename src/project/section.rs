//! The layout of the bitcode section: one entry per object, each a magic,
//! the bitcode's length (8 bytes, little-endian) and the bitcode. Linkers
//! concatenate the sections of the objects they link and may pad between
//! them to an alignment; the padding is zero bytes, which no entry starts
//! with, so the reader skips it.

use thiserror::Error;

/// The name of the section that carries an object's bitcode.
pub const SECTION: &str = ".mnemo_bc";

const MAGIC: &[u8; 8] = b"MNEMOBC\x01";
const HEADER: usize = MAGIC.len() + 8;
/// The magic of raw LLVM bitcode ("BC" 0xC0DE).
const BITCODE_MAGIC: &[u8; 4] = b"BC\xc0\xde";

/// What is wrong with a section's bytes, and where.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SectionError {
    #[error("at byte {0}: no entry starts there")]
    NoMagic(usize),
    #[error("at byte {offset}: an entry of {length} bytes runs past the section's end")]
    Truncated { offset: usize, length: u64 },
    #[error("at byte {0}: the entry is not LLVM bitcode")]
    NotBitcode(usize),
}

/// The section's contents for one object's `bitcode`.
pub fn section_entry(bitcode: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + bitcode.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(bitcode.len() as u64).to_le_bytes());
    out.extend_from_slice(bitcode);
    out
}

/// The bitcode of every entry of a (linked) section, in order.
pub fn parse_section(bytes: &[u8]) -> Result<Vec<&[u8]>, SectionError> {
    let mut entries = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == 0 {
            at += 1;
            continue;
        }
        let header = bytes
            .get(at..at + HEADER)
            .filter(|h| h.starts_with(MAGIC))
            .ok_or(SectionError::NoMagic(at))?;
        let mut len = [0u8; 8];
        len.copy_from_slice(&header[MAGIC.len()..]);
        let length = u64::from_le_bytes(len);
        let start = at + HEADER;
        let body = usize::try_from(length)
            .ok()
            .and_then(|n| start.checked_add(n))
            .and_then(|end| bytes.get(start..end))
            .ok_or(SectionError::Truncated { offset: at, length })?;
        if !body.starts_with(BITCODE_MAGIC) {
            return Err(SectionError::NotBitcode(at));
        }
        entries.push(body);
        at = start + body.len();
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bc(tail: &[u8]) -> Vec<u8> {
        let mut b = BITCODE_MAGIC.to_vec();
        b.extend_from_slice(tail);
        b
    }

    #[test]
    fn entries_survive_concatenation_with_padding() {
        let (a, b) = (bc(b"one"), bc(b"\0\0two\0"));
        let mut section = section_entry(&a);
        section.extend_from_slice(&[0; 5]);
        section.extend_from_slice(&section_entry(&b));
        section.push(0);
        assert_eq!(parse_section(&section), Ok(vec![&a[..], &b[..]]));
        assert_eq!(parse_section(&[]), Ok(vec![]));
    }

    #[test]
    fn damage_is_located() {
        let a = bc(b"xyz");
        let entry = section_entry(&a);
        let mut junk = entry.clone();
        junk.extend_from_slice(b"garbage!");
        assert_eq!(
            parse_section(&junk),
            Err(SectionError::NoMagic(entry.len()))
        );
        assert_eq!(
            parse_section(&entry[..entry.len() - 1]),
            Err(SectionError::Truncated {
                offset: 0,
                length: a.len() as u64
            })
        );
        let mut huge = entry.clone();
        huge[MAGIC.len()..HEADER].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            parse_section(&huge),
            Err(SectionError::Truncated { offset: 0, .. })
        ));
        assert_eq!(
            parse_section(&section_entry(b"not bitcode")),
            Err(SectionError::NotBitcode(0))
        );
    }
}
