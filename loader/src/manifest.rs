//! A library's manifest, read with libloading before abi_stable touches the
//! library, and the version rule that decides whether the host may load it.

use crate::LoadError;
use std::fmt;
use std::path::Path;
use txlab_plugin_api::abi::{
    ManifestV1, PluginManifest, MANIFEST_MAGIC, MANIFEST_SYMBOL, MANIFEST_VERSION,
};
use txlab_plugin_api::{AbiLine, IrVersion, ABI_LINE, IR_VERSION, PLUGIN_API_VERSION};

/// What a library's manifest says about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestInfo {
    pub library_name: String,
    pub library_version: String,
    /// 1: written by txlab-plugin-api 0.1.x; 2: by later versions.
    pub manifest_version: u32,
    pub abi_line: AbiLine,
    pub ir: IrVersion,
    /// The txlab-plugin-api version the library was built against.
    pub plugin_api_version: String,
    pub abi_stable_version: String,
}

impl ManifestInfo {
    /// The two versions that decide loading, for listings: `0.1 (IR 1.1)`.
    pub fn versions(&self) -> String {
        format!("{} (IR {})", self.abi_line, self.ir)
    }
}

impl fmt::Display for ManifestInfo {
    /// `txlab-oracle-wss 0.2.0`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.library_name, self.library_version)
    }
}

/// Reads a library's manifest with libloading. The library stays loaded: plugin
/// libraries are never unloaded.
pub fn probe(path: &Path) -> Result<ManifestInfo, LoadError> {
    check_whole(path)?;
    // SAFETY: loading a library runs its initialisers; txlab only loads files
    // from the plugin directories the user named.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| LoadError::Open {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let bad = |reason: String| LoadError::BadManifest {
        path: path.to_path_buf(),
        reason,
    };
    // SAFETY: the symbol, when present, is a manifest static. Every manifest
    // version starts with `ManifestV1`'s fields, and the magic and version are
    // checked before the fields of a later version are read.
    let manifest = unsafe {
        let sym =
            lib.get::<*const ManifestV1>(MANIFEST_SYMBOL)
                .map_err(|_| LoadError::NotAPlugin {
                    path: path.to_path_buf(),
                })?;
        let v1: &ManifestV1 = &**sym;
        if v1.magic != MANIFEST_MAGIC {
            return Err(bad("wrong magic bytes".into()));
        }
        let read = PluginManifest::read_str;
        let mut info = ManifestInfo {
            library_name: read(v1.library_name),
            library_version: read(v1.library_version),
            manifest_version: v1.manifest_version,
            abi_line: AbiLine {
                major: v1.abi_major,
                minor: v1.abi_minor,
            },
            // Manifest version 1 carried the plugin-api version, whose
            // `major.minor` was the ABI line; its IR was 1.0.
            ir: IrVersion { major: 1, minor: 0 },
            plugin_api_version: format!("{}.{}.{}", v1.abi_major, v1.abi_minor, v1.abi_patch),
            abi_stable_version: read(v1.abi_stable_version),
        };
        match v1.manifest_version {
            1 => {}
            2 => {
                let v2 = &*(*sym).cast::<PluginManifest>();
                info.ir = IrVersion {
                    major: v2.ir_major,
                    minor: v2.ir_minor,
                };
                info.plugin_api_version = read(v2.plugin_api_version);
            }
            v => {
                return Err(bad(format!(
                    "manifest version {v} (this txlab reads versions 1 to {MANIFEST_VERSION}): \
                     upgrade txlab or rebuild the plugin against txlab-plugin-api {PLUGIN_API_VERSION}"
                )))
            }
        }
        info
    };
    std::mem::forget(lib);
    Ok(manifest)
}

/// Why a library's versions rule it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mismatch {
    AbiLine,
    IrMajor,
    IrTooNew,
}

/// The version rule: the same ABI line, the same IR major, and an IR minor no
/// newer than the host's.
pub(crate) fn check_versions(m: &ManifestInfo) -> Result<(), Mismatch> {
    if m.abi_line != ABI_LINE {
        Err(Mismatch::AbiLine)
    } else if m.ir.major != IR_VERSION.major {
        Err(Mismatch::IrMajor)
    } else if m.ir.minor > IR_VERSION.minor {
        Err(Mismatch::IrTooNew)
    } else {
        Ok(())
    }
}

/// What to do about a library built for a newer version than the host's, or an
/// older one.
fn advice(newer: bool) -> String {
    if newer {
        format!("upgrade txlab or rebuild the plugin against txlab-plugin-api {PLUGIN_API_VERSION}")
    } else {
        format!("rebuild the plugin against txlab-plugin-api {PLUGIN_API_VERSION}")
    }
}

pub(crate) fn abi_line_message(path: &Path, m: &ManifestInfo) -> String {
    let newer = (m.abi_line.major, m.abi_line.minor) > (ABI_LINE.major, ABI_LINE.minor);
    format!(
        "{} ({m}) was built for txlab plugin ABI {} (txlab-plugin-api {}), this txlab loads ABI {ABI_LINE} only: {}",
        path.display(),
        m.abi_line,
        m.plugin_api_version,
        advice(newer)
    )
}

pub(crate) fn ir_major_message(path: &Path, m: &ManifestInfo) -> String {
    format!(
        "{} ({m}) was built for txlab IR {}, this txlab reads IR {}.0 to {IR_VERSION}: {}",
        path.display(),
        m.ir,
        IR_VERSION.major,
        advice(m.ir.major > IR_VERSION.major)
    )
}

