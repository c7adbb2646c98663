import Foundation
import PathwatchTestSupport

/// An out-of-tree walkthrough in a document (docs/plugins.md): the fenced block after each
/// `<!-- walkthrough-c: NAME -->` marker (or another prefix). The tests run exactly these, so the
/// document cannot drift from what works.
struct Walkthrough {
    var blocks: [String: String]
    var document: String

    init(document: URL, prefix: String) throws {
        let text = try String(contentsOf: document, encoding: .utf8)
        self.document = document.lastPathComponent
        var blocks: [String: String] = [:]
        var rest = Substring(text)
        while let marker = rest.range(of: "<!-- \(prefix): ") {
            let afterMarker = rest[marker.upperBound...]
            guard let end = afterMarker.range(of: " -->") else { break }
            let name = String(afterMarker[..<end.lowerBound])
            let afterEnd = afterMarker[end.upperBound...]
            guard let fence = afterEnd.range(of: "```"),
                let lineEnd = afterEnd[fence.upperBound...].firstIndex(of: "\n"),
                let close = afterEnd[lineEnd...].range(of: "\n```")
            else { break }
            blocks[name] = String(afterEnd[afterEnd.index(after: lineEnd)..<close.lowerBound]) + "\n"
            rest = afterEnd[close.upperBound...]
        }
        self.blocks = blocks
    }

    func block(_ name: String) throws -> String {
        guard let block = blocks[name] else { throw TestFailure("\(document) has no walkthrough block \"\(name)\"") }
        return block
    }
}
