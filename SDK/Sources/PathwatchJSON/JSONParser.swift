/// A strict RFC 8259 JSON parser that reports syntax errors by line and column.
///
/// Written here rather than borrowed because config errors must say *where*, objects must keep
/// their order, and plug-ins must not need Foundation to read their own config.
public enum JSONParser {
    /// A syntax error at a 1-based line and column.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var message: String
        public var description: String { "line \(line), column \(column): \(message)" }
    }

    /// Deeper nesting than this is refused rather than risking the stack.
    public static let maxDepth = 256

    public static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        var bytes = Array(text.utf8)
        return try parse(bytes: &bytes)
    }

    public static func parse(bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var copy = bytes
        return try parse(bytes: &copy)
    }

    static func parse(bytes: inout [UInt8]) throws(SyntaxError) -> JSONValue {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        let value = try reader.parseValue(depth: 0)
        reader.skipWhitespace()
        if !reader.atEnd { throw reader.error("unexpected text after the JSON value") }
        return value
    }

    struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            // A UTF-8 byte order mark is tolerated, as editors write one.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                self.bytes = Array(bytes.dropFirst(3))
            } else {
                self.bytes = bytes
            }
        }

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        func error(_ message: String) -> SyntaxError {
            var line = 1
            var column = 1
            for b in bytes[..<min(index, bytes.count)] {
                if b == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if b & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return SyntaxError(line: line, column: column, message: message)
        }

        mutating func skipWhitespace() {
            while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { index += 1 }
        }

        mutating func expect(_ literal: String, _ value: JSONValue) throws(SyntaxError) -> JSONValue {
            let start = index
            for b in literal.utf8 {
                guard peek == b else {
                    index = start
                    throw error("invalid literal (expected \(literal))")
                }
                index += 1
            }
            return value
        }

        mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth < JSONParser.maxDepth else { throw error("nesting deeper than \(JSONParser.maxDepth)") }
            guard let b = peek else { throw error("unexpected end of input, expected a value") }
            switch b {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected character '\(Character(Unicode.Scalar(b)))', expected a value")
            }
        }

        mutating func parseObject(depth: Int) throws(SyntaxError) -> JSONValue {
            index += 1
            var object = JSONObject()
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\"") else { throw error("expected a quoted member name") }
                let key = try parseString()
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { throw error("expected ':' after member name \"\(key)\"") }
                index += 1
                skipWhitespace()
                if object[key] != nil { throw error("duplicate member \"\(key)\"") }
                object[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return .object(object)
                default: throw error("expected ',' or '}' in object")
                }
            }
        }

        mutating func parseArray(depth: Int) throws(SyntaxError) -> JSONValue {
            index += 1
            var array: [JSONValue] = []
            skipWhitespace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return .array(array)
            }
            while true {
                skipWhitespace()
                array.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return .array(array)
                default: throw error("expected ',' or ']' in array")
                }
            }
        }

        mutating func parseHex4() throws(SyntaxError) -> UInt32 {
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let b = peek else { throw error("truncated \\u escape") }
                let digit: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw error("invalid hex digit in \\u escape")
                }
                v = v << 4 | digit
                index += 1
            }
            return v
        }

        mutating func parseString() throws(SyntaxError) -> String {
            index += 1  // opening quote
            // Most strings hold no escape: their bytes become the String as they are.
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
                bytes[end] >= 0x20
            {
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                guard let s = Self.text(bytes[index..<end]) else { throw error("string is not valid UTF-8") }
                index = end + 1
                return s
            }
            var out = Array(bytes[index..<end])
            index = end
            while true {
                guard let b = peek else { throw error("unterminated string") }
                index += 1
                switch b {
                case UInt8(ascii: "\""):
                    guard let s = Self.text(out[...]) else { throw error("string is not valid UTF-8") }
                    return s
                case UInt8(ascii: "\\"):
                    guard let e = peek else { throw error("unterminated escape") }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try parseHex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard peek == UInt8(ascii: "\\") else { throw error("unpaired surrogate in \\u escape") }
                            index += 1
                            guard peek == UInt8(ascii: "u") else { throw error("unpaired surrogate in \\u escape") }
                            index += 1
                            let low = try parseHex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    default:
                        throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'")
                    }
                case 0x00..<0x20:
                    index -= 1
                    throw error("control character in string (escape it)")
                default:
                    out.append(b)
                }
            }
        }

        mutating func parseNumber() throws(SyntaxError) -> JSONValue {
            let start = index
            if peek == UInt8(ascii: "-") { index += 1 }
            func digits(_ r: inout Reader) -> Int {
                var n = 0
                while let b = r.peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                    r.index += 1
                    n += 1
                }
                return n
            }
            if peek == UInt8(ascii: "0") {
                index += 1
                if let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                    throw error("leading zeros are not allowed in numbers")
                }
            } else if digits(&self) == 0 {
                throw error("expected digits in number")
            }
            if peek == UInt8(ascii: ".") {
                index += 1
                if digits(&self) == 0 { throw error("expected digits after decimal point") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                if digits(&self) == 0 { throw error("expected digits in exponent") }
            }
            if let integer = Self.smallInteger(bytes[start..<index]) { return .number(integer) }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                index = start
                throw error("number out of range")
            }
            return Self.isLargeInteger(bytes[start..<index]) ? .largeInteger(text) : .number(value)
        }

        /// `bytes` as a String; nil when they are not UTF-8. ASCII, most of what a config or a
        /// frame holds, needs no validation, and `String(validating:)` costs several times
        /// `String(decoding:)`.
        static func text(_ bytes: ArraySlice<UInt8>) -> String? {
            if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
            return String(validating: bytes, as: UTF8.self)
        }

        /// Whether `literal` is an integer (digits only, after an optional "-") of magnitude
        /// 2^53 = 9007199254740992 or more, which a double may not hold exactly.
        static func isLargeInteger(_ literal: ArraySlice<UInt8>) -> Bool {
            let digits = literal.first == UInt8(ascii: "-") ? literal.dropFirst() : literal
            guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
            let threshold = Array("9007199254740992".utf8)
            // No leading zeros (the grammar refuses them), so more digits is a larger magnitude.
            return digits.count > threshold.count
                || (digits.count == threshold.count && !digits.lexicographicallyPrecedes(threshold))
        }

        /// The value of an integer literal of at most 15 digits (below 2^53, so exact as a
        /// Double), without going through a String; nil for any other number.
        static func smallInteger(_ literal: ArraySlice<UInt8>) -> Double? {
            let negative = literal.first == UInt8(ascii: "-")
            let digits = negative ? literal.dropFirst() : literal
            guard !digits.isEmpty, digits.count <= 15 else { return nil }
            var value: Int64 = 0
            for b in digits {
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(b - UInt8(ascii: "0"))
            }
            // "-0" is negative zero, as Double("-0") reads it.
            return negative ? -Double(value) : Double(value)
        }
    }
}
