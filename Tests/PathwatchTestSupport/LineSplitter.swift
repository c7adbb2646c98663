import Foundation

/// A child's output as it comes, in chunks, cut into lines. A chunk ends wherever the pipe's read
/// did, which may be inside a character of several bytes, so bytes are kept until their line is
/// whole and only a whole line is decoded. Not locked: its owner holds its own lock around it.
public struct LineSplitter {
    private var pending: [UInt8] = []

    public init() {}

    /// The lines `chunk` completes, without their newlines.
    public mutating func lines(completedBy chunk: Data) -> [String] {
        pending.append(contentsOf: chunk)
        guard let last = pending.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        let whole = pending[..<last].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        pending.removeSubrange(...last)
        return whole.map { String(decoding: $0, as: UTF8.self) }
    }
}