pub(crate) fn ir_too_new_message(path: &Path, m: &ManifestInfo) -> String {
    format!(
        "{} ({m}) was built for txlab IR {}, this txlab reads IR up to {IR_VERSION}: {}",
        path.display(),
        m.ir,
        advice(true)
    )
}

/// Refuses an ELF library whose headers point past the end of the file (a
/// truncated copy): the dynamic loader maps such a file and the process dies
/// of SIGBUS when it touches the missing pages, before any error can be
/// reported. Other formats are left to the loader.
fn check_whole(path: &Path) -> Result<(), LoadError> {
    use object::read::elf::{FileHeader, ProgramHeader};
    use std::io::Read;
    let open = |reason: String| LoadError::Open {
        path: path.to_path_buf(),
        reason,
    };
    let mut file = std::fs::File::open(path).map_err(|e| open(e.to_string()))?;
    let length = file.metadata().map_err(|e| open(e.to_string()))?.len();
    // The ELF header and the program headers sit at the start of the file.
    let mut head = Vec::new();
    file.by_ref()
        .take(64 * 1024)
        .read_to_end(&mut head)
        .map_err(|e| open(e.to_string()))?;
    if !head.starts_with(b"\x7fELF") {
        return Ok(());
    }
    let truncated = |what: String| {
        open(format!(
            "the file is damaged or truncated ({length} bytes): {what}; copy or build the library again"
        ))
    };
    let header = object::elf::FileHeader64::<object::Endianness>::parse(head.as_slice())
        .map_err(|e| truncated(e.to_string()))?;
    let endian = header.endian().map_err(|e| truncated(e.to_string()))?;
    let segments = header
        .program_headers(endian, head.as_slice())
        .map_err(|e| truncated(e.to_string()))?;
    for segment in segments {
        let (offset, size) = segment.file_range(endian);
        if offset.checked_add(size).is_none_or(|end| end > length) {
            return Err(truncated(format!(
                "a segment ends at byte {}",
                offset.saturating_add(size)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(line: (u32, u32), ir: (u32, u32)) -> ManifestInfo {
        ManifestInfo {
            library_name: "txlab-x".into(),
            library_version: "9.9.9".into(),
            manifest_version: 2,
            abi_line: AbiLine {
                major: line.0,
                minor: line.1,
            },
            ir: IrVersion {
                major: ir.0,
                minor: ir.1,
            },
            plugin_api_version: "9.9.9".into(),
            abi_stable_version: "0.11.3".into(),
        }
    }

    #[test]
    fn the_version_rule() {
        let line = (ABI_LINE.major, ABI_LINE.minor);
        let ir = (IR_VERSION.major, IR_VERSION.minor);
        assert_eq!(check_versions(&manifest(line, ir)), Ok(()));
        // Older IR minors of the same major load: the host fills in the rest.
        for minor in 0..IR_VERSION.minor {
            assert_eq!(check_versions(&manifest(line, (ir.0, minor))), Ok(()));
        }
        assert_eq!(
            check_versions(&manifest(line, (ir.0, ir.1 + 1))),
            Err(Mismatch::IrTooNew)
        );
        assert_eq!(
            check_versions(&manifest(line, (ir.0 + 1, 0))),
            Err(Mismatch::IrMajor)
        );
        assert_eq!(
            check_versions(&manifest(line, (ir.0 - 1, 5))),
            Err(Mismatch::IrMajor)
        );
        assert_eq!(
            check_versions(&manifest((line.0, line.1 + 1), ir)),
            Err(Mismatch::AbiLine)
        );
        // The crate version plays no part.
        let mut m = manifest(line, ir);
        m.plugin_api_version = "0.1.0".into();
        assert_eq!(check_versions(&m), Ok(()));
    }

    #[test]
    fn messages_are_one_line_and_say_what_to_rebuild() {
        let p = Path::new("/plugins/libtxlab_x.so");
        let m = manifest((ABI_LINE.major, ABI_LINE.minor), (1, 3));
        let rebuild = format!("rebuild the plugin against txlab-plugin-api {PLUGIN_API_VERSION}");
        let text = ir_too_new_message(p, &m);
        assert_eq!(
            text,
            format!("/plugins/libtxlab_x.so (txlab-x 9.9.9) was built for txlab IR 1.3, this txlab reads IR up to {IR_VERSION}: upgrade txlab or {rebuild}")
        );
        let text = ir_major_message(p, &manifest((0, 1), (0, 4)));
        assert!(text.ends_with(&format!(": {rebuild}")), "{text}");
        assert!(!text.contains("upgrade"), "{text}");
        let text = abi_line_message(p, &manifest((7, 0), (1, 0)));
        assert!(text.contains("built for txlab plugin ABI 7.0 (txlab-plugin-api 9.9.9)"));
        assert!(
            text.ends_with(&format!("upgrade txlab or {rebuild}")),
            "{text}"
        );
        for t in [
            ir_too_new_message(p, &m),
            ir_major_message(p, &m),
            abi_line_message(p, &m),
        ] {
            assert!(!t.contains('\n'), "{t}");
        }
    }

    #[test]
    fn a_file_that_is_not_a_library_gives_an_open_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("libtxlab_garbage.so");
        std::fs::write(&path, b"not an ELF file").unwrap();
        let e = probe(&path).unwrap_err();
        assert!(matches!(e, LoadError::Open { .. }), "{e}");
        assert!(e.to_string().starts_with("cannot open "), "{e}");
    }
}
