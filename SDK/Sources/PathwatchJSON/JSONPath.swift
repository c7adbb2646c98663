/// A location inside a JSON document, written the way operators read it:
/// `probes[2].config.targets[0].url`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }

    /// Parses the rendered form back ("targets[0].url"); used for paths a plug-in reports.
    public init(parsing text: String) {
        var components: [Component] = []
        var current = ""
        var chars = text.makeIterator()
        func flush() {
            if !current.isEmpty {
                components.append(.key(current))
                current = ""
            }
        }
        while let c = chars.next() {
            switch c {
            case ".":
                flush()
            case "[":
                flush()
                var inside = ""
                while let d = chars.next(), d != "]" { inside.append(d) }
                if let index = Int(inside) {
                    components.append(.index(index))
                } else {
                    components.append(.key(inside.trimmingQuotes()))
                }
            default:
                current.append(c)
            }
        }
        flush()
        self.components = components
    }

    public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
    public func appending(index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }
    public func appending(_ other: JSONPath) -> JSONPath { JSONPath(components + other.components) }

    public var isEmpty: Bool { components.isEmpty }

    public var description: String {
        var out = ""
        for component in components {
            switch component {
            case .index(let i):
                out += "[\(i)]"
            case .key(let k) where k.isPlainIdentifier:
                out += out.isEmpty ? k : ".\(k)"
            case .key(let k):
                out += "[\"\(k)\"]"
            }
        }
        return out.isEmpty ? "(root)" : out
    }
}

extension String {
    fileprivate var isPlainIdentifier: Bool {
        !isEmpty && allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
    }

    fileprivate func trimmingQuotes() -> String {
        if count >= 2, first == "\"", last == "\"" { return String(dropFirst().dropLast()) }
        return self
    }
}

/// An error that names where in a JSON document it happened and what was expected.
public struct JSONPathError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: JSONPath
    public var message: String

    public init(path: JSONPath, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
