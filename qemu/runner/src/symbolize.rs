//! Turns a kernel fault's instruction pointer into a source location.
//!
//! The kernel prints `rip=0x…` in its fault report but carries no symbol
//! table; the runner has the kernel ELF with debug info, so it adds the
//! file and line after the run.

use std::path::Path;

/// Extracts the `rip=0x…` value from a kernel fault line.
pub fn fault_rip(line: &str) -> Option<u64> {
    if !line.contains("KERNEL FAULT") {
        return None;
    }
    let hex = line.split("rip=0x").nth(1)?;
    let end = hex
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(hex.len());
    u64::from_str_radix(&hex[..end], 16).ok()
}

/// The innermost source location of `rip` that is the project's own code
/// (inlined library frames such as `core::ptr` say little at 2 a.m.).
fn project_location(loader: &addr2line::Loader, rip: u64) -> Option<String> {
    let mut frames = loader.find_frames(rip).ok()?;
    let mut first = None;
    while let Ok(Some(frame)) = frames.next() {
        let Some(loc) = frame.location else { continue };
        let text = format!(
            "{}:{}",
            loc.file.unwrap_or("?"),
            loc.line.map_or("?".into(), |l| l.to_string())
        );
        let ours = loc
            .file
            .is_some_and(|f| !f.starts_with("/rustc/") && !f.contains("/.cargo/registry/"));
        if ours {
            return Some(text);
        }
        first.get_or_insert(text);
    }
    first
}

/// One line per kernel fault in `output`, naming its source location.
pub fn annotate(output: &str, kernel: &Path) -> Vec<String> {
    let rips: Vec<u64> = output.lines().filter_map(fault_rip).collect();
    if rips.is_empty() {
        return Vec::new();
    }
    let loader = match addr2line::Loader::new(kernel) {
        Ok(l) => l,
        Err(e) => {
            return vec![format!(
                "conflux: cannot read kernel symbols from {}: {e}",
                kernel.display()
            )]
        }
    };
    rips.into_iter()
        .map(|rip| match project_location(&loader, rip) {
            Some(loc) => format!("conflux: kernel fault at {rip:#x} is {loc}"),
            None => format!(
                "conflux: kernel fault at {rip:#x}: no source line in {}",
                kernel.display()
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_rip_only_in_kernel_fault_lines() {
        let l = "conflux: KERNEL FAULT: page fault (#PF, vector 14), error code 0x2, rip=0xffffffff80101234 rsp=0x1";
        assert_eq!(fault_rip(l), Some(0xffff_ffff_8010_1234));
        assert_eq!(fault_rip("conflux: task 'x' faulted: ... rip=0x1234"), None);
    }
}
