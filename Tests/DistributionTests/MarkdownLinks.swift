import Foundation

/// The relative links of a Markdown document, and what each must find: a file of the repository,
/// and, after a `#`, a heading of that document (as GitHub makes its anchor). Links to the web
/// and links inside fenced code are not followed.
struct MarkdownLinks {
    struct Link: Equatable {
        var line: Int
        /// The target as written, relative to the document's folder.
        var target: String
        var path: Substring { target.prefix { $0 != "#" } }
        var anchor: Substring? { target.firstIndex(of: "#").map { target[target.index(after: $0)...] } }
    }

    private(set) var links: [Link] = []
    /// The anchors of the document's own headings.
    private(set) var anchors: Set<String> = []

    init(text: String) {
        var inCode = false
        var counts: [String: Int] = [:]
        for (number, line) in numberedLines(text) {
            if line.drop(while: { $0 == " " }).hasPrefix("```") { inCode.toggle() }
            if inCode { continue }
            if line.hasPrefix("#") {
                let slug = Self.anchor(ofHeading: line.drop { $0 == "#" }.drop { $0 == " " })
                let seen = counts[slug, default: 0]
                anchors.insert(seen == 0 ? slug : "\(slug)-\(seen)")
                counts[slug] = seen + 1
            }
            var rest = line[...]
            while let open = rest.range(of: "](") {
                rest = rest[open.upperBound...]
                guard let close = rest.firstIndex(of: ")") else { break }
                var target = rest[..<close].prefix { $0 != " " }
                if target.hasPrefix("<") { target = target.dropFirst().prefix { $0 != ">" } }
                if !target.isEmpty && !target.contains(":") { links.append(Link(line: number, target: String(target))) }
            }
        }
    }

    /// GitHub's anchor for a heading: lower case, spaces as hyphens, and only letters, digits,
    /// hyphens and underscores kept.
    static func anchor(ofHeading heading: Substring) -> String {
        String(
            heading.lowercased().compactMap { (c: Character) -> Character? in
                c == " " ? "-" : (c.isLetter || c.isNumber || c == "-" || c == "_") ? c : nil
            })
    }
}
