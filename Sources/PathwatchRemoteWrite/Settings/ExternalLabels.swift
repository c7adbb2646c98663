import PathwatchSinkKit

/// `external_labels`: an object of Prometheus label names to non-empty values, added to every
/// series of every report. Bounded, because every series carries all of them: 10,000 labels or
/// a megabyte of value would make each report hundreds of megabytes to encode and queue. The
/// bounds sit well inside what receivers accept by default (Mimir and Cortex: 30 labels a
/// series, names of 1,024 bytes, values of 2,048), leaving room for a series' own labels.
/// A value may come from a secret (`${env:…}`, `${file:…}`): errors never quote one, nor say
/// how long it is.
enum ExternalLabels {
    static let maxCount = 16
    static let maxNameBytes = 128
    static let maxValueBytes = 1024
    /// All names and values together: what the labels add to each series at most.
    static let maxTotalBytes = 4096

    typealias Keys = RemoteWriteSinkSettings.CodingKeys

    static func decode(_ c: ConfigObject<Keys>) throws -> [RemoteWriteSinkSettings.Label] {
        guard c.contains(.externalLabels) else { return [] }
        let nested = try c.nestedContainer(keyedBy: NameKey.self, forKey: .externalLabels)
        guard nested.allKeys.count <= maxCount else {
            throw DecodingError.dataCorruptedError(
                forKey: .externalLabels, in: c,
                debugDescription:
                    "expected at most \(maxCount) labels, found \(nested.allKeys.count) (every series carries them all)"
            )
        }
        var labels: [RemoteWriteSinkSettings.Label] = []
        var total = 0
        for key in nested.allKeys {
            let name = key.stringValue
            // A name this long is not repeated in the path: the message shows its start.
            guard name.utf8.count <= maxNameBytes else {
                throw DecodingError.dataCorruptedError(
                    forKey: .externalLabels, in: c,
                    debugDescription: "the label name \"\(name.prefix(24))…\" is longer than \(maxNameBytes) bytes")
            }
            let value = try nested.decode(String.self, forKey: key)
            try check(name: name, value: value, key: key, in: nested)
            total += name.utf8.count + value.utf8.count
            labels.append(RemoteWriteSinkSettings.Label(name: name, value: value))
        }
        guard total <= maxTotalBytes else {
            throw DecodingError.dataCorruptedError(
                forKey: .externalLabels, in: c,
                debugDescription:
                    "expected at most \(maxTotalBytes) bytes of names and values together (every series carries them all)"
            )
        }
        return labels.sorted { $0.name < $1.name }
    }

    private static func check(name: String, value: String, key: NameKey, in nested: ConfigObject<NameKey>)
        throws
    {
        guard isLabelName(name) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: nested,
                debugDescription: "expected a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)")
        }
        guard !value.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: nested, debugDescription: "expected a non-empty label value")
        }
        guard value.utf8.count <= maxValueBytes else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: nested, debugDescription: "expected a value of at most \(maxValueBytes) bytes")
        }
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, without the `__` prefix Prometheus keeps for itself.
    static func isLabelName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !text.hasPrefix("__") else { return false }
        let letter: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_" }
        return letter(first) && text.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) }
    }
}
