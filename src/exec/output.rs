//! What a path wrote to stdout or stderr.

use std::sync::Arc;

use super::value::Byte;

/// The bytes a path wrote to one stream, as the writes that sent them:
/// a write of many bytes is one step, not one per byte (`yes` writes a
/// mebibyte on each path), and a fork shares every write before it.
#[derive(Clone, Debug, Default)]
pub struct Output {
    writes: imbl::Vector<Arc<Vec<Byte>>>,
    len: usize,
}

impl Output {
    /// How many bytes were written.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds one write's bytes after those before it.
    pub fn push(&mut self, bytes: Vec<Byte>) {
        if bytes.is_empty() {
            return;
        }
        self.len += bytes.len();
        self.writes.push_back(Arc::new(bytes));
    }

    /// Every byte, in the order written.
    pub fn bytes(&self) -> impl Iterator<Item = &Byte> {
        self.writes.iter().flat_map(|w| w.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_read_back_in_order_and_forks_keep_their_own() {
        let mut out = Output::default();
        out.push(vec![Byte::Concrete(b'a'), Byte::Concrete(b'b')]);
        out.push(Vec::new());
        let mut fork = out.clone();
        out.push(vec![Byte::Concrete(b'c')]);
        fork.push(vec![Byte::Concrete(b'x'), Byte::Concrete(b'y')]);
        let text = |o: &Output| {
            o.bytes()
                .map(|b| match b {
                    Byte::Concrete(v) => *v,
                    Byte::Symbolic(_) => b'?',
                })
                .collect::<Vec<u8>>()
        };
        assert_eq!(text(&out), b"abc");
        assert_eq!(out.len(), 3);
        assert_eq!(text(&fork), b"abxy");
        assert_eq!(fork.len(), 4);
        assert!(Output::default().is_empty());
    }
}
