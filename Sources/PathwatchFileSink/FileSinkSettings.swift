import PathwatchSinkKit

/// The `file` sink's settings (contract §5).
package struct FileSinkSettings: SinkMaking, Decodable, Equatable {
    /// What the file holds: the status document, or its metrics for node_exporter's textfile
    /// collector (which reads `*.prom` files replaced atomically, as this sink replaces them).
    package enum Format: String, Sendable, Equatable {
        case json, prometheus
    }

    /// Relative to the config file's folder.
    package var path: String
    package var pretty: Bool = true
    package var format: Format = .json
    /// The file's permission bits, set whatever the process's umask (the unit's `UMask=0027`
    /// would leave a textfile unreadable to node_exporter); nil: the umask decides, as for any
    /// file the agent creates.
    package var mode: UInt32?

    enum CodingKeys: String, CodingKey { case path, pretty, format, mode }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        path = try c.decode(String.self, forKey: .path)
        guard !path.isEmpty, !path.hasSuffix("/") else {
            throw DecodingError.dataCorruptedError(
                forKey: .path, in: c, debugDescription: "expected a file path, found \"\(path)\"")
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .format) {
            guard let format = Format(rawValue: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .format, in: c, debugDescription: "expected \"json\" or \"prometheus\", found \"\(text)\"")
            }
            self.format = format
        }
        if c.contains(.pretty) && format == .prometheus {
            throw DecodingError.dataCorruptedError(
                forKey: .pretty, in: c, debugDescription: "applies to the \"json\" format only")
        }
        pretty = try c.decodeIfPresent(Bool.self, forKey: .pretty) ?? true
        if let text = try c.decodeIfPresent(String.self, forKey: .mode) {
            guard let mode = Self.permissionBits(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .mode, in: c,
                    debugDescription:
                        "expected permission bits in octal, such as \"0644\", not writable by others, found \"\(text)\""
                )
            }
            self.mode = mode
        }
    }

    /// "0644" or "644": read and write bits only (no set-user-ID, set-group-ID or sticky bit),
    /// and never writable by others, who could then replace what the agent reports.
    static func permissionBits(_ text: String) -> UInt32? {
        guard (3...4).contains(text.count), text.allSatisfy({ ("0"..."7").contains($0) }),
            let bits = UInt32(text, radix: 8), bits <= 0o777, bits & 0o002 == 0
        else { return nil }
        return bits
    }
}
