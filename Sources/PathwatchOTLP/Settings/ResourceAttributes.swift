import PathwatchRemoteWrite
import PathwatchSinkKit

/// `resource_attributes`: an object of attribute keys to non-empty string values, added to the
/// agent's resource (`deployment.environment.name`, `cloud.region`, a team's own), replacing
/// one of the agent's of the same key. Bounded as remote write's `external_labels` are: every
/// series the queue defines carries them. A value may come from a secret: errors never quote
/// one, nor say how long it is.
enum ResourceAttributes {
    static let maxCount = 16
    static let maxKeyBytes = 128
    static let maxValueBytes = 1024

    typealias Keys = OTLPSinkSettings.CodingKeys

    static func decode(_ c: ConfigObject<Keys>) throws -> [OTLPAttribute] {
        guard c.contains(.resourceAttributes) else { return [] }
        let nested = try c.nestedContainer(keyedBy: AttributeKey.self, forKey: .resourceAttributes)
        guard nested.allKeys.count <= maxCount else {
            throw DecodingError.dataCorruptedError(
                forKey: .resourceAttributes, in: c,
                debugDescription: "expected at most \(maxCount) attributes, found \(nested.allKeys.count)")
        }
        var attributes: [OTLPAttribute] = []
        for key in nested.allKeys {
            let name = key.stringValue
            guard !name.isEmpty, name.utf8.count <= maxKeyBytes,
                name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .resourceAttributes, in: c,
                    debugDescription:
                        "the attribute key \"\(name.prefix(24))\" is not 1 to \(maxKeyBytes) bytes without spaces or control characters"
                )
            }
            let value = try nested.decode(String.self, forKey: key)
            guard !value.isEmpty, value.utf8.count <= maxValueBytes else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: nested, debugDescription: "expected a value of 1 to \(maxValueBytes) bytes")
            }
            attributes.append(OTLPAttribute(name, value))
        }
        return attributes.sorted { $0.key < $1.key }
    }

    struct AttributeKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
