//! The language runtimes gqlbench knows, in one list (a target.toml's `runtime` names one):
//! the name each is spelled with (also the first word of a report's runtime label, "python
//! 3.11.7"), its language (the report's "servers by language"), and for a compiled one the
//! toolchain asked for its version. A runtime added here is known to the catalogue, the run
//! and the report at once.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    Node,
    Bun,
    Deno,
    Python,
    Go,
    Rust,
    Java,
}

impl Runtime {
    pub const ALL: [Runtime; 7] = [
        Runtime::Node,
        Runtime::Bun,
        Runtime::Deno,
        Runtime::Python,
        Runtime::Go,
        Runtime::Rust,
        Runtime::Java,
    ];

    /// As target.toml spells it.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Node => "node",
            Runtime::Bun => "bun",
            Runtime::Deno => "deno",
            Runtime::Python => "python",
            Runtime::Go => "go",
            Runtime::Rust => "rust",
            Runtime::Java => "java",
        }
    }

    pub fn from_name(name: &str) -> Option<Runtime> {
        Runtime::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The runtime of a runtime label as results store it ("node v20.20.2", "go 1.26.8").
    pub fn of_label(label: &str) -> Option<Runtime> {
        Runtime::from_name(label.split_whitespace().next()?)
    }

    /// The language its servers are written in (the report's "servers by language").
    pub fn language(self) -> &'static str {
        match self {
            Runtime::Node | Runtime::Bun | Runtime::Deno => "JavaScript",
            Runtime::Python => "Python",
            Runtime::Go => "Go",
            Runtime::Rust => "Rust",
            Runtime::Java => "Java",
        }
    }

    /// For a compiled target: the program (and its arguments) that prints the toolchain's
    /// version when run in the target's folder, where a go.mod `toolchain` line or a
    /// rust-toolchain file picks it (for Java, the JVM that starts it).
    pub fn toolchain(self) -> Option<(&'static str, &'static [&'static str])> {
        match self {
            Runtime::Go => Some(("go", &["env", "GOVERSION"])),
            Runtime::Rust => Some(("rustc", &["--version"])),
            Runtime::Java => Some(("java", &["-version"])),
            Runtime::Node | Runtime::Bun | Runtime::Deno | Runtime::Python => None,
        }
    }

    /// The version in the toolchain's first line ("go1.26.8", "rustc 1.95.0 (...)",
    /// `openjdk version "17.0.15" ...`); None when it says something else.
    pub fn parse_toolchain_version(self, text: &str) -> Option<String> {
        let line = text.lines().next()?.trim();
        let v = match self {
            Runtime::Go => line.strip_prefix("go")?,
            Runtime::Rust => line.strip_prefix("rustc ")?.split_whitespace().next()?,
            Runtime::Java => line.split('"').nth(1)?,
            Runtime::Node | Runtime::Bun | Runtime::Deno | Runtime::Python => return None,
        };
        v.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
            .then(|| v.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_labels_and_languages_agree() {
        for r in Runtime::ALL {
            assert_eq!(Runtime::from_name(r.name()), Some(r));
            assert_eq!(Runtime::of_label(&format!("{} 1.2.3", r.name())), Some(r));
        }
        assert_eq!(Runtime::from_name("cobol"), None);
        assert_eq!(Runtime::of_label(""), None);
        assert_eq!(
            Runtime::of_label("bun 1.4.4").map(Runtime::language),
            Some("JavaScript")
        );
        assert_eq!(
            Runtime::of_label("python 3.11.7").map(Runtime::language),
            Some("Python")
        );
    }

    #[test]
    fn toolchains_name_their_versions_and_anything_else_is_none() {
        let p = |r: Runtime, text: &str| r.parse_toolchain_version(text);
        assert_eq!(p(Runtime::Go, "go1.26.8\n").as_deref(), Some("1.26.8"));
        assert_eq!(
            p(Runtime::Rust, "rustc 1.95.0 (59807616e 2026-04-14)\n").as_deref(),
            Some("1.95.0")
        );
        let java = "openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment\n";
        assert_eq!(p(Runtime::Java, java).as_deref(), Some("17.0.15"));
        assert_eq!(p(Runtime::Go, "command not found"), None);
        assert_eq!(p(Runtime::Java, "Error: no JVM"), None);
        assert_eq!(p(Runtime::Node, "v20.20.2"), None);
        assert!(Runtime::Node.toolchain().is_none() && Runtime::Rust.toolchain().is_some());
    }
}
