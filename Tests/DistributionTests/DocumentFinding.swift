import Foundation

/// One thing a document gets wrong, and where: shown as `file:line: what`, so a failing check
/// says which line to fix and what it lacks.
struct DocumentFinding: CustomStringConvertible, Equatable {
    var file: String
    var line: Int
    var what: String

    var description: String { "\(file):\(line): \(what)" }
}

extension [DocumentFinding] {
    /// One finding a line, for a failed expectation's message.
    var report: String { isEmpty ? "none" : "\n" + map(\.description).joined(separator: "\n") }
}

/// The lines of a text, numbered from 1 as editors number them.
func numberedLines(_ text: String) -> [(number: Int, text: Substring)] {
    text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { ($0.offset + 1, $0.element) }
}
