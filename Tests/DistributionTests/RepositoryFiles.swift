import Foundation

/// The repository's files as the documentation checks read them: paths relative to its root,
/// hidden folders (`.build`, `.git`) left out.
struct RepositoryFiles {
    let root: URL

    func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    /// Every folder under `path`, at any depth, sorted.
    func folders(under path: String) -> [String] {
        entries(under: path).filter(\.isFolder).map(\.path)
    }

    /// Every file under `path`, at any depth, whose name ends with one of `suffixes`, sorted.
    func files(under path: String, endingWith suffixes: [String]) -> [String] {
        entries(under: path).filter { entry in
            !entry.isFolder && suffixes.contains { entry.path.hasSuffix($0) }
        }.map(\.path)
    }

    private func entries(under path: String) -> [(path: String, isFolder: Bool)] {
        let base = root.appendingPathComponent(path)
        guard
            let walk = FileManager.default.enumerator(
                at: base, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
        else { return [] }
        var found: [(path: String, isFolder: Bool)] = []
        let prefix = base.standardizedFileURL.path + "/"
        for case let url as URL in walk {
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(prefix) else { continue }
            let isFolder = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            found.append((path + "/" + String(full.dropFirst(prefix.count)), isFolder))
        }
        return found.sorted { $0.path < $1.path }
    }
}
