import PathwatchProbeKit

/// Which HTTP status codes count as success: `200`, `"2xx"`, `"200-204"`, or a list of them.
struct StatusExpectation: Decodable, Hashable, CustomStringConvertible {
    var patterns: [StatusPattern]

    static let successful = StatusExpectation(patterns: [.range(200, 299, text: "2xx")])

    init(patterns: [StatusPattern]) { self.patterns = patterns }

    init(from decoder: any Decoder) throws {
        if var list = try? decoder.unkeyedContainer() {
            var patterns: [StatusPattern] = []
            while !list.isAtEnd { patterns.append(try list.decode(StatusPattern.self)) }
            guard !patterns.isEmpty else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath, debugDescription: "expected at least one status code or range"))
            }
            self.patterns = patterns
        } else {
            self.patterns = [try StatusPattern(from: decoder)]
        }
    }

    func matches(_ status: Int) -> Bool { patterns.contains { $0.matches(status) } }

    /// "2xx", "200, 202": how the expectation reads in a message.
    var description: String { patterns.map(\.description).joined(separator: ", ") }
}

/// One accepted status: a code or an inclusive range.
enum StatusPattern: Decodable, Hashable, CustomStringConvertible {
    case code(Int)
    case range(Int, Int, text: String)

    static let valid = 100...599

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            guard Self.valid.contains(number) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\(number) is not an HTTP status code; expected 100 to 599")
            }
            self = .code(number)
            return
        }
        guard let text = try? container.decode(String.self), let parsed = StatusPattern(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "expected a status code (200), a class (\"2xx\") or a range (\"200-204\")")
        }
        self = parsed
    }

    /// "200", "2xx" (any case of x) or "200-204", each code within 100...599.
    init?(parsing text: String) {
        let lowered = text.lowercased()
        if lowered.count == 3, lowered.hasSuffix("xx"), let digit = Int(lowered.prefix(1)), (1...5).contains(digit) {
            self = .range(digit * 100, digit * 100 + 99, text: lowered)
            return
        }
        if let code = Int(lowered), Self.valid.contains(code), lowered.count == 3 {
            self = .code(code)
            return
        }
        let bounds = lowered.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let low = Int(bounds[0]), let high = Int(bounds[1]),
            Self.valid.contains(low), Self.valid.contains(high), low <= high
        else { return nil }
        self = .range(low, high, text: "\(low)-\(high)")
    }

    func matches(_ status: Int) -> Bool {
        switch self {
        case .code(let code): status == code
        case .range(let low, let high, _): (low...high).contains(status)
        }
    }

    var description: String {
        switch self {
        case .code(let code): "\(code)"
        case .range(_, _, let text): text
        }
    }
}
