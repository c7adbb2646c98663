extension CodeMap {
    /// The folders the map must name, at the depth it draws them: every folder of the agent's
    /// and the SDK's modules, down to their sub-folders; under Plugins/, each plug-in's folder
    /// and what sits in it beside the layout every plug-in shares (its C modules, the example).
    /// `include/` and a `.docc` catalogue are build conventions, named by no map.
    static func requiredFolders(in repository: RepositoryFiles) -> [String] {
        let modules = (repository.folders(under: "Sources") + repository.folders(under: "SDK/Sources")).filter { path in
            !path.split(separator: "/").contains { $0 == "include" || $0.hasSuffix(".docc") }
        }
        let pluginLayout: Set<Substring> = ["Entry", "Sources", "Tests", "Fixtures"]
        let plugins = repository.folders(under: "Plugins").filter { path in
            let parts = path.split(separator: "/")
            return parts.count == 2 || (parts.count == 3 && !pluginLayout.contains(parts[2]))
        }
        return modules + plugins
    }

    /// Where the map and the tree disagree: a required folder the map does not name (reported
    /// at the nearest folder above it that the map names, where its line belongs), and a path
    /// the map names that does not exist.
    func findings(file: String, required: [String], exists: (String) -> Bool) -> [DocumentFinding] {
        var lineOf: [String: Int] = [:]
        for name in names where lineOf[Self.folderPath(name.path)] == nil {
            lineOf[Self.folderPath(name.path)] = name.line
        }
        var findings: [DocumentFinding] = []
        for folder in required where lineOf[folder] == nil {
            var parent = Substring(folder)
            var line = 1
            while let slash = parent.lastIndex(of: "/") {
                parent = parent[..<slash]
                if let found = lineOf[String(parent)] {
                    line = found
                    break
                }
            }
            findings.append(
                DocumentFinding(file: file, line: line, what: "names no folder \(folder)/ (under \(parent)/)"))
        }
        for name in names where !exists(name.path) {
            findings.append(
                DocumentFinding(file: file, line: name.line, what: "names \(name.path), which does not exist"))
        }
        return findings
    }

    private static func folderPath(_ path: String) -> String {
        path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}
