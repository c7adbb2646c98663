import CSnappy

/// Snappy's block format through Debian's libsnappy, opened on first use (`CSnappy`).
enum Snappy {
    /// Whether libsnappy can be loaded; the configuration check refuses the sink otherwise.
    static var available: Bool { pw_snappy_available() != 0 }

    /// `bytes` compressed, or nil when the library is missing or refused.
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        let room = pw_snappy_max_compressed_length(bytes.count)
        guard room > 0 else { return nil }
        var length: Int?
        // Written by snappy before it is read: not zeroed first.
        let out = [UInt8](unsafeUninitializedCapacity: room) { output, initialized in
            length = compress(bytes, into: output)
            initialized = length ?? 0
        }
        return length == nil ? nil : out
    }

    /// The room `compress(_:into:)` needs for `count` bytes; 0 when the library is missing.
    static func maxCompressedLength(_ count: Int) -> Int { pw_snappy_max_compressed_length(count) }

    /// Compresses `bytes` into `output` (at least `maxCompressedLength` bytes): the bytes
    /// written, or nil when the library is missing or refused.
    static func compress(_ bytes: [UInt8], into output: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        var length = output.count
        let status = bytes.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { i in
                output.withMemoryRebound(to: CChar.self) { o in
                    pw_snappy_compress(i.baseAddress, i.count, o.baseAddress, &length)
                }
            }
        }
        return status == 0 ? length : nil
    }

    /// A block decompressed, or nil when it is not one (the tests read requests back with it).
    static func uncompress(_ bytes: [UInt8]) -> [UInt8]? {
        var length = 0
        let known = bytes.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { pw_snappy_uncompressed_length($0.baseAddress, $0.count, &length) }
        }
        guard known == 0 else { return nil }
        var out = [UInt8](repeating: 0, count: length)
        let status = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                input.withMemoryRebound(to: CChar.self) { i in
                    output.withMemoryRebound(to: CChar.self) { o in
                        pw_snappy_uncompress(i.baseAddress, i.count, o.baseAddress, &length)
                    }
                }
            }
        }
        return status == 0 ? out : nil
    }
}
