import PathwatchJSON
import PathwatchSinkKit

/// The last lines a plug-in's child wrote to its stderr, for the cause of its crash: a Swift
/// plug-in's runtime says why it traps ("Fatal error: Index out of range") on stderr just before
/// the signal that is otherwise all the agent sees.
///
/// Bounded whatever the child writes: it keeps the last `lines` non-blank lines, each cut at
/// `lineBytes`, and shows at most `shownBytes` of them. What it shows passed the agent's secret
/// redactor (a plug-in may print the config it was given) and has its control characters
/// escaped, so it is one line in a log and a status document.
package struct StderrTail {
    package static let lines = 4
    package static let shownBytes = 512
    package static let lineBytes = 4_096

    private var kept: [[UInt8]] = []
    private var partial: [UInt8] = []

    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                endLine()
            } else if partial.count < Self.lineBytes {
                partial.append(byte)
            }
        }
    }

    /// The last lines, oldest first, joined by " | "; its end kept when longer than `shownBytes`
    /// ("…" where it was cut). Nil when the child wrote nothing but blank lines.
    package func text(redactedBy redactor: SecretRedactor) -> String? {
        var all = kept
        if !Self.isBlank(partial) { all.append(partial) }
        let lines = all.suffix(Self.lines).map {
            TextSafety.escaped(redactor.redact(String(decoding: $0, as: UTF8.self)))
        }
        guard !lines.isEmpty else { return nil }
        var text = lines.joined(separator: " | ")
        guard text.utf8.count > Self.shownBytes else { return text }
        var scalars = Substring(text).unicodeScalars[...]
        var bytes = text.utf8.count
        while bytes > Self.shownBytes - 3, let first = scalars.first {
            bytes -= String(first).utf8.count
            scalars = scalars.dropFirst()
        }
        text = "…" + String(String.UnicodeScalarView(scalars))
        return text
    }

    private mutating func endLine() {
        defer { partial.removeAll(keepingCapacity: true) }
        guard !Self.isBlank(partial) else { return }
        kept.append(partial)
        if kept.count > Self.lines { kept.removeFirst() }
    }

    private static func isBlank(_ line: [UInt8]) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    }
}
