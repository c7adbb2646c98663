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
///
/// The runtime's own line ("Fatal error: …", "Precondition failed: …") is kept as well, however
/// many lines follow it: a debug build prints a stack trace after it, which pushed it out of the
/// last lines, and it is the one line that says why. Shown before the last lines, it gets at most
/// `fatalShownBytes` of the room, cut at its end.
package struct StderrTail {
    package static let lines = 4
    package static let shownBytes = 512
    package static let lineBytes = 4_096
    package static let fatalShownBytes = 224
    /// What the Swift runtime writes before it stops the process on a failed check.
    static let fatalMarkers = ["Fatal error", "Precondition failed", "Assertion failed"].map { Array($0.utf8) }

    private var kept: [[UInt8]] = []
    private var partial: [UInt8] = []
    /// The last runtime line once it is no longer among `kept`.
    private var fatal: [UInt8]?

    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                endLine()
            } else if partial.count < Self.lineBytes {
                partial.append(byte)
            }
        }
    }

    /// The last lines, oldest first, joined by " | ", after the runtime's line when it is not one
    /// of them; the last lines' end kept when longer than the room left ("…" where it was cut).
    /// Nil when the child wrote nothing but blank lines.
    package func text(redactedBy redactor: SecretRedactor) -> String? {
        var all = kept
        if !Self.isBlank(partial) { all.append(partial) }
        let recent = all.suffix(Self.lines)
        // A runtime line among the last ones says it already; an older one is then another story.
        var older: [UInt8]?
        if !recent.contains(where: Self.isFatal) {
            older = all.dropLast(recent.count).last(where: Self.isFatal) ?? fatal
        }
        func shown(_ line: [UInt8]) -> String {
            TextSafety.escaped(redactor.redact(String(decoding: line, as: UTF8.self)))
        }
        let lines = recent.map(shown)
        guard let older else {
            return lines.isEmpty ? nil : Self.endKept(lines.joined(separator: " | "), Self.shownBytes)
        }
        let first = Self.startKept(shown(older), Self.fatalShownBytes)
        return first + " | " + Self.endKept(lines.joined(separator: " | "), Self.shownBytes - first.utf8.count - 3)
    }

    /// `text`, or its end in `limit` bytes after "…".
    private static func endKept(_ text: String, _ limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var scalars = Substring(text).unicodeScalars[...]
        var bytes = text.utf8.count
        while bytes > limit - 3, let first = scalars.first {
            bytes -= String(first).utf8.count
            scalars = scalars.dropFirst()
        }
        return "…" + String(String.UnicodeScalarView(scalars))
    }

    /// `text`, or its start in `limit` bytes before "…".
    private static func startKept(_ text: String, _ limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var scalars = Substring(text).unicodeScalars[...]
        var bytes = text.utf8.count
        while bytes > limit - 3, let last = scalars.last {
            bytes -= String(last).utf8.count
            scalars = scalars.dropLast()
        }
        return String(String.UnicodeScalarView(scalars)) + "…"
    }

    private mutating func endLine() {
        defer { partial.removeAll(keepingCapacity: true) }
        guard !Self.isBlank(partial) else { return }
        kept.append(partial)
        guard kept.count > Self.lines else { return }
        let leaving = kept.removeFirst()
        if Self.isFatal(leaving) { fatal = leaving }
    }

    /// A line the runtime wrote when it stopped on a failed check ("…/main.swift:12: Fatal error:
    /// Index out of range"): a marker near its start, after the file and line it names.
    static func isFatal(_ line: [UInt8]) -> Bool {
        // Bounded: every line that leaves the window is looked at, and a chatty plug-in writes many.
        let start = line.prefix(1_024)
        return fatalMarkers.contains { marker in
            start.indices.contains { i in start[i...].starts(with: marker) }
        }
    }

    private static func isBlank(_ line: [UInt8]) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    }
}
