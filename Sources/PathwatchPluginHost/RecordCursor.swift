import PathwatchSinkKit

/// Fills room already made at the end of a byte array, field by field, with plain stores and
/// copies through a pointer. The writer measures what it will write, grows the array by that
/// much once, and fills it: appending each field to the Array (a uniqueness and a capacity
/// check through the runtime, then a copy) cost more per disk check than the plug-in's emit.
package struct RecordCursor {
    private var next: UnsafeMutableRawPointer
    private let end: UnsafeMutableRawPointer

    /// Grows `bytes` by `size` bytes and hands `fill` a cursor over them; `fill` must write
    /// exactly that many (checked: a size measured wrongly would leave bytes no one wrote).
    package static func append(_ size: Int, to bytes: inout [UInt8], _ fill: (inout RecordCursor) -> Void) {
        let start = bytes.count
        appendZeros(size, to: &bytes)
        bytes.withUnsafeMutableBytes { raw in
            var cursor = RecordCursor(next: raw.baseAddress! + start, end: raw.baseAddress! + start + size)
            fill(&cursor)
            precondition(cursor.next == cursor.end, "record room made but not filled")
        }
    }

    private init(next: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer) {
        self.next = next
        self.end = end
    }

    package mutating func byte(_ value: UInt8) { store(value) }

    /// A count or a length, as a little-endian u32.
    package mutating func count(_ value: Int) { store(UInt32(truncatingIfNeeded: value).littleEndian) }

    package mutating func number(_ value: Double) { store(value.bitPattern.littleEndian) }

    package mutating func bytes(_ source: UnsafeRawBufferPointer) {
        guard let from = source.baseAddress, source.count > 0 else { return }
        precondition(source.count <= end - next, "record field past the room made for it")
        next.copyMemory(from: from, byteCount: source.count)
        next += source.count
    }

    private mutating func store<Value: FixedWidthInteger>(_ value: Value) {
        precondition(MemoryLayout<Value>.size <= end - next, "record field past the room made for it")
        next.storeBytes(of: value, as: Value.self)
        next += MemoryLayout<Value>.size
    }

    /// Zeros appended as one copy from a zeroed page (a repeated element is appended one by one).
    private static func appendZeros(_ size: Int, to bytes: inout [UInt8]) {
        var left = size
        while left > 0 {
            let chunk = min(left, zeros.count)
            zeros.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<chunk])) }
            left -= chunk
        }
    }

    private static let zeros = [UInt8](repeating: 0, count: 4096)
}
