import Foundation
import PathwatchTestSupport
import Testing

/// The repository's root holds only the entries it is meant to: what git tracks there and what
/// it does not ignore is one of `allowed`. A build's leftovers, an editor's files or a stray
/// output at the root fail here, named, rather than being committed by the next `git add -A`.
@Suite struct RepositoryRootTests {
    /// The entries of the root, files and folders, that belong in the repository.
    static let allowed: Set<String> = [
        ".ci", ".gitignore", ".swift-format", "LICENSE", "Makefile", "Package.swift", "README.md", "Plugins", "SDK",
        "Sources", "Tests", "bench", "config.json", "dist", "docs", "tools",
    ]

    /// Why there is no git here, or nil.
    static let gitMissing: String? =
        (try? run(["sh", "-c", "command -v git"]).status) == 0 ? nil : "needs git to list the repository's root"

    /// Why git cannot list this repository (no git, or a source tree without `.git`), or nil.
    static let repositoryMissing: String? =
        gitMissing
        ?? (FileManager.default.fileExists(atPath: Distribution.root.appendingPathComponent(".git").path)
            ? nil : "the source tree has no .git (an exported copy): nothing tells an ignored file from another")

    @Test(.enabled(if: Self.repositoryMissing == nil, "\(Self.repositoryMissing ?? "")"))
    func theRootHoldsOnlyTheEntriesItIsMeantTo() throws {
        let entries = try Self.entries(at: Distribution.root)
        #expect(entries.contains("Package.swift") && entries.contains("Sources"))
        let unexpected = entries.subtracting(Self.allowed).sorted()
        #expect(unexpected.isEmpty, "\(Self.report(unexpected))")
    }

    /// The listing is git's: a tracked file, an untracked file and an untracked folder count, an
    /// ignored file and folder do not, and each is named once, by its name at the root.
    @Test(.enabled(if: Self.gitMissing == nil, "\(Self.gitMissing ?? "")"))
    func theListingIsWhatGitDoesNotIgnore() throws {
        let folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-root")
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        let made = try run(["git", "-C", folder.path, "init", "--quiet"])
        #expect(made.status == 0, "\(made.stderr)")
        let files = [
            ".gitignore": ".build/\n*.log\n", "Package.swift": "", "Sources/A/A.swift": "", "notes.txt": "",
            "scratch/x.swift": "", ".build/debug/x.o": "", "run.log": "",
        ]
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let added = try run(["git", "-C", folder.path, "add", ".gitignore", "Package.swift", "Sources"])
        #expect(added.status == 0, "\(added.stderr)")
        let entries = try Self.entries(at: folder)
        #expect(entries == [".gitignore", "Package.swift", "Sources", "notes.txt", "scratch"])
        #expect(Self.report(["notes.txt"]).contains("notes.txt: at the repository's root"))
    }

    /// The root's entries that git tracks or does not ignore: `git ls-files` of both, each path
    /// cut to its first component (an untracked folder is listed once, as a folder).
    static func entries(at root: URL) throws -> Set<String> {
        let listed = try run([
            "git", "-c", "safe.directory=\(root.path)", "-C", root.path, "ls-files", "-z", "--cached", "--others",
            "--exclude-standard", "--directory", "--no-empty-directory",
        ])
        guard listed.status == 0 else { throw TestFailure("git ls-files in \(root.path): \(listed.stderr)") }
        let paths = listed.stdout.split(separator: "\0")
        return Set(paths.compactMap { $0.split(separator: "/").first.map(String.init) })
    }

    /// One line for each unexpected entry, with what to do about it.
    static func report(_ unexpected: [String]) -> String {
        let lines = unexpected.map { name in
            "\(name): at the repository's root, neither expected there nor ignored by git. Remove it, or ignore it "
                + "in .gitignore if a tool makes it; if it belongs in the repository, add it to "
                + "RepositoryRootTests.allowed (Tests/DistributionTests/RepositoryRootTests.swift)."
        }
        return "\n" + lines.joined(separator: "\n")
    }
}
