//! Lowering LLVM bitcode into mnemo's IR (being written).
use super::{LoadError, Module};
use std::path::Path;

/// Loads a `.bc` or `.ll` file and links the given runtime bitcode files into it.
pub fn load_module(path: &Path, _runtime: &[&Path]) -> Result<Module, LoadError> {
    Err(LoadError::Read { path: path.to_path_buf(), message: "loader not yet written".into() })
}

/// Loads a module from bytes (bitcode or textual IR).
pub fn load_module_from_memory(name: &str, _bytes: &[u8]) -> Result<Module, LoadError> {
    Err(LoadError::Read { path: name.into(), message: "loader not yet written".into() })
}
