/// An array a plug-in hands over (metrics, labels), walked with the plug-in's own element size.
///
/// A plug-in built against a later header may have grown `pw_metric` or `pw_label` at their
/// end (the header allows it): its `metrics[i]` then lies `i × its struct_size` bytes in, not
/// `i × ours`. One built against an earlier header hands elements smaller than ours (`pw_metric`
/// before its labels): the fields past its size read as zero. The first element's `struct_size`
/// is the stride; every element must carry the same one, at least the first layout's size, and
/// the host reads only the fields it knows of each.
public struct PluginArray<Element> {
    /// A stride beyond this is taken as garbage rather than a grown struct.
    public static var maximumStride: Int { 4_096 }

    public let base: UnsafeRawPointer
    public let count: Int
    public let stride: Int

    /// Nil with the reason when the array cannot be walked safely. With `memory`, the array
    /// (its first element's size, then every element) must lie in readable memory.
    /// `minimumSize` is the element's size in the first layout of the header (`pw_metric` grew).
    public static func open(
        _ pointer: UnsafePointer<Element>?, count: Int, minimumSize: Int = MemoryLayout<Element>.size,
        memory: ReadableMemory? = nil
    ) -> PluginCheck<PluginArray> {
        // A size_t count past Int.max (SIZE_MAX for one) arrives negative: no array is that long.
        guard count >= 0 else {
            return .refused(ArrayProblem(description: "count \(UInt(bitPattern: count)) is not a count"))
        }
        guard count > 0 else {
            return .accepted(PluginArray(base: UnsafeRawPointer(bitPattern: 1)!, count: 0, stride: 0))
        }
        guard let pointer else { return .refused(ArrayProblem(description: "array is null but its count is \(count)")) }
        let base = UnsafeRawPointer(pointer)
        if let memory, !memory.canRead(base, count: MemoryLayout<Int>.size) {
            return .refused(ArrayProblem(description: "array points outside the library's memory"))
        }
        let stride = base.load(as: Int.self)
        guard stride >= minimumSize, stride <= maximumStride, stride % MemoryLayout<Element>.alignment == 0 else {
            return .refused(
                ArrayProblem(
                    description:
                        "element struct_size \(stride) is not a size between \(minimumSize) and \(maximumStride) bytes, aligned to \(MemoryLayout<Element>.alignment)"
                ))
        }
        // count × stride cannot overflow for the counts callers allow, but is checked anyway.
        let (bytes, overflow) = count.multipliedReportingOverflow(by: stride)
        if let memory, overflow || !memory.canRead(base, count: bytes) {
            return .refused(
                ArrayProblem(
                    description: "array of \(count) elements of \(stride) bytes reaches outside the library's memory"))
        }
        return .accepted(PluginArray(base: base, count: count, stride: stride))
    }

    /// Element `i`, or nil when its struct_size differs from the first element's.
    public func element(_ i: Int) -> Element? {
        let raw = base + i * stride
        guard raw.load(as: Int.self) == stride else { return nil }
        guard stride < MemoryLayout<Element>.size else { return raw.load(as: Element.self) }
        // An element of an earlier layout: its bytes, then zeros for the fields it has not.
        return withUnsafeTemporaryAllocation(
            byteCount: MemoryLayout<Element>.size, alignment: MemoryLayout<Element>.alignment
        ) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.baseAddress!.copyMemory(from: raw, byteCount: stride)
            return buffer.baseAddress!.load(as: Element.self)
        }
    }
}

/// What a check of something a plug-in handed over found: the checked value, or why it is
/// refused. A `Result` without its `Failure: Error` requirement: the runtime checks that
/// requirement when it first makes the type, by searching every loaded image's conformances
/// (some 150,000 instructions), and it made it on every thread of the first samples at once.
/// (A typed throw instead copied each checked metric and observation through its type's
/// metadata: 0.7k instructions more a mount in the disk probe.)
public enum PluginCheck<Value> {
    case accepted(Value)
    case refused(ArrayProblem)
}

public struct ArrayProblem: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}
