/// What the documentation checks read from the repository.
extension DocumentationTests {
    /// The folders whose files may cite the contract, and the kinds of file read there.
    static let citingFolders = ["Sources", "Plugins", "SDK", "Tests", "docs", "dist", "tools", "bench"]
    static let citingSuffixes = [".swift", ".md", ".c", ".h", ".py", ".sh"]

    static var citingFiles: [String] {
        ["README.md", "Makefile"] + citingFolders.flatMap { repository.files(under: $0, endingWith: citingSuffixes) }
    }

    /// Every Markdown document of the repository: the README, docs/, and the modules' and plug-ins' own.
    static var markdownDocuments: [String] {
        ["README.md"] + citingFolders.flatMap { repository.files(under: $0, endingWith: [".md"]) }
    }

    /// The sink modules: the modules `Sources/PathwatchSinks` imports that extend `SinkKind`
    /// (where a kind is declared), and every `Sources/Pathwatch*Sink` folder besides.
    static func sinkModules() throws -> [String] {
        var modules = Set(
            repository.folders(under: "Sources").map { $0.dropFirst("Sources/".count) }.filter {
                $0.hasPrefix("Pathwatch") && $0.hasSuffix("Sink") && !$0.contains("/")
            }.map(String.init))
        for file in repository.files(under: "Sources/PathwatchSinks", endingWith: [".swift"]) {
            for line in try repository.text(file).split(separator: "\n") where line.hasPrefix("import ") {
                let module = String(line.dropFirst("import ".count))
                let declaresKind = try repository.files(under: "Sources/\(module)", endingWith: [".swift"]).contains {
                    try repository.text($0).contains("extension SinkKind")
                }
                if declaresKind { modules.insert(module) }
            }
        }
        return modules.sorted()
    }

    /// The links of `document` whose file, or whose heading in it, is not there.
    static func brokenLinks(_ links: MarkdownLinks, in document: String) throws -> [DocumentFinding] {
        var findings: [DocumentFinding] = []
        for link in links.links {
            let path = link.path.isEmpty ? document : resolve(String(link.path), from: document)
            if !link.path.isEmpty && !repository.exists(path) {
                let what = "links to \(link.target): no file \(path)"
                findings.append(DocumentFinding(file: document, line: link.line, what: what))
                continue
            }
            guard let anchor = link.anchor, path.hasSuffix(".md") else { continue }
            let target = link.path.isEmpty ? links : MarkdownLinks(text: try repository.text(path))
            if !target.anchors.contains(String(anchor)) {
                let what = "links to \(link.target): no heading #\(anchor) in \(path)"
                findings.append(DocumentFinding(file: document, line: link.line, what: what))
            }
        }
        return findings
    }

    /// `path`, written in `document`, as a path from the repository's root.
    static func resolve(_ path: String, from document: String) -> String {
        var parts = document.split(separator: "/").dropLast().map(String.init)
        for part in path.split(separator: "/") {
            if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(String(part)) }
        }
        return parts.joined(separator: "/")
    }
}
