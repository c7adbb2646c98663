/// The tree in docs/map-of-the-code.md, read as the paths it names.
///
/// The tree is the document's first fenced block. An entry's line starts with its names
/// ("PathwatchNetlink/, CNetlink/"), indented two spaces a level under the folder above it; what
/// it holds follows further right, and the lines that continue a description start in that
/// column. A path a description spells with a capital and a slash ("Process/", "Exec/CSpawn/") is
/// inside its entry's folder. A name ending in "/" is a folder.
struct CodeMap {
    struct Name: Equatable {
        /// Relative to the repository's root; a folder's ends with "/".
        var path: String
        var line: Int
    }

    /// Lines indented this far or more continue the description above them; entries are nested
    /// far less deep than this, and descriptions start at twice this column.
    static let descriptionColumn = 16

    private(set) var names: [Name] = []

    init(text: String) {
        var folders: [(indent: Int, path: String)] = []
        var described = ""
        var inTree = false
        for (number, line) in numberedLines(text) {
            if line.hasPrefix("```") {
                if inTree { break }
                inTree = true
                continue
            }
            let indent = line.prefix { $0 == " " }.count
            guard inTree, indent < line.count else { continue }
            var description = line.dropFirst(indent)
            if indent < Self.descriptionColumn {
                while let last = folders.last, last.indent >= indent { folders.removeLast() }
                let parent = folders.last?.path ?? ""
                let entry = Self.splitEntry(description)
                names += entry.names.map { Name(path: parent + $0, line: number) }
                described = parent
                if let first = entry.names.first, first.hasSuffix("/") {
                    folders.append((indent, parent + first))
                    described = parent + first
                }
                description = entry.rest
            }
            names += Self.pathsSpelled(in: description).map { Name(path: described + $0, line: number) }
        }
    }

    /// The names an entry's line starts with ("CCurl/, CCurlShims/, CJSONC/"), and the rest.
    static func splitEntry(_ line: Substring) -> (names: [String], rest: Substring) {
        var names: [String] = []
        var rest = line
        while true {
            let name = rest.prefix { $0 != " " }
            rest = rest.dropFirst(name.count).drop { $0 == " " }
            let continues = name.hasSuffix(",")
            names.append(String(continues ? name.dropLast() : name))
            if !continues || rest.isEmpty { return (names, rest) }
        }
    }

    /// The paths a description spells: words that start with a capital and hold a slash.
    static func pathsSpelled(in text: Substring) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || "/_-+.".contains($0)) }
            .map { (word: Substring) -> String in
                var word = word
                while word.hasSuffix(".") { word = word.dropLast() }
                return String(word)
            }
            .filter { $0.first?.isUppercase == true && $0.contains("/") }
    }
}
